"""The memory judges' inputs for one profile, built from the graph: one call per expected memory point
(integrity), per extracted memory (accuracy), per update point (update) and per question (qa).

A judge sees at most `max_memories` of the profile's memories: when a profile has more, the memories derived
from the point's disclosing turns come first, then the others nearest to the point's text by cosine (the
configured encoder); each verdict records how many it saw of how many (`details.memories_shown/total`).

The QA axis retrieves for each question the `qa_k` memories nearest to the question text (cosine, the
configured encoder), as a memory system's search would; the gold evidence turns play no part in it. Without
an encoder the reader sees every memory up to `max_memories` (`details.selection` says which)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from neo4j import Driver

from agents.judging.memory_base import MemoryJudgeCall
from agents.llm.client import LLMClient
from agents.memory_quality.points import FactPoint, update_points
from agents.memory_quality.questions import QaQuestion
from agents.prompts.registry import PromptSet
from graph.cypher_files import load_cypher

DEFAULT_MAX_MEMORIES = 60
DEFAULT_QA_K = 10


@dataclass(frozen=True)
class ProfileMemory:
    memory_id: str
    text: str
    turn_ids: tuple[str, ...]
    vector: np.ndarray | None


def load_profile_memories(driver: Driver, database: str, system: str, profile_id: str) -> list[ProfileMemory]:
    with driver.session(database=database) as session:
        rows = list(session.run(load_cypher("memory_quality/memory_texts"), system=system, profile_id=profile_id))
    return [
        ProfileMemory(
            r["memory_id"],
            r["text"] or "",
            tuple(sorted(r["turn_ids"])),
            np.asarray(r["embedding"], dtype=np.float32) if r["embedding"] is not None else None,
        )
        for r in rows
    ]


def load_turn_texts(driver: Driver, database: str, profile_id: str, turn_ids: list[str]) -> dict[str, str]:
    """turn id -> `[id] role (time): text` for these turns of the profile."""
    with driver.session(database=database) as session:
        rows = session.run(load_cypher("memory_quality/turn_texts"), profile_id=profile_id, turn_ids=turn_ids)
        return {
            r["turn_id"]: f"[{r['turn_id']}] {r['role']}{' (' + r['at'] + ')' if r['at'] else ''}: {r['text']}"
            for r in rows
        }


def _listing(memories: list[ProfileMemory]) -> str:
    return "\n".join(f"- [{m.memory_id}] {' '.join(m.text.split())}" for m in memories) or "(no memories)"


def choose_memories(
    memories: list[ProfileMemory], point: FactPoint, query_vector: np.ndarray | None, limit: int
) -> list[ProfileMemory]:
    """All memories when they fit; else those derived from the point's disclosing turns, then the nearest."""
    if len(memories) <= limit:
        return memories
    disclosing = set(point.disclosing_turn_ids)
    first = [m for m in memories if disclosing & set(m.turn_ids)][:limit]
    rest = [m for m in memories if m not in first]
    if query_vector is not None:
        rest.sort(key=lambda m: -float(np.dot(m.vector, query_vector)) if m.vector is not None else 1.0)
    chosen = {m.memory_id for m in first + rest[: limit - len(first)]}
    return [m for m in memories if m.memory_id in chosen]


@dataclass
class InputBuilder:
    """Builds the calls of one system's memory judges, profile by profile."""

    driver: Driver
    database: str
    system: str
    llm: LLMClient
    prompts: PromptSet
    encoder: Any = None
    max_memories: int = DEFAULT_MAX_MEMORIES
    qa_k: int = DEFAULT_QA_K

    def _vectors(self, texts: list[str]) -> list[np.ndarray | None]:
        if self.encoder is None or not texts:
            return [None] * len(texts)
        return list(self.encoder.encode(texts))

    def _memory_call(
        self,
        profile_id: str,
        memories: list[ProfileMemory],
        point: FactPoint,
        vector: np.ndarray | None,
        values: dict[str, str],
    ) -> MemoryJudgeCall:
        shown = choose_memories(memories, point, vector, self.max_memories)
        return MemoryJudgeCall(
            system=self.system,
            profile_id=profile_id,
            values={**values, "memories": _listing(shown)},
            llm=self.llm,
            prompts=self.prompts,
            fact_id=point.fact_id,
            memory_ids=frozenset(m.memory_id for m in shown),
            details={"memories_shown": len(shown), "memories_total": len(memories)},
        )

    def integrity_calls(self, profile_id: str, facts: list[FactPoint]) -> list[MemoryJudgeCall]:
        memories = load_profile_memories(self.driver, self.database, self.system, profile_id)
        points = [f for f in facts if f.expected]
        vectors = self._vectors([f.text for f in points]) if len(memories) > self.max_memories else [None] * len(points)
        return [
            self._memory_call(profile_id, memories, f, v, {"expected_point": f.text})
            for f, v in zip(points, vectors, strict=True)
        ]

    def update_calls(self, profile_id: str, facts: list[FactPoint]) -> list[MemoryJudgeCall]:
        pairs = update_points(facts)
        if not pairs:
            return []
        memories = load_profile_memories(self.driver, self.database, self.system, profile_id)
        vectors = (
            self._vectors([n.text for _, n in pairs]) if len(memories) > self.max_memories else [None] * len(pairs)
        )
        return [
            self._memory_call(profile_id, memories, newer, v, {"earlier_fact": earlier.text, "newer_fact": newer.text})
            for (earlier, newer), v in zip(pairs, vectors, strict=True)
        ]

    def accuracy_calls(self, profile_id: str, facts: list[FactPoint]) -> list[MemoryJudgeCall]:
        memories = load_profile_memories(self.driver, self.database, self.system, profile_id)
        points = [f for f in facts if f.expected]
        gold = "\n".join(f"- [{f.fact_id}] {f.text}" for f in points) or "(no annotated facts)"
        turn_ids = sorted({t for m in memories for t in m.turn_ids})
        texts = load_turn_texts(self.driver, self.database, profile_id, turn_ids)
        order = {t: i for i, t in enumerate(texts)}
        calls = []
        for m in memories:
            turns = sorted(m.turn_ids, key=lambda t: order.get(t, len(order)))
            calls.append(
                MemoryJudgeCall(
                    system=self.system,
                    profile_id=profile_id,
                    values={
                        "turns": "\n".join(texts[t] for t in turns if t in texts) or "(no source turns recorded)",
                        "gold_facts": gold,
                        "memory": " ".join(m.text.split()),
                    },
                    llm=self.llm,
                    prompts=self.prompts,
                    memory_id=m.memory_id,
                    fact_ids=frozenset(f.fact_id for f in points),
                    details={"source_turns": len(turns)},
                )
            )
        return calls

    def qa_calls(self, profile_id: str, questions: list[QaQuestion]) -> list[MemoryJudgeCall]:
        if not questions:
            return []
        memories = load_profile_memories(self.driver, self.database, self.system, profile_id)
        with_vectors = [m for m in memories if m.vector is not None]
        nearest = self.encoder is not None and bool(with_vectors)
        vectors = self._vectors([q.question for q in questions]) if nearest else [None] * len(questions)
        reader_sha = self.prompts["answer_from_memories"].sha256
        calls = []
        for q, v in zip(questions, vectors, strict=True):
            if nearest and v is not None:
                ranked = sorted(with_vectors, key=lambda m: -float(np.dot(m.vector, v)))  # type: ignore[arg-type]
                shown, selection = ranked[: self.qa_k], f"nearest {self.qa_k} by cosine"
            else:
                shown, selection = memories[: self.max_memories], "all (no encoder)"
            type_line = f"(question type: {q.question_type})\n" if q.question_type else ""
            calls.append(
                MemoryJudgeCall(
                    system=self.system,
                    profile_id=profile_id,
                    values={
                        "question": q.question,
                        "question_type_line": type_line,
                        "reference_answer": q.reference_answer,
                        "memories": _listing(shown),
                        "reader_prompt_sha256": reader_sha,
                    },
                    llm=self.llm,
                    prompts=self.prompts,
                    item_id=q.item_id,
                    memory_ids=frozenset(m.memory_id for m in shown),
                    details={"memories_shown": len(shown), "memories_total": len(memories), "selection": selection},
                )
            )
        return calls
