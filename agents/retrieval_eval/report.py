"""The evaluation report: per-item rows and their micro / per-type macro means, as pydantic records that
serialise to the JSON written by `colabench eval retrieval`."""

from __future__ import annotations

from collections import Counter, defaultdict
from statistics import fmean

from pydantic import BaseModel, Field


class ItemRow(BaseModel):
    """One item under one recipe, one line (knowledge / memory) and one level (document, session, turn,
    ptkb). `ranked` holds the ids the metrics were computed on, best first (top of the ranking only)."""

    item_id: str
    dataset: str
    group: str = ""
    type: str
    recipe: str
    line: str
    level: str
    gold: list[str] = Field(default_factory=list)
    ranked: list[str] = Field(default_factory=list)
    metrics: dict[str, float] = Field(default_factory=dict)
    skipped: str | None = None
    notes: list[str] = Field(default_factory=list)
    ms: float | None = None
    # the search's channel list lengths (query.results.SearchResult.list_sizes)
    list_sizes: dict[str, int] = Field(default_factory=dict)

    def short_keyword(self) -> bool:
        """True when the keyword channel returned fewer candidates than its budget (the memory line: fewer
        cards sharing a query term than cards ranked; the knowledge line: fewer documents than the fusion
        reads per channel)."""
        sizes = self.list_sizes
        if self.line == "memory" and "memory.keyword_matched" in sizes:
            return sizes["memory.keyword_matched"] < sizes.get("memory.candidates", 0)
        if self.line == "knowledge" and "knowledge.keyword" in sizes:
            return sizes["knowledge.keyword"] < sizes.get("knowledge.budget", 0)
        return False

    def hit_ranks(self) -> list[int]:
        """1-based ranks of the gold ids in `ranked` (empty when none was ranked)."""
        gold = set(self.gold)
        return [rank for rank, node_id in enumerate(self.ranked, start=1) if node_id in gold]


class GroupSummary(BaseModel):
    """Means of one (group, recipe, line, level) over its scored items; the group is the dataset, except
    where a dataset's parts are its question types (iKAT's topic sets)."""

    group: str = ""
    recipe: str
    line: str
    level: str
    n_items: int
    n_skipped: int
    skipped: dict[str, int] = Field(default_factory=dict)
    micro: dict[str, float] = Field(default_factory=dict)
    macro: dict[str, float] = Field(default_factory=dict)
    per_type: dict[str, dict[str, float]] = Field(default_factory=dict)
    per_type_n: dict[str, int] = Field(default_factory=dict)
    ms_p50: float | None = None
    # scored items whose keyword list was shorter than its budget (ItemRow.short_keyword)
    n_short_keyword: int = 0

    def curve(self, family: str, ks: list[int]) -> list[float | None]:
        """The micro mean of `family@k` for each k (None where the metric was not computed)."""
        return [self.micro.get(f"{family}@{k}") for k in ks]

    def families(self) -> list[str]:
        """Metric families measured at several cut-offs (recall_any, recall_all, ndcg ...), in order."""
        names = [n.partition("@")[0] for n in self.micro if n.partition("@")[2].isdigit()]
        return [f for f in dict.fromkeys(names) if names.count(f) > 1]


class EvalReport(BaseModel):
    dataset: str
    kind: str
    path: str
    created_at: str
    ks: list[int]
    recipes: list[dict[str, object]]
    corpus: str | None
    encoder_id: str
    memory_system: str
    ingest: dict[str, int] = Field(default_factory=dict)
    memory_build: dict[str, int] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    summaries: list[GroupSummary] = Field(default_factory=list)
    rows: list[ItemRow] = Field(default_factory=list)
    seconds: dict[str, float] = Field(default_factory=dict)
    # the keyword channel's definition for every analyzer a recipe used (query.keyword_analyzers), the Lucene
    # analyzer of its full-text index read back from Neo4j
    keyword_channel: list[str] = Field(default_factory=list)


def summarise(rows: list[ItemRow]) -> list[GroupSummary]:
    """Micro mean (over items) and macro mean (over types, each type's own mean) of every metric, per group."""
    groups: dict[tuple[str, str, str, str], list[ItemRow]] = defaultdict(list)
    for row in rows:
        groups[(row.group or row.dataset, row.recipe, row.line, row.level)].append(row)
    out = []
    for (group, recipe, line, level), members in groups.items():
        scored = [r for r in members if r.skipped is None]
        skipped = Counter(r.skipped for r in members if r.skipped is not None)
        names = list(dict.fromkeys(name for r in scored for name in r.metrics))
        micro = {name: fmean(r.metrics[name] for r in scored) for name in names} if scored else {}
        by_type: dict[str, list[ItemRow]] = defaultdict(list)
        for r in scored:
            by_type[r.type].append(r)
        per_type = {
            t: {name: fmean(r.metrics[name] for r in rs) for name in names} for t, rs in sorted(by_type.items())
        }
        macro = {name: fmean(v[name] for v in per_type.values()) for name in names} if per_type else {}
        timings = sorted(r.ms for r in scored if r.ms is not None)
        out.append(
            GroupSummary(
                group=group,
                recipe=recipe,
                line=line,
                level=level,
                n_items=len(scored),
                n_skipped=sum(skipped.values()),
                skipped={str(k): v for k, v in skipped.items()},
                micro=micro,
                macro=macro,
                per_type=per_type,
                per_type_n={t: len(rs) for t, rs in sorted(by_type.items())},
                ms_p50=timings[len(timings) // 2] if timings else None,
                n_short_keyword=sum(1 for r in scored if r.short_keyword()),
            )
        )
    return out
