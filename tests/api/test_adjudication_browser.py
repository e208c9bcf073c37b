"""The adjudication page in real headless Chromium: without the API token it shows no pending verdict and no
gold; with a wrong token it says so; with the token it lists the pending verdicts (question, reference answer,
requirements, answer, the judge's rationale, the trace) and records a ruling that lands in the graph."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from graph.server import free_port
from graph.store import EventStore
from tests.agents.judging.test_adjudication import PENDING, env, run_id  # noqa: F401  (module fixtures reused here)
from tests.api.test_browser import ARTIFACTS, CHROMIUM, page  # noqa: F401  (the Chromium page fixture)
from tests.api_support import TOKEN, cypher
from tests.report_support import reference_answers, shown_answers

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium is not installed (apt-get install chromium)"),
]


@pytest.fixture(scope="module")
def server(
    mini_store: EventStore, neo4j_settings: Any, encoder: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    import uvicorn

    from api.app import create_app
    from api.settings import ApiSettings

    port = free_port()
    app = create_app(
        ApiSettings(reports_dir=tmp_path_factory.mktemp("reports"), token=TOKEN),
        neo4j_settings,
        sync_driver=mini_store.driver,
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


def _wait_for_status(pg: Any, needle: str) -> str:
    deadline = time.monotonic() + 120  # a generous bound on a condition
    while needle not in (text := pg.inner_text("#status")):
        assert time.monotonic() < deadline, f"status never said {needle!r}; it says {text!r}"
        time.sleep(0.1)
    return str(text)


def test_the_adjudication_page_needs_the_token_lists_pending_verdicts_and_records_a_ruling(
    server: str,
    page: Any,  # noqa: F811
    run_id: str,  # noqa: F811
    mini_store: EventStore,
) -> None:
    page.goto(f"{server}/adjudicate")
    _wait_for_status(page, "enter the API token")
    assert page.locator("article.case").count() == 0
    assert "cannot tell" not in page.content() and shown_answers(page.content()) == []

    page.fill("#token", "not-the-token-0123456789")
    page.click("#load")
    _wait_for_status(page, "not valid")
    assert page.locator("article.case").count() == 0 and "cannot tell" not in page.content()

    page.fill("#token", TOKEN)
    page.fill("#adjudicator", "browser-person")
    page.fill("#runs", run_id)
    page.click("#load")
    _wait_for_status(page, "pending verdict(s)")
    attempts = page.eval_on_selector_all("article.case", "els => els.map(e => e.dataset.attemptId)")
    assert sorted(attempts) == sorted(f"{run_id}:{item}" for item in PENDING)
    first = page.locator(f'article.case[data-attempt-id="{run_id}:i-mini-01"]')
    text = first.inner_text()
    assert "Can I give blood" in text and "cannot tell" in text and "evidence trace" in text
    assert "kb_search" in text and "user said" in text
    assert shown_answers(page.content()) and set(shown_answers(page.content())) <= set(reference_answers())

    first.locator("input.pass").check()
    first.locator("textarea.reason").fill("states the four-month wait after a tattoo")
    first.locator("button.submit").click()
    _wait_for_status(page, "recorded pass")
    rows = cypher(
        mini_store.driver,
        "MATCH (:Attempt {id: $id})-[:ADJUDICATED_BY]->(d:Adjudication) RETURN d.verdict AS v, d.adjudicator AS who",
        id=f"{run_id}:i-mini-01",
    )
    assert rows == [{"v": "pass", "who": "browser-person"}]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "adjudication-page.png"), full_page=True)

    page.reload()  # the token stays in this tab's session storage; the ruled verdict is no longer pending
    page.fill("#runs", run_id)
    page.click("#load")
    _wait_for_status(page, "pending verdict(s)")
    assert page.locator("article.case").count() == len(PENDING) - 1
    page.click("#forget")
    _wait_for_status(page, "enter the API token")
    assert page.locator("article.case").count() == 0
    assert page.problems == []
