"""Plug-ins: modules outside the package, named in COLABENCH_PLUGINS (comma-separated module paths), imported once
so that what they register when imported (a memory system with its recipes and methods, ...) is known.

The mechanism sits here, below every room, so that each registry that can grow from outside (query.recipes,
agents.methods, agents.memory.registry) calls `load_plugins()` before it lists its names or calls a name unknown,
without importing a room above it. A plug-in module imports whatever registries it registers with."""

from __future__ import annotations

import importlib
import os
import threading

from graph.errors import PluginLoadError

PLUGINS_VARIABLE = "COLABENCH_PLUGINS"
_LOCK = threading.RLock()  # re-entrant: a plug-in that asks a registry for a name while it loads comes back here
_LOADED: set[str] = set()


def plugin_modules() -> list[str]:
    """The modules COLABENCH_PLUGINS names, in order."""
    return [m.strip() for m in os.environ.get(PLUGINS_VARIABLE, "").split(",") if m.strip()]


def load_plugins() -> list[str]:
    """Import each module named in COLABENCH_PLUGINS once; returns the modules named. A module that cannot be
    imported is one PluginLoadError naming the variable and the module (and is tried again next time)."""
    wanted = plugin_modules()
    with _LOCK:
        for module in wanted:
            if module in _LOADED:
                continue
            _LOADED.add(module)  # before the import: a registry the module calls while loading does not reload it
            try:
                importlib.import_module(module)
            except Exception as exc:
                _LOADED.discard(module)
                raise PluginLoadError(
                    f"{PLUGINS_VARIABLE}: plug-in module {module!r} could not be imported "
                    f"({type(exc).__name__}: {exc})"
                ) from exc
    return wanted
