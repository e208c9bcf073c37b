"""Prompts of the synthesis roles, one module per stage; each module lists its templates in `TEMPLATES`.
Modules are discovered, so a stage's prompts touch only its own module. Every template renders its role's
view as `$view` (JSON) and nothing else from the graph."""

from __future__ import annotations

import importlib
import pkgutil

from agents.prompts.template import PromptTemplate


def synthesis_templates() -> list[PromptTemplate]:
    found: list[PromptTemplate] = []
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        found.extend(getattr(module, "TEMPLATES", []))
    return found
