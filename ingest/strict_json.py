"""Strict JSON decoding: one located problem (file, line, field) for everything Python's parser lets through
or fails on badly.

Python's `json` keeps the last of duplicate keys silently, accepts NaN and Infinity (JSON has neither),
recurses once per nesting level (a 200,000-deep array raises RecursionError) and accepts strings of any
length. `decode_json` parses, then walks the value without recursion, refusing non-finite numbers,
duplicate keys, nesting deeper than `max_json_depth`, strings longer than `max_document_chars` (JSONL
lines, which may hold documents) or `max_text_chars` (whole JSON files, which hold conversations and
questions), and ids (keys named `id`, `src`, `dst`, `number`, `*_id`, `*_ids`) that
`ingest.limits.identifier_problem` refuses. Paths are dotted like pydantic's (`turns.0.text`; `[3].question_id`
inside a top-level array).
"""

from __future__ import annotations

import json
import math
from typing import Any

from graph.json_values import json_value_problem
from ingest.errors import Problem
from ingest.limits import InputLimits, identifier_problem, text_problem

# A record with more problems than this shows the first ones only (the rest are usually the same mistake).
_MAX_PROBLEMS_PER_VALUE = 20
# Keys holding ids besides `*_id` and `*_ids`: a bundle link's ends, an iKAT topic number.
_ID_KEYS = {"id", "src", "dst", "number"}


class _DuplicateKeys(dict[str, Any]):
    """A JSON object that named some keys more than once (kept so the walk can say where)."""

    duplicates: list[str]


def _object_from_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) == len(pairs):
        return value
    seen: set[str] = set()
    flagged = _DuplicateKeys(value)
    flagged.duplicates = []
    for key, _ in pairs:
        if key in seen and key not in flagged.duplicates:
            flagged.duplicates.append(key)
        seen.add(key)
    return flagged


def render_path(parts: list[str | int]) -> str:
    """`[3].haystack_sessions.0.content` (a leading array index in brackets, then pydantic-style dots)."""
    if not parts:
        return "(record)"
    head, rest = parts[0], parts[1:]
    text = f"[{head}]" if isinstance(head, int) else head
    for part in rest:
        text += f".{part}"
    return text


def _is_id_key(key: str) -> bool:
    return key in _ID_KEYS or key.endswith(("_id", "_ids"))


def decode_json(text: str, file: str, line: int | None, limits: InputLimits) -> tuple[Any, list[Problem]]:
    """The parsed value and every problem found (value None when the text is not JSON at all).

    `line` is the JSONL line of `text`, or None for a whole file (then a syntax error names its own line)."""
    try:
        value = json.loads(text, object_pairs_hook=_object_from_pairs)
    except json.JSONDecodeError as exc:
        where = line if line is not None else exc.lineno
        if line is not None and _ends_early(text, exc):
            # A JSONL record cut off (a copy that stopped, a line split in two): said so, rather than naming the
            # character json tripped on (the line break left inside an open string reads "Invalid control
            # character").
            return None, [
                Problem(
                    file,
                    line,
                    "(json)",
                    f"truncated line: the JSON record ends before it is complete (column {exc.colno}); the file "
                    "may have been cut off or the record split over two lines",
                )
            ]
        # Some of json's messages end in "at" (they expect a position after them): never say "at at".
        reason = exc.msg.removesuffix(" at")
        return None, [Problem(file, where, "(json)", f"not valid JSON: {reason} at column {exc.colno}")]
    except RecursionError:
        return None, [
            Problem(
                file,
                line,
                "(json)",
                f"arrays or objects are nested too deeply for the parser; at most {limits.max_json_depth} "
                "levels are allowed (max_json_depth)",
            )
        ]
    return value, value_problems(value, file, line, limits)


# What may be left of a number or a literal (true, false, null) cut off in the middle.
_PARTIAL_SCALAR = frozenset("0123456789+-.eEtrufalsn")


def _ends_early(text: str, exc: json.JSONDecodeError) -> bool:
    """Whether the text is the start of a JSON value that was cut off: json stopped at its end (the last line
    break aside), inside a string that never closes, or inside a number or literal that ends the text."""
    content = text.rstrip("\r\n")
    if not content.strip():
        return False
    if exc.pos >= len(content) or exc.msg.startswith("Unterminated string"):
        return True
    tail = content[exc.pos :]
    return len(tail) < 6 and set(tail) <= _PARTIAL_SCALAR


def value_problems(value: Any, file: str, line: int | None, limits: InputLimits) -> list[Problem]:
    """Problems of an already parsed value (see the module docstring), walked without recursion."""
    problems: list[Problem] = []
    stack: list[tuple[Any, list[str | int], int, bool]] = [(value, [], 1, False)]
    while stack and len(problems) < _MAX_PROBLEMS_PER_VALUE:
        node, path, depth, is_id = stack.pop()
        if isinstance(node, dict | list) and depth > limits.max_json_depth:
            problems.append(
                Problem(
                    file,
                    line,
                    render_path(path),
                    f"nested more than {limits.max_json_depth} levels deep (max_json_depth)",
                )
            )
            continue
        if isinstance(node, dict):
            for key in getattr(node, "duplicates", ()):
                problems.append(
                    Problem(
                        file,
                        line,
                        render_path([*path, key]),
                        "duplicate key: the object names it more than once (JSON would keep only the last); keep one",
                    )
                )
            for key, child in node.items():
                if len(key) > limits.max_id_chars:
                    problems.append(
                        Problem(
                            file,
                            line,
                            render_path([*path, key[:40] + "..."]),
                            f"a key of {len(key):,} characters is longer than the limit of {limits.max_id_chars} "
                            "(max_id_chars)",
                        )
                    )
                    continue
                stack.append((child, [*path, key], depth + 1, _is_id_key(key)))
        elif isinstance(node, list):
            for index in range(len(node) - 1, -1, -1):
                stack.append((node[index], [*path, index], depth + 1, is_id))
        elif isinstance(node, float) and not math.isfinite(node):
            found = json_value_problem(node)
            problems.append(Problem(file, line, render_path(path), found.reason if found else "not a finite number"))
        elif isinstance(node, str):
            if is_id:
                problem = identifier_problem(node, limits.max_id_chars)
            elif line is None:
                problem = text_problem(node, limits.max_text_chars, "string")
            else:
                problem = text_problem(node, limits.max_document_chars, "string", "max_document_chars")
            if problem:
                problems.append(Problem(file, line, render_path(path), problem))
    return problems
