"""An injection-safe Lucene query builder for the full-text indexes.

User text never reaches the Lucene parser as syntax: it is cut into word terms (query.terms), every term
is escaped, operators are impossible (terms are lower-cased, so AND/OR/NOT are plain words), and multi-word
keywords become quoted phrases. A query with no content term gives None, and the caller skips the channel.
"""

from __future__ import annotations

from collections.abc import Callable

from query.terms import query_terms, word_tokens

# Characters the classic Lucene query parser treats as syntax.
_SPECIAL = set('+-&|!(){}[]^"~*?:\\/')
# Lucene refuses queries with more than 1,024 clauses; questions never need more than this many terms.
MAX_TERMS = 64


def escape_lucene(term: str) -> str:
    """Backslash-escape every Lucene syntax character of `term`."""
    return "".join(f"\\{ch}" if ch in _SPECIAL else ch for ch in term)


def build_lucene_query(
    text: str, keywords: list[str] | None = None, terms: Callable[[str], list[str]] = query_terms
) -> str | None:
    """OR-query of the content terms of `text`, or of `keywords` when given (a multi-word keyword is a
    phrase). None when nothing searchable is left (only stop words, punctuation or whitespace). `terms`: the
    keyword analyzer's query terms (query.keyword_analyzers; default the English stop-listed terms)."""
    clauses: dict[str, None] = {}
    if keywords:
        for keyword in keywords:
            tokens = word_tokens(keyword)
            if len(tokens) > 1:
                clauses['"' + " ".join(escape_lucene(t) for t in tokens) + '"'] = None
            else:
                for term in terms(keyword):
                    clauses[escape_lucene(term)] = None
    else:
        for term in terms(text):
            clauses[escape_lucene(term)] = None
    if not clauses:
        return None
    return " ".join(list(clauses)[:MAX_TERMS])
