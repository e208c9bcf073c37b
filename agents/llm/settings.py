"""LLM settings per role: environment variables first, then the `[llm.<role>]` and `[llm]` tables of
colabench.toml, then defaults.

For a role R (answerer, judge, state, memory, synthesis) a field F is read from, in order:
`COLABENCH_LLM_<R>_<F>`, `COLABENCH_LLM_<F>`, `[llm.<r>] f`, `[llm] f`. A role is *configured* when it has a
base URL. API keys come from `COLABENCH_LLM_<R>_API_KEY`, `COLABENCH_LLM_API_KEY`, `OPENAI_API_KEY`, or the
environment variable named by `api_key_env`; they are never written to the config file, logs or events.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

from agents.llm.errors import LLMConfigError
from graph.config_file import TableSettings, TomlTableSource
from graph.paths import cache_dir, data_dir

ROLES: tuple[str, ...] = ("answerer", "judge", "state", "memory", "synthesis")
# Roles whose requests carry gold (a judge reads the reference answer and requirements, synthesis writes them):
# what their endpoints answer in an error body may echo that request, so it is gold too (api/redaction.py).
GOLD_ROLES: frozenset[str] = frozenset({"judge", "synthesis"})


def role_carries_gold(role: str) -> bool:
    """True for a gold-bearing role, also as a failure records it (`judge@<model>` for a panel's judge, or
    `judge:<kind>`)."""
    return role.split("@", 1)[0].split(":", 1)[0].strip().lower() in GOLD_ROLES

StructuredMode = Literal["json_schema", "json_object"]
CacheMode = Literal["use", "refresh", "off"]


class LLMRoleSettings(BaseSettings):
    """How one role talks to its OpenAI-compatible endpoint."""

    model_config = SettingsConfigDict(extra="ignore", protected_namespaces=())
    ROLE: ClassVar[str] = ""

    role: str = ""
    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint, e.g. http://host:8080/v1")
    model: str | None = None
    api_key: SecretStr | None = None
    api_key_env: str | None = Field(default=None, description="name of an env var holding the key")
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    max_tokens: int = Field(default=4096, ge=1)
    timeout_s: float = Field(default=120.0, gt=0.0)
    concurrency: int = Field(default=4, ge=1, le=256)
    structured_mode: StructuredMode = "json_schema"
    max_retries: int = Field(default=6, ge=0, le=50, description="retries on 429/5xx/timeouts/malformed replies")
    retry_base_s: float = Field(default=1.0, ge=0.0)
    retry_max_s: float = Field(default=60.0, ge=0.0, description="the longest wait before a retry (Retry-After too)")
    retry_jitter: Literal["full", "decorrelated"] = Field(
        default="full", description="how retry waits are spread: full | decorrelated jitter"
    )
    retry_seed: int | None = Field(default=None, description="seeds the retry jitter (reproducible waits)")
    endpoint_concurrency: int = Field(
        default=8, ge=1, le=1024, description="requests in flight to this endpoint (URL + key), over all roles"
    )
    endpoint_rpm: int | None = Field(
        default=None, ge=1, description="requests per minute to this endpoint (URL + key), over all roles"
    )
    invalid_output_retries: int = Field(default=2, ge=0, le=10, description="re-asks after an invalid reply")
    seed: int | None = None
    price_in_per_mtok: float | None = Field(default=None, ge=0.0, description="USD per million input tokens")
    price_out_per_mtok: float | None = Field(default=None, ge=0.0, description="USD per million output tokens")
    price_cached_per_mtok: float | None = Field(
        default=None, ge=0.0, description="USD per million prompt tokens the endpoint's prefix cache served"
    )
    extra_body: dict[str, Any] = Field(default_factory=dict, description="provider-specific request fields")
    context_tokens: int | None = Field(
        default=None, ge=1, description="the role's context size (default: asked of the server's /props)"
    )
    strict_model: bool = Field(
        default=False, description="fail a reply whose `model` names another model than `model` (default: warn)"
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        role = cls.ROLE
        sources: list[PydanticBaseSettingsSource] = [init_settings]
        if role:
            sources.append(EnvSettingsSource(settings_cls, env_prefix=f"COLABENCH_LLM_{role.upper()}_"))
        sources.append(EnvSettingsSource(settings_cls, env_prefix="COLABENCH_LLM_"))
        if role:
            sources.append(TomlTableSource(settings_cls, f"llm.{role}"))
        sources.append(TomlTableSource(settings_cls, "llm"))
        return tuple(sources)

    @property
    def configured(self) -> bool:
        """True when this role has an endpoint to call."""
        return bool(self.base_url)

    def resolved_api_key(self) -> str:
        """The key to send: explicit setting, the env var named by api_key_env, OPENAI_API_KEY, else a
        placeholder (local OpenAI-compatible servers usually accept any key)."""
        if self.api_key is not None and self.api_key.get_secret_value():
            return self.api_key.get_secret_value()
        if self.api_key_env and os.environ.get(self.api_key_env):
            return os.environ[self.api_key_env]
        return os.environ.get("OPENAI_API_KEY") or "no-key"

    def require(self) -> None:
        """Raise LLMConfigError saying what to set when the role cannot make calls."""
        if not self.base_url:
            raise LLMConfigError(
                f"no LLM endpoint for role {self.role!r}: set COLABENCH_LLM_BASE_URL (all roles) or "
                f"COLABENCH_LLM_{self.role.upper()}_BASE_URL, or base_url in [llm] / [llm.{self.role}] "
                "of colabench.toml"
            )
        if not self.model:
            raise LLMConfigError(
                f"no model for role {self.role!r} at {public_url(self.base_url)}: set COLABENCH_LLM_MODEL or "
                f"COLABENCH_LLM_{self.role.upper()}_MODEL, or model in [llm] / [llm.{self.role}] of colabench.toml"
            )

    def public_record(self) -> dict[str, Any]:
        """What a run record may hold about this role: endpoint without credentials, model, parameters."""
        return {
            "base_url": public_url(self.base_url) if self.base_url else None,
            "model": self.model,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "structured_mode": self.structured_mode,
            "seed": self.seed,
            "extra_body": self.extra_body,
        }


def public_url(url: str) -> str:
    """The URL without user info, query or fragment (where credentials sometimes hide)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def load_role_settings(role: str, **overrides: Any) -> LLMRoleSettings:
    """Settings of one role from env and colabench.toml (read now, not cached: tests change the env)."""
    if role not in ROLES:
        raise LLMConfigError(f"unknown LLM role {role!r}; roles are {', '.join(ROLES)}")
    cls = type(f"LLMRoleSettings_{role}", (LLMRoleSettings,), {"ROLE": role, "__module__": __name__})
    settings: LLMRoleSettings = cls(role=role, **overrides)
    return settings


class LLMGlobalSettings(TableSettings):
    """Settings shared by every role: the response cache, the exchange store and the endpoint check. Env
    `COLABENCH_LLM_CACHE`, `..._CACHE_MODE`, `..._CACHE_NAMESPACE`, `..._EXCHANGES`, `..._ENDPOINT_CHECK`."""

    model_config = SettingsConfigDict(extra="ignore", env_prefix="COLABENCH_LLM_")

    cache: Path | None = Field(default=None, description="SQLite file of the response cache")
    cache_mode: CacheMode = Field(default="use", description="use | refresh (ignore hits, overwrite) | off")
    cache_namespace: str = Field(
        default="", description="scopes cached replies to one endpoint setup (e.g. `llama-server+chatml-tools`)"
    )

    exchanges: Path | None = Field(
        default=None, description="SQLite file keeping every request and reply (default: in the data directory)"
    )
    endpoint_check: bool = Field(
        default=True,
        description="check each role's endpoint and model once before a command's work (agents/llm/preflight.py)",
    )

    config_table: ClassVar[str] = "llm"

    @property
    def exchanges_path(self) -> Path:
        """`exchanges` if set, else the data directory's `llm_exchanges.sqlite` (it belongs with the event log
        whose events reference it, not with the machine-wide cache)."""
        return self.exchanges if self.exchanges is not None else data_dir() / "llm_exchanges.sqlite"

    @property
    def cache_path(self) -> Path:
        """`cache` if set, else the machine cache dir's `llm_responses.sqlite`."""
        return self.cache if self.cache is not None else cache_dir() / "llm_responses.sqlite"
