"""The questions of the memory QA axis: every Item of the evaluated profiles that has a reference answer
(a bundle's or LoCoMo's questions, and each LongMemEval question, which is the one item of its profile).
Question and reference answer are gold: they are sent to the judge endpoint and nowhere else (verdicts
carry the item id only)."""

from __future__ import annotations

from neo4j import Driver
from pydantic import BaseModel

from graph.cypher_files import load_cypher

NO_QUESTION_TYPE = "(no question type)"


class QaQuestion(BaseModel):
    profile_id: str
    item_id: str
    question: str
    reference_answer: str
    question_type: str | None = None
    asked_at: str | None = None

    @property
    def kind(self) -> str:
        return self.question_type or NO_QUESTION_TYPE


def load_questions(driver: Driver, database: str, profile_ids: list[str]) -> list[QaQuestion]:
    with driver.session(database=database) as session:
        rows = session.run(load_cypher("memory_quality/qa_items"), profile_ids=profile_ids)
        return [QaQuestion(**dict(r)) for r in rows]
