"""The Retriever against the real Neo4j holding the tiny `mini` bundle: channels, fusion, snippets, the
corpus filter, the Read tool, and clear errors for bad input."""

from __future__ import annotations

import pytest

from query.corpus import Corpus
from query.errors import (
    BadRangeError,
    EmptyQueryError,
    KOutOfRangeError,
    ProfileRequiredError,
    UnknownDocumentError,
    UnknownProfileError,
    UnknownRecipeError,
    UnknownTurnError,
)
from query.read_tool import MAX_LINES
from query.recipes import HYBRID
from query.retriever import Retriever
from query.tokens import TOKENIZER_NAME

pytestmark = pytest.mark.neo4j


@pytest.fixture(scope="module")
def retriever(mini_store, encoder):  # type: ignore[no-untyped-def]
    r = Retriever(mini_store.driver, encoder)
    yield r
    r.close()


def _doc_lines(driver, doc_id: str) -> list[str]:  # type: ignore[no-untyped-def]
    with driver.session() as session:
        record = session.run("MATCH (d:Document {id: $id}) RETURN d.text AS text", id=doc_id).single()
    return str(record["text"]).split("\n")


def test_hybrid_fuses_semantic_and_keyword_with_rrf(retriever: Retriever) -> None:
    result = retriever.search("HYBRID", "How should I care for a new tattoo?", k=5)
    assert result.recipe == "HYBRID" and result.kappa == 60 and len(result.documents) == 5
    top = result.documents[0]
    assert top.doc_id == "mini-tattoo-aftercare"
    assert set(top.channel_ranks) == {"semantic", "keyword"}
    for hit in result.documents:
        expected = sum(1 / (60 + rank) for rank in hit.channel_ranks.values())
        assert hit.score == pytest.approx(expected)
    assert [h.rank for h in result.documents] == [1, 2, 3, 4, 5]
    assert [h.score for h in result.documents] == sorted((h.score for h in result.documents), reverse=True)


def test_snippet_is_the_text_of_its_line_range(retriever: Retriever, mini_store) -> None:  # type: ignore[no-untyped-def]
    result = retriever.search("SEMANTIC", "blue reliever inhaler", k=3)
    for hit in result.documents:
        lines = _doc_lines(mini_store.driver, hit.doc_id)
        assert 1 <= hit.start_line <= hit.end_line <= len(lines)
        assert hit.snippet == "\n".join(lines[hit.start_line - 1 : hit.end_line])
        assert hit.chunk_id.startswith(hit.doc_id)


def test_keyword_only_recipe_ranks_by_lucene_score_and_keywords_replace_the_query(retriever: Retriever) -> None:
    result = retriever.search("KEYWORD", "antihistamine tablets before a skin prick test", k=3)
    assert result.documents[0].doc_id == "mini-allergy-testing"
    assert all(set(h.channel_ranks) == {"keyword"} for h in result.documents)
    by_keywords = retriever.search("KEYWORD", "anything at all", keywords=["crutches"], k=3)
    assert [h.doc_id for h in by_keywords.documents] == ["mini-knee-surgery-recovery"]
    assert by_keywords.keywords == ["crutches"]


def test_query_of_only_stop_words_or_punctuation_does_not_crash(retriever: Retriever) -> None:
    result = retriever.search("KEYWORD", "what is the ?!* (and) OR", k=5)
    assert result.documents == []
    assert any("no searchable term" in note for note in result.notes)
    hybrid = retriever.search("HYBRID", '"" :: ~ ^^', k=3)
    assert len(hybrid.documents) == 3  # the semantic channel still answers
    assert all(set(h.channel_ranks) == {"semantic"} for h in hybrid.documents)


def test_top_k_is_the_prefix_of_a_deeper_search(retriever: Retriever) -> None:
    deep = retriever.search("HYBRID", "vaccine before travelling", k=10)
    shallow = retriever.search("HYBRID", "vaccine before travelling", k=3)
    assert [h.doc_id for h in shallow.documents] == [h.doc_id for h in deep.documents[:3]]
    assert len(deep.documents) == 10  # the corpus has exactly 10 documents
    assert any("only" in n for n in retriever.search("SEMANTIC", "vaccine", k=20).notes)


def test_kappa_is_configurable_and_recorded(retriever: Retriever) -> None:
    result = retriever.search(HYBRID.with_kappa(5), "giving blood", k=2)
    assert result.kappa == 5
    hit = result.documents[0]
    assert hit.score == pytest.approx(sum(1 / (5 + r) for r in hit.channel_ranks.values()))


def test_exact_and_index_scoring_agree_on_a_small_corpus(mini_store, encoder) -> None:  # type: ignore[no-untyped-def]
    exact = Retriever(mini_store.driver, encoder, exact_max_chunks=10_000)
    index = Retriever(mini_store.driver, encoder, exact_max_chunks=0)
    try:
        for query, best in (
            ("flu jab", "mini-flu-vaccine"),
            ("knee replacement recovery", "mini-knee-surgery-recovery"),
        ):
            a = exact.search("SEMANTIC", query, k=10)
            b = index.search("SEMANTIC", query, k=10)
            assert a.documents[0].doc_id == b.documents[0].doc_id == best
            assert {h.doc_id for h in a.documents} == {h.doc_id for h in b.documents}
            # The index quantises vectors: its scores stay within a few hundredths of exact cosine.
            exact_score = {h.doc_id: h.score for h in a.documents}
            for hit in b.documents:
                assert hit.score == pytest.approx(exact_score[hit.doc_id], abs=3e-2)
    finally:
        exact.close()
        index.close()


def test_corpus_filter_restricts_documents(retriever: Retriever) -> None:
    only = Corpus(doc_ids=("mini-flu-vaccine", "mini-clinic-hours"))
    result = retriever.search("HYBRID", "tattoo aftercare", k=5, corpus=only)
    assert {h.doc_id for h in result.documents} <= {"mini-flu-vaccine", "mini-clinic-hours"}
    prefixed = retriever.search("SEMANTIC", "asthma", k=5, corpus=Corpus(doc_id_prefixes=("mini-a",)))
    assert {h.doc_id for h in prefixed.documents} == {"mini-asthma-inhalers", "mini-allergy-testing"}
    nothing = retriever.search("HYBRID", "asthma", k=5, corpus=Corpus(sources=("no such source",)))
    assert nothing.documents == [] and any("only 0 documents" in n for n in nothing.notes)


def test_bad_input_gets_typed_errors_with_clear_messages(retriever: Retriever) -> None:
    with pytest.raises(EmptyQueryError):
        retriever.search("HYBRID", "   ")
    with pytest.raises(KOutOfRangeError, match="1 to 20"):
        retriever.search("HYBRID", "flu", k=0)
    with pytest.raises(KOutOfRangeError):
        retriever.search("HYBRID", "flu", k=21)
    with pytest.raises(UnknownRecipeError, match="MEMKB"):
        retriever.search("NOPE", "flu")
    with pytest.raises(UnknownProfileError, match="no-such-profile"):
        retriever.search("HYBRID", "flu", profile_id="no-such-profile")
    with pytest.raises(ProfileRequiredError):
        retriever.search("MEMKB", "flu")
    with pytest.raises(ProfileRequiredError):
        retriever.search("HYBRID", "flu", before_turn_id="mini-s-1-t0")
    with pytest.raises(UnknownTurnError, match="does not exist"):
        retriever.search("RAW_TURNS", "flu", profile_id="mini-p-sam", before_turn_id="nope")
    with pytest.raises(UnknownTurnError, match="belongs to profile"):
        retriever.search("RAW_TURNS", "flu", profile_id="mini-p-sam", before_turn_id="mini-s-3-t0")


def test_read_returns_the_requested_lines_and_the_actual_range(retriever: Retriever, mini_store) -> None:  # type: ignore[no-untyped-def]
    lines = _doc_lines(mini_store.driver, "mini-flu-vaccine")
    whole = retriever.read("mini-flu-vaccine")
    assert whole.start_line == 1 and whole.end_line == len(lines) == whole.doc_lines
    assert whole.lines == lines and whole.text == "\n".join(lines) and not whole.truncated
    assert whole.tokenizer == TOKENIZER_NAME and whole.n_tokens > len(lines)
    part = retriever.read("mini-flu-vaccine", start_line=3, n_lines=2)
    assert (part.start_line, part.end_line, part.lines) == (3, 4, lines[2:4])
    tail = retriever.read("mini-flu-vaccine", start_line=len(lines), n_lines=MAX_LINES)
    assert tail.end_line == len(lines) and not tail.truncated


def test_read_rejects_bad_ids_and_ranges(retriever: Retriever) -> None:
    with pytest.raises(UnknownDocumentError, match="no document 'nope'"):
        retriever.read("nope")
    with pytest.raises(BadRangeError, match="at least 1"):
        retriever.read("mini-flu-vaccine", start_line=0)
    with pytest.raises(BadRangeError, match="past the end"):
        retriever.read("mini-flu-vaccine", start_line=99)
    with pytest.raises(BadRangeError, match="n_lines"):
        retriever.read("mini-flu-vaccine", n_lines=0)


def test_query_vectors_equal_the_graph_encoders_vectors(encoder) -> None:  # type: ignore[no-untyped-def]
    from query.query_vectors import QueryEmbedder

    embedder = QueryEmbedder(encoder)
    texts = ["How long should I wait to give blood after a tattoo?", "asthma inhaler"]
    reference = encoder.encode(texts)
    for text, expected in zip(texts, reference, strict=True):
        vector = embedder.embed(text)
        assert vector.shape == (encoder.dim,)
        assert float(vector @ expected) > 0.99999
    assert embedder.embed(texts[0]) is embedder.embed(texts[0])  # the in-process LRU answers repeats
