"""`AutoPolicy`: a deterministic responder that plays every role of a run against the fake server.

Answerer (requests with tools): round by round it calls memory_search (if offered), then the knowledge search
(memkb_search or kb_search) with the request text, then reads the top document of the last search, then
answers citing what it read. With `greedy=True` it never stops calling tools while tools are offered (to
test the round budget). Without tools it answers.
Structured roles, recognised by the schema title: the state summary (one state per user turn, citing it),
accuracy (pass when the answer cites a support document of the item), quality (a score from a hash) and error
analysis (category and visibility from a hash).
Memory builds: Mem0's extraction (mem0_script), A-MEM's note analysis and evolution (amem_script) and every
Graphiti prompt (graphiti_script) get those scripts' replies, each built from the request's own text, so
`memory build` of every shipped system and `run --methods all` complete against the fake alone. A schema no
script knows is an error (HTTP 500 naming it), never an empty reply.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from tests.fake_openai.amem_script import AmemScript, is_amem_request
from tests.fake_openai.graphiti_script import HANDLERS as GRAPHITI_HANDLERS
from tests.fake_openai.graphiti_script import GraphitiScript, schema_name
from tests.fake_openai.mem0_script import Mem0Script, is_mem0_extraction
from tests.fake_openai.server import Reply

_TURN_LINE = re.compile(r"^\[([^\]]+)\] user\b.*?: (.*)$", re.MULTILINE)
_SUPPORT_DOC = re.compile(r"^### \[([^\]]+)\] .*\(support document\)$", re.MULTILINE)
_REQUIREMENT = re.compile(r"^- \[([^\]]+)\] ", re.MULTILINE)
_CATEGORIES = ["personal_assumption", "context_underuse", "rule_misuse", "answer_omission", "other"]
_VISIBILITY = ["visible", "partial", "invisible", "uncertain"]


def _digest(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def schema_title(body: dict[str, Any]) -> str | None:
    """The title of the JSON Schema a structured request asks for (json_schema or json_object mode)."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return str(fmt["json_schema"]["schema"].get("title"))
    if fmt.get("type") == "json_object":
        for message in body.get("messages", []):
            content = message.get("content") or ""
            marker = content.find("JSON Schema:\n")
            if marker >= 0:
                return str(json.loads(content[marker + len("JSON Schema:\n") :]).get("title"))
    return None


def request_text(body: dict[str, Any]) -> str:
    """The text of the current request in an answerer conversation (the first user message, after its header)."""
    for message in body.get("messages", []):
        if message.get("role") == "user":
            content = str(message.get("content") or "")
            return content.split(":\n", 1)[1].strip() if ":\n" in content else content
    return ""


@dataclass
class AutoPolicy:
    greedy: bool = False
    read_lines: int = 100
    mem0: Mem0Script = field(default_factory=Mem0Script)
    amem: AmemScript = field(default_factory=AmemScript)
    graphiti: GraphitiScript = field(default_factory=GraphitiScript)

    def __call__(self, body: dict[str, Any]) -> Reply:
        if is_mem0_extraction(body):
            return self.mem0(body)
        if is_amem_request(body):
            return self.amem(body)
        name = schema_name(body)
        if name in GRAPHITI_HANDLERS:
            return self.graphiti(body)
        title = schema_title(body)
        if title is None and name != "?":
            raise ValueError(f"AutoPolicy has no script for schema {name!r}")
        if title is not None:
            return self.structured(title, body)
        tools = [t["function"]["name"] for t in body.get("tools") or []]
        messages = body.get("messages", [])
        rounds_done = sum(1 for m in messages if m.get("role") == "assistant" and m.get("tool_calls"))
        question = request_text(body)
        if tools:
            plan: list[tuple[str, dict[str, Any]]] = []
            if "memory_search" in tools:
                plan.append(("memory_search", {"query": question}))
            search = "memkb_search" if "memkb_search" in tools else "kb_search"
            plan.append((search, {"query": question}))
            top = self.top_document(messages)
            if "read" in tools and top is not None:
                plan.append(("read", {"doc_id": top, "start_line": 1, "n_lines": self.read_lines}))
            if rounds_done < len(plan):
                return Reply.tools(plan[rounds_done])
            if self.greedy:
                return Reply.tools((search, {"query": f"{question} (again {rounds_done})"}))
        read = self.read_documents(messages)
        cites = ", ".join(f"[{d}]" for d in read) or "no documents"
        return Reply.text(f"Answer to: {question[:80]} -- based on {cites}.")

    @staticmethod
    def tool_responses(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for message in messages:
            if message.get("role") == "tool":
                try:
                    out.append(json.loads(message.get("content") or "{}"))
                except json.JSONDecodeError:
                    continue
        return out

    def top_document(self, messages: list[dict[str, Any]]) -> str | None:
        for response in reversed(self.tool_responses(messages)):
            docs = response.get("documents")
            if docs:
                return str(docs[0]["doc_id"])
        return None

    def read_documents(self, messages: list[dict[str, Any]]) -> list[str]:
        return [str(r["doc_id"]) for r in self.tool_responses(messages) if "doc_id" in r and "text" in r]

    def structured(self, title: str, body: dict[str, Any]) -> Reply:
        prompt = "\n".join(str(m.get("content") or "") for m in body.get("messages", []))
        if title == "StateSummaryOut":
            states = [
                {
                    "text": text[:200],
                    "concerns": "the user",
                    "time_context": "",
                    "unresolved": [],
                    "source_turn_ids": [turn_id],
                }
                for turn_id, text in _TURN_LINE.findall(prompt)[:8]
            ]
            return Reply.json({"states": states})
        answer = prompt.split("## The assistant's answer", 1)[-1]
        if title == "AccuracyOut":
            support = _SUPPORT_DOC.findall(prompt)
            passed = any(doc in answer for doc in support)
            requirements = _REQUIREMENT.findall(prompt.split("## Answer requirements", 1)[-1])
            return Reply.json(
                {
                    "verdict": "pass" if passed else "fail",
                    "rationale": "cites the support document" if passed else "does not use the support document",
                    "failed_requirement_ids": [] if passed else requirements[:1],
                }
            )
        if title == "QualityOut":
            score = 1 + _digest(prompt) % 5
            return Reply.json(
                {"score": score, "candidate_excerpt": answer[-60:], "source_evidence": "reference", "rationale": "ok"}
            )
        if title == "ErrorAnalysisOut":
            h = _digest(prompt)
            return Reply.json(
                {
                    "main_category": _CATEGORIES[h % len(_CATEGORIES)],
                    "secondary_categories": [],
                    "visibility": _VISIBILITY[(h // 7) % len(_VISIBILITY)],
                    "rationale": "scripted",
                }
            )
        raise ValueError(f"AutoPolicy has no script for schema {title!r}")
