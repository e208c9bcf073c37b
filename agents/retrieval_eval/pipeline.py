"""`colabench eval retrieval` end to end: ingest if needed, build the memory the recipes read for the dataset's
profiles (raw-turn cards here; other systems through the `memory_builder` the caller passes, since their
writers live above the query room), link cards to documents when a recipe reads links, evaluate every recipe,
summarise. A recipe whose memory system has no memories for the dataset is left out, with a note saying so.
The memory line is scored at one granularity (turn, round or session cards; agents.retrieval_eval.granularity)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from agents.memory.cards.document_links import build_document_links
from agents.memory.cards.raw_turn_cards import SYSTEM as RAW_TURNS
from agents.memory.cards.raw_turn_cards import build_raw_turn_cards
from agents.memory.cards.unit_cards import build_unit_cards
from agents.retrieval_eval.datasets import PreparedDataset, Progress, prepare_dataset
from agents.retrieval_eval.expansion_rows import RetrievalExpansion
from agents.retrieval_eval.granularity import LEVEL_DEFINITIONS, UNIT_SYSTEMS, check_granularity
from agents.retrieval_eval.report import EvalReport, ItemRow, summarise
from agents.retrieval_eval.runner import evaluate_items
from graph.cypher_files import load_cypher
from graph.store import EventStore
from ingest.errors import InputError, Problem
from query.keyword_analyzers import describe_keyword_channel
from query.recipes import Recipe
from query.retriever import Retriever

# (system, profile ids, progress callback (done, total)) -> build counts
MemoryBuilder = Callable[[str, list[str], Callable[[int, int], None] | None], dict[str, int]]


def card_counts(store: EventStore, profile_ids: Sequence[str]) -> dict[str, int]:
    """Live memory cards per memory system among these profiles."""
    with store.driver.session(database=store.database) as session:
        rows = session.run(load_cypher("memory/card_counts"), profile_ids=list(profile_ids))
        return {r["system"]: int(r["n"]) for r in rows}


def run_retrieval_eval(
    store: EventStore,
    retriever: Retriever,
    kind: str,
    path: Path,
    recipes: Sequence[Recipe],
    ks: Sequence[int],
    *,
    limit: int | None = None,
    progress: Progress | None = None,
    memory_builder: MemoryBuilder | None = None,
    granularity: str = "turn",
    variant: str | None = None,
    expansion: RetrievalExpansion | None = None,
    caption: str | None = None,
) -> EvalReport:
    """Evaluate `recipes` on dataset `kind` at `path` and return the report (rows and summaries).

    `granularity` (turn, round, session) chooses the cards the raw-turn recipes' memory line ranks; `variant`
    (s, m, oracle) names the LongMemEval variant of a file whose name does not say it; `caption` (bare,
    bracketed) LoCoMo's image-caption format. Raises InputError for a granularity the dataset cannot be scored
    at."""
    granularity = _check_dataset_granularity(kind, path, granularity)
    seconds: dict[str, float] = {}
    with _timed(seconds, "prepare"):
        dataset = prepare_dataset(store, kind, path, limit=limit, progress=progress, variant=variant, caption=caption)
    notes = list(dataset.notes)
    systems, unit_cards = _memory_systems(dataset, recipes, granularity)
    notes.append(f"memory line at {granularity} granularity (raw-turn recipes rank {UNIT_SYSTEMS[granularity]} cards)")
    memory_build: dict[str, int] = {}
    profiles = dataset.profile_ids
    if profiles:
        _build_memories(
            store, profiles, systems, unit_cards, granularity, memory_builder, progress, memory_build, seconds
        )
        recipes, systems = _drop_recipes_without_memories(store, profiles, recipes, systems, notes)
        _link_documents(store, retriever, dataset, profiles, recipes, progress, memory_build, seconds)
    with _timed(seconds, "evaluate"):
        rows = _evaluate(store, retriever, dataset, recipes, ks, granularity, expansion, progress, notes)
    return EvalReport(
        dataset=dataset.name,
        kind=kind,
        path=str(path),
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        ks=sorted(set(ks)),
        recipes=[r.model_dump(mode="json") for r in recipes],
        corpus=dataset.corpus.describe() if dataset.corpus else None,
        encoder_id=retriever.encoder.encoder_id,
        memory_system=", ".join(sorted(systems)),
        ingest=dataset.ingest,
        memory_build=memory_build,
        notes=notes,
        summaries=summarise(rows),
        rows=rows,
        seconds={k: round(v, 2) for k, v in seconds.items()},
        keyword_channel=_keyword_channel(store, recipes),
    )


def _check_dataset_granularity(kind: str, path: Path, granularity: str) -> str:
    """The granularity, checked as a name and against the dataset (iKAT is scored at turn granularity only)."""
    granularity = check_granularity(granularity)
    if kind == "ikat" and granularity != "turn":
        raise InputError(
            [Problem(str(path), None, "--granularity", "iKAT's PTKB ranking is scored at turn granularity only")]
        )
    return granularity


@contextmanager
def _timed(seconds: dict[str, float], phase: str) -> Iterator[None]:
    """Record the seconds the block took under `phase` (nothing when it raises)."""
    t0 = time.perf_counter()
    yield
    seconds[phase] = time.perf_counter() - t0


def _memory_systems(dataset: PreparedDataset, recipes: Sequence[Recipe], granularity: str) -> tuple[set[str], bool]:
    """The memory systems the recipes read, and whether the raw-turn recipes' memory line needs the
    granularity's cards (raw-turn cards themselves at turn granularity)."""
    systems = {r.memory_system for r in recipes if r.needs_profile}
    # The memory line of every raw-turn recipe (KEYWORD / SEMANTIC / HYBRID too) reads the granularity's cards.
    unit_cards = dataset.has_memory and any(r.memory_channels and r.memory_system == RAW_TURNS for r in recipes)
    if unit_cards and UNIT_SYSTEMS[granularity] == RAW_TURNS:
        systems.add(RAW_TURNS)
    return systems, unit_cards


def _build_memories(
    store: EventStore,
    profiles: list[str],
    systems: set[str],
    unit_cards: bool,
    granularity: str,
    memory_builder: MemoryBuilder | None,
    progress: Progress | None,
    memory_build: dict[str, int],
    seconds: dict[str, float],
) -> None:
    """Build the memory of the dataset's profiles: raw-turn cards, the granularity's cards, then every other
    system through `memory_builder`; their counts go to `memory_build`, their times to `seconds`."""
    unit_system = UNIT_SYSTEMS[granularity]
    if RAW_TURNS in systems:
        with _timed(seconds, "memory_cards"):
            memory_build.update(
                build_raw_turn_cards(store, profile_ids=profiles, progress=_phase(progress, "memory cards"))
            )
    if unit_cards and unit_system != RAW_TURNS:
        with _timed(seconds, f"memory_{unit_system}"):
            phase = _phase(progress, f"memory cards ({granularity})")
            counts = build_unit_cards(store, unit_system, profiles, progress=phase)
            memory_build.update({f"{unit_system}.{name}": value for name, value in counts.items()})
    if memory_builder is not None:
        for system in sorted(systems - {RAW_TURNS}):
            with _timed(seconds, f"memory_{system}"):
                counts = memory_builder(system, profiles, _phase(progress, f"memory ({system})"))
                memory_build.update({f"{system}.{name}": value for name, value in counts.items()})


def _drop_recipes_without_memories(
    store: EventStore, profiles: list[str], recipes: Sequence[Recipe], systems: set[str], notes: list[str]
) -> tuple[Sequence[Recipe], set[str]]:
    """The recipes and systems left once those whose memory system has no memories for these profiles are
    left out, with a note naming them."""
    have = card_counts(store, profiles)
    absent = sorted(s for s in systems if not have.get(s))
    if not absent:
        return recipes, systems
    dropped = [r.name for r in recipes if r.needs_profile and r.memory_system in absent]
    notes.append(
        f"recipes {', '.join(dropped)} left out: memory system(s) {', '.join(absent)} have no memories for "
        "this dataset's profiles (build them with `./colabench memory build --system NAME`; the LLM-built "
        "systems need an LLM endpoint)"
    )
    return [r for r in recipes if r.name not in dropped], systems - set(absent)


def _link_documents(
    store: EventStore,
    retriever: Retriever,
    dataset: PreparedDataset,
    profiles: list[str],
    recipes: Sequence[Recipe],
    progress: Progress | None,
    memory_build: dict[str, int],
    seconds: dict[str, float],
) -> None:
    """Link the cards of every system a recipe reads links of to the dataset's documents (when it has any)."""
    if not (dataset.has_knowledge and any("memory_linked" in r.knowledge_channels for r in recipes)):
        return
    with _timed(seconds, "memory_links"):
        for system in sorted({r.memory_system for r in recipes if "memory_linked" in r.knowledge_channels}):
            counts = build_document_links(
                store,
                retriever,
                system,
                profile_ids=profiles,
                corpus=dataset.corpus,
                progress=_phase(progress, "document links"),
            )
            memory_build.update({f"{system}.{name}": value for name, value in counts.items()})


def _evaluate(
    store: EventStore,
    retriever: Retriever,
    dataset: PreparedDataset,
    recipes: Sequence[Recipe],
    ks: Sequence[int],
    granularity: str,
    expansion: RetrievalExpansion | None,
    progress: Progress | None,
    notes: list[str],
) -> list[ItemRow]:
    """The rows of every recipe on every item (and the expansion's rows beside them), noting the expansion and
    what each memory level scored means."""
    rows = evaluate_items(
        retriever, dataset, recipes, ks, progress=_phase(progress, "evaluating"), granularity=granularity
    )
    if expansion is not None and expansion.active:  # key / time-aware expansion rows beside the plain ones
        rows.extend(expansion.rows(store, retriever, dataset, recipes, ks, _phase(progress, "expanded"), granularity))
        notes.extend(expansion.notes)
    levels = sorted({r.level for r in rows if r.line == "memory"})
    notes.extend(f"memory level {lv}: {LEVEL_DEFINITIONS[lv]}" for lv in levels if lv in LEVEL_DEFINITIONS)
    return rows


def _keyword_channel(store: EventStore, recipes: Sequence[Recipe]) -> list[str]:
    """How the recipes' keyword channel reads text, and which memory lines pad it before the fusion."""
    keyword_recipes = [r for r in recipes if r.uses_keyword]
    keyword_channel = describe_keyword_channel(
        [r.keyword_analyzer for r in keyword_recipes], store.driver, store.database
    )
    padded = [r.name for r in keyword_recipes if r.keyword_padding and r.memory_channels]
    if padded:
        keyword_channel.append(
            f"keyword list padded to every candidate card (BM25 score 0, ties by id) before the fusion in: "
            f"{', '.join(padded)} (memory line only)"
        )
    return keyword_channel


def _phase(progress: Progress | None, phase: str) -> Callable[[int, int], None] | None:
    """`progress` reporting as one named phase."""
    return (lambda done, total: progress(phase, done, total)) if progress else None
