"""What of an endpoint's error text may be kept: never the request's own words.

Many proxies and servers echo the request they refused in the error body (`{"error": ..., "request": {...}}`, or
"prompt too long: <the prompt>"). A judge's request holds the reference answer, an answerer's the user's whole
history; the error text goes into `EndpointFailed` events, reports and public pages. So before an error body is
kept it is cut to `MAX_SCANNED_CHARS`, and every run of at least `ECHO_WORDS` consecutive words that also occurs
in the request (its messages, tools and parameters, compared word by word, case-folded, after undoing JSON string
escapes, so an echo inside a JSON body is found too) is replaced by `REMOVED`; when the cut falls inside an
echo, the fewer-than-`ECHO_WORDS` words between the last removed run and the cut go too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

ECHO_WORDS = 4
MAX_SCANNED_CHARS = 20_000
REMOVED = "[request text removed]"
BODY_HEAD_CHARS = 300
# What a CLI line or a report note shows of an LLM error: its own words (role, endpoint, model, status, ~150
# characters) and the body's head.
ERROR_LINE_CHARS = 2 * BODY_HEAD_CHARS + 200

_WORD = re.compile(r"[^\W_]+")
# A JSON string escape (one level; `_unescaped` applies it twice for a body quoted inside a JSON string).
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|[\"\\/bfnrt])")
_SIMPLE = {"b": " ", "f": " ", "n": " ", "r": " ", "t": " ", '"': '"', "\\": "\\", "/": "/"}


def _unescaped(text: str) -> tuple[str, list[int]]:
    """`text` with JSON string escapes undone (twice), and for each character of the result the offset in
    `text` where it came from (so words found in the result map back to the original)."""
    chars, origin = list(text), list(range(len(text)))
    for _ in range(2):
        joined = "".join(chars)
        out: list[str] = []
        where: list[int] = []
        last = 0
        for match in _ESCAPE.finditer(joined):
            out.extend(joined[last : match.start()])
            where.extend(origin[last : match.start()])
            code = match.group(1)
            out.append(chr(int(code[1:], 16)) if code[0] == "u" else _SIMPLE[code])
            where.append(origin[match.start()])
            last = match.end()
        out.extend(joined[last:])
        where.extend(origin[last:])
        chars, origin = out, where
    return "".join(chars), origin


def _words(text: str) -> Iterator[tuple[str, int, int]]:
    """(case-folded word, start, end) of each word of `text`, offsets in `text` itself."""
    decoded, origin = _unescaped(text)
    for match in _WORD.finditer(decoded):
        start = origin[match.start()]
        # up to where the next character begins (an escape decoded to the word's last character is inside)
        end = origin[match.end()] if match.end() < len(origin) else len(text)
        yield match.group().casefold(), start, end


def request_strings(request: Any) -> list[str]:
    """Every string of a request body (message contents, tool definitions, arguments), keys included."""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for key, item in value.items():
                out.append(str(key))
                walk(item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(item)
        elif value is not None:
            out.append(json.dumps(value))

    walk(request)
    return out


def _shingles(strings: list[str]) -> set[tuple[str, ...]]:
    grams: set[tuple[str, ...]] = set()
    for text in strings:
        words = [w for w, _, _ in _words(text)]
        grams.update(tuple(words[i : i + ECHO_WORDS]) for i in range(len(words) - ECHO_WORDS + 1))
    return grams


def without_request_text(error: str, request: Any) -> str:
    """`error` cut to MAX_SCANNED_CHARS, every run of ECHO_WORDS+ words it shares with `request` replaced."""
    text = error[:MAX_SCANNED_CHARS]
    grams = _shingles(request_strings(request))
    if not grams:
        return text
    words = list(_words(text))
    hidden = [False] * len(words)
    for i in range(len(words) - ECHO_WORDS + 1):
        if tuple(w for w, _, _ in words[i : i + ECHO_WORDS]) in grams:
            for j in range(i, i + ECHO_WORDS):
                hidden[j] = True
    if len(error) > MAX_SCANNED_CHARS:
        # The cut may split an echo: the few words between its last removed run and the cut (the cut word too)
        # are too short a run to match, but are the request's.
        tail = 0
        while tail < len(words) and tail < ECHO_WORDS and not hidden[len(words) - 1 - tail]:
            tail += 1
        if tail < ECHO_WORDS and tail < len(words):
            for j in range(len(words) - tail, len(words)):
                hidden[j] = True
    out: list[str] = []
    cursor = 0
    i = 0
    while i < len(words):
        if not hidden[i]:
            i += 1
            continue
        j = i
        while j + 1 < len(words) and hidden[j + 1]:
            j += 1
        out.append(text[cursor : words[i][1]])
        out.append(REMOVED)
        cursor = words[j][2]
        i = j + 1
    out.append(text[cursor:])
    return "".join(out)


def error_body_head(body: str, request: Any, limit: int = BODY_HEAD_CHARS) -> str:
    """The first `limit` characters of an endpoint's error body, on one line, for the CLI line and the recorded
    failure: the request's words are removed from the whole scanned body first (so the cut cannot leave a part
    of an echo behind), and a longer body says how much was left out."""
    kept = without_request_text(body, request)
    head = " ".join(kept[:limit].split())
    if len(kept) > limit:
        head += f" [... {len(kept) - limit} more characters]"
    return head
