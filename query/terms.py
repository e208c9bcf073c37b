"""Query terms for keyword search: word tokens, lower-cased, without English stop words.

The same tokens feed the Lucene query builder (knowledge base) and rank-bm25 (memory cards), so both
keyword channels see a query the same way. A possessive keeps both forms ("alzheimer's" and "alzheimer")
because Lucene's standard tokenizer indexes "Alzheimer's" as one token and "Alzheimer" as another.
"""

from __future__ import annotations

import re

# Word characters with inner apostrophes ("alzheimer's", "don't"); everything else separates tokens.
_TOKEN = re.compile(r"\w+(?:['’]\w+)*", re.UNICODE)

_STOP_WORD_TEXT = """
    a about above after again against all am an and any are aren't as at be because been before being below
    between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down during each
    few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers
    herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more
    most mustn't my myself no nor not of off on once only or other ought our ours ourselves out over own same
    shan't she she'd she'll she's should shouldn't so some such than that that's the their theirs them
    themselves then there there's these they they'd they'll they're they've this those through to too under
    until up very was wasn't we we'd we'll we're we've were weren't what what's when when's where where's which
    while who who's whom why why's with won't would wouldn't you you'd you'll you're you've your yours yourself
    yourselves also just get got s t
"""
STOP_WORDS = frozenset(_STOP_WORD_TEXT.split())


def word_tokens(text: str) -> list[str]:
    """Lower-cased word tokens in order (apostrophes normalised to ')."""
    return [match.group(0).lower().replace("’", "'") for match in _TOKEN.finditer(text)]


def query_terms(text: str) -> list[str]:
    """Distinct content terms of `text` in order of first use; possessives also give their stem."""
    out: dict[str, None] = {}
    for token in word_tokens(text):
        if token in STOP_WORDS:
            continue
        out[token] = None
        if token.endswith("'s") and len(token) > 2:
            stem = token[:-2]
            if stem not in STOP_WORDS:
                out[stem] = None
    return list(out)


def bm25_tokens(text: str) -> list[str]:
    """Tokens of a document for BM25 (stop words dropped, repeats kept, possessives split into stem)."""
    tokens: list[str] = []
    for token in word_tokens(text):
        if token in STOP_WORDS:
            continue
        tokens.append(token[:-2] if token.endswith("'s") and len(token) > 2 else token)
    return tokens


def bm25_query_tokens(text: str) -> list[str]:
    """Query tokens for BM25, normalised like `bm25_tokens` (distinct, in order)."""
    return list(dict.fromkeys(bm25_tokens(text)))
