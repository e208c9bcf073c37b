"""Scripted replies for MemOS's MemReader (fine mode): one memory per user line of the conversation the prompt
carries (after its `Conversation:` heading), in MemOS's reply shape (`memory list` of key, memory_type, value,
tags, and a summary); a conversation mentioning a knee gets prose instead. Used by tests/agents/memory/test_memos.py."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.fake_openai.server import Reply

_USER_LINE = re.compile(r"^user: (?:\[[^\]]*\]: )?(.+)$", re.MULTILINE)


# conversations containing this word get a reply that is not JSON (MemOS's reader would keep the raw text)
UNPARSEABLE_WORD = "knee"


def memos_reader_reply(body: dict[str, Any]) -> Reply | None:
    messages = body.get("messages") or []
    prompt = str(messages[-1].get("content", "")) if messages else ""
    if "Conversation:" not in prompt or "memory list" not in prompt:
        return None
    conversation = prompt.rsplit("Conversation:", 1)[1].split("Your Output:", 1)[0]
    if UNPARSEABLE_WORD in conversation.lower():
        return Reply.text("Sure! Here are the memories, in prose rather than JSON.")
    memories = [
        {"key": line.strip()[:40], "memory_type": "UserMemory", "value": f"The user said: {line.strip()}", "tags": []}
        for line in _USER_LINE.findall(conversation)
    ]
    return Reply.text(json.dumps({"memory list": memories, "summary": "what the user said"}))
