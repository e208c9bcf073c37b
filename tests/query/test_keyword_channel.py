"""The keyword channel's analyzers (english, plain), the plain full-text index, padded keyword lists in the
fusion, LoCoMo's image-caption formats, and what the evaluation records and reports about them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from neo4j import Driver

from agents.memory.raw_turns.declare import RAW_TURNS
from agents.retrieval_eval.pipeline import run_retrieval_eval
from graph.store import EventStore
from ingest.adapters.locomo import load_locomo
from ingest.errors import InputError
from ingest.pipeline import load_input, write_events
from query.bm25 import BM25Index
from query.fusion import fuse_channels
from query.keyword_analyzers import ANALYZERS, UnknownAnalyzerError, get_analyzer, index_analyzers
from query.recipes import HYBRID, KEYWORD
from query.retriever import Retriever
from tests.conftest import emptied_store
from tests.paths import FIXTURES

LOCOMO_MINI = FIXTURES / "locomo" / "locomo_mini.json"
BIKES = "how many bikes do I own"


# --- analyzers (no Neo4j) -----------------------------------------------------------------------------


def test_plain_analyzer_keeps_own_where_english_drops_it() -> None:
    assert "own" in ANALYZERS["plain"].query_tokens(BIKES)
    assert "own" not in ANALYZERS["english"].query_tokens(BIKES)


def test_plain_bm25_ranks_the_card_that_says_own_first() -> None:
    texts = ["I own three bikes", "three bikes were parked outside", "the weather was sunny", "we had pasta", "chess"]
    ids = ["a", "b", "c", "d", "e"]
    plain = BM25Index(ids, texts, ANALYZERS["plain"]).rank(BIKES)
    english = BM25Index(ids, texts, ANALYZERS["english"]).rank(BIKES)
    assert plain[0][0] == "a" and plain[0][1] > plain[1][1]
    # english sees only "bikes" in the query ("own" is one of its stop words): the two cards with bikes
    assert {item for item, _ in english} == {"a", "b"}
    assert "own" not in ANALYZERS["english"].document_tokens(texts[0])


def test_plain_query_counts_a_repeated_word_each_time_as_rank_bm25_does() -> None:
    from rank_bm25 import BM25Okapi

    texts = ["Caroline went hiking", "Melanie went hiking with Caroline", "Melanie painted", "a quiet day"]
    texts += ["we had pasta", "chess at noon", "rain all week", "a new job"]
    ids = [chr(ord("a") + i) for i in range(len(texts))]
    query = "Did Melanie go hiking after Melanie painted"
    assert ANALYZERS["plain"].query_tokens(query).count("melanie") == 2
    ranked = dict(BM25Index(ids, texts, ANALYZERS["plain"]).rank(query))
    reference = BM25Okapi([t.lower().split() for t in texts]).get_scores(query.lower().split())
    assert set(ranked) == {"a", "b", "c"}
    assert ranked == pytest.approx({i: float(reference[ids.index(i)]) for i in ranked})
    # counted once, "melanie" would weigh half as much in card b: the scores differ
    once = BM25Okapi([t.lower().split() for t in texts]).get_scores(list(dict.fromkeys(query.lower().split())))
    assert ranked["b"] != pytest.approx(float(once[1]))


def test_plain_tokens_are_lowercase_word_runs_without_stemming() -> None:
    assert ANALYZERS["plain"].document_tokens("Alzheimer's The cats") == ["alzheimer", "s", "the", "cats"]
    assert ANALYZERS["english"].document_tokens("Alzheimer's The cats") == ["alzheimer", "cats"]


def test_hybrid_and_raw_turns_default_to_plain_and_keyword_to_english() -> None:
    """The defaults chosen by the figures of bench/bench_keyword_channel.py (docs/retrieval.md)."""
    assert HYBRID.keyword_analyzer == "plain" and RAW_TURNS.keyword_analyzer == "plain"
    assert KEYWORD.keyword_analyzer == "english"
    assert not HYBRID.keyword_padding


def test_unknown_analyzer_is_refused() -> None:
    with pytest.raises(UnknownAnalyzerError, match="known: english, plain"):
        get_analyzer("porter")
    with pytest.raises(UnknownAnalyzerError):
        KEYWORD.with_keyword("porter")


def test_padded_keyword_list_appends_unmatched_cards_by_id() -> None:
    index = BM25Index(["d", "c", "b", "a"], ["red car", "blue car", "green bike", "old bike"])
    assert [i for i, _ in index.rank("bike")] == ["a", "b"] or [i for i, _ in index.rank("bike")] == ["b", "a"]
    padded = index.padded("bike")
    assert [i for i, _ in padded[2:]] == ["c", "d"]
    assert all(score == 0.0 for _, score in padded[2:])
    assert padded[:2] == index.rank("bike")


def test_padded_rrf_on_a_hand_built_case() -> None:
    """Semantic ranks D, C, B, A; only A shares a query term. Unpadded, A's two votes put it first; padded
    (B, C, D at BM25 0 by id) D ties A on score and wins the tie on the channel order, and C beats B."""
    semantic = [("D", 0.9), ("C", 0.8), ("B", 0.7), ("A", 0.6)]
    index = BM25Index(["A", "B", "C", "D"], ["sunrise painting", "a dog", "a cat", "a lake"])
    matched = index.rank("sunrise")
    assert [i for i, _ in matched] == ["A"]
    today = fuse_channels({"semantic": semantic, "keyword": matched}, 60.0)
    padded = fuse_channels({"semantic": semantic, "keyword": index.padded("sunrise")}, 60.0)
    assert [f.item_id for f in today] == ["A", "D", "C", "B"]
    assert [f.item_id for f in padded] == ["D", "A", "C", "B"]
    assert padded[0].score == pytest.approx(1 / 61 + 1 / 64)


# --- LoCoMo captions (no Neo4j) -----------------------------------------------------------------------


def _turn_text(result, turn_id: str) -> str:  # type: ignore[no-untyped-def]
    return next(e.event.text for e in result.events if getattr(e.event, "turn_id", None) == turn_id)


def test_bare_caption_is_the_turn_text_and_the_caption() -> None:
    bare = load_locomo(LOCOMO_MINI, "bare")
    assert _turn_text(bare, "locomo:conv-1:D1:2") == (
        "That's great! I painted a lake sunrise last year, look. a photo of a painting of a sunset over a lake"
    )
    bracketed = load_locomo(LOCOMO_MINI, "bracketed")
    assert _turn_text(bracketed, "locomo:conv-1:D1:2").endswith(
        " [image: a photo of a painting of a sunset over a lake]"
    )
    assert _turn_text(bare, "locomo:conv-1:D1:1") == _turn_text(bracketed, "locomo:conv-1:D1:1")


def test_unknown_caption_format_is_refused() -> None:
    with pytest.raises(InputError, match="caption"):
        load_locomo(LOCOMO_MINI, "markdown")


def test_default_caption_form_is_bare_and_recorded_in_the_result() -> None:
    default = load_input(LOCOMO_MINI)
    assert default.settings == {"locomo_caption": "bare"}
    bare = load_locomo(LOCOMO_MINI, "bare")
    assert _turn_text(default, "locomo:conv-1:D1:2") == _turn_text(bare, "locomo:conv-1:D1:2")
    assert load_input(LOCOMO_MINI, "locomo", "bracketed").settings == {"locomo_caption": "bracketed"}


def test_caption_option_for_another_format_is_refused(tmp_path: Path) -> None:
    docs = tmp_path / "kb.jsonl"
    docs.write_text(json.dumps({"doc_id": "kw:a", "title": "A", "text": "A lake."}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"--locomo-caption.*only LoCoMo"):
        load_input(docs, "kb", "bare")


# --- against Neo4j ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def store(driver: Driver, encoder) -> EventStore:  # type: ignore[no-untyped-def]
    return emptied_store(driver, encoder)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def retriever(store: EventStore):  # type: ignore[no-untyped-def]
    r = Retriever(store.driver, store.encoder)  # type: ignore[arg-type]
    yield r
    r.close()


@pytest.mark.neo4j
def test_schema_creates_the_plain_index_with_its_analyzer_idempotently(store: EventStore) -> None:
    store.create_search_indexes()  # a second time: IF NOT EXISTS
    analyzers = index_analyzers(store.driver)
    assert analyzers["chunk_text_plain"] == "standard-no-stop-words"
    assert "chunk_text" in analyzers


@pytest.mark.neo4j
def test_plain_recipe_reads_the_plain_index_and_finds_own(
    store: EventStore, retriever: Retriever, tmp_path: Path
) -> None:
    docs = tmp_path / "kb.jsonl"
    lines = [
        {"doc_id": "kw:own", "title": "Garage", "text": "Everything I own fits in the garage."},
        {"doc_id": "kw:car", "title": "Car", "text": "A red car is parked in the street."},
    ]
    docs.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    write_events(store, load_input(docs, "kb"))
    english = retriever.search(KEYWORD, BIKES, k=5)
    plain = retriever.search(KEYWORD.with_keyword("plain"), BIKES, k=5)
    assert "kw:own" not in [d.doc_id for d in english.documents]
    assert [d.doc_id for d in plain.documents] == ["kw:own"]
    assert plain.list_sizes == {"knowledge.keyword": 1, "knowledge.budget": 5}


@pytest.mark.neo4j
def test_padded_knowledge_keyword_list_appends_the_other_documents_by_id_at_score_zero(
    store: EventStore, retriever: Retriever, tmp_path: Path
) -> None:
    """Only kw:d shares a query term; padded to its budget, the keyword list goes on with the other documents
    by id (BM25 0), so they enter the fusion with keyword ranks; the sizes say how long the list was before."""
    emptied_store(store.driver, store.encoder)
    docs = tmp_path / "kb.jsonl"
    texts = {"kw:d": "A painting of a sunrise.", "kw:c": "A dog.", "kw:b": "A cat.", "kw:a": "A lake."}
    lines = [{"doc_id": d, "title": d.upper(), "text": t} for d, t in texts.items()]
    docs.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    write_events(store, load_input(docs, "kb"))
    today = retriever.search(KEYWORD, "sunrise", k=5)
    padded = retriever.search(KEYWORD.with_keyword(padding=True), "sunrise", k=5)
    assert [d.doc_id for d in today.documents] == ["kw:d"]
    assert [d.doc_id for d in padded.documents] == ["kw:d", "kw:a", "kw:b", "kw:c"]
    assert [d.channel_ranks for d in padded.documents] == [{"keyword": r} for r in (1, 2, 3, 4)]
    assert padded.documents[1].snippet == "A lake."  # a padded document shows its own chunk
    assert today.list_sizes == {"knowledge.keyword": 1, "knowledge.budget": 5}
    assert padded.list_sizes == {"knowledge.keyword": 1, "knowledge.budget": 5, "knowledge.keyword_padded": 4}
    hybrid = retriever.search(HYBRID.with_keyword(padding=True), "sunrise", k=4)
    assert hybrid.list_sizes["knowledge.keyword"] == 1 and hybrid.list_sizes["knowledge.keyword_padded"] == 4
    ranks = {d.doc_id: d.channel_ranks["keyword"] for d in hybrid.documents}
    assert ranks == {"kw:d": 1, "kw:a": 2, "kw:b": 3, "kw:c": 4}


@pytest.mark.neo4j
def test_keyword_read_is_deepened_until_the_depth_is_filled_or_the_index_has_no_more(
    store: EventStore, tmp_path: Path
) -> None:
    """Six documents of four chunks each say "sunrise": a read of 4 chunks holds at most 4 documents, fewer than
    a depth of 5, so the channel reads deeper and fills it (on the one-statement HYBRID path, the two-statement
    one and KEYWORD alone); with `fill_keyword` off it keeps the short list. "lighthouse" is in two documents
    only: the deepened read stops when the index has no more and the list stays at 2."""
    emptied_store(store.driver, store.encoder)
    docs = tmp_path / "kb.jsonl"
    filler = " ".join(["word"] * 120)
    lines = []
    for n in range(6):
        extra = " lighthouse" if n < 2 else ""
        text = "\n".join(f"Part {p} of a sunrise{extra} {filler}" for p in range(4))
        lines.append({"doc_id": f"kw:{n}", "title": f"Doc {n}", "text": text})
    docs.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    write_events(store, load_input(docs, "kb"))
    with store.driver.session() as session:
        assert session.run("MATCH (c:Chunk) RETURN count(c) AS n").single()["n"] == 24

    def shallow(recipe):  # type: ignore[no-untyped-def]
        knowledge = recipe.knowledge.model_copy(update={"chunks": 4, "depth": 5})
        return recipe.model_copy(update={"knowledge": knowledge})

    one = Retriever(store.driver, store.encoder, exact_max_chunks=0)  # type: ignore[arg-type]
    two = Retriever(store.driver, store.encoder, exact_max_chunks=0, one_statement=False)  # type: ignore[arg-type]
    try:
        for retriever in (one, two):
            hybrid = retriever.search(shallow(HYBRID), "sunrise", k=5)
            assert hybrid.list_sizes["knowledge.keyword"] == 5
            assert ("hybrid" in hybrid.timings_ms) == (retriever is one)
            assert retriever.search(shallow(HYBRID), "lighthouse", k=5).list_sizes["knowledge.keyword"] == 2
        keyword = one.search(shallow(KEYWORD), "sunrise", k=5)
        assert len(keyword.documents) == 5
        for retriever in (one, two):
            retriever.knowledge.fill_keyword = False
            assert retriever.search(shallow(HYBRID), "sunrise", k=5).list_sizes["knowledge.keyword"] <= 4
        assert len(one.search(shallow(KEYWORD), "sunrise", k=5).documents) <= 4
    finally:
        one.close()
        two.close()


@pytest.mark.neo4j
def test_evaluation_records_analyzer_padding_caption_and_short_lists(store: EventStore, retriever: Retriever) -> None:
    emptied_store(store.driver, store.encoder)
    english = HYBRID.with_keyword("english").model_copy(update={"name": "HYBRID_ENGLISH"})
    plain_padded = HYBRID.with_keyword("plain", True).model_copy(update={"name": "HYBRID_PLAIN_PADDED"})
    recipes = [english, plain_padded]
    report = run_retrieval_eval(store, retriever, "locomo", LOCOMO_MINI, recipes, [1, 3], caption="bare")
    recorded = {r["name"]: (r["keyword_analyzer"], r["keyword_padding"]) for r in report.recipes}
    assert recorded == {"HYBRID_ENGLISH": ("english", False), "HYBRID_PLAIN_PADDED": ("plain", True)}
    assert any(line.startswith("keyword channel english:") for line in report.keyword_channel)
    plain_line = next(line for line in report.keyword_channel if line.startswith("keyword channel plain:"))
    assert "'standard-no-stop-words', read from Neo4j" in plain_line
    assert any("padded" in line and "HYBRID_PLAIN_PADDED" in line for line in report.keyword_channel)
    assert any("caption format bare" in note for note in report.notes)
    turn = {s.recipe: s for s in report.summaries if s.line == "memory" and s.level == "turn"}
    # "When did Caroline go to the support group?" shares no term with most of the five cards
    assert turn["HYBRID_ENGLISH"].n_short_keyword > 0
    assert turn["HYBRID_PLAIN_PADDED"].n_short_keyword > 0
    rows = [r for r in report.rows if r.recipe == "HYBRID_PLAIN_PADDED" and r.level == "turn" and r.skipped is None]
    assert all(r.list_sizes["memory.keyword"] == r.list_sizes["memory.candidates"] for r in rows)
    rows = [r for r in report.rows if r.recipe == "HYBRID_ENGLISH" and r.level == "turn" and r.skipped is None]
    assert any(r.list_sizes["memory.keyword"] < r.list_sizes["memory.candidates"] for r in rows)


@pytest.mark.neo4j
def test_other_caption_form_than_the_graphs_is_refused_naming_both_forms(
    store: EventStore, retriever: Retriever
) -> None:
    """A graph ingested with bracketed captions: ingesting or evaluating the same LoCoMo file with the default
    (bare) is refused with one problem naming the graph's form and the option that matches it; nothing is
    written, so the graph never holds the two forms mixed. The same form again is no conflict."""
    emptied_store(store.driver, store.encoder)
    write_events(store, load_input(LOCOMO_MINI, "locomo", "bracketed"))
    with pytest.raises(InputError) as caught:
        write_events(store, load_input(LOCOMO_MINI))
    assert len(caught.value.problems) == 1
    message = str(caught.value)
    assert "caption in the bracketed form" in message and "in the bare form" in message
    assert "--locomo-caption bracketed" in message
    with pytest.raises(InputError, match="--locomo-caption bracketed"):
        run_retrieval_eval(store, retriever, "locomo", LOCOMO_MINI, [HYBRID], [1])
    assert write_events(store, load_input(LOCOMO_MINI, "locomo", "bracketed")).appended == 0
    with store.driver.session() as session:
        query = "MATCH (t:Turn) WHERE t.metadata CONTAINS 'blip_caption' RETURN t.text AS text"
        texts = [r["text"] for r in session.run(query)]
    assert texts and all(t.endswith("]") for t in texts)
    report = run_retrieval_eval(store, retriever, "locomo", LOCOMO_MINI, [HYBRID], [1], caption="bracketed")
    assert any("caption format bracketed" in note for note in report.notes)


@pytest.mark.neo4j
def test_cli_ingest_takes_the_caption_form_and_refuses_the_other_one(store: EventStore) -> None:
    from typer.testing import CliRunner

    from cli import app

    emptied_store(store.driver, store.encoder)
    first = CliRunner().invoke(app, ["ingest", str(LOCOMO_MINI), "--locomo-caption", "bracketed"])
    assert first.exit_code == 0, first.output
    assert "caption format bracketed" in first.output
    refused = CliRunner().invoke(app, ["ingest", str(LOCOMO_MINI)])
    assert refused.exit_code == 2, refused.output
    assert "--locomo-caption bracketed" in refused.output


@pytest.mark.neo4j
def test_cli_sets_the_analyzer_for_every_recipe_and_prints_its_definition(store: EventStore, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli import app

    out = tmp_path / "r.json"
    mini = str(FIXTURES / "mini_bundle")
    args = ["eval", "retrieval", "--dataset", "bundle", "--path", mini, "--recipes", "HYBRID,KEYWORD", "--k", "1,5"]
    result = CliRunner().invoke(app, [*args, "--keyword-analyzer", "english", "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert {r["name"]: r["keyword_analyzer"] for r in data["recipes"]} == {"HYBRID": "english", "KEYWORD": "english"}
    assert "keyword channel english:" in result.output and "keyword channel plain:" not in result.output
    assert "keyword list shorter than its budget" in result.output  # the mini bundle has fewer than 50 documents
    bad = CliRunner().invoke(app, [*args, "--keyword-analyzer", "porter"])
    assert bad.exit_code != 0 and "--keyword-analyzer must be one of english, plain" in bad.output
