"""Prompts of the structured-output machinery: the schema instruction of json_object mode and the repair
message sent after an invalid reply."""

from __future__ import annotations

import json
from typing import Any

from agents.prompts.template import PromptTemplate

JSON_OBJECT_INSTRUCTION = PromptTemplate(
    "json_object_instruction",
    "1",
    "Answer with exactly one JSON object and nothing else: no prose, no code fence. "
    "The object must validate against this JSON Schema:\n$schema",
)

STRUCTURED_REPAIR = PromptTemplate(
    "structured_repair",
    "1",
    "Your previous reply could not be used: $problem\n"
    "Send the complete reply again as one JSON object that satisfies the required schema, with no other text.",
)


def json_object_instruction(schema: dict[str, Any]) -> str:
    """The system message that carries the schema when the server only offers json_object mode."""
    return JSON_OBJECT_INSTRUCTION.render(schema=json.dumps(schema, ensure_ascii=False, sort_keys=True))
