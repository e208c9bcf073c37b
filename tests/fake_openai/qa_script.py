"""A scripted reader, fact extractor and LongMemEval QA judge for the fake OpenAI server (`eval qa` tests).

- Reader (the `qa_reader_*` prompts): answers from the history JSON it was fed. A test may script an answer
  per question (`answers`: a substring of the question -> answer); otherwise the answer is the fed message
  sharing the most content words with the question, or "That information is not in our past conversations."
  when no fed message shares any. Chain-of-Note requests (schema ChainOfNoteReply) get one note per
  conversation and the same answer.
- Fact extractor (schema UnitFacts): one fact per user message, "The user said: <message>", plus any facts a
  test scripts for a word (`facts`: word -> extra fact).
- Time-range reader (schema QuestionTimeRange, `--time-aware llm`): the reply a test scripts for a substring
  of the question (`time_ranges`: substring -> a JSON object, or a string sent as the raw reply, e.g. an
  invalid one, on every attempt); otherwise no range. `time_range_calls` records each (question, today).
- Judge (schema QaVerdict): applies the rule its prompt states, deterministically: abstention passes only
  when the response says the information is missing; temporal passes a day/week/month count within one of
  the reference's; knowledge update needs the reference (latest) value; preference needs a rubric keyword;
  the default rule needs the reference text (case-insensitive) in the response. `rules` records the rule of
  every judge request, so tests can check which prompt was used."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from tests.fake_openai.policy import schema_title
from tests.fake_openai.server import Reply

_WORD = re.compile(r"[a-z0-9]+")
_STOP_TEXT = """a an the i my me you your is are was were do did does what which how many much to of in on for and
or with that this it at by from as be have has had can could would should now ago"""
_STOP = frozenset(_STOP_TEXT.split())

_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
MISSING = "That information is not in our past conversations."
_MISSING_MARKS = (
    "not in our past conversations",
    "not mentioned",
    "did not mention",
    "no information",
    "cannot tell",
    "don't know",
)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2}


def _numbers(text: str) -> list[int]:
    found = [int(n) for n in re.findall(r"\b\d+\b", text)]
    found += [v for w, v in _NUMBER_WORDS.items() if re.search(rf"\b{w}\b", text.lower())]
    return found


def _section(content: str, start: str, end: str) -> str:
    head = content.split(start, 1)[1] if start in content else content
    return head.split(end, 1)[0] if end in head else head


@dataclass
class QaScript:
    answers: dict[str, str] = field(default_factory=dict)
    facts: dict[str, str] = field(default_factory=dict)
    rules: list[str] = field(default_factory=list)
    readers: list[dict[str, Any]] = field(default_factory=list)
    fact_calls: int = 0
    time_ranges: dict[str, Any] = field(default_factory=dict)
    time_range_calls: list[tuple[str, str]] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> Reply:
        title = schema_title(body)
        system = str(body["messages"][0].get("content") or "")
        user = str(body["messages"][-1].get("content") or "")
        if title == "QaVerdict":
            return self._judge(system, user)
        if title == "UnitFacts":
            return self._facts(user)
        if title == "QuestionTimeRange":
            return self._time_range(body)
        if "memory of your earlier conversations" in system:
            return self._read(user, notes=title == "ChainOfNoteReply")
        raise AssertionError(f"not a QA request (schema {title!r}): {system[:80]!r}")

    # --- reader -----------------------------------------------------------------------------------

    def _read(self, user: str, *, notes: bool) -> Reply:
        history_text = _section(user, "Our past conversations:\n", "\n\nToday is ")
        question = user.rsplit("My question: ", 1)[-1].strip()
        conversations = json.loads(history_text)
        self.readers.append({"question": question, "conversations": conversations, "notes": notes})
        answer = next((a for key, a in self.answers.items() if key in question), None)
        if answer is None:
            asked = _words(question)
            best, best_overlap = "", 0
            for conv in conversations:
                for message in conv["messages"]:
                    overlap = len(asked & _words(message["content"]))
                    if overlap > best_overlap:
                        best, best_overlap = message["content"], overlap
            answer = best if best_overlap >= 2 else MISSING
        if notes:
            return Reply.json(
                {
                    "notes": [
                        {"conversation": c["index"], "note": f"{len(c['messages'])} messages"} for c in conversations
                    ],
                    "answer": answer,
                }
            )
        return Reply.text(answer)

    # --- key expansion facts ----------------------------------------------------------------------

    def _facts(self, user: str) -> Reply:
        self.fact_calls += 1
        conversation = user.split(":\n", 1)[1] if ":\n" in user else user
        out = [f"The user said: {line[6:].strip()}" for line in conversation.split("\n") if line.startswith("user: ")]
        for word, fact in self.facts.items():
            if word.lower() in conversation.lower():
                out.append(fact)
        return Reply.json({"facts": out})

    # --- time-aware expansion ----------------------------------------------------------------------

    def _time_range(self, body: dict[str, Any]) -> Reply:
        # The first user message is "Today is <date>.\nQuestion: <question>" (re-asks append to the conversation).
        first = next(str(m.get("content") or "") for m in body["messages"] if m.get("role") == "user")
        today = first.split("Today is ", 1)[-1].split(".\n", 1)[0]
        question = first.rsplit("Question: ", 1)[-1].strip()
        self.time_range_calls.append((question, today))
        reply = next((r for key, r in self.time_ranges.items() if key in question), None)
        if reply is None:
            return Reply.json({"has_range": False, "start": None, "end": None, "reason": "no period named"})
        return Reply.text(reply) if isinstance(reply, str) else Reply.json(reply)

    # --- judge ------------------------------------------------------------------------------------

    def _judge(self, system: str, user: str) -> Reply:
        # The user message is "Question: ...", "<label>: <reference>", "Response to grade: ...", blank-line separated.
        reference = user.split("\n\n")[1].split(": ", 1)[1]
        response = user.rsplit("Response to grade: ", 1)[-1].strip()
        low = response.lower()
        if "cannot be answered" in system:
            rule, ok = "abstention", any(mark in low for mark in _MISSING_MARKS)
        elif "off by one" in system:
            rule = "temporal"
            ref_numbers = _numbers(reference)
            ok = bool(ref_numbers) and any(abs(n - ref_numbers[0]) <= 1 for n in _numbers(response))
        elif "latest value" in system:
            rule = "knowledge_update"
            ok = reference.lower().strip(" .") in low
        elif "rubric" in system.lower():
            rule = "preference"
            ok = bool(_words(reference) & _words(response) - {"user", "prefer", "would", "recipe"})
        else:
            rule, ok = "default", reference.lower().strip(" .") in low
        self.rules.append(rule)
        return Reply.json({"verdict": "yes" if ok else "no", "reason": f"{rule} rule: reference {reference!r}"})
