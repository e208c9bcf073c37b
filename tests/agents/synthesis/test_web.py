"""The synthesis web stage against a fake web served from a thread of the test (a JSON search API, pages and a
robots.txt) and the fake LLM endpoint, over the bundled sample's KB in a real Neo4j: every fetch is a
WebPageFetched event with its URL, time and outcome, a page with new text becomes a searchable Document, and
robots.txt, size, type and text limits and duplicates are kept; without a configured endpoint nothing happens."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLE_BUNDLE, _load_bundle
from tests.fake_openai.synthesis_script import SynthesisPolicy
from tests.fake_web import FakeWeb
from tests.synthesis_support import synth_context

pytestmark = [pytest.mark.neo4j, pytest.mark.usefixtures("isolated_config")]

ARTICLE = (
    b"<html><head><title>Zorblax heat safety</title><script>var tracker = 'SCRIPTNOISE';</script></head><body>"
    b"<nav>Home | News | SITEMENU</nav><article><h1>Zorblax heat safety for older adults</h1>"
    b"<p>During a zorblax heat wave drink water every hour, even when you are not thirsty. People who take "
    b"water pills (diuretics) should ask their doctor how much fluid is safe for them before the hot days.</p>"
    b"<p>Stay indoors between noon and four in the afternoon, use a fan only below 35 degrees, and check on "
    b"neighbours who live alone at least twice a day.</p></article><footer>Copyright FOOTERNOISE</footer>"
    b"</body></html>"
)
CONFIG: dict[str, Any] = {
    "seed_docs": 1,
    "web_queries_per_doc": 1,
    "web_results_per_query": 10,
    "web_pages_per_doc": 10,
}
PATHS = ["/pages/heat", "/pages/heat-copy", "/private/secret", "/big", "/file.pdf", "/tiny", "/missing"]


def _rows(store: Any, cypher: str, **params: Any) -> list[dict[str, Any]]:
    with store.driver.session() as session:
        return [r.data() for r in session.run(cypher, **params)]


@pytest.fixture(scope="module")
def store(driver, encoder):  # type: ignore[no-untyped-def]
    return _load_bundle(driver, encoder, SAMPLE_BUNDLE)


@pytest.fixture(scope="module")
def fetched(store, tmp_path_factory):  # type: ignore[no-untyped-def]
    from agents.synthesis import stage_web
    from agents.synthesis.pipeline import start
    from agents.synthesis.web import WebSettings

    tmp = tmp_path_factory.mktemp("web")
    pages = {
        "/pages/heat": (200, "text/html; charset=utf-8", ARTICLE),
        "/pages/heat-copy": (200, "text/html", ARTICLE),
        "/private/secret": (200, "text/html", ARTICLE.replace(b"Zorblax", b"Secret")),
        "/big": (200, "text/html", b"<html><body><p>" + b"big page " * 4000 + b"</p></body></html>"),
        "/file.pdf": (200, "application/pdf", b"%PDF-1.4 not a page"),
        "/tiny": (200, "text/html", b"<html><body><p>Too short.</p></body></html>"),
    }
    with FakeWeb(pages, lambda q: PATHS, robots="User-agent: *\nDisallow: /private/\n") as web:
        settings = WebSettings(search_url=web.base_url + "/search", max_page_bytes=20_000)
        policy = SynthesisPolicy()
        with synth_context(store, policy, tmp / "cache.sqlite", dataset="syn-web", web=settings, **CONFIG) as (ctx, _):
            start(ctx)
            report = stage_web.run(ctx)
            found = ctx.retriever.search("HYBRID", "zorblax heat wave diuretics", k=5, corpus=ctx.corpus)
        events_before = _rows(store, "MATCH (e:Event) RETURN count(e) AS n")[0]["n"]
        requests_before = len(web.requests)
        again_policy = SynthesisPolicy()
        with synth_context(store, again_policy, tmp / "c2.sqlite", dataset="syn-web", web=settings, **CONFIG) as (
            ctx,
            _,
        ):
            again = stage_web.run(ctx)
        rerun = {
            "report": again,
            "llm_requests": len(again_policy.requests),
            "web_requests": len(web.requests) - requests_before,
            "new_events": _rows(store, "MATCH (e:Event) RETURN count(e) AS n")[0]["n"] - events_before,
        }
        return {"report": report, "web": web, "found": found, "policy": policy, "rerun": rerun}


def test_each_fetch_is_an_event_with_url_time_and_outcome_and_limits_hold(store, fetched) -> None:
    assert fetched["report"].outcomes["accepted"] == 1
    rows = _rows(
        store,
        "MATCH (f:WebFetch)-[:IN_SYNTHESIS]->(:SynthesisRun {id: 'synth-syn-web'}) "
        "OPTIONAL MATCH (f)-[:FETCHED_AS]->(d:Document) "
        "RETURN f.url AS url, f.outcome AS outcome, f.fetched_at AS at, f.rank AS rank, d.id AS doc",
    )
    base = fetched["web"].base_url
    by_path = {r["url"].removeprefix(base): r for r in rows}
    assert {p: r["outcome"] for p, r in by_path.items()} == {
        "/pages/heat": "document",
        "/pages/heat-copy": "duplicate",
        "/private/secret": "robots_disallowed",
        "/big": "too_large",
        "/file.pdf": "not_html",
        "/tiny": "no_text",
        "/missing": "http_error",
    }
    assert by_path["/pages/heat"]["doc"] == by_path["/pages/heat-copy"]["doc"] is not None
    assert [by_path[p]["rank"] for p in PATHS] == list(range(1, len(PATHS) + 1))
    assert all(r["at"] and r["at"].startswith("20") for r in rows)
    # robots.txt was read once and the disallowed page was never requested
    web = fetched["web"]
    assert not web.fetched("/private/secret") and sum(1 for p in web.requests if p == "/robots.txt") == 1


def test_a_fetched_page_becomes_a_searchable_document_with_its_url_and_fetch_time(store, fetched) -> None:
    import json

    docs = _rows(
        store,
        "MATCH (f:WebFetch {outcome: 'document'})-[:FETCHED_AS]->(d:Document) "
        "RETURN d.id AS id, d.url AS url, d.source AS source, d.title AS title, d.text AS text, "
        "d.metadata AS meta, f.fetched_at AS at, COUNT { (d)-[:HAS_CHUNK]->() } AS chunks",
    )
    assert len(docs) == 1
    doc = docs[0]
    assert doc["url"] == fetched["web"].base_url + "/pages/heat" and doc["source"] == "web"
    assert json.loads(doc["meta"])["fetched_at"] == doc["at"] and doc["chunks"] >= 1
    assert "drink water every hour" in doc["text"] and doc["title"].startswith("Zorblax heat safety")
    for noise in ("SCRIPTNOISE", "SITEMENU", "FOOTERNOISE"):
        assert noise not in doc["text"]
    assert doc["id"] in [d.doc_id for d in fetched["found"].documents]


def test_the_web_roles_request_holds_only_the_seed_document(fetched) -> None:
    bodies = fetched["policy"].seen("WebQueries")
    assert len(bodies) == 1 and "seed" in bodies[0]["messages"][-1]["content"]


def test_a_rerun_fetches_and_appends_nothing(fetched) -> None:
    rerun = fetched["rerun"]
    assert rerun["report"].skipped == 1 and not rerun["report"].outcomes
    assert rerun["llm_requests"] == 0 and rerun["web_requests"] == 0 and rerun["new_events"] == 0


def test_without_a_search_endpoint_the_stage_says_so_and_does_nothing(store, tmp_path: Path) -> None:
    from agents.synthesis import stage_web
    from agents.synthesis.web import WebSettings

    assert not WebSettings().enabled  # nothing configured in the isolated config
    policy = SynthesisPolicy()
    with synth_context(store, policy, tmp_path / "cache.sqlite", dataset="syn-noweb", **CONFIG) as (ctx, _):
        report = stage_web.run(ctx)
    assert report.planned == 0 and not report.outcomes and not policy.requests
    assert "not configured" in report.extra["note"] and "knowledge base's documents only" in report.extra["note"]
