"""The fact extractor of key expansion: one judge-free LLM call per unit (the `memory` role, else the
reader's client), answered from the LLM response cache on reruns."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, Field

from agents.llm.client import LLMClient
from agents.prompts.qa_reading import QA_FACTS
from agents.prompts.template import PromptTemplate, render_messages


class UnitFacts(BaseModel):
    facts: list[str] = Field(default_factory=list)


def llm_fact_extractor(
    llm: LLMClient, template: PromptTemplate = QA_FACTS
) -> Callable[[str, str | None], list[str]]:
    """(text, date) -> facts, asking `llm` (at most 20 per unit)."""

    def extract(text: str, date: str | None) -> list[str]:
        messages = render_messages(template, date=date or "unknown date", conversation=text)
        reply = llm.structured(messages, UnitFacts, name="unit_facts")
        return [f.strip() for f in reply.value.facts if f.strip()][:20]

    return extract
