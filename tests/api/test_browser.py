"""The graph browser in real headless Chromium (Debian's, driven by Playwright): search an item, expand it, click a
requirement and see its user statements beside its document spans; deep links; report pages link into it, and a
real evaluation report shows no reference answer without the API token and every one with it."""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver

from graph.server import free_port
from tests.api_support import TOKEN
from tests.report_support import reference_answers, shown_answers, write_mini_report

CHROMIUM = Path("/usr/bin/chromium")
# Screenshots for a human to look at, outside the checkout (tests write only under temporary or cache folders);
# COLABENCH_TEST_ARTIFACTS picks another folder.
ARTIFACTS = Path(os.environ.get("COLABENCH_TEST_ARTIFACTS") or Path(tempfile.gettempdir()) / "colabench-test-artifacts")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is not installed (apt-get install chromium)"),
]
playwright_api = pytest.importorskip("playwright.sync_api")

REPORT = """<!doctype html><html><head><meta charset="utf-8"><title>run report</title>
<style>body { font-family: sans-serif; }</style></head><body>
<h1>Run report</h1>
<table><tr><td>item <span class="node" data-node-id="i-mini-01">i-mini-01</span></td><td>pass</td></tr></table>
</body></html>"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("reports")


@pytest.fixture(scope="module")
def server(mini_store: Any, neo4j_settings: Any, driver: Driver, encoder: Any, reports: Path) -> Iterator[str]:
    """The real app under uvicorn on a free loopback port (with the API token), with a reports directory
    holding one hand-made report."""
    import uvicorn

    from api.app import create_app
    from api.settings import ApiSettings

    (reports / "run-1").mkdir()
    (reports / "run-1" / "report.html").write_text(REPORT, encoding="utf-8")
    (reports / "latest.json").write_text(json.dumps({"path": str(reports / "run-1")}), encoding="utf-8")
    port = free_port()
    app = create_app(
        ApiSettings(reports_dir=reports, token=TOKEN),
        neo4j_settings,
        sync_driver=driver,
        encoder=encoder,
        configure_logs=False,
    )
    uv = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=1)
    )
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 300  # a generous bound on a condition
    while not uv.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    uv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture()
def page(tmp_path: Path) -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        # A persistent context on a fresh directory: the fresh --user-data-dir the stack notes ask for.
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),
            executable_path=str(CHROMIUM),
            headless=True,
            args=FLAGS,
            viewport={"width": 1500, "height": 950},
        )
        pg = context.new_page()
        pg.set_default_timeout(20_000)
        problems: list[str] = []
        pg.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        pg.on("pageerror", lambda e: problems.append(str(e)))
        pg.problems = problems
        yield pg
        context.close()


def _click_graph_node(page: Any, node_id: str) -> None:
    """Click a node on the cytoscape canvas at its rendered position (a real pointer click)."""
    point = page.evaluate(
        """(nodeId) => {
            const cy = window.colabenchBrowser.cy;
            const node = cy.nodes().filter((n) => n.data('nodeId') === nodeId)[0];
            cy.center(node);
            const p = node.renderedPosition();
            const box = document.getElementById('graph').getBoundingClientRect();
            return { x: box.left + p.x, y: box.top + p.y };
        }""",
        node_id,
    )
    page.mouse.click(point["x"], point["y"])


def test_search_expand_and_click_a_requirement_shows_statements_beside_spans(server: str, page: Any) -> None:
    page.goto(f"{server}/browser")
    page.fill("#search-input", "i-mini-01")
    page.click('#search-results li[data-node-id="i-mini-01"]')
    # Expanding the item put its requirements, profile and documents in the view.
    page.wait_for_selector('#node-list button[data-node-id="i-mini-01-r1"]')
    labels = page.eval_on_selector_all("#node-list button", "els => els.map(e => e.dataset.label)")
    assert {"Item", "Requirement", "Profile", "Document"} <= set(labels)
    assert page.evaluate("window.colabenchBrowser.cy.nodes().length") == len(labels)
    _click_graph_node(page, "i-mini-01-r1")
    page.wait_for_selector(".provenance .statement")
    statement = page.inner_text(".provenance .statement")
    span = page.inner_text(".provenance .span")
    assert "I got my first tattoo on Saturday, 1 March" in statement and "mini-s-1" in statement
    assert "Wait 4 months after a new tattoo or piercing before donating." in span and "lines 4–4" in span
    # The requirement's text is gold: a browser without the API token sees its id and a note instead.
    assert "i-mini-01-r1" in page.inner_text("#details h2")
    assert "Apply the 4-month wait" not in page.inner_text("#details")
    assert "hidden: gold" in page.inner_text("#details .req-text")
    # Statements and spans sit side by side.
    left = page.eval_on_selector(".provenance .statement", "e => e.getBoundingClientRect().left")
    right = page.eval_on_selector(".provenance .span", "e => e.getBoundingClientRect().left")
    assert right > left + 100
    assert "node=i-mini-01" in page.url
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "browser-requirement.png"), full_page=True)
    assert page.problems == []


def test_double_click_expands_and_a_deep_link_opens_a_turn(server: str, page: Any) -> None:
    page.goto(f"{server}/browser#node=mini-s-1-t0&label=Turn")
    page.wait_for_selector(".provenance-Turn .statement")
    assert "I got my first tattoo" in page.inner_text(".provenance-Turn")
    before = page.evaluate("window.colabenchBrowser.cy.nodes().length")
    point = page.evaluate(
        """() => { const cy = window.colabenchBrowser.cy;
            const n = cy.nodes().filter((x) => x.data('label') === 'Session')[0];
            cy.center(n); const p = n.renderedPosition();
            const b = document.getElementById('graph').getBoundingClientRect();
            return { x: b.left + p.x, y: b.top + p.y }; }"""
    )
    page.mouse.dblclick(point["x"], point["y"])
    # Polled from Python: wait_for_function evaluates strings, which the page's CSP (rightly) forbids.
    deadline = time.monotonic() + 120  # a generous bound on a condition
    while page.evaluate("window.colabenchBrowser.cy.nodes().length") <= before:
        assert time.monotonic() < deadline, "double-click did not expand the session"
        time.sleep(0.1)
    assert page.problems == []


def test_report_pages_are_served_and_their_ids_link_into_the_browser(server: str, page: Any) -> None:
    page.goto(f"{server}/reports/")
    assert "run-1/report.html" in page.inner_text("body")
    page.click("text=latest report")
    assert page.url.endswith("/reports/run-1/report.html")
    page.wait_for_selector('a[href="/browser#node=i-mini-01"]')
    page.click('a[href="/browser#node=i-mini-01"]')
    page.wait_for_selector(".provenance-Item")
    assert "Can I give blood" in page.inner_text(".provenance-Item")
    assert page.url.endswith("/browser#node=i-mini-01&label=Item")


@pytest.fixture(scope="module")
def gold_report(mini_store: Any, reports: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real evaluation report (HYBRID on `mini`, fake endpoint) written into the served reports directory;
    its latest.json goes elsewhere, so the hand-made report above stays the latest."""
    return write_mini_report(mini_store, reports, tmp_path_factory.mktemp("report-run"))


def _open_every_trace(page: Any) -> str:
    page.eval_on_selector_all("details", "els => els.forEach((e) => { e.open = true; })")
    return str(page.inner_text("body"))


def test_a_report_page_hides_reference_answers_without_the_token_and_shows_them_with_it(
    server: str, page: Any, gold_report: Path
) -> None:
    assert shown_answers((gold_report / "report.html").read_text()) == reference_answers()  # the file has them
    url = f"{server}/reports/{gold_report.name}/report.html"
    page.goto(url)
    page.wait_for_selector(".reference-answer-hidden", state="attached")  # inside closed traces
    text = _open_every_trace(page)
    assert shown_answers(text) == [] and shown_answers(page.content()) == []
    assert page.locator(".reference-answer-hidden").count() == 4 and page.locator(".reference-answer").count() == 0
    assert "Can I give blood" in text  # the rest of the trace is there
    page.set_extra_http_headers({"Authorization": f"Bearer {TOKEN}"})
    page.goto(url)
    page.wait_for_selector(".reference-answer", state="attached")  # inside closed traces
    text = _open_every_trace(page)
    assert shown_answers(text) == reference_answers()
    assert page.locator(".reference-answer").count() == 4 and page.locator(".reference-answer-hidden").count() == 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "report-with-token.png"), full_page=True)
    assert page.problems == []


def test_the_start_page_lists_datasets_profiles_and_latest_runs_and_attempts_read_as_cards(
    server: str, page: Any, gold_report: Path
) -> None:
    page.goto(f"{server}/browser")
    page.wait_for_selector('#start-datasets li[data-dataset="mini"]')
    assert page.is_visible("#start") and page.is_visible("#start-search-input")
    mini = page.inner_text('#start-datasets li[data-dataset="mini"]')
    assert "2 profile(s)" in mini and "4 item(s)" in mini, mini
    page.wait_for_selector('#start-profiles button[data-node-id="mini-p-sam"]')
    page.wait_for_selector("#start-runs li[data-run-id]")
    runs = page.inner_text("#start-runs")
    assert "HYBRID on mini" in runs and "attempt(s)" in runs
    # the start page's search box finds nodes as the header's does
    page.fill("#start-search-input", "i-mini-01")
    page.press("#start-search-input", "Enter")
    page.wait_for_selector('#search-results li[data-node-id="i-mini-01"]')
    # a run opens as a card listing its attempts; an attempt as a card with its question, answer, verdict, flags
    page.click("#start-runs li[data-run-id] button")
    assert not page.is_visible("#start")
    page.wait_for_selector(".run-card")
    page.click('.provenance-Run .attempt-row button[data-node-id$=":i-mini-01"]')
    page.wait_for_selector(".attempt-card")
    card = page.inner_text(".attempt-card")
    for name in ("QUESTION", "ANSWER", "VERDICT", "METHOD", "TOKENS", "FLAGS"):
        assert name in card.upper(), card
    assert "Can I give blood" in card and "HYBRID" in card
    assert "usage" not in card and "[]" not in card
    href = page.get_attribute(".attempt-card a.exchange", "href")
    assert href is not None and href.startswith("/exchange#") and len(href) == len("/exchange#") + 64
    page.wait_for_selector(".provenance-Attempt .judgment-card")
    verdict = page.inner_text(".provenance-Attempt .judgment-card")
    assert "accuracy" in verdict and "hidden: gold" in verdict  # the judge's rationale quotes gold
    assert page.get_attribute(".provenance-Attempt .judgment-card a.exchange", "href").startswith("/exchange#")
    # gold never reaches the page without the token, raw properties included
    page.eval_on_selector_all("details", "els => els.forEach((e) => { e.open = true; })")
    assert shown_answers(page.content()) == []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "browser-attempt.png"), full_page=True)
    assert page.problems == []


def test_node_labels_of_an_expanded_item_do_not_overlap(server: str, page: Any) -> None:
    page.goto(f"{server}/browser#node=i-mini-01&label=Item")
    page.wait_for_selector(".provenance-Item")
    page.wait_for_selector('#node-list button[data-node-id="i-mini-01-r1"]')
    assert page.evaluate("window.colabenchBrowser.cy.nodes().length") > 3
    assert page.evaluate("window.colabenchBrowser.labelOverlaps()") == 0
    assert page.problems == []
