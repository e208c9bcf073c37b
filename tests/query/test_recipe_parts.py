"""A recipe's knowledge, memory and state parts: built from parts or from the flat names, the same recipe; its
record keeps the flat form (the retrieval evaluation's recipe list)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from query.recipes import MEMKB, MEMKB_NO_STATE, KnowledgePart, MemoryPart, Recipe, StatePart

FLAT_RECORD_KEYS = [
    "name", "description", "knowledge_channels", "memory_channels", "return_memories", "return_states",
    "memory_system", "state_system", "kappa", "channel_depth", "channel_chunks", "sdk_ranking", "linked_budget",
    "memory_response", "keyword_analyzer", "keyword_padding",
]


def test_flat_names_and_parts_build_the_same_recipe() -> None:
    flat = Recipe(
        name="X", description="d", knowledge_channels=("memory_linked", "semantic"), channel_depth=7,
        memory_channels=("semantic",), return_memories=True, memory_system="mem0", return_states=True,
        state_system="other",
    )
    parts = Recipe(
        name="X", description="d", knowledge=KnowledgePart(channels=("memory_linked", "semantic"), depth=7),
        memory=MemoryPart(channels=("semantic",), returned=True, system="mem0"),
        state=StatePart(returned=True, system="other"),
    )
    assert flat == parts and hash(flat) == hash(parts)
    assert parts.memory_system == "mem0" and parts.channel_depth == 7 and parts.state_system == "other"


def test_recipe_record_is_flat_and_reads_back() -> None:
    record = MEMKB.model_dump(mode="json")
    assert list(record) == FLAT_RECORD_KEYS
    assert record["knowledge_channels"] == ["memory_linked", "semantic", "keyword"]
    assert record["memory_system"] == "mem0" and record["return_states"] is True
    assert Recipe.model_validate(record) == MEMKB


def test_copy_with_flat_names_changes_the_part_and_is_checked() -> None:
    assert MEMKB_NO_STATE.state == StatePart(returned=False) and MEMKB_NO_STATE.memory == MEMKB.memory
    raw = MEMKB.model_copy(update={"memory_system": "raw_turns"})
    assert raw.memory.system == "raw_turns" and raw.memory.channels == MEMKB.memory.channels
    with pytest.raises(ValidationError, match="memory_linked channel needs memory_channels"):
        MEMKB.model_copy(update={"memory_channels": ()})
    with pytest.raises(ValidationError):
        MEMKB.memory_system = "amem"  # type: ignore[misc]
