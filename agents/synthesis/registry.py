"""The synthesis stage registry: every stage module of this package (`stage_*.py`) registers itself at its
bottom with `register_stage(SynthesisStage(...))`, naming its place in the pipeline, its roles, its `synth`
subcommand's help and what the synthesis report makes of its drafts. The pipeline's order, the `synth`
subcommands, the synthesis report and the stage names the synthesis events accept (graph/vocab.py) all come from
here: a new stage is one module (plus its prompts), and a stage from outside the package is a plug-in module
(COLABENCH_PLUGINS, graph/plugins.py) that calls `register_stage`."""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents.synthesis.config import DEFAULT_CAPS
from agents.synthesis.errors import SynthesisError
from graph.vocab import SYNTHESIS_STAGES, WORD

if TYPE_CHECKING:
    from agents.synthesis.context import SynthContext
    from agents.synthesis.runner import StageReport

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class SynthesisStage:
    """One stage of the pipeline, as its module registers it."""

    name: str  # the `synth <name>` subcommand and the `stage` of its events
    order: int  # stages run in ascending order (the shipped ones: 0, 10, ..., 50)
    run: Callable[[SynthContext, Progress | None], StageReport]
    help: str  # the `synth <name>` subcommand's help
    roles: tuple[str, ...] = ()  # the synthesis roles it asks (each has an output cap in config.DEFAULT_CAPS)
    # What the synthesis report (summary.py) makes of its drafts:
    makes_items: bool = False  # its accepted units are items (the report's accepted items and cost per item)
    gold_reasons: bool = True  # its rejection reasons may quote gold: only in the bundle's own report file
    review_role: str | None = None  # this role's outcomes are the gate `<name>:review`


STAGES: dict[str, SynthesisStage] = {}
_LOCK = threading.RLock()
_DISCOVERED = False


def register_stage(stage: SynthesisStage) -> SynthesisStage:
    """Add a stage; refused (SynthesisError) for a malformed name, an order another stage holds, or a role
    without an output cap."""
    if not WORD.match(stage.name) or stage.name == "all":
        raise SynthesisError(f"synthesis stage name {stage.name!r}: lowercase letters, digits and _, not 'all'")
    taken = [s.name for s in STAGES.values() if s.order == stage.order and s.name != stage.name]
    if taken:
        raise SynthesisError(f"synthesis stage {stage.name!r}: order {stage.order} is stage {taken[0]!r}'s")
    uncapped = [role for role in stage.roles if role not in DEFAULT_CAPS]
    if uncapped:
        raise SynthesisError(
            f"synthesis stage {stage.name!r}: role(s) {uncapped} have no output cap in agents/synthesis/config.py"
        )
    with _LOCK:
        STAGES[stage.name] = stage
        SYNTHESIS_STAGES.register(stage.name)
    return stage


def unregister_stage(name: str) -> None:
    with _LOCK:
        STAGES.pop(name, None)
        SYNTHESIS_STAGES.unregister(name)


def discover_stages() -> None:
    """Import every `stage_*` module of this package once (each registers itself)."""
    global _DISCOVERED
    with _LOCK:
        if _DISCOVERED:
            return
        _DISCOVERED = True
        import agents.synthesis as package

        for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            if module.name.startswith("stage_"):
                importlib.import_module(f"{package.__name__}.{module.name}")


def synthesis_stages() -> list[SynthesisStage]:
    """Every registered stage (shipped and plug-in), in pipeline order."""
    SYNTHESIS_STAGES.words()  # runs discover_stages and loads the plug-ins
    return sorted(STAGES.values(), key=lambda s: s.order)


def stage_names() -> tuple[str, ...]:
    return tuple(s.name for s in synthesis_stages())


def get_stage(name: str) -> SynthesisStage:
    stages = {s.name: s for s in synthesis_stages()}
    if name not in stages:
        raise SynthesisError(f"unknown synthesis stage {name!r}; stages are {', '.join(stages)}")
    return stages[name]


SYNTHESIS_STAGES.add_discoverer(discover_stages)
