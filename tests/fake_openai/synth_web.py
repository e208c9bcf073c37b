"""Scripted stage 0 web replies for SynthesisPolicy: the web role searches for the seed document's title."""

from __future__ import annotations

from typing import Any

from tests.fake_openai.server import Reply


def _web_queries(view: dict[str, Any], body: dict[str, Any], policy: Any) -> Reply:
    return Reply.json({"queries": [view["seed"]["title"]][: view["queries_wanted"]]})


HANDLERS = {"WebQueries": _web_queries}
