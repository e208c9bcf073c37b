"""What a report request may see. The files of a report folder carry gold (every item's reference answer) and
the absolute paths of the machine that wrote them, so none of them is served as it is:

* any `.json` file is parsed and served with its gold fields replaced by null and listed in `redacted_fields`
  (the GraphQL rule and the same function, `api.redaction.redact_gold`), unless the request may see
  gold; absolute paths in `path`-like fields become reports-relative (or just the last name);
* `report.html` and `report.md` next to a `report.json` are rendered again from that view of the data, so a
  page and its JSON always show the same thing, whatever an older version of colabench wrote into the files.

Rendered pages are cached by file, modification time and gold visibility.
"""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from pathlib import Path, PurePosixPath
from threading import Lock
from typing import Any

from api.redaction import redact_gold
from graph.errors import ColabenchError

DATA_NAME = "report.json"
PAGE_NAMES = ("report.html", "report.md")
_CACHE_ENTRIES = 16


class ReportDataError(ColabenchError):
    """A report file cannot be read as JSON, or its pages cannot be rendered from it."""


def public_data(data: Any, base: Path, gold_visible: bool) -> Any:
    """A copy of report data fit for this request: gold redacted (unless visible), no absolute paths."""
    value = _relative_paths(data, base.resolve())
    if gold_visible:
        return value
    redacted: list[str] = []
    value = redact_gold(value, redacted)
    if isinstance(value, dict) and redacted:
        value["redacted_fields"] = redacted
    return value


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ReportDataError(f"{path.name} is not readable JSON") from exc


def read_report_data(path: Path, base: Path) -> Any:
    """A report.json as read for serving: ReportDataError (naming it reports-relative, never by its absolute
    path) when it is not JSON or was written by a newer colabench than this one."""
    from agents.reports.write import check_report_version
    from graph.format_version import FormatVersionError

    data = read_json(path)
    try:
        check_report_version(data, _served_name(path, base))
    except FormatVersionError as exc:
        raise ReportDataError(str(exc)) from exc
    return data


def _served_name(path: Path, base: Path) -> str:
    try:
        return str(PurePosixPath(path.resolve().relative_to(base.resolve())))
    except ValueError:
        return path.name


def json_body(path: Path, base: Path, gold_visible: bool) -> bytes:
    """The bytes served for a JSON file of the reports directory (strict JSON: NaN and Infinity become null)."""
    data = read_report_data(path, base) if path.name == DATA_NAME else read_json(path)
    value = public_data(data, base, gold_visible)
    return json.dumps(_finite(value), indent=2, ensure_ascii=False, allow_nan=False).encode("utf-8")


def latest_body(pointer: Path, base: Path, page: str | None) -> bytes:
    """`latest.json` as served: its folder relative to the reports directory, and the page to open."""
    value = public_data(read_json(pointer), base, gold_visible=False)
    if isinstance(value, dict):
        value["page"] = f"/reports/{PurePosixPath(page)}" if page else None
    return json.dumps(_finite(value), indent=2, ensure_ascii=False, allow_nan=False).encode("utf-8")


def is_rendered_page(target: Path) -> bool:
    """A page colabench writes from the report.json beside it (and so serves rendered from it)."""
    return target.name in PAGE_NAMES and (target.parent / DATA_NAME).is_file()


class PageRenderer:
    """report.html / report.md rendered from the view of their report.json that a request may see."""

    def __init__(self, entries: int = _CACHE_ENTRIES) -> None:
        self._entries = entries
        self._pages: OrderedDict[tuple[str, int, int, bool], str] = OrderedDict()
        self._lock = Lock()

    def render(self, target: Path, base: Path, gold_visible: bool) -> str:
        source = target.parent / DATA_NAME
        stat = source.stat()
        key = (f"{source.resolve()}|{target.name}", stat.st_mtime_ns, stat.st_size, gold_visible)
        with self._lock:
            cached = self._pages.get(key)
            if cached is not None:
                self._pages.move_to_end(key)
                return cached
        page = self._render(source, target.name, base, gold_visible)
        with self._lock:
            self._pages[key] = page
            while len(self._pages) > self._entries:
                self._pages.popitem(last=False)
        return page

    @staticmethod
    def _render(source: Path, name: str, base: Path, gold_visible: bool) -> str:
        from agents.reports.write import render_page

        data = public_data(read_report_data(source, base), base, gold_visible)
        try:
            return render_page(data, name)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ReportDataError(f"{source.name} does not hold report data colabench can render") from exc


def _relative_paths(value: Any, base: Path, key: str = "") -> Any:
    """A copy of `value` in which absolute paths under path-like keys are made relative to `base` (or reduced
    to their last name when they lie outside it)."""
    if isinstance(value, dict):
        return {k: _relative_paths(v, base, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_relative_paths(v, base, key) for v in value]
    if isinstance(value, str) and _path_like(key) and Path(value).is_absolute():
        path = Path(value)
        try:
            return str(PurePosixPath(path.resolve().relative_to(base)))
        except (ValueError, OSError):
            return path.name
    return value


def _path_like(key: str) -> bool:
    key = key.lower()
    return key in ("path", "file", "dir", "folder") or key.endswith(("_path", "_file", "_dir", "_folder"))


def _finite(value: Any) -> Any:
    """NaN and Infinity (which report.json may hold for intervals with too few items) as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
