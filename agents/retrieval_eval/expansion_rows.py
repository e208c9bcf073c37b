"""Key expansion and time-aware expansion in the retrieval-line evaluation (`eval retrieval --key-expansion
facts --time-aware rules|llm`): for every recipe that ranks memory cards with its own channels, each item's
question ranks the profile's cards again with expanded keys (card text + extracted facts) and/or only among
the cards whose session falls in the question's time range. The rows go beside the plain ones under the
recipe name with `+facts` / `+time(rules)` / `+time(llm)` appended, at the unit level of the run's granularity
(agents.retrieval_eval.granularity): a card is gold when it derives (DERIVED_FROM) from one of the item's gold
turns. Each item's time range is read once (not once per recipe)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from agents.retrieval_eval.datasets import EvalItem, PreparedDataset
from agents.retrieval_eval.granularity import LEVELS, unit_recipe
from agents.retrieval_eval.metrics import lme_metrics
from agents.retrieval_eval.report import ItemRow
from graph.cypher_files import load_cypher
from graph.store import EventStore
from query.errors import QueryError
from query.expansion.keys import FactExtractor, expand_keys
from query.expansion.time_range import (
    TimeRangeReader,
    TimeRangeReading,
    check_time_aware,
    parse_session_date,
    prune_by_time,
    read_time_range_by_rules,
)
from query.expansion.unit_ranking import UnitIndex
from query.memory_channels import MemoryChannels
from query.recipes import Recipe
from query.retriever import Retriever


@dataclass
class RetrievalExpansion:
    """Which expansions to apply; `extractor` is required for key expansion and `time_reader` for
    `time_aware="llm"` (LLM calls in practice); `prompts` are the records of the prompts they use."""

    key_expansion: str = "none"
    time_aware: str = "none"  # none | rules | llm
    extractor: FactExtractor | None = None
    time_reader: TimeRangeReader | None = None
    prompts: dict[str, dict[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    readings: dict[str, TimeRangeReading] = field(default_factory=dict)  # item id -> its time range

    def __post_init__(self) -> None:
        self.time_aware = check_time_aware(self.time_aware)

    @property
    def suffix(self) -> str:
        time = f"+time({self.time_aware})" if self.time_aware != "none" else ""
        return ("+facts" if self.key_expansion == "facts" else "") + time

    @property
    def active(self) -> bool:
        return bool(self.suffix)

    def rows(
        self,
        store: EventStore,
        retriever: Retriever,
        dataset: PreparedDataset,
        recipes: Sequence[Recipe],
        ks: Sequence[int],
        progress: Callable[[int, int], None] | None = None,
        granularity: str = "turn",
    ) -> list[ItemRow]:
        """Expanded memory-line rows for every (item, eligible recipe)."""
        if not self.active or not dataset.has_memory:
            return []
        if self.key_expansion == "facts" and self.extractor is None:
            raise QueryError("--key-expansion facts needs an LLM to extract facts: configure the `memory` role")
        if self.time_aware == "llm" and self.time_reader is None:
            raise QueryError("--time-aware llm needs an LLM to read time ranges: configure the `memory` role")
        eligible = [unit_recipe(r, granularity) for r in recipes if r.memory_channels and not r.sdk_ranking]
        level = LEVELS.get(granularity, ("turn",))[0] if granularity else "turn"
        skipped = [r.name for r in recipes if r.sdk_ranking]
        if skipped:
            self.notes.append(
                f"expansions not applied to {', '.join(skipped)} (ranked by the memory system's own search)"
            )
        asked = _asked_dates(store, [i.item_id for i in dataset.items]) if self.time_aware != "none" else {}
        channels = MemoryChannels(retriever.driver, retriever.database)
        rows: list[ItemRow] = []
        total, done = len(eligible) * len(dataset.items), 0
        for recipe in eligible:
            for item in dataset.items:
                rows.append(
                    self._item_row(store, retriever, channels, recipe, item, ks, asked.get(item.item_id), level)
                )
                done += 1
                if progress:
                    progress(done, total)
        self.notes.extend(f"prompt {name}: sha256 {r['sha256']} ({r['source']})" for name, r in self.prompts.items())
        statuses = [r.status for r in self.readings.values()]
        if statuses:
            self.notes.append(
                f"time range ({self.time_aware}): {statuses.count('range')} of {len(statuses)} items read a range, "
                f"{statuses.count('none')} none, {statuses.count('no_date')} without a question date, "
                f"{statuses.count('invalid')} invalid (the LLM's replies stayed invalid after re-asking: not narrowed)"
            )
        return rows

    def reading(self, item: EvalItem, asked: datetime | None) -> TimeRangeReading:
        """The item's time range under this expansion's definition, read once per item."""
        found = self.readings.get(item.item_id)
        if found is None:
            if self.time_aware == "llm":
                assert self.time_reader is not None
                found = self.time_reader(item.question, asked)
            else:
                found = read_time_range_by_rules(item.question, asked)
            self.readings[item.item_id] = found
        return found

    def _item_row(
        self,
        store: EventStore,
        retriever: Retriever,
        channels: MemoryChannels,
        recipe: Recipe,
        item: EvalItem,
        ks: Sequence[int],
        asked: datetime | None,
        level: str,
    ) -> ItemRow:
        row = ItemRow(
            item_id=item.item_id,
            dataset=item.dataset,
            group=item.group or item.dataset,
            type=item.type,
            recipe=recipe.name + self.suffix,
            line="memory",
            level=level,
        )
        skip = item.skip_memory or (None if item.profile_id else "no profile")
        if skip is None and item.cutoff_turn_id:
            skip = "a history cut-off (iKAT) is not supported by the expanded ranking"
        if skip:
            row.skipped = skip
            return row
        assert item.profile_id is not None
        cards = channels.cards(item.profile_id, recipe.memory_system, None, None)
        ids = [c.memory_id for c in cards]
        details = channels.details(cards)
        texts = {i: details[i].text if i in details else "" for i in ids}
        sources = _card_sessions(store, ids)
        gold_turns = set(item.gold_turns)
        row.gold = [i for i in ids if i in sources and gold_turns & set(sources[i][0])]
        if not row.gold:
            row.skipped = "no card derives from a gold turn"
            return row
        keys = texts
        if self.key_expansion == "facts":
            assert self.extractor is not None
            keys, _ = expand_keys(ids, texts, self.extractor, {i: sources[i][2] for i in ids if i in sources})
        among = None
        if self.time_aware != "none":
            reading = self.reading(item, asked)
            kept, note = prune_by_time(
                ids, {i: sources[i][3] if i in sources else None for i in ids}, reading.time_range
            )
            row.notes.append(reading.note(note))
            among = kept if len(kept) < len(ids) else None
        live = [c for c in recipe.memory_channels if c in ("semantic", "keyword")]
        index = UnitIndex(
            ids,
            [keys[i] for i in ids],
            channels=live,
            encoder=retriever.encoder,
            query_embedder=retriever.query_embedder,
        )
        ranked = [i for i, _ in index.rank(item.question, recipe.kappa, among)]
        row.ranked = ranked[: max(ks)]
        row.metrics = lme_metrics(ranked, set(row.gold), ks)
        return row


def _card_sessions(
    store: EventStore, memory_ids: Sequence[str]
) -> dict[str, tuple[list[str], list[str], str | None, date | None]]:
    """memory id -> (turn ids, session ids, first session's date text, its parsed day)."""
    if not memory_ids:
        return {}
    with store.driver.session(database=store.database) as session:
        rows = list(session.run(load_cypher("expansion/card_sessions"), memory_ids=list(memory_ids)))
    out = {}
    for r in rows:
        started = r["started_at"][0] if r["started_at"] else None
        metadata = json.loads(r["session_metadata"][0]) if r["session_metadata"] and r["session_metadata"][0] else {}
        day = parse_session_date(metadata.get("started_at_iso")) or parse_session_date(started)
        out[r["memory_id"]] = (list(r["turn_ids"]), list(dict.fromkeys(r["session_ids"])), started, day)
    return out


def _asked_dates(store: EventStore, item_ids: Sequence[str]) -> dict[str, datetime | None]:
    with store.driver.session(database=store.database) as session:
        rows = list(session.run(load_cypher("expansion/item_dates"), item_ids=list(item_ids)))
    out: dict[str, datetime | None] = {}
    for r in rows:
        metadata = json.loads(r["metadata"]) if r["metadata"] else {}
        iso = metadata.get("asked_at_iso")
        when = None
        if isinstance(iso, str):
            try:
                when = datetime.fromisoformat(iso)
            except ValueError:
                when = None
        if when is None:
            day = parse_session_date(r["asked_at"])
            when = datetime(day.year, day.month, day.day) if day else None
        out[r["item_id"]] = when
    return out
