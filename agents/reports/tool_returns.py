"""What a tool call returned, as the report shows it: a search's results as ranked lists (documents with their
titles and line ranges, memories, states), a read as text with its line numbers, a failure as its error.

`return_view` turns the stored response (the JSON the model saw, agents/tools/execution.py) into a small view
kept in report.json, clipped so a report stays readable; `render_return_html` draws it. A response that is not
the JSON of a known tool (older runs, a cut-off text) is shown as plain text, labelled so."""

from __future__ import annotations

import json
import re
from html import escape
from typing import Any

from agents.reports.links import node_link, title_link

SNIPPET_CHARS = 300  # per search result
READ_SHOWN_CHARS = 4_000  # per read: the first lines up to this many characters
TEXT_CHARS = 1_500  # a response that could not be read as a tool's JSON
_NUMBERED = re.compile(r"^(\d+): ?(.*)$")


def _clip(text: Any, limit: int) -> str:
    flat = str(text or "")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _parsed(response: str) -> dict[str, Any] | None:
    try:
        value = json.loads(response)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def return_view(tool: str, response: str, *, ok: bool = True) -> dict[str, Any]:
    """The view of one call's return (see the module docstring); `kind` is search, read, error or text."""
    body = _parsed(response)
    if body is None:
        return {"kind": "text", "text": _clip(response, TEXT_CHARS), "chars": len(response)}
    notes = [str(n) for n in body.get("notes") or []]
    if not ok or (set(body) == {"error"}):
        return {"kind": "error", "error": str(body.get("error") or "failed")}
    if tool == "read" or ("text" in body and "doc_id" in body):
        return _read_view(body, notes)
    if any(key in body for key in ("documents", "memories", "states")):
        return {
            "kind": "search",
            "documents": [
                {
                    "rank": d.get("rank"),
                    "doc_id": str(d.get("doc_id") or ""),
                    "title": d.get("title"),
                    "lines": d.get("lines"),
                    "snippet": _clip(d.get("snippet"), SNIPPET_CHARS),
                }
                for d in body.get("documents") or []
                if isinstance(d, dict)
            ]
            if "documents" in body
            else None,
            "memories": [
                {"id": str(m.get("memory_id") or ""), "text": _clip(m.get("text"), SNIPPET_CHARS)}
                for m in body.get("memories") or []
                if isinstance(m, dict)
            ]
            if "memories" in body
            else None,
            "states": [
                {"id": str(s.get("state_id") or ""), "text": _clip(s.get("text"), SNIPPET_CHARS)}
                for s in body.get("states") or []
                if isinstance(s, dict)
            ]
            if "states" in body
            else None,
            "notes": notes,
        }
    return {"kind": "text", "text": _clip(response, TEXT_CHARS), "chars": len(response)}


def _read_view(body: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    lines: list[list[Any]] = []
    used = 0
    all_lines = str(body.get("text") or "").split("\n") if body.get("text") else []
    for raw in all_lines:
        match = _NUMBERED.match(raw)
        number, text = (int(match.group(1)), match.group(2)) if match else (None, raw)
        if used + len(text) > READ_SHOWN_CHARS and lines:
            break
        lines.append([number, text])
        used += len(text) + 1
    return {
        "kind": "read",
        "doc_id": str(body.get("doc_id") or ""),
        "title": body.get("title"),
        "start_line": body.get("start_line"),
        "end_line": body.get("end_line"),
        "lines": lines,
        "lines_left_out": len(all_lines) - len(lines),
        "truncated": bool(body.get("truncated")),
        "notes": notes,
    }


def _doc_link(doc_id: str, title: Any) -> str:
    """The document's title linked into the browser, its id beside it (the id alone without a title)."""
    return title_link(doc_id, {doc_id: {"title": title}} if title else {}, show_id=True)


def render_return_html(view: dict[str, Any]) -> str:
    """The HTML of a return view: ranked lists, numbered lines, or the error / plain text."""
    kind = view.get("kind")
    if kind == "error":
        return f"<p class='fail'>error: {escape(str(view.get('error')))}</p>"
    if kind == "text":
        cut = f" (first {TEXT_CHARS:,} of {view['chars']:,} characters)" if view.get("chars", 0) > TEXT_CHARS else ""
        return f"<p class='muted'>returned text{cut}:</p><pre>{escape(str(view.get('text') or ''))}</pre>"
    out: list[str] = []
    if kind == "read":
        span = f"lines {view.get('start_line')}-{view.get('end_line')}"
        out.append(f"<p>read {_doc_link(view['doc_id'], view.get('title'))}, {escape(span)}</p>")
        if view["lines"]:
            rows = "".join(
                f"<tr><td class='ln'>{'' if n is None else n}</td><td>{escape(str(text))}</td></tr>"
                for n, text in view["lines"]
            )
            out.append(f"<div class='read'><table class='lines'>{rows}</table></div>")
        else:
            out.append("<p class='muted'>no text</p>")
        if view.get("lines_left_out"):
            out.append(f"<p class='muted'>{view['lines_left_out']} more line(s) not shown here</p>")
    elif kind == "search":
        for key, heading in (("states", "states"), ("memories", "memories"), ("documents", "documents")):
            found = view.get(key)
            if found is None:
                continue
            if not found:
                out.append(f"<p class='muted'>{heading}: none found</p>")
                continue
            out.append(f"<p class='muted'>{heading} ({len(found)}):</p><ol class='ranked'>")
            for entry in found:
                if key == "documents":
                    lines = f", lines {escape(str(entry['lines']))}" if entry.get("lines") else ""
                    snippet = f"<br><span class='muted'>{escape(entry['snippet'])}</span>" if entry["snippet"] else ""
                    out.append(f"<li>{_doc_link(entry['doc_id'], entry.get('title'))}{lines}{snippet}</li>")
                else:
                    out.append(f"<li>{escape(entry['text'])} {node_link(entry['id'])}</li>")
            out.append("</ol>")
    out.extend(f"<p class='muted'>note: {escape(n)}</p>" for n in view.get("notes") or [])
    return "".join(out)
