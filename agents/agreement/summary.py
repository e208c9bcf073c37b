"""Judge agreement of one run, from the graph alone: per-judge accuracy, raw agreement and Cohen's kappa
(cluster-bootstrap interval over profiles) between every two judges of its panel, the attempts they disagree
on, and each judge's agreement with the people who adjudicated (wherever someone has ruled).

Verdicts are the judges' recorded labels (pass, fail, needs_adjudication; the latest per judge model with the
run's accuracy prompt). Per-judge accuracy = passes / all items of the run, as the run's accuracy. Against a
human ruling (pass or fail), a judge's needs_adjudication counts as a disagreement.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from neo4j import Driver
from pydantic import BaseModel

from agents.agreement.kappa import Agreement, kappa_with_interval
from agents.judging.panel import PANEL_KEY
from agents.metrics.attempts import RunRecord
from agents.metrics.bootstrap import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from agents.metrics.comparison import MIN_INFORMATIVE_CLUSTERS
from graph.cypher_files import load_cypher

# The adjudication page (behind the API token); a disagreement links to it with `?attempt=<attempt id>`.
ADJUDICATE_PATH = "/adjudicate"
# The rater name of the people who adjudicated, in agreement pairs.
HUMAN = "human"


class AttemptVerdicts(BaseModel):
    """Each judge model's latest accuracy verdict on one attempt, and the latest human ruling (if any)."""

    attempt_id: str
    item_id: str
    profile_id: str
    verdicts: dict[str, str]
    human: str | None = None


class JudgeAccuracy(BaseModel):
    model: str
    role: str  # primary | panel
    n_items: int
    n_judged: int
    n_pass: int
    accuracy: float | None


class PairAgreement(BaseModel):
    judge_a: str
    judge_b: str
    agreement: Agreement
    n_clusters: int
    informative: bool


def _is_panel(details: Any) -> bool:
    parsed = json.loads(details) if isinstance(details, str) and details else details
    return isinstance(parsed, dict) and parsed.get(PANEL_KEY) is True


def latest_verdicts(
    judgments: Sequence[dict[str, Any]], primary: str, panel: Sequence[str], accuracy_sha: str | None
) -> dict[str, str]:
    """model -> its latest verdict among `judgments` (oldest first): the primary judge's unmarked verdicts and
    each panel model's verdicts, with the run's accuracy prompt (any prompt when the run records none)."""
    out: dict[str, str] = {}
    for j in judgments:
        if j.get("verdict") is None or (accuracy_sha and j.get("prompt_sha256") != accuracy_sha):
            continue
        model = str(j.get("model"))
        marked = _is_panel(j.get("details"))
        if (model == primary and not marked) or (model in panel and model != primary):
            out[model] = str(j["verdict"])
    return out


def load_attempt_verdicts(driver: Driver, database: str, record: RunRecord) -> list[AttemptVerdicts]:
    """Every attempt of the run with each judge's verdict and the latest human ruling."""
    primary, panel = judge_models_of(record)
    sha = ((record.prompt_hashes or {}).get("judge_accuracy") or {}).get("sha256")
    with driver.session(database=database) as session:
        rows = list(session.run(load_cypher("agreement/accuracy_verdicts"), run_id=record.run_id))
        human = {
            r["attempt_id"]: r["verdict"]
            for r in session.run(load_cypher("agreement/human_verdicts"), run_id=record.run_id)
        }
    return [
        AttemptVerdicts(
            attempt_id=r["attempt_id"],
            item_id=r["item_id"],
            profile_id=r["profile_id"] or "",
            verdicts=latest_verdicts(r["judgments"], primary or "", panel, sha),
            human=human.get(r["attempt_id"]),
        )
        for r in rows
    ]


def judge_models_of(record: RunRecord) -> tuple[str | None, list[str]]:
    """(primary judge model, panel models) from the run record."""
    primary = (record.models.get("judge") or {}).get("model")
    listed = [str(m) for m in record.config.get("judge_models") or []]
    return primary, [m for m in listed if m != primary]


def judge_accuracy(model: str, role: str, attempts: Sequence[AttemptVerdicts], n_items: int) -> JudgeAccuracy:
    judged = [a.verdicts[model] for a in attempts if model in a.verdicts]
    passes = sum(1 for v in judged if v == "pass")
    return JudgeAccuracy(
        model=model,
        role=role,
        n_items=n_items,
        n_judged=len(judged),
        n_pass=passes,
        accuracy=(passes / n_items) if judged and n_items else None,
    )


def pair_agreement(a: str, b: str, attempts: Sequence[AttemptVerdicts], *, resamples: int, seed: int) -> PairAgreement:
    """Agreement of judges a and b on the attempts both judged (b may be `human`)."""
    both = [x for x in attempts if _label(x, a) is not None and _label(x, b) is not None]
    pairs = [(str(_label(x, a)), str(_label(x, b))) for x in both]
    clusters = [x.profile_id for x in both]
    agreement = kappa_with_interval(pairs, clusters, resamples=resamples, seed=seed)
    n_clusters = len(set(clusters))
    return PairAgreement(
        judge_a=a,
        judge_b=b,
        agreement=agreement,
        n_clusters=n_clusters,
        informative=n_clusters >= MIN_INFORMATIVE_CLUSTERS,
    )


def _label(attempt: AttemptVerdicts, judge: str) -> str | None:
    return attempt.human if judge == HUMAN else attempt.verdicts.get(judge)


def adjudication_link(attempt_id: str) -> str:
    """Where a person rules on this attempt's verdict."""
    return f"{ADJUDICATE_PATH}?attempt={quote(attempt_id, safe='')}"


def summarise_agreement(
    record: RunRecord,
    attempts: Sequence[AttemptVerdicts],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, Any] | None:
    """The agreement data of one run (JSON-able), or None when it has neither a panel nor human rulings."""
    primary, panel = judge_models_of(record)
    adjudicated = [a for a in attempts if a.human is not None]
    if primary is None or (not panel and not adjudicated):
        return None
    models = [primary, *panel]
    n_items = len(record.item_ids)
    pairs = [
        pair_agreement(a, b, attempts, resamples=resamples, seed=seed)
        for i, a in enumerate(models)
        for b in models[i + 1 :]
    ]
    disagreements = [
        {
            "attempt_id": a.attempt_id,
            "item_id": a.item_id,
            "profile_id": a.profile_id,
            "verdicts": {m: a.verdicts.get(m) for m in models},
            "human": a.human,
            "adjudicate": adjudication_link(a.attempt_id),
        }
        for a in attempts
        if len({a.verdicts[m] for m in models if m in a.verdicts}) > 1
    ]
    human = [pair_agreement(m, HUMAN, attempts, resamples=resamples, seed=seed) for m in models] if adjudicated else []
    return {
        "run_id": record.run_id,
        "label": record.label,
        "primary": primary,
        "panel": panel,
        "n_items": n_items,
        "judges": [
            judge_accuracy(m, "primary" if m == primary else "panel", attempts, n_items).model_dump() for m in models
        ],
        "pairs": [p.model_dump() for p in pairs],
        "disagreements": disagreements,
        "n_adjudicated": len(adjudicated),
        "human": [p.model_dump() for p in human],
    }
