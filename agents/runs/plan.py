"""Planning a batch: which items, which methods, and the ids that make a run resumable.

The batch id derives from everything that shapes the results (dataset, items, methods, budget, judges,
models and parameters, prompt hashes, encoder), so running the same command again resumes the same runs;
`fresh=True` adds a nonce for a new batch with the same configuration (its LLM calls hit the cache).
Run id = `<batch_id>-<method>`; attempt id = `<run_id>:<item_id>`.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agents.answerer import Budget
from agents.judging.registry import selected as selected_judges
from agents.llm.roles import LLMRoles
from agents.methods.registry import MethodSpec
from agents.metrics.bootstrap import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from agents.prompts.registry import PromptSet
from graph.cypher_files import load_cypher
from graph.errors import UsageError
from graph.hashing import canonical_json, text_sha256
from graph.store import EventStore


class RunOptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    dataset: str
    items: int | None = Field(default=None, ge=1, description="the first N items in id order")
    item_ids: tuple[str, ...] = ()
    budget: Budget = Budget()
    judges: tuple[str, ...] = ("accuracy", "error_analysis")
    # judge context budget in characters (None: judges see all material whole; agents/judging/reference.py)
    judge_context_chars: int | None = Field(default=None, ge=1)
    fresh: bool = False
    # continue this batch (e.g. one started with --fresh); its configuration must be the one of this command
    resume_batch: str | None = None
    # judge panel (agents/judging/panel.py): every model judges accuracy, the first is the primary judge
    judge_models: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlannedRun:
    run_id: str
    method: MethodSpec
    roles: tuple[str, ...]
    prompt_names: tuple[str, ...]

    def attempt_id(self, item_id: str) -> str:
        return f"{self.run_id}:{item_id}"


@dataclass
class BatchPlan:
    batch_id: str
    dataset: str
    item_ids: list[str]
    profiles: dict[str, str]
    runs: list[PlannedRun]
    options: RunOptions
    config: dict[str, Any] = field(default_factory=dict)


def dataset_items(store: EventStore, dataset: str) -> list[tuple[str, str]]:
    """(item_id, profile_id) of a dataset's items in id order."""
    with store.driver.session(database=store.database) as session:
        records = session.run(load_cypher("agents/dataset_items"), dataset=dataset)
        return [(r["item_id"], r["profile_id"]) for r in records]


def known_datasets(store: EventStore) -> dict[str, int]:
    with store.driver.session(database=store.database) as session:
        return {r["dataset"]: int(r["n_items"]) for r in session.run(load_cypher("agents/datasets"))}


def prompt_names_for(method: MethodSpec, judges: tuple[str, ...]) -> tuple[str, ...]:
    names = ["answer", "answer_final", "json_object_instruction", "structured_repair"]
    if method.state_in_prompt:
        names.append("answer_state_block")
    if method.source_attribution:
        names.append("answer_attribution_block")
    if method.needs_states:
        names.append("state_summary")
    for judge in selected_judges(judges):
        names.extend(judge.recorded_prompt_names())
    return tuple(names)


def batch_prompt_names(methods: list[MethodSpec], judges: tuple[str, ...]) -> tuple[str, ...]:
    """The prompts a batch's runs send, in a stable order: only these shape its id, so a new or changed template
    of another command (synthesis, `eval qa`) leaves the batch ids of runs as they were."""
    return tuple(sorted({name for m in methods for name in prompt_names_for(m, judges)}))


def roles_for(method: MethodSpec, judges: tuple[str, ...]) -> tuple[str, ...]:
    roles = ["answerer"]
    if method.needs_states:
        roles.append("state")
    if method.memory_system:
        from agents.memory.registry import get_memory_system

        if get_memory_system(method.memory_system).needs_llm:
            roles.append("memory")
    if judges:
        roles.append("judge")
    return tuple(roles)


def plan_batch(
    store: EventStore,
    methods: list[MethodSpec],
    options: RunOptions,
    roles: LLMRoles,
    prompts: PromptSet,
    *,
    encoder_id: str,
) -> BatchPlan:
    """Select the items and derive batch and run ids (raises ValueError naming what is missing)."""
    selected_judges(options.judges)  # an unknown name raises UnknownJudgeError (a ValueError) listing the judges
    items = dataset_items(store, options.dataset)
    if not items:
        datasets = known_datasets(store)
        listing = ", ".join(f"{k} ({v} items)" for k, v in datasets.items()) or "none"
        raise UsageError(
            f"dataset {options.dataset!r} has no items in the graph; datasets with items: {listing}. "
            "Ingest it first (`./colabench ingest PATH`)."
        )
    profiles = dict(items)
    if options.item_ids:
        missing = [i for i in options.item_ids if i not in profiles]
        if missing:
            raise UsageError(f"item(s) {missing} are not items of dataset {options.dataset!r}")
        selected = list(dict.fromkeys(options.item_ids))
    else:
        selected = [item_id for item_id, _ in items]
    if options.items is not None:
        selected = selected[: options.items]
    used_roles = sorted({r for m in methods for r in roles_for(m, options.judges)})
    config = {
        "dataset": options.dataset,
        "item_ids_sha256": text_sha256(canonical_json(selected)),
        "n_items": len(selected),
        "methods": [m.name for m in methods],
        "budget": options.budget.model_dump(),
        "judges": list(options.judges),
        "judge_context_chars": options.judge_context_chars,
        "llm": roles.public_records(used_roles),
        "prompts": {n: r["sha256"] for n, r in prompts.records(batch_prompt_names(methods, options.judges)).items()},
        "encoder": encoder_id,
    }
    if options.judge_models:
        if "accuracy" not in options.judges:
            raise UsageError("--judge-models asks each model for the accuracy verdict: add accuracy to --judges")
        primary = roles.settings["judge"].model
        if options.judge_models[0] != primary:
            raise UsageError(
                f"the first of --judge-models ({options.judge_models[0]!r}) is the primary judge, but the judge "
                f"role's model is {primary!r}"
            )
        config["judge_models"] = list(options.judge_models)  # only with a panel: other batch ids stay as they were
    batch_id = f"{options.dataset}-{text_sha256(canonical_json(config))[:8]}"
    if options.resume_batch is not None:
        batch_id = _resumable_batch(store, options.resume_batch, batch_id)
    elif options.fresh:
        batch_id = f"{batch_id}-{secrets.token_hex(3)}"
    runs = [
        PlannedRun(
            run_id=f"{batch_id}-{m.name.lower()}",
            method=m,
            roles=roles_for(m, options.judges),
            prompt_names=prompt_names_for(m, options.judges),
        )
        for m in methods
    ]
    return BatchPlan(
        batch_id=batch_id,
        dataset=options.dataset,
        item_ids=selected,
        profiles={i: profiles[i] for i in selected},
        runs=runs,
        options=options,
        config=config,
    )


def _resumable_batch(store: EventStore, wanted: str, planned: str) -> str:
    """`wanted` when it is a batch in the graph with this command's configuration (its id is the planned id,
    or the planned id plus a --fresh nonce); raises ValueError saying what differs otherwise."""
    with store.driver.session(database=store.database) as session:
        runs = [r["run_id"] for r in session.run(load_cypher("agents/batch_runs"), batch_id=wanted)]
    if not runs:
        raise UsageError(f"no batch {wanted!r} in the graph (`./colabench report --list` shows the batches)")
    if wanted != planned and not (wanted.startswith(planned + "-") and len(wanted) == len(planned) + 7):
        raise UsageError(
            f"batch {wanted!r} was started with another configuration than this command's (which plans batch "
            f"{planned!r}): give the same --methods, --dataset, --items/--item, --judges, budget, prompts and LLM "
            "settings as when it was started"
        )
    return wanted


def run_seeds(roles: LLMRoles, used_roles: tuple[str, ...]) -> dict[str, Any]:
    """Seeds that shape a run's results: the bootstrap's, and each role's sampling seed (None = unset)."""
    return {
        "bootstrap_seed": BOOTSTRAP_SEED,
        "bootstrap_resamples": BOOTSTRAP_RESAMPLES,
        **{f"{role}_seed": roles.settings[role].seed for role in used_roles},
    }
