"""The project's TOML configuration file, shared by every room: one table per concern."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, ClassVar

from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource

from graph.errors import UsageError
from graph.paths import REPO_ROOT


def config_path() -> Path | None:
    """COLABENCH_CONFIG if set, else ./colabench.toml in the repository root when it exists."""
    explicit = os.environ.get("COLABENCH_CONFIG")
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise FileNotFoundError(f"COLABENCH_CONFIG points at {path}, which is not a file")
        return path
    default = REPO_ROOT / "colabench.toml"
    return default if default.is_file() else None


def read_table(table: str) -> dict[str, Any]:
    """The named table (dotted names allowed, e.g. 'llm.judge') of the config file, or {}."""
    path = config_path()
    if path is None:
        return {}
    try:
        with path.open("rb") as handle:
            data: Any = tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from exc
    for part in table.split("."):
        if not isinstance(data, dict):
            return {}
        data = data.get(part, {})
    return dict(data) if isinstance(data, dict) else {}


class TomlTableSource(PydanticBaseSettingsSource):
    """Settings source reading one table of the config file; env vars take precedence over it."""

    def __init__(self, settings_cls: type[BaseSettings], table: str) -> None:
        super().__init__(settings_cls)
        self._values = read_table(table)

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self._values.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return {k: v for k, v in self._values.items() if k in self.settings_cls.model_fields}


class TableSettings(BaseSettings):
    """Base for settings read from init arguments, then environment variables, then one table of the
    config file named by the subclass's `config_table`."""

    config_table: ClassVar[str] = ""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlTableSource(settings_cls, cls.config_table))
