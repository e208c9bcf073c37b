"""Report section: judge agreement (a judge panel from `run --judge-models A,B`) and judge-vs-human agreement
wherever people have adjudicated; disagreements link to the adjudication page."""

from __future__ import annotations

from html import escape
from typing import Any

from agents.agreement.summary import HUMAN, load_attempt_verdicts, summarise_agreement
from agents.metrics.bootstrap import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from agents.reports.html import _pct, node_link
from agents.reports.sections import ReportSection, SectionContext, register_section

# Disagreements listed per run (all are counted).
LISTED_DISAGREEMENTS = 200


def collect(context: SectionContext) -> dict[str, Any] | None:
    resamples = int(context.options.get("resamples", BOOTSTRAP_RESAMPLES))
    seed = int(context.options.get("seed", BOOTSTRAP_SEED))
    runs = []
    for record in context.records:
        attempts = load_attempt_verdicts(context.driver, context.database, record)
        summary = summarise_agreement(record, attempts, resamples=resamples, seed=seed)
        if summary is not None:
            summary["n_disagreements"] = len(summary["disagreements"])
            summary["disagreements"] = summary["disagreements"][:LISTED_DISAGREEMENTS]
            runs.append(summary)
    return {"runs": runs} if runs else None


def notes(data: dict[str, Any]) -> list[str]:
    out = []
    for run in data["runs"]:
        if run["panel"] and run["n_disagreements"]:
            out.append(
                f"run {run['run_id']}: the judges disagree on {run['n_disagreements']} attempt(s) "
                "(listed under Judge agreement, with links to adjudicate them)"
            )
    return out


def kappa_text(pair: dict[str, Any]) -> str:
    """`0.500 [0.12, 0.81] (6 clusters)`; `n/a (pe = 1)` when kappa is undefined; below 5 clusters the
    interval is replaced by `interval not informative (N clusters)`."""
    agreement = pair["agreement"]
    if agreement["n"] == 0:
        return "n/a (no attempt rated by both)"
    if agreement["kappa"] is None:
        return "n/a (pe = 1: both gave every attempt the same single label)"
    text = f"{agreement['kappa']:.3f}"
    interval = agreement.get("kappa_interval") or {}
    clusters = pair["n_clusters"]
    if not pair["informative"]:
        return f"{text}; interval not informative ({clusters} clusters)"
    if interval.get("low") is None:
        return f"{text} (no interval; {clusters} clusters)"
    return f"{text} [{interval['low']:.3f}, {interval['high']:.3f}] ({clusters} clusters)"


def _who(name: str) -> str:
    return "people (adjudications)" if name == HUMAN else name


def _pair_rows(pairs: list[dict[str, Any]]) -> list[tuple[str, str, str, str, str, str]]:
    return [
        (
            p["judge_a"],
            _who(p["judge_b"]),
            str(p["agreement"]["n"]),
            _pct(p["agreement"]["po"]),
            "n/a" if p["agreement"]["pe"] is None else f"{p['agreement']['pe']:.3f}",
            kappa_text(p),
        )
        for p in pairs
    ]


_PAIR_HEAD = ("judge", "compared with", "attempts", "raw agreement", "pe", "Cohen's kappa [95% CI]")


def render_html(data: dict[str, Any], report: dict[str, Any]) -> str:
    out = [
        "<h2>Judge agreement</h2><p class='muted'>Accuracy verdicts of every judge model on the same attempts "
        "(pass, fail, needs_adjudication as recorded); the primary judge's verdicts are the run's. Kappa's "
        "interval: cluster bootstrap over profiles. Against people, a judge's needs_adjudication counts as a "
        "disagreement.</p>"
    ]
    for run in data["runs"]:
        out.append(f"<h3>{escape(run['label'])} <span class='muted'>({escape(run['run_id'])})</span></h3>")
        out.append("<table><tr><th>judge model</th><th>role</th><th>judged</th><th>passes</th><th>accuracy</th></tr>")
        for j in run["judges"]:
            out.append(
                f"<tr><td><code>{escape(j['model'])}</code></td><td>{escape(j['role'])}</td>"
                f"<td class='n'>{j['n_judged']}/{j['n_items']}</td><td class='n'>{j['n_pass']}</td>"
                f"<td class='n'>{_pct(j['accuracy'])}</td></tr>"
            )
        out.append("</table>")
        pairs = [*run["pairs"], *run["human"]]
        if pairs:
            out.append("<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in _PAIR_HEAD) + "</tr>")
            for row in _pair_rows(pairs):
                cells = "".join(
                    f"<td class='n'>{escape(c)}</td>" if i >= 2 else f"<td>{escape(c)}</td>" for i, c in enumerate(row)
                )
                out.append(f"<tr>{cells}</tr>")
            out.append("</table>")
        if run["panel"] and not run["human"]:
            out.append("<p class='muted'>No attempt of this run has been adjudicated by a person yet.</p>")
        if run["disagreements"]:
            models = [run["primary"], *run["panel"]]
            out.append(
                f"<h3>Disagreements ({run['n_disagreements']})</h3><table><tr><th>attempt</th>"
                + "".join(f"<th><code>{escape(m)}</code></th>" for m in models)
                + "<th>person</th><th></th></tr>"
            )
            for d in run["disagreements"]:
                verdicts = "".join(f"<td>{escape(str(d['verdicts'].get(m) or '-'))}</td>" for m in models)
                out.append(
                    f"<tr><td>{node_link(d['attempt_id'])}</td>{verdicts}<td>{escape(d['human'] or '-')}</td>"
                    f'<td><a href="{escape(d["adjudicate"])}">adjudicate</a></td></tr>'
                )
            out.append("</table>")
    return "".join(out)


def render_markdown(data: dict[str, Any], report: dict[str, Any]) -> list[str]:
    lines = ["## Judge agreement"]
    for run in data["runs"]:
        lines += ["", f"### {run['label']} ({run['run_id']})", "", "| judge model | role | judged | accuracy |"]
        lines.append("| --- | --- | ---: | ---: |")
        for j in run["judges"]:
            lines.append(f"| {j['model']} | {j['role']} | {j['n_judged']}/{j['n_items']} | {_pct(j['accuracy'])} |")
        pairs = [*run["pairs"], *run["human"]]
        if pairs:
            lines += ["", "| " + " | ".join(_PAIR_HEAD) + " |", "| --- | --- | ---: | ---: | ---: | --- |"]
            lines.extend("| " + " | ".join(row) + " |" for row in _pair_rows(pairs))
        if run["disagreements"]:
            models = [run["primary"], *run["panel"]]
            lines += ["", f"Disagreements ({run['n_disagreements']}):", ""]
            for d in run["disagreements"]:
                verdicts = ", ".join(f"{m}: {d['verdicts'].get(m) or '-'}" for m in models)
                lines.append(f"- {d['attempt_id']}: {verdicts}; person: {d['human'] or '-'} ({d['adjudicate']})")
    return lines


register_section(
    ReportSection(
        name="judge_agreement",
        title="Judge agreement",
        order=30,
        collect=collect,
        html=render_html,
        markdown=render_markdown,
        notes=notes,
    )
)
