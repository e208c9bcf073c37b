"""Per-item metric rows of a run, read from the graph (ToolCall and Judgment nodes), and per-run metrics.

Definitions (PROTOCOL.md, paper Sec. 5.2 and App. D.1):
- accuracy = passes / all items of the run (unanswered, unjudged and needs_adjudication items are not passes;
  their counts are reported beside it); this raw accuracy ignores human adjudications;
- accuracy_adjudicated = the same after adjudication: an attempt's latest AnswerAdjudicated ruling replaces its
  judge verdict; n_pending = needs_adjudication verdicts nobody has ruled on yet (still counted as not passed);
- Read Recall = mean over items with gold documents of |G ∩ D_read| / |G|, D_read = documents a Read returned
  text from before the final answer;
- first-search / overall search hit rate = share of items whose first / any successful knowledge search
  (kb_search, memkb_search) returned a gold document; items without a successful search are misses;
- average turns = mean model calls per answered item, the final answer turn included.
Judgments count only when made by the run's judge model with the run's judge prompts (the latest one of each
kind wins); others stay in the graph but do not enter these numbers.
"""

from __future__ import annotations

import json
from typing import Any

from neo4j import Driver
from pydantic import BaseModel, Field

from agents.judging.base import UndeclaredMetricError
from agents.judging.registry import judge_for_kind
from agents.prompts.judging import QUALITY_DIMENSIONS
from agents.tools.definitions import KNOWLEDGE_TOOLS
from graph.cypher_files import load_cypher
from graph.errors import UsageError


class RunRecord(BaseModel):
    run_id: str
    method: str
    label: str
    dataset: str
    batch_id: str
    status: str
    started_seq: int
    item_ids: list[str]
    config: dict[str, Any]
    models: dict[str, Any]
    prompt_hashes: dict[str, Any]
    seeds: dict[str, Any]
    versions: dict[str, Any]
    dataset_fingerprint: str
    counts: dict[str, Any] = Field(default_factory=dict)
    usage: dict[str, Any] = Field(default_factory=dict)

    def judge_filter(self) -> tuple[str | None, set[str]]:
        """The run's judge model and the SHA-256 of its judge prompts."""
        model = (self.models.get("judge") or {}).get("model")
        shas = {rec["sha256"] for name, rec in self.prompt_hashes.items() if name.startswith("judge_")}
        return model, shas


class AttemptMetrics(BaseModel):
    run_id: str
    item_id: str
    profile_id: str
    batch: str | None
    labels: list[str]
    gold: list[str]
    n_requirements: int
    n_facts: int
    n_history_pairs: int
    n_history_sessions: int
    attempted: bool
    status: str | None
    turns: int | None
    rounds: int | None
    tokens_in: int | None
    tokens_out: int | None
    finish: str | None
    read_docs: list[str]
    first_docs: list[str]
    search_docs: list[str]
    n_searches: int
    n_calls: int
    n_failed_calls: int
    verdict: str | None = None
    accuracy_valid: bool = True
    quality: dict[str, float] = Field(default_factory=dict)
    error_category: str | None = None
    visibility: str | None = None
    # verdicts whose inputs a judge context budget shortened, and the characters it left out of them
    judge_inputs_shortened: int = 0
    judge_chars_left_out: int = 0
    # the latest human ruling on the attempt (agents/adjudication), None when nobody has ruled
    adjudicated_verdict: str | None = None
    # how the item's construction batch admitted it (App. C.2): "direct" or "after_revision"; an augmented
    # item takes the path of the item it was augmented from (`source_item_id`); None when not recorded
    admission: str | None = None
    source_item_id: str | None = None

    @property
    def final_verdict(self) -> str | None:
        """The verdict after adjudication: the latest ruling when there is one, else the judge's verdict."""
        return self.adjudicated_verdict or self.verdict

    @property
    def pending(self) -> bool:
        return self.verdict == "needs_adjudication" and self.adjudicated_verdict is None

    @property
    def answered(self) -> bool:
        return self.status == "answered"

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    @property
    def read_recall(self) -> float | None:
        if not self.gold:
            return None
        return len(set(self.gold) & set(self.read_docs)) / len(set(self.gold))

    @property
    def first_search_hit(self) -> bool:
        return bool(set(self.gold) & set(self.first_docs))

    @property
    def search_hit(self) -> bool:
        return bool(set(self.gold) & set(self.search_docs))

    @property
    def gold_exposed(self) -> bool:
        """A gold document came back from a knowledge search or a non-empty Read."""
        return bool(set(self.gold) & (set(self.search_docs) | set(self.read_docs)))

    @property
    def gold_read(self) -> bool:
        return bool(set(self.gold) & set(self.read_docs))

    @property
    def tokens(self) -> int:
        return int(self.tokens_in or 0) + int(self.tokens_out or 0)


def load_run_record(driver: Driver, database: str, run_id: str) -> RunRecord:
    """The run's record; ValueError naming the run when it does not exist."""
    from agents.methods.registry import METHODS

    with driver.session(database=database) as session:
        record = session.run(load_cypher("agents/run_record"), run_id=run_id).single()
    if record is None:
        raise UsageError(f"no run {run_id!r} in the graph; `./colabench report --list` shows the runs")
    run = dict(record["run"])
    method = str(run["method"])
    return RunRecord(
        run_id=run["id"],
        method=method,
        label=METHODS[method].label if method in METHODS else method,
        dataset=run["dataset"],
        batch_id=run["batch_id"],
        status=run["status"],
        started_seq=int(run["started_seq"]),
        item_ids=list(run["item_ids"]),
        config=_json(run.get("config")),
        models=_json(run.get("models")),
        prompt_hashes=_json(run.get("prompt_hashes")),
        seeds=_json(run.get("seeds")),
        versions=_json(run.get("versions")),
        dataset_fingerprint=run["dataset_fingerprint"],
        counts=_json(run.get("counts")),
        usage=_json(run.get("usage")),
    )


def _json(value: Any) -> dict[str, Any]:
    if not value:
        return {}
    parsed = json.loads(value)
    return parsed if isinstance(parsed, dict) else {}


def _left_out(details: Any) -> int:
    """Characters a judge context budget left out of one verdict's inputs (0: none, or no budget)."""
    parsed = json.loads(details) if isinstance(details, str) and details else details
    context = parsed.get("judge_context") if isinstance(parsed, dict) else None
    if not isinstance(context, dict):
        return 0
    return int(context.get("documents_chars_left_out", 0)) + int(context.get("evidence_chars_left_out", 0))


ADMISSION_PATHS = ("direct", "after_revision")
# labels the synthesis pipeline gives initial items (agents/synthesis/stage_items.py)
_ADMISSION_LABELS = {"admitted_direct": "direct", "admitted_after_revision": "after_revision"}


def admission_path(metadata: Any, labels: list[str]) -> str | None:
    """An item's admission path from its metadata (`admission`) or its synthesis label; None if neither."""
    parsed = json.loads(metadata) if isinstance(metadata, str) and metadata else metadata
    value = parsed.get("admission") if isinstance(parsed, dict) else None
    if value in ADMISSION_PATHS:
        return str(value)
    for label in labels or []:
        if label in _ADMISSION_LABELS:
            return _ADMISSION_LABELS[label]
    return None


def load_attempt_metrics(driver: Driver, database: str, run: RunRecord) -> list[AttemptMetrics]:
    """One row per planned item of the run (items never attempted included)."""
    with driver.session(database=database) as session:
        records = list(
            session.run(load_cypher("agents/metric_rows"), run_id=run.run_id, knowledge_tools=list(KNOWLEDGE_TOOLS))
        )
        # the latest human ruling per attempt (see agents/adjudication)
        adjudicated = session.run(load_cypher("adjudication/run_adjudications"), run_id=run.run_id)
        rulings = {r["item_id"]: r["verdict"] for r in adjudicated}
    judge_model, judge_shas = run.judge_filter()
    rows: list[AttemptMetrics] = []
    for r in records:
        data = dict(r)
        judgments = data.pop("judgments")
        own = admission_path(data.pop("item_metadata"), data["labels"])
        source = admission_path(data.pop("source_metadata"), data.pop("source_labels"))
        data["admission"] = own or (source if data["source_item_id"] else None)
        for key in ("gold", "read_docs", "first_docs", "search_docs"):
            data[key] = sorted(set(data[key]))  # sets of document ids, in a stable order
        row = AttemptMetrics(run_id=run.run_id, **data)
        for j in judgments:  # ordered by seq: later judgments overwrite earlier ones
            if j["judge_model"] != judge_model or j["prompt_sha256"] not in judge_shas:
                continue
            shortened = _left_out(j.get("details"))
            if shortened:
                row.judge_inputs_shortened += 1
                row.judge_chars_left_out += shortened
            judge = judge_for_kind(j["kind"])  # the registered judge says what its verdict contributes
            fields: dict[str, Any] = {}
            if judge is not None:
                fields = judge.metric_fields(j)
                undeclared = sorted(set(fields) - set(judge.metrics))
                if undeclared:  # a judge fills only the metric fields it declares (Judge.metrics)
                    raise UndeclaredMetricError(
                        f"judge {judge.name!r} filled metric field(s) {undeclared} not in its `metrics`"
                    )
            for name, value in fields.items():
                if isinstance(value, dict):
                    getattr(row, name).update(value)
                else:
                    setattr(row, name, value)
        row.adjudicated_verdict = rulings.get(row.item_id)
        rows.append(row)
    return rows


class RunMetrics(BaseModel):
    run_id: str
    method: str
    label: str
    status: str
    n_items: int
    n_answered: int
    n_errors: int
    n_not_attempted: int
    n_judged: int
    n_pass: int
    n_fail: int
    n_needs_adjudication: int
    n_invalid_judge_replies: int
    accuracy: float | None
    read_recall: float | None
    n_read_recall_items: int
    first_search_hit_rate: float | None
    search_hit_rate: float | None
    avg_turns: float | None
    avg_rounds: float | None
    avg_tokens: float | None
    quality: dict[str, dict[str, float]]
    errors: dict[str, dict[str, int]]
    n_error_analyses: int
    n_judge_inputs_shortened: int = 0
    judge_chars_left_out: int = 0
    accuracy_adjudicated: float | None = None
    n_pending: int = 0
    n_adjudicated: int = 0
    # answered attempts a judge's endpoint error left unjudged (set by the report: the errors column counts them)
    n_unjudged_by_errors: int = 0


def summarise_run(run: RunRecord, rows: list[AttemptMetrics]) -> RunMetrics:
    """Run-level metrics exactly as defined in the module docstring."""
    n = len(rows)
    answered = [r for r in rows if r.answered]
    judged = [r for r in rows if r.verdict is not None]
    with_gold = [r for r in rows if r.gold]
    # With no attempt answered every rate is n/a: an error is not a miss (a 0% beside accuracy n/a would be).
    recalls = [r.read_recall for r in with_gold if r.read_recall is not None] if answered else []
    quality: dict[str, dict[str, float]] = {}
    for dim in QUALITY_DIMENSIONS:
        scores = [r.quality[dim] for r in rows if dim in r.quality]
        if scores:
            quality[dim] = {"mean": sum(scores) / len(scores), "n": float(len(scores))}
    errors: dict[str, dict[str, int]] = {}
    for r in rows:
        if r.error_category:
            cell = errors.setdefault(r.error_category, {})
            cell[r.visibility or "unknown"] = cell.get(r.visibility or "unknown", 0) + 1
    return RunMetrics(
        run_id=run.run_id,
        method=run.method,
        label=run.label,
        status=run.status,
        n_items=n,
        n_answered=len(answered),
        n_errors=sum(1 for r in rows if r.status == "error"),
        n_not_attempted=sum(1 for r in rows if not r.attempted),
        n_judged=len(judged),
        n_pass=sum(1 for r in rows if r.verdict == "pass"),
        n_fail=sum(1 for r in rows if r.verdict == "fail"),
        n_needs_adjudication=sum(1 for r in rows if r.verdict == "needs_adjudication"),
        n_invalid_judge_replies=sum(1 for r in rows if r.verdict is not None and not r.accuracy_valid),
        accuracy=(sum(1 for r in rows if r.passed) / n) if judged and n else None,
        read_recall=(sum(recalls) / len(recalls)) if recalls else None,
        n_read_recall_items=len(recalls),
        first_search_hit_rate=(sum(1 for r in rows if r.first_search_hit) / n) if answered else None,
        search_hit_rate=(sum(1 for r in rows if r.search_hit) / n) if answered else None,
        avg_turns=(sum(int(r.turns or 0) for r in answered) / len(answered)) if answered else None,
        avg_rounds=(sum(int(r.rounds or 0) for r in answered) / len(answered)) if answered else None,
        avg_tokens=(sum(r.tokens for r in answered) / len(answered)) if answered else None,
        quality=quality,
        errors=errors,
        n_error_analyses=sum(sum(v.values()) for v in errors.values()),
        n_judge_inputs_shortened=sum(r.judge_inputs_shortened for r in rows),
        judge_chars_left_out=sum(r.judge_chars_left_out for r in rows),
        accuracy_adjudicated=(sum(1 for r in rows if r.final_verdict == "pass") / n) if judged and n else None,
        n_pending=sum(1 for r in rows if r.pending),
        n_adjudicated=sum(1 for r in rows if r.adjudicated_verdict is not None),
    )
