"""Named memory adapters, configured by environment variables: an adapter NAME is the memory system
`http:<name>` (name in lower case: letters, digits, `_`), reached at `COLABENCH_MEMORY_ADAPTER_<NAME>_URL`, with
`COLABENCH_MEMORY_ADAPTER_<NAME>_TIMEOUT` (seconds per request, default 30) and
`COLABENCH_MEMORY_ADAPTER_<NAME>_RETRIES` (tries after the first on a timeout, a refused connection or a 5xx,
default 2)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from pydantic import BaseModel, Field, ValidationError

from agents.memory.errors import AdapterConfigError

PREFIX = "http:"
ENV_PREFIX = "COLABENCH_MEMORY_ADAPTER_"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_]{0,39}$")
_URL_VAR = re.compile(rf"^{ENV_PREFIX}([A-Z0-9][A-Z0-9_]*)_URL$")


class AdapterSettings(BaseModel):
    """Where one named adapter answers and how long the client waits."""

    name: str
    url: str
    timeout_s: float = Field(default=30.0, gt=0)
    retries: int = Field(default=2, ge=0, le=10)

    @property
    def system(self) -> str:
        return f"{PREFIX}{self.name}"


def env_name(name: str) -> str:
    return f"{ENV_PREFIX}{name.upper()}"


def configured_adapter_names(environ: Mapping[str, str] | None = None) -> list[str]:
    """The adapter names that have a URL variable set (sorted)."""
    env = os.environ if environ is None else environ
    names = []
    for key, value in env.items():
        match = _URL_VAR.match(key)
        if match and value.strip():
            names.append(match.group(1).lower())
    return sorted(n for n in names if _NAME.match(n))


def adapter_settings(name: str, environ: Mapping[str, str] | None = None) -> AdapterSettings:
    """The settings of adapter `name`; AdapterConfigError says which variable to set or fix."""
    env = os.environ if environ is None else environ
    key = name.strip().lower()
    if not _NAME.match(key):
        raise AdapterConfigError(
            f"memory adapter name {name!r} is not valid: use lower-case letters, digits and `_` (at most 40), "
            f"as in `http:memos`"
        )
    base = env_name(key)
    url = env.get(f"{base}_URL", "").strip()
    if not url:
        raise AdapterConfigError(
            f"memory system 'http:{key}' is not configured: set {base}_URL to the adapter's base URL "
            "(docs/memory-adapter.md)"
        )
    if not url.startswith(("http://", "https://")):
        raise AdapterConfigError(f"{base}_URL={url!r} is not an http:// or https:// URL")
    values: dict[str, float | int] = {}
    for suffix, field, kind in (("TIMEOUT", "timeout_s", float), ("RETRIES", "retries", int)):
        raw = env.get(f"{base}_{suffix}", "").strip()
        if raw:
            try:
                values[field] = kind(raw)
            except ValueError:
                raise AdapterConfigError(f"{base}_{suffix}={raw!r} is not a number") from None
    try:
        return AdapterSettings(name=key, url=url.rstrip("/"), **values)  # type: ignore[arg-type]
    except ValidationError as exc:
        first = exc.errors()[0]
        field = {"timeout_s": "TIMEOUT", "retries": "RETRIES"}.get(str(first["loc"][0]), str(first["loc"][0]))
        raise AdapterConfigError(f"{base}_{field}: {first['msg']}") from None
