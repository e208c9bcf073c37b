"""API settings: environment variables first, then the `[api]` table of colabench.toml, then defaults."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from graph.config_file import TableSettings
from graph.paths import data_dir

MIN_TOKEN_LENGTH = 16


def _env(name: str, key: str) -> AliasChoices:
    return AliasChoices(name, key)


class ApiSettings(TableSettings):
    """How the API listens, who may write, and the limits every request is held to.

    Mutations are allowed only when `token` is configured and the request sends it as a bearer token;
    CORS is closed unless `cors_origins` lists origins; reports are served from `reports_dir`.
    """

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True)

    host: str = Field(default="127.0.0.1", validation_alias=_env("COLABENCH_API_HOST", "host"))
    port: int = Field(default=8000, ge=1, le=65535, validation_alias=_env("COLABENCH_API_PORT", "port"))
    token: str | None = Field(default=None, validation_alias=_env("COLABENCH_API_TOKEN", "token"), repr=False)
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, validation_alias=_env("COLABENCH_API_CORS_ORIGINS", "cors_origins")
    )
    max_body_bytes: int = Field(
        default=1_048_576, ge=1024, validation_alias=_env("COLABENCH_API_MAX_BODY_BYTES", "max_body_bytes")
    )
    max_depth: int = Field(default=10, ge=2, validation_alias=_env("COLABENCH_API_MAX_DEPTH", "max_depth"))
    max_tokens: int = Field(default=2000, ge=50, validation_alias=_env("COLABENCH_API_MAX_TOKENS", "max_tokens"))
    max_aliases: int = Field(default=30, ge=1, validation_alias=_env("COLABENCH_API_MAX_ALIASES", "max_aliases"))
    max_cost: int = Field(default=50_000, ge=10, validation_alias=_env("COLABENCH_API_MAX_COST", "max_cost"))
    reveal_reference_answers: bool = Field(
        default=False,
        validation_alias=_env("COLABENCH_API_REVEAL_REFERENCE_ANSWERS", "reveal_reference_answers"),
    )
    introspection: bool = Field(default=True, validation_alias=_env("COLABENCH_API_INTROSPECTION", "introspection"))
    reports_dir: Path | None = Field(default=None, validation_alias=_env("COLABENCH_REPORTS_DIR", "reports_dir"))
    memory_system: str = Field(
        default="raw_turns", validation_alias=_env("COLABENCH_API_MEMORY_SYSTEM", "memory_system")
    )
    log_json: bool = Field(default=True, validation_alias=_env("COLABENCH_API_LOG_JSON", "log_json"))
    response_cache_entries: int = Field(
        default=4096, ge=0, validation_alias=_env("COLABENCH_API_RESPONSE_CACHE_ENTRIES", "response_cache_entries")
    )
    response_cache_mib: int = Field(
        default=64, ge=1, validation_alias=_env("COLABENCH_API_RESPONSE_CACHE_MIB", "response_cache_mib")
    )

    config_table: ClassVar[str] = "api"

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("cors_origins")
    @classmethod
    def _no_wildcard(cls, value: list[str]) -> list[str]:
        for origin in value:
            if origin == "*" or not origin.startswith(("http://", "https://")):
                raise ValueError(
                    f"cors_origins entry {origin!r} is not an origin like https://example.org; "
                    "list the exact origins allowed to call the API (a wildcard is refused)"
                )
        return [origin.rstrip("/") for origin in value]

    @field_validator("token")
    @classmethod
    def _strong_token(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        if len(value) < MIN_TOKEN_LENGTH:
            raise ValueError(
                f"the API token must be at least {MIN_TOKEN_LENGTH} characters "
                "(e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
            )
        return value

    @property
    def mutations_enabled(self) -> bool:
        return self.token is not None

    @property
    def effective_reports_dir(self) -> Path:
        """`reports_dir` when set, else `<data dir>/reports` (where evaluation runs write their pages)."""
        return (self.reports_dir or data_dir() / "reports").resolve()
