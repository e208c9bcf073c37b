"""Token counting for the Read tool's 3,000-token limit, with a tokenizer available offline: the WordPiece
tokenizer shipped with all-MiniLM-L6-v2 (uncased BERT vocabulary), through the `tokenizers` package."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from graph.embeddings.model_dir import bundled_minilm_dir

TOKENIZER_NAME = "all-MiniLM-L6-v2 WordPiece (uncased BERT vocab, no special tokens; tokenizers package)"


@cache
def _tokenizer() -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(Path(bundled_minilm_dir()) / "tokenizer.json"))
    # Counting needs every token: the shipped file truncates and pads to 128 for the encoder.
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def count_tokens(texts: list[str]) -> list[int]:
    """Number of WordPiece tokens of each text (without [CLS]/[SEP])."""
    if not texts:
        return []
    encodings = _tokenizer().encode_batch(texts, add_special_tokens=False)
    return [len(e.ids) for e in encodings]


def cut_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of `text` holding at most `max_tokens` tokens, cut at a token boundary."""
    encoding = _tokenizer().encode(text, add_special_tokens=False)
    if len(encoding.ids) <= max_tokens:
        return text
    if max_tokens <= 0:
        return ""
    # Cut after the last whole word within the budget, so a word is never split into pieces.
    end = encoding.offsets[max_tokens - 1][1]
    words = encoding.word_ids
    if words is not None and max_tokens < len(words) and words[max_tokens] == words[max_tokens - 1]:
        last_word = words[max_tokens - 1]
        start = max_tokens - 1
        while start > 0 and words[start - 1] == last_word:
            start -= 1
        if start > 0:
            end = encoding.offsets[start - 1][1]
    return text[:end]
