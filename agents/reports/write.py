"""Writing a report folder (report.html, report.json, report.md) and remembering the latest one, so that
`./colabench report --latest` finds it (an evaluation batch, or a retrieval-only report).

The files on disk are the full report, gold included (reference answers): they are the researcher's copy.
`./colabench serve` never hands them out as they are; it serves copies without gold (api/reports.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agents.memory_quality.report import render_memory_quality_html, render_memory_quality_markdown
from agents.reports.html import render_html
from agents.reports.markdown import render_markdown
from agents.reports.retrieval_only import render_retrieval_html, render_retrieval_markdown
from graph.format_version import VERSION_KEY, check_version
from graph.paths import data_dir

# The format of report.json (its top-level `format_version`; reports written before it existed have none). A
# reader (`colabench report`, the API's report pages) refuses a newer one by name.
REPORT_FORMAT_VERSION = 1

# HTML and Markdown renderers by report kind (the `kind` of the report data).
_RENDERERS = {
    "evaluation": (render_html, render_markdown),
    "retrieval": (render_retrieval_html, render_retrieval_markdown),
    "memory_quality": (render_memory_quality_html, render_memory_quality_markdown),
}


def reports_dir() -> Path:
    return data_dir() / "reports"


def latest_pointer() -> Path:
    return reports_dir() / "latest.json"


# The pages of a report folder, rendered from its report.json (the API renders them again when it serves them,
# from a copy of the data without gold fields unless the request may see them).
PAGE_NAMES = ("report.html", "report.md")


def check_report_version(data: Any, where: str) -> int:
    """The format version of report data about to be read (0 for a report written before versions existed);
    FormatVersionError naming `where` when it is newer than this colabench reads."""
    return check_version(data.get(VERSION_KEY) if isinstance(data, dict) else None, REPORT_FORMAT_VERSION, where)


def render_page(data: dict[str, Any], name: str) -> str:
    """report.html or report.md of this report data (KeyError for another name or an unknown kind)."""
    html, markdown = _RENDERERS[data["kind"]]
    return {"report.html": html, "report.md": markdown}[name](data)


def write_report(data: dict[str, Any], out: Path) -> Path:
    """Write the three files into `out` (report.json stamped with its format version) and point `latest.json`
    at them; returns the HTML path."""
    out.mkdir(parents=True, exist_ok=True)
    data = {VERSION_KEY: REPORT_FORMAT_VERSION, **{k: v for k, v in data.items() if k != VERSION_KEY}}
    (out / "report.json").write_text(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", "utf-8")
    (out / "report.md").write_text(render_page(data, "report.md"), "utf-8")
    html_path = out / "report.html"
    html_path.write_text(render_page(data, "report.html"), "utf-8")
    pointer = {
        "kind": data.get("kind"),
        "path": str(out.resolve()),
        "batch_ids": data.get("batch_ids", []),
        "run_ids": [r["run_id"] for r in data.get("runs", [])],
        "written_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    latest_pointer().parent.mkdir(parents=True, exist_ok=True)
    latest_pointer().write_text(json.dumps(pointer, indent=2) + "\n", "utf-8")
    return html_path


def read_latest() -> dict[str, Any] | None:
    """The pointer written by the last report, or None."""
    path = latest_pointer()
    if not path.is_file():
        return None
    try:
        value = json.loads(path.read_text("utf-8"))
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
