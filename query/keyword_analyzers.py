"""The keyword channel's analyzers: how a card's text and a query become BM25 terms (memory line, rank-bm25)
and which full-text index and query terms the knowledge line reads (Lucene).

- `english`: word tokens (inner apostrophes kept), lower-cased, the project's English stop list removed
  (query.terms.STOP_WORDS), a possessive "'s" stripped (the only stemming); the knowledge line reads the
  `chunk_text` index with the same stop words left out of the query.
- `plain`: lower-cased `\\w+` tokens, no stop words, no stemming, a repeated query word counted each time
  (the tokens of the plain BM25 reference: rank-bm25 Okapi on lowercase `\\w+`); the knowledge line reads
  `chunk_text_plain`, whose Lucene analyzer is pinned to `standard-no-stop-words` (lowercase, no stop words, no
  stemming), with every query word.

A recipe names its analyzer (`Recipe.keyword_analyzer`); the evaluation records it and the definition of each
analyzer it used, with the Lucene analyzer of the index read back from Neo4j (`index_analyzers`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from neo4j import Driver

from graph.cypher_files import load_cypher
from query.errors import QueryError
from query.terms import STOP_WORDS, bm25_query_tokens, bm25_tokens, query_terms, word_tokens

KeywordAnalyzerName = Literal["english", "plain"]

_PLAIN_TOKEN = re.compile(r"\w+", re.UNICODE)


def plain_tokens(text: str) -> list[str]:
    """Lower-cased `\\w+` tokens in order, repeats kept (no stop words, no stemming)."""
    return _PLAIN_TOKEN.findall(text.lower())


def plain_query_tokens(text: str) -> list[str]:
    """The plain tokens of a query, repeats kept: BM25 sums over the query's terms, so a word asked twice
    counts twice, as in the reference (rank-bm25 Okapi over the query's token list) and in Lucene (one clause
    per occurrence). Counting it once was the only difference from the reference on LoCoMo (issue 29)."""
    return plain_tokens(text)


def plain_lucene_terms(text: str) -> list[str]:
    """Distinct word tokens of a query for the plain full-text index (Lucene's standard tokenizer keeps
    inner apostrophes, so "don't" stays one term here too); no stop word is left out."""
    return list(dict.fromkeys(word_tokens(text)))


@dataclass(frozen=True)
class KeywordAnalyzer:
    """One analyzer of the keyword channel (see the module docstring)."""

    name: str
    document_tokens: Callable[[str], list[str]]
    query_tokens: Callable[[str], list[str]]
    lucene_terms: Callable[[str], list[str]]
    fulltext_index: str
    stop_words: int
    stemming: str
    tokens: str

    def definition(self) -> str:
        """The analyzer in words, for reports (the Lucene analyzer of its index is added where read back)."""
        stop = f"{self.stop_words} English stop words removed (query.terms)" if self.stop_words else "no stop words"
        return f"{self.name}: {self.tokens}, lower-cased, {stop}, {self.stemming}"


ANALYZERS: dict[str, KeywordAnalyzer] = {
    "english": KeywordAnalyzer(
        name="english",
        document_tokens=bm25_tokens,
        query_tokens=bm25_query_tokens,
        lucene_terms=query_terms,
        fulltext_index="chunk_text",
        stop_words=len(STOP_WORDS),
        stemming="possessive 's stripped (no other stemming)",
        tokens="word tokens with inner apostrophes",
    ),
    "plain": KeywordAnalyzer(
        name="plain",
        document_tokens=plain_tokens,
        query_tokens=plain_query_tokens,
        lucene_terms=plain_lucene_terms,
        fulltext_index="chunk_text_plain",
        stop_words=0,
        stemming="no stemming",
        tokens="\\w+ tokens",
    ),
}
DEFAULT_ANALYZER: KeywordAnalyzerName = "english"


class UnknownAnalyzerError(QueryError):
    """A keyword analyzer name that is not in ANALYZERS."""


def get_analyzer(name: str) -> KeywordAnalyzer:
    analyzer = ANALYZERS.get(name.strip().lower())
    if analyzer is None:
        raise UnknownAnalyzerError(f"unknown keyword analyzer {name!r}; known: {', '.join(ANALYZERS)}")
    return analyzer


def index_analyzers(driver: Driver, database: str = "neo4j") -> dict[str, str]:
    """Full-text index name -> its Lucene analyzer, as Neo4j reports it (indexes of the keyword analyzers)."""
    names = [a.fulltext_index for a in ANALYZERS.values()]
    with driver.session(database=database) as session:
        rows = list(session.run(load_cypher("query/fulltext_analyzers"), names=names))
    return {r["name"]: str(r["analyzer"]) for r in rows}


def describe_keyword_channel(names: list[str], driver: Driver | None, database: str = "neo4j") -> list[str]:
    """One line per analyzer in `names`: its definition, and the Lucene analyzer of its full-text index read
    back from Neo4j when a driver is given (the memory line's BM25 runs in Python, the knowledge line in
    Lucene)."""
    read_back = index_analyzers(driver, database) if driver is not None else {}
    lines = []
    for name in dict.fromkeys(names):
        analyzer = get_analyzer(name)
        line = f"keyword channel {analyzer.definition()}; memory line: rank-bm25 Okapi over these tokens"
        index = analyzer.fulltext_index
        if driver is not None:
            found = read_back.get(index)
            line += (
                f"; knowledge line: full-text index {index} (Lucene analyzer {found!r}, read from Neo4j)"
                if found
                else f"; knowledge line: full-text index {index} is missing"
            )
        lines.append(line)
    return lines
