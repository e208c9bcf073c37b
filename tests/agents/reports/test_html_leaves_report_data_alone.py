"""Rendering a tool call's return into HTML reads the report data; it never writes titles into it (the same data
is written to report.json, which keeps each view as it was recorded)."""

from __future__ import annotations

import copy

from agents.reports.html import _call_return


def test_rendering_a_search_return_adds_titles_to_the_page_not_to_the_report_data() -> None:
    shown = {
        "kind": "search",
        "documents": [{"doc_id": "doc-1", "title": None, "lines": "3-9", "snippet": "salt intake"}],
        "memories": [],
    }
    call = {"tool": "search", "ok": True, "response": "", "shown": shown}
    before = copy.deepcopy(call)
    html = _call_return(call, {"doc-1": {"title": "Low-sodium diets"}})
    assert "Low-sodium diets" in html and "doc-1" in html
    assert call == before


def test_rendering_a_read_return_leaves_its_view_untitled_in_the_report_data() -> None:
    shown = {"kind": "read", "doc_id": "doc-2", "title": None, "start_line": 1, "end_line": 2,
             "lines": [[1, "first"], [2, "second"]]}
    call = {"tool": "read", "ok": True, "response": "", "shown": shown}
    before = copy.deepcopy(call)
    html = _call_return(call, {"doc-2": {"title": "Sleep hygiene"}})
    assert "Sleep hygiene" in html and "second" in html
    assert call == before
