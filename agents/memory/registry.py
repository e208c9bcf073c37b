"""The memory-system registry: each system declares its name, what it needs, how it builds a profile's memory
from the public history, which retrieval recipe its `memory_search` runs, and whether MemKB can link its cards.

A system is a folder, `agents/memory/<system>/`: its `declare.py` (imported by `discover_system_folders`, when
the agents room is first imported) registers, without importing the system's SDK, its retrieval recipe(s)
(query.recipes.register_recipe), its method(s) (agents.methods.register_method) and the system itself
(`declare_memory_system`: name, CLI help line, the module holding its `MemorySystem` class). That module is
imported on first use (`get_memory_system`), so commands that never build an LLM memory never import its SDK;
registering the class (`register_memory_system`) checks its `search_recipe` against the recipe. Two more ways
in, both read on first use of the registry:

- plug-ins: `COLABENCH_PLUGINS=pkg.module,other.module` names modules outside the package that register
  systems when imported (`load_plugins`);
- families: a name prefix whose systems are made on demand, e.g. `http:<name>` for any memory system behind the
  adapter protocol (agents/memory/adapter/, whose `declare.py` registers the family), listed when configured.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import pkgutil
import threading
from abc import ABC
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from agents.memory.errors import MemorySystemError, PluginLoadError, UnknownMemorySystemError
from agents.memory.pairs import HistoryPair
from graph.events import MemoryWritten
from graph.plugins import PLUGINS_VARIABLE as PLUGINS_VARIABLE
from graph.plugins import load_plugins as load_plugins
from graph.store import EventStore
from query.errors import UnknownRecipeError
from query.recipes import get_recipe

Progress = Callable[[int, int], None]

# name -> module whose import registers the system's class (imported on first use); filled by the folders
SYSTEM_MODULES: dict[str, str] = {}
# the module of a system folder that declares it (agents/memory/<system>/declare.py)
DECLARATION_MODULE = "declare"


@dataclass
class BuildContext:
    """What a build may use: the store, the retriever (document links), the `memory` role's LLM client (None
    when no endpoint is configured) and a progress callback (done, total)."""

    store: EventStore
    retriever: Any = None
    llm: Any = None
    progress: Progress | None = None
    options: dict[str, Any] = field(default_factory=dict)
    # the usage ledger endpoint requests that are not the LLM client's count into (an adapter's; optional)
    ledger: Any = None

    def __post_init__(self) -> None:
        from agents.memory.pair_replies import PairCachingLLM

        if self.llm is not None and not isinstance(self.llm, PairCachingLLM):
            self.llm = PairCachingLLM(self.llm)  # a pair's replies are cached only once the pair is written


class BuildReport(BaseModel):
    """What one build of one profile did and cost (pairs skipped were built before: resume)."""

    system: str
    profile_id: str
    pairs_total: int = 0
    pairs_built: int = 0
    pairs_skipped: int = 0
    memories_added: int = 0
    memories_updated: int = 0
    memories_deleted: int = 0
    llm_calls: int = 0
    llm_cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    seconds_per_pair: float | None = None
    counts: dict[str, int] = Field(default_factory=dict)

    def add_counts(self, counts: dict[str, int]) -> None:
        for name, value in counts.items():
            self.counts[name] = self.counts.get(name, 0) + int(value)


class MemorySystem(ABC):
    """One memory system. Subclasses set the class attributes and implement `build_pair` (LLM-built systems,
    one call per public pair, see agents.memory.build) or override `build` (systems that batch)."""

    name: ClassVar[str]
    label: ClassVar[str]
    description: ClassVar[str]
    needs_llm: ClassVar[bool]
    # the retrieval recipe the `memory_search` tool runs over this system's memories
    search_recipe: ClassVar[str]
    # True when MemKB can link this system's cards to documents and read them as its memory cards
    memkb_cards: ClassVar[bool] = False
    # True when the system's `memory_search` recipe ranks with the system's own search (`sdk_search`), which
    # the commands open and register with query.memory_rankers (agents.memory.rankers)
    ranks_with_sdk: ClassVar[bool] = False
    # `eval qa --system`: the number of memories fed to the answerer when --k is not given (the setting the
    # system's own evaluation uses) and where that number comes from (recorded with every QA run)
    qa_k: ClassVar[int] = 10
    qa_k_source: ClassVar[str] = "colabench's default (the system states no evaluation setting of its own)"
    # version tag recorded with every write (changes when the building code changes what it writes)
    builder: ClassVar[str]
    # one line for CLI help lists (default: the label)
    help: ClassVar[str | None] = None
    # loggers of the SDK: a record it logs at `sdk_failure_level` or above (or a warning with a traceback)
    # while a pair is built means it carried on past a failure, and fails the pair (agents.memory.sdk_failures)
    sdk_loggers: ClassVar[tuple[str, ...]] = ()
    sdk_failure_level: ClassVar[int] = logging.ERROR

    def __init__(self, ctx: BuildContext) -> None:
        self.ctx = ctx

    def build(self, profile_id: str) -> BuildReport:
        """Build what is missing of this system's memory for one profile (resumable)."""
        from agents.memory.build import build_by_pairs

        return build_by_pairs(self, profile_id)

    def build_pair(self, profile_id: str, pair: HistoryPair) -> list[MemoryWritten]:
        """The memory writes one pair causes (not yet appended: the caller appends them with the pair's
        MemoryPairProcessed event in one transaction). Systems that override `build` need not implement it."""
        raise NotImplementedError(f"memory system {self.name} builds in batches, not by pair")

    def pair_written(self, profile_id: str, pair: HistoryPair) -> None:  # noqa: B027 (optional hook)
        """Called once a pair's writes and MemoryPairProcessed are appended (agents.memory.build)."""

    def sdk_search(self, profile_id: str, query: str, k: int = 5) -> list[str]:
        """The system's own (SDK-native) search, as the project's memory ids best first; used to check parity
        with the project's `memory_search` and to time both (bench/bench_memory.py)."""
        raise NotImplementedError(f"memory system {self.name} has no SDK search of its own")

    @classmethod
    def deviations(cls) -> list[str]:
        """Labelled ways this install's system differs from the one the paper ran (run record and report)."""
        return []

    def close(self) -> None:  # noqa: B027 (optional hook: most systems hold nothing to release)
        """Release SDK resources."""


MEMORY_SYSTEMS: dict[str, type[MemorySystem]] = {}


@dataclass(frozen=True)
class MemoryFamily:
    """Systems named `<prefix><name>`, made on demand: `make(name)` returns the registered class of one (raising
    a MemorySystemError that says what to configure), `names()` the full names configured now."""

    prefix: str
    make: Callable[[str], type[MemorySystem]]
    names: Callable[[], list[str]]
    help: str


MEMORY_FAMILIES: dict[str, MemoryFamily] = {}


def register_memory_system(cls: type[MemorySystem]) -> type[MemorySystem]:
    """Register a system class (usable as a decorator). Its `search_recipe` must be a registered recipe (register
    it first) that returns memories and ranks this system's: MemorySystemError otherwise."""
    try:
        recipe = get_recipe(cls.search_recipe)
    except UnknownRecipeError as exc:
        raise MemorySystemError(f"memory system {cls.name}: search_recipe {cls.search_recipe!r}: {exc}") from exc
    if recipe.memory_system != cls.name or not recipe.return_memories:
        raise MemorySystemError(
            f"memory system {cls.name}: search_recipe {recipe.name} must return memories of {cls.name} "
            f"(it returns {'memories of ' + recipe.memory_system if recipe.return_memories else 'no memories'})"
        )
    MEMORY_SYSTEMS[cls.name] = cls
    return cls


def declare_memory_system(name: str, module: str) -> None:
    """A system whose class `module` registers when imported (on first use of the name): a folder's
    `declare.py` calls this beside registering its recipes and methods."""
    SYSTEM_MODULES[name] = module


_DISCOVERED: list[str] = []
_DISCOVERY_LOCK = threading.RLock()
_discovery_started = False
_discovery_done = False


def discover_system_folders() -> list[str]:
    """Import the `declare` module of every folder of agents/memory that has one (once); returns the folders.
    Nothing else lists the shipped systems: a new folder with a `declare.py` is found here."""
    global _discovery_started, _discovery_done
    if not _discovery_done:
        import agents.memory as package

        with _DISCOVERY_LOCK:  # re-entrant: a declaration that comes back here on this thread finds it started
            if not _discovery_started:
                _discovery_started = True
                for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
                    declaration = f"{package.__name__}.{info.name}.{DECLARATION_MODULE}"
                    if info.ispkg and importlib.util.find_spec(declaration) is not None:
                        importlib.import_module(declaration)
                        _DISCOVERED.append(info.name)
                _discovery_done = True
    return list(_DISCOVERED)


def register_memory_family(family: MemoryFamily) -> MemoryFamily:
    MEMORY_FAMILIES[family.prefix] = family
    return family


def _families() -> list[MemoryFamily]:
    discover_system_folders()
    return list(MEMORY_FAMILIES.values())


def memory_system_names() -> list[str]:
    """Every system name usable now: built-in, plug-in, registered, and the configured members of families."""
    discover_system_folders()
    load_plugins()
    names = set(MEMORY_SYSTEMS) | set(SYSTEM_MODULES)
    for family in _families():
        names.update(family.names())
    return sorted(names)


def memory_system_help() -> str:
    """The `--system` help of the commands: the names, and each family's form (from the registry, never a
    hand-written list). A plug-in that fails to import is named here and raises when a command runs."""
    try:
        names = memory_system_names()
    except PluginLoadError as exc:
        names = sorted(set(MEMORY_SYSTEMS) | set(SYSTEM_MODULES))
        return f"memory system: {', '.join(names)} ({exc})"
    forms = ", ".join(f.help for f in _families())
    return f"memory system: {', '.join(names)}" + (f"; or {forms}" if forms else "")


def get_memory_system(name: str) -> type[MemorySystem]:
    """The class of the system named `name` (case-insensitive), importing its module on first use."""
    key = name.strip().lower()
    discover_system_folders()
    if key not in MEMORY_SYSTEMS and key in SYSTEM_MODULES:
        importlib.import_module(SYSTEM_MODULES[key])
    if key not in MEMORY_SYSTEMS:
        load_plugins()
    if key not in MEMORY_SYSTEMS:
        for family in _families():
            if key.startswith(family.prefix):
                return family.make(key[len(family.prefix) :])
    cls = MEMORY_SYSTEMS.get(key)
    if cls is None:
        raise UnknownMemorySystemError(
            f"unknown memory system {name!r}; choose from {', '.join(memory_system_names())}"
        )
    return cls
