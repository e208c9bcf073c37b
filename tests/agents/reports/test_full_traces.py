"""The full evaluation report reads at a glance (issue 28, item 6), checked on a real report: three methods
answered and judged on the `mini` items by the fake endpoint, reported from the graph.

Every document id of the traces is shown with its title from the graph; tool returns are ranked lists and
numbered lines, never the raw JSON the model saw; paired gains are method − baseline with the floor method as
the baseline; each method keeps one colour over every chart; the title names the runs that ran."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html import escape, unescape
from pathlib import Path
from typing import Any

import pytest

from graph.store import EventStore

pytestmark = [pytest.mark.neo4j]

METHODS = "HYBRID,SEMANTIC,KEYWORD"  # no memory to build: quick, and HYBRID is the floor (the baseline)


@pytest.fixture(scope="module")
def report(mini_store: EventStore, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from agents.reports.data import build_report_data
    from agents.reports.html import render_html
    from tests.fake_openai.policy import AutoPolicy
    from tests.report_support import run_mini_batch

    root = tmp_path_factory.mktemp("full-report")
    config = root / "empty.toml"
    config.write_text("")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("COLABENCH_CONFIG", str(config))
        env.setenv("COLABENCH_DATA_DIR", str(root))
        plan = run_mini_batch(mini_store, AutoPolicy(), root / "cache.sqlite", methods=METHODS)
        data = build_report_data(mini_store.driver, mini_store.database, [r.run_id for r in plan.runs], resamples=200)
    return {"data": data, "html": render_html(data), "store": mini_store}


def _graph_titles(store: EventStore, ids: list[str]) -> dict[str, str]:
    with store.driver.session(database=store.database) as session:
        rows = session.run("MATCH (d:Document) WHERE d.id IN $ids RETURN d.id AS id, d.title AS title", ids=ids)
        return {r["id"]: r["title"] for r in rows if r["title"]}


def test_every_document_id_of_the_traces_is_shown_with_its_title(report: dict[str, Any]) -> None:
    data, html = report["data"], report["html"]
    ids = {d for item in data["items"] for d in item["support_doc_ids"]}
    ids |= {s["doc_id"] for item in data["items"] for r in item["requirements"] for s in r["spans"]}
    ids |= {
        r["id"]
        for item in data["items"]
        for a in item["attempts"].values()
        for c in a.get("calls", [])
        for r in c["returned"]
        if r["kind"] == "document"
    }
    assert ids
    titles = _graph_titles(report["store"], sorted(ids))
    assert set(titles) == ids  # the mini documents all have titles
    for doc_id, title in titles.items():
        assert data["titles"][doc_id]["title"] == title
        link = f'title="{escape(doc_id)}">{escape(title)}</a> <code class=\'muted\'>{escape(doc_id)}</code>'
        assert link in html, doc_id  # the title, linked, with the id beside it


def test_tool_returns_are_ranked_lists_and_numbered_lines_not_raw_json(report: dict[str, Any]) -> None:
    data, html = report["data"], report["html"]
    calls = [c for item in data["items"] for a in item["attempts"].values() for c in a.get("calls", [])]
    kinds = {c["shown"]["kind"] for c in calls}
    assert {"search", "read"} <= kinds and "text" not in kinds
    for raw in ('"documents":', '"doc_id":', '"snippet":', '{"query"'):
        assert escape(raw) not in html and raw not in html, raw
    assert "<ol class='ranked'>" in html
    read = next(c["shown"] for c in calls if c["shown"]["kind"] == "read")
    number, text = read["lines"][0]
    assert number == read["start_line"]
    assert f"<td class='ln'>{number}</td><td>{escape(text)}</td>" in html
    for call in calls:
        assert "response" not in call  # the report keeps the view, not the JSON


def test_paired_gains_are_method_minus_the_floor_baseline(report: dict[str, Any]) -> None:
    data, html = report["data"], report["html"]
    pairs = {(c["method_label"], c["baseline_label"]) for c in data["comparisons"]}
    assert pairs == {("No Memory + Semantic", "No Memory + Hybrid"), ("No Memory + Keyword", "No Memory + Hybrid")}
    assert "<h3>No Memory + Semantic \u2212 No Memory + Hybrid</h3>" in html
    assert "<th>No Memory + Semantic (method)</th><th>No Memory + Hybrid (baseline)</th>" in html
    assert "gain over No Memory + Hybrid (pp)" in html


def _svgs(html: str) -> list[ET.Element]:
    return [ET.fromstring(m) for m in re.findall(r"<svg .*?</svg>", html, flags=re.S)]


def test_each_method_has_one_colour_and_every_label_in_every_bar_legend(report: dict[str, Any]) -> None:
    data, html = report["data"], report["html"]
    labels = [run["label"] for run in data["runs"]]
    fills: dict[str, set[str]] = {}
    legends = 0
    for svg in _svgs(html):
        for node in svg.iter():
            if node.get("data-series") is not None:
                fills.setdefault(unescape(str(node.get("data-series"))), set()).add(str(node.get("fill")))
        legend = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "legend"]
        if legend:
            legends += 1
            assert legend == labels
    assert legends == 2  # by fact count and by history pairs
    assert set(fills) == set(labels)
    assert all(len(colours) == 1 for colours in fills.values()), fills
    assert len({next(iter(c)) for c in fills.values()}) == len(labels)


def test_states_and_title_are_spelled_out(report: dict[str, Any]) -> None:
    data, html = report["data"], report["html"]
    assert data["title"] == (
        "ColaBench evaluation: No Memory + Hybrid, No Memory + Semantic, No Memory + Keyword on mini"
    )
    assert "judged: <span class=" in html and "not judged" not in html  # every item answered and judged
    assert json.dumps(data, default=str)  # the data stays JSON


def test_an_attempt_state_says_answered_or_not() -> None:
    from agents.reports.html import attempt_state, note_html

    assert "not answered" in attempt_state({"status": "error", "verdict": None})
    assert "not answered" in attempt_state({"status": None, "verdict": None})
    assert attempt_state({"status": "answered", "verdict": None}).startswith("answered, ")
    assert "not judged" in attempt_state({"status": "answered", "verdict": None})
    assert "needs adjudication" in attempt_state({"status": "answered", "verdict": "needs_adjudication"})
    shown = note_html("3 pending (`./colabench adjudicate run-1`) <b>")
    assert "`" not in shown and "<code>./colabench adjudicate run-1</code>" in shown and "&lt;b&gt;" in shown


def test_an_older_report_without_views_still_renders_its_returns(tmp_path: Path) -> None:
    from agents.reports.tool_returns import render_return_html, return_view

    body = {"documents": [{"rank": 1, "doc_id": "d1", "title": "Visas", "lines": "3-9", "snippet": "a visa"}]}
    shown = render_return_html(return_view("kb_search", json.dumps(body)))
    assert "<ol class='ranked'>" in shown and 'title="d1">Visas</a>' in shown and "&quot;" not in shown
    cut = render_return_html(return_view("kb_search", json.dumps(body)[:30]))
    assert "returned text" in cut  # a cut-off response is labelled as text, not passed off as a list
    failed = render_return_html(return_view("read", json.dumps({"error": "no document x"}), ok=False))
    assert "error: no document x" in failed


def test_the_keyword_channel_of_each_run_is_named_with_its_analyzer_stop_list_and_stemming(
    report: dict[str, Any],
) -> None:
    """Issue 29: a report that shows KEYWORD or HYBRID names the keyword channel each run recorded (analyzer,
    its tokens, stop list and stemming), in the HTML and the Markdown; a run without one (SEMANTIC) is not listed."""
    from agents.reports.markdown import render_markdown
    from query.keyword_analyzers import ANALYZERS

    data, html = report["data"], report["html"]
    markdown = render_markdown(data)
    method_of = {run["run_id"]: run["method"] for run in data["runs"]}
    listed = {method_of[run["run_id"]]: run for run in data["sections"]["keyword_channel"]["runs"]}
    assert set(listed) == {"HYBRID", "KEYWORD"}
    expected = {"HYBRID": "plain", "KEYWORD": "english"}  # the recipes' analyzers when the runs started
    for method, analyzer in expected.items():
        (row,) = listed[method]["recipes"]
        assert listed[method]["recorded"] and row["recipe"] == method
        assert (row["analyzer"], row["padding"]) == (analyzer, False)
        definition = ANALYZERS[analyzer].definition()  # e.g. "plain: \w+ tokens, lower-cased, no stop words, ..."
        assert row["definition"] == definition
        assert escape(definition) in html and definition in markdown
    assert "181 English stop words removed" in markdown and "no stop words, no stemming" in markdown
    assert "<h2>Keyword channel</h2>" in html and "## Keyword channel" in markdown
    assert "<code>chunk_text_plain</code>" in html and "`chunk_text_plain`" in markdown
