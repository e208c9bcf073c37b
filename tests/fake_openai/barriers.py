"""Predicates for `FakeOpenAI.hold_when` that name which requests a test interrupts on."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

MINI_ITEMS = Path(__file__).resolve().parent.parent / "fixtures" / "mini_bundle" / "items.jsonl"


def mini_items() -> list[tuple[str, str]]:
    """(item id, question) of the `mini` bundle's items."""
    with MINI_ITEMS.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return [(str(r["item_id"]), str(r["question"])) for r in rows]


def mini_questions() -> list[str]:
    """The questions of the `mini` bundle's items."""
    return [question for _, question in mini_items()]


def message_text(body: dict[str, Any]) -> str:
    """Every message's content of a request, joined."""
    return " ".join(str(m.get("content") or "") for m in body.get("messages") or [])


def about(question: str) -> Callable[[dict[str, Any]], bool]:
    """Holds the requests whose messages carry this question."""
    return lambda body: question in message_text(body)


class AllButTheFirstItems:
    """Holds every request about an item other than the first `keep` items the endpoint was asked about (an
    item is recognised by its question in the messages); requests naming no item pass."""

    def __init__(self, questions: list[str], keep: int = 1) -> None:
        self.questions = questions
        self.keep = keep
        self.first: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> bool:
        text = message_text(body)
        asked = [q for q in self.questions if q in text]
        if not asked:
            return False
        with self._lock:
            if not any(q in self.first for q in asked) and len(self.first) < self.keep:
                self.first.append(asked[0])
            return not any(q in self.first for q in asked)
