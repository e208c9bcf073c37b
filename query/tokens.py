"""Token counting for the Read tool's 3,000-token limit and A-MEM's 5,120-token memory response cap.

The limits are meant in the answering model's tokens, so a run counts with the answering model's tokenizer
(query/model_tokens.py probes it once per run: the endpoint's `/tokenize`, tiktoken for OpenAI model names).
This module holds the counter interface and the offline fallback: the WordPiece tokenizer shipped with
all-MiniLM-L6-v2 (uncased BERT vocabulary), through the `tokenizers` package. The fallback is named in the
run record and the report whenever it is used.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Protocol

from graph.embeddings.model_dir import bundled_minilm_dir

TOKENIZER_NAME = "all-MiniLM-L6-v2 WordPiece (uncased BERT vocab, no special tokens; tokenizers package)"


class TokenCounter(Protocol):
    """Counts tokens of texts as one tokenizer does; `name` says which (for records and tool responses)."""

    name: str

    def count(self, texts: list[str]) -> list[int]: ...


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


class WordPieceCounter:
    """The offline fallback: MiniLM's WordPiece (not the answering model's tokenizer)."""

    name = TOKENIZER_NAME

    def count(self, texts: list[str]) -> list[int]:
        return count_tokens(texts)


WORDPIECE = WordPieceCounter()


def cut_to_tokens(text: str, max_tokens: int, counter: TokenCounter | None = None) -> str:
    """The longest prefix of `text` holding at most `max_tokens` tokens, cut after a whole word (WordPiece, the
    default, cuts at its own token offsets; another counter by searching over word ends)."""
    if counter is None or isinstance(counter, WordPieceCounter):
        return _cut_wordpiece(text, max_tokens)
    if counter.count([text])[0] <= max_tokens:
        return text
    if max_tokens <= 0:
        return ""
    ends = [i for i in range(1, len(text)) if text[i].isspace() and not text[i - 1].isspace()]
    ends.append(len(text))
    low, high = 0, len(ends)  # ends[:low] fit; ends[high:] do not
    while low < high:
        middle = (low + high) // 2
        if counter.count([text[: ends[middle]]])[0] <= max_tokens:
            low = middle + 1
        else:
            high = middle
    return text[: ends[low - 1]] if low else ""


def longest_fitting_prefix(n: int, fits: Any) -> int:
    """The largest k in 0..n with `fits(k)` true, for a `fits` that is true up to some k and false after."""
    if n == 0 or fits(n):
        return n
    low, high = 0, n  # fits(low) holds (0 always does), fits(high) does not
    while high - low > 1:
        middle = (low + high) // 2
        if fits(middle):
            low = middle
        else:
            high = middle
    return low


def _cut_wordpiece(text: str, max_tokens: int) -> str:
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
