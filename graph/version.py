"""The colabench version, worked out in one place: `project.version` of pyproject.toml (a checkout is usually not
pip-installed, so package metadata would not know it). Every room imports it from here."""

from __future__ import annotations

import tomllib
from functools import cache

from graph.paths import REPO_ROOT


@cache
def project_version() -> str:
    """The version in pyproject.toml, or "unknown" when the file cannot be read."""
    try:
        with (REPO_ROOT / "pyproject.toml").open("rb") as handle:
            return str(tomllib.load(handle)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


__version__ = project_version()
