"""Stage 0 on the web (paper Sec. 3.1, App. A.1): from each seed document of stage 0, the `web` role proposes
searches; a JSON search endpoint runs them; the results are fetched (robots.txt respected, size, type and
count limits) and their text extracted (agents/synthesis/web.py). Every fetch is a WebPageFetched event with its
URL, time and outcome; a page whose text is new becomes a Document (DocumentIngested + DocumentChunked, source
`web`, its URL and fetch time kept), searchable by the later stages like any KB document. A page whose text is
already a document (the same body under another URL, or a KB document) is recorded as a duplicate.

Off unless a search endpoint is configured: the stage then closes no unit and says so in its figures; the
pipeline builds from the knowledge base alone, as before.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from agents.synthesis.context import WEB_SOURCE, SynthContext
from agents.synthesis.registry import SynthesisStage, register_stage
from agents.synthesis.roles import View, ask, close_unit, draft_event
from agents.synthesis.runner import StageReport, UnitWork, run_units
from agents.synthesis.stage_docs import DocBrief, brief, seed_documents
from agents.synthesis.state import closed_subjects, documents
from agents.synthesis.web import FetchedPage, WebClient, web_doc_id
from graph.events import DomainEvent, WebPageFetched
from ingest.documents import document_events

STAGE = "web"
OFF_NOTE = (
    "web search not configured (COLABENCH_WEB_SEARCH_URL or [web] search_url): no page fetched; the pipeline "
    "uses the knowledge base's documents only"
)


class WebQueryView(View):
    seed: DocBrief
    queries_wanted: int


class WebQueries(BaseModel):
    model_config = ConfigDict(extra="forbid")
    queries: list[str] = Field(min_length=1, max_length=5)


def web_query_view(seed: DocBrief, wanted: int) -> WebQueryView:
    return WebQueryView(seed=seed, queries_wanted=wanted)


def _check_queries(wanted: int) -> Callable[[WebQueries], str | None]:
    def check(value: WebQueries) -> str | None:
        if len(value.queries) > wanted:
            return f"at most {wanted} queries are wanted, got {len(value.queries)}"
        if any(not q.strip() or len(q) > 300 for q in value.queries):
            return "every query must be non-empty text of at most 300 characters"
        return None

    return check


def fetch_id(synthesis_id: str, seed_id: str, url: str) -> str:
    return "fetch-" + hashlib.sha256(f"{synthesis_id}|{seed_id}|{url}".encode()).hexdigest()[:20]


def _existing_doc(ctx: SynthContext, doc_id: str, text: str) -> str | None:
    """The id of a document that already holds exactly `text` (the page's own id, or a KB document)."""
    rows = ctx.query("document_with_text", doc_id=doc_id, text=text)
    return str(rows[0]["doc_id"]) if rows else None


def search_and_fetch(ctx: SynthContext, seed_id: str) -> str:
    """One seed document: ask for queries, search, fetch; one transaction with every fetch's events."""
    assert ctx.web is not None
    client = WebClient(ctx.web)
    seed = documents(ctx, [seed_id])[seed_id]
    wanted = ctx.config.web_queries_per_doc
    asked = ask(
        ctx,
        stage=STAGE,
        role="web",
        prompt="synth_web_queries",
        view=web_query_view(brief(seed), wanted),
        output=WebQueries,
        check=_check_queries(wanted),
    )
    if asked.value is None:
        return close_unit(
            ctx,
            stage=STAGE,
            role="web",
            subject=seed_id,
            outcome="rejected",
            reasons=[asked.problem or "no valid queries"],
            exchange=asked.exchange,
        )
    events: list[tuple[str, DomainEvent]] = []
    outcomes: Counter[str] = Counter()
    seen_urls: set[str] = set()
    made: dict[str, str] = {}  # doc id -> url, for the pages of this unit
    fetched = 0
    for query in asked.value.queries:
        if fetched >= ctx.config.web_pages_per_doc:
            break
        for rank, hit in enumerate(client.search(query.strip(), ctx.config.web_results_per_query), start=1):
            if fetched >= ctx.config.web_pages_per_doc:
                break
            if hit.url in seen_urls:
                continue
            seen_urls.add(hit.url)
            page = client.fetch(hit.url)
            fetched += 1
            doc_id = None
            outcome = page.outcome
            if outcome == "document":
                doc_id = web_doc_id(page.text)
                existing = doc_id if doc_id in made else _existing_doc(ctx, doc_id, page.text)
                if existing is not None:
                    outcome, doc_id = "duplicate", existing
                else:
                    made[doc_id] = page.url
                    events.extend(("web", e) for e in _document(ctx, doc_id, page, seed_id, query, hit.title))
            outcomes[outcome] += 1
            events.append(
                (
                    "web",
                    WebPageFetched(
                        fetch_id=fetch_id(ctx.synthesis_id, seed_id, hit.url),
                        synthesis_id=ctx.synthesis_id,
                        seed_doc_id=seed_id,
                        query=query.strip(),
                        rank=rank,
                        url=page.url,
                        final_url=page.final_url,
                        fetched_at=page.fetched_at,
                        outcome=outcome,
                        status=page.status,
                        content_type=page.content_type,
                        n_bytes=page.n_bytes,
                        doc_id=doc_id,
                        reason=page.reason[:500],
                    ),
                )
            )
    final = "accepted" if made else "rejected"
    events.append(
        draft_event(
            ctx,
            stage=STAGE,
            role="web",
            subject=seed_id,
            outcome=final,
            final=True,
            reasons=[] if made else [f"no fetched page became a document ({_counts(outcomes) or 'no search result'})"],
            details={"queries": asked.value.queries, "fetches": dict(outcomes), "documents": sorted(made)},
            exchange=asked.exchange,
        )
    )
    ctx.append(events)
    return final


def _counts(outcomes: Counter[str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))


def _document(
    ctx: SynthContext, doc_id: str, page: FetchedPage, seed_id: str, query: str, hit_title: str
) -> list[DomainEvent]:
    host = urlsplit(page.final_url).netloc
    record = {
        "doc_id": doc_id,
        "title": (page.title or hit_title or page.final_url)[:300],
        "text": page.text,
        "url": page.final_url,
        "source": WEB_SOURCE,
        "collection": "synthesis-web",
        "publisher": host,
        "metadata": {
            "fetched_at": page.fetched_at,
            "fetched_by": ctx.synthesis_id,
            "seed_doc_id": seed_id,
            "query": query,
            "text_sha256": page.text_sha256,
        },
    }
    return document_events(record)


def run(ctx: SynthContext, progress: Callable[[str, int, int], None] | None = None) -> StageReport:
    if ctx.web is None or not ctx.web.enabled:
        report = StageReport(STAGE)
        report.extra["note"] = OFF_NOTE
        return report
    seeds = seed_documents(ctx)
    closed = closed_subjects(ctx, STAGE)
    todo = [s for s in seeds if s not in closed]
    report = StageReport(STAGE, planned=len(seeds), skipped=len(seeds) - len(todo))
    for outcome in run_units(todo, UnitWork(search_and_fetch), ctx, "stage 0: web search and fetch", progress):
        report.count(outcome)
    return report


register_stage(
    SynthesisStage(
        name=STAGE,
        order=10,
        run=run,
        help=(
            "Stage 0 on the web: search a configured JSON search endpoint from seed documents, fetch pages "
            "(robots.txt, size limits) and add their text as documents (off unless [web] search_url is set)."
        ),
        roles=("web",),
        gold_reasons=False,
    )
)
