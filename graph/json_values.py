"""Values an event payload may hold: exactly those that come back unchanged from the canonical JSON the log
hashes and stores (`graph.hashing`).

JSON has no NaN or Infinity: canonical JSON writes them as null, so the stored payload (and its replay) would
say null while the live projection kept the float, and NaN and Infinity would hash alike. Integers beyond 64
bits, strings holding lone surrogates (not UTF-8) and objects without a JSON form cannot be written at all.
`require_json_value` refuses all of them when a model is validated (event models and the input records of
every loader use it), naming the place inside the value that is wrong.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticCustomError, PydanticSerializationError, to_jsonable_python

# The pydantic error type; its context carries `path` (inside the field, dotted, "" for the field itself)
# and `reason`, so located reports can name the exact field (see ingest.errors.problems_from_validation).
ERROR_TYPE = "json_value"
_FIX = "JSON has no NaN or Infinity (the event log would store null); use a finite number, or leave the field out"


@dataclass(frozen=True)
class JsonValueProblem:
    path: str
    reason: str

    def __str__(self) -> str:
        return f"at {self.path}: {self.reason}" if self.path else self.reason


def json_value_problem(value: Any) -> JsonValueProblem | None:
    """None when `value` survives canonical JSON unchanged; otherwise the first place that does not and why.
    Nested models are walked field by field (their own serialisation would quietly turn NaN into null)."""
    try:
        return _locate(value, "")
    except RecursionError:
        return JsonValueProblem("", "is nested too deeply to be checked or stored")


def require_json_value(value: Any) -> Any:
    """A pydantic after-validator: `value` unchanged, or a `json_value` validation error saying why not."""
    problem = json_value_problem(value)
    if problem is not None:
        raise PydanticCustomError(
            ERROR_TYPE, "{problem}", {"problem": str(problem), "path": problem.path, "reason": problem.reason}
        )
    return value


def _child(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


def _float_problem(value: float, path: str) -> JsonValueProblem:
    name = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return JsonValueProblem(path, f"{name} is not a finite number; {_FIX}")


def _int_problem(value: int, path: str) -> JsonValueProblem | None:
    if -(2**63) <= value < 2**64:
        return None
    return JsonValueProblem(path, f"the integer {str(value)[:24]}... does not fit in 64 bits (JSON cannot hold it)")


def _string_problem(value: str, path: str) -> JsonValueProblem | None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return JsonValueProblem(path, f"the text holds a lone surrogate {value[exc.start]!r} (not UTF-8)")
    return None


def _locate(value: Any, path: str) -> JsonValueProblem | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        return None if value.isascii() else _string_problem(value, path)
    if isinstance(value, int):
        return _int_problem(value, path)
    if isinstance(value, float):
        return None if math.isfinite(value) else _float_problem(value, path)
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return JsonValueProblem(path, f"the key {key!r} is not a string")
            found = _locate(key, path) or _locate(item, _child(path, key))
            if found:
                return found
        return None
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _locate(item, _child(path, index))
            if found:
                return found
        return None
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            found = _locate(getattr(value, name), _child(path, name))
            if found:
                return found
        return None
    try:
        plain = to_jsonable_python(value)  # what the payload's JSON mode makes of it (a datetime: a string)
    except PydanticSerializationError:
        plain = value
    if type(plain) is type(value):
        return JsonValueProblem(path, f"a {type(value).__name__} has no JSON form")
    return _locate(plain, path)
