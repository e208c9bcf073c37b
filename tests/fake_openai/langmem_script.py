"""A scripted LangMem extractor for the fake OpenAI server. LangMem 0.0.30's memory store manager sends, per
pair, one trustcall extraction request: system message "You are a memory subroutine for an AI." (followed by
trustcall's `<existing>` instances once the store holds memories near the pair), the instructions and the
conversation in a `<session_...>` block as LangChain's pretty-printed messages, and the tools `Memory` (insert)
and, with existing memories, `PatchDoc` (and `RemoveDoc` when the manager has enable_deletes; tool_choice
"required"; "auto" without). A tool call that does not fit its schema makes trustcall send a repair request
(tools `PatchFunctionErrors`, `PatchFunctionName`).

The script answers with one `Memory` call per human message of the session, its text verbatim. `patch_when` /
`remove_when` (a substring of a human message): instead, patch (replace `/content` with the message) or remove
(`RemoveDoc`, when offered, or always with `remove_unoffered`: a model calling a tool it was not given) the
first existing instance. `fail_from` makes extraction calls from that one on
(1-based) raise (HTTP 500);
`invalid_from` makes them answer a `Memory` call without its required `content` (trustcall then asks for a
repair, answered by a `PatchFunctionErrors` call that fixes nothing, as a model that cannot repair it).
`requests` keeps every extraction request, `repairs` counts repair requests. Other requests go to `fallback`."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.fake_openai.server import Reply

LANGMEM_MARK = "You are a memory subroutine for an AI."
_SESSION = re.compile(r"<session_[0-9a-f-]+>\n(.*?)\n</session_", re.DOTALL)
_HEADER = re.compile(r"^=+ (Human|Ai|System|Tool) Message =+\n\n", re.MULTILINE)
_INSTANCE = re.compile(r'<instance id=(\S+) schema_type="[^"]*">')


def tool_names(body: dict[str, Any]) -> list[str]:
    return [str((t.get("function") or {}).get("name")) for t in body.get("tools") or []]


def is_langmem_request(body: dict[str, Any]) -> bool:
    messages = body.get("messages") or []
    system = str(messages[0].get("content") or "") if messages else ""
    return system.startswith(LANGMEM_MARK) or is_repair_request(body)


def is_repair_request(body: dict[str, Any]) -> bool:
    return "PatchFunctionErrors" in tool_names(body)


def human_messages(body: dict[str, Any]) -> list[str]:
    """The human messages of the session LangMem is taking in, from its `<session_...>` block."""
    text = "\n".join(str(m.get("content") or "") for m in body.get("messages") or [])
    found = _SESSION.search(text)
    if found is None:
        return []
    block = found.group(1)
    heads = list(_HEADER.finditer(block))
    out = []
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(block)
        if head.group(1) == "Human":
            out.append(block[head.end() : end].strip())
    return out


def existing_ids(body: dict[str, Any]) -> list[str]:
    system = str((body.get("messages") or [{}])[0].get("content") or "")
    return _INSTANCE.findall(system)


@dataclass
class LangmemScript:
    fallback: Callable[[dict[str, Any]], Reply] | None = None
    patch_when: str | None = None
    remove_when: str | None = None
    remove_unoffered: bool = False
    fail_from: int | None = None
    invalid_from: int | None = None
    extractions: int = 0
    repairs: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> Reply:
        if not is_langmem_request(body):
            if self.fallback is None:
                raise AssertionError("not a LangMem extraction request")
            return self.fallback(body)
        if is_repair_request(body):
            self.repairs += 1
            failed = next((c for m in reversed(body["messages"]) for c in m.get("tool_calls") or []), None)
            call_id = str((failed or {}).get("id") or "")
            return Reply.tools(("PatchFunctionErrors", {
                "json_doc_id": call_id, "planned_edits": "none", "patches": []}))
        self.extractions += 1
        self.requests.append(json.loads(json.dumps(body)))
        if self.fail_from is not None and self.extractions >= self.fail_from:
            raise RuntimeError(f"scripted failure of LangMem extraction {self.extractions}")
        if self.invalid_from is not None and self.extractions >= self.invalid_from:
            return Reply.tools(("Memory", {"text": "no content field"}))
        humans = [h for h in human_messages(body) if h]
        existing = existing_ids(body)
        if existing:
            for text in humans:
                if self.patch_when and self.patch_when in text and "PatchDoc" in tool_names(body):
                    return Reply.tools(("PatchDoc", {
                        "json_doc_id": existing[0], "planned_edits": "replace the content",
                        "patches": [{"op": "replace", "path": "/content", "value": text}],
                    }))
                offered = "RemoveDoc" in tool_names(body) or self.remove_unoffered
                if self.remove_when and self.remove_when in text and offered:
                    return Reply.tools(("RemoveDoc", {"json_doc_id": existing[0]}))
        if not humans:
            return Reply.text("Nothing to remember.")
        return Reply.tools(*[("Memory", {"content": text}) for text in humans])
