"""A scripted answerer and binary judge for the memory-systems QA line (`eval qa --system`) on the fake OpenAI
server, decided so a test can work every verdict out by hand.

- Answerer (the `qa_memory_answer*` prompts, plain chat): the answer a test scripts for a substring of the
  question (`answers`); else the fed memory line sharing the most words (4+ letters) with the question; else
  NOT_MENTIONED. `answer_calls` records (question, memory lines) of each request.
- Judge (`judge_memory_systems_qa`): CORRECT when the gold answer's text (case-insensitive) is in the
  generated answer, else WRONG. Adversarial judge (`judge_memory_systems_adversarial`): CORRECT when the answer
  declines (says not mentioned / no information), else WRONG.
- Judge runs: the n-th arrival of one identical judge request is judge run n (the runs are asked one after
  the other and their cache namespaces differ, so every run reaches the server). `flip` maps a substring of a
  question to the runs whose verdict is the opposite of the rule's, so verdicts differ across runs
  deterministically. `judge_calls` counts judge requests.
Other requests go to `fallback` (a memory system's build requests), or fail."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.fake_openai.server import Reply

NOT_MENTIONED = "Not mentioned in the conversation."
_WORD = re.compile(r"[a-z]{4,}")
_DECLINES = ("not mentioned", "no information", "not say", "never said")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _field(user: str, name: str, following: str | None) -> str:
    head = user.split(f"{name}:", 1)[1] if f"{name}:" in user else ""
    if following and f"\n\n{following}:" in head:
        head = head.split(f"\n\n{following}:", 1)[0]
    return head.strip()


@dataclass
class MemorySystemsQaScript:
    answers: dict[str, str] = field(default_factory=dict)
    flip: dict[str, set[int]] = field(default_factory=dict)
    fallback: Callable[[dict[str, Any]], Reply] | None = None
    answer_calls: list[tuple[str, list[str]]] = field(default_factory=list)
    judge_calls: int = 0
    _seen: dict[str, int] = field(default_factory=dict)

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages = body.get("messages", [])
        system = next((str(m.get("content") or "") for m in messages if m.get("role") == "system"), "")
        user = next((str(m.get("content") or "") for m in messages if m.get("role") == "user"), "")
        if system.startswith("You answer a question about two people's past conversations"):
            return self.answer(user)
        if system.startswith("You grade an answer"):
            return self.judge(body, system, user)
        if self.fallback is None:
            raise AssertionError(f"not a memory-systems QA request: {system[:80]!r}")
        return self.fallback(body)

    def answer(self, user: str) -> Reply:
        question = _field(user, "Question", None)
        memories = [line[2:] for line in _field(user, "Memories", "Question").splitlines() if line.startswith("- ")]
        self.answer_calls.append((question, memories))
        for marker, scripted in self.answers.items():
            if marker in question:
                return Reply.text(scripted)
        asked = _words(question)
        best = max(memories, key=lambda m: len(asked & _words(m)), default=None)
        if best is None or not asked & _words(best):
            return Reply.text(NOT_MENTIONED)
        return Reply.text(re.sub(r"^\[[^\]]*\] ", "", best))

    def judge(self, body: dict[str, Any], system: str, user: str) -> Reply:
        self.judge_calls += 1
        key = hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True).encode()).hexdigest()
        self._seen[key] = self._seen.get(key, 0) + 1
        judge_run = self._seen[key]
        question = _field(user, "Question", "Gold answer")
        gold = _field(user, "Gold answer", "Generated answer")
        answer = _field(user, "Generated answer", None)
        if "trick question" in system:
            correct = any(mark in answer.lower() for mark in _DECLINES)
        else:
            correct = gold.lower() in answer.lower()
        if any(marker in question and judge_run in runs for marker, runs in self.flip.items()):
            correct = not correct
        return Reply.json({"label": "CORRECT" if correct else "WRONG", "reason": f"run {judge_run}"})
