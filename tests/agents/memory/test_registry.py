"""The memory-system registry and the pair-by-pair build every LLM-built system shares."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import pytest

from agents.history import HistoryTurn, load_public_history
from agents.memory import (
    BuildContext,
    MemorySystem,
    MemorySystemError,
    MemoryWriteError,
    UnknownMemorySystemError,
    get_memory_system,
    history_pairs,
    open_memory_system,
    prepare_memory,
)
from agents.memory.registry import MEMORY_SYSTEMS, register_memory_system
from agents.methods import get_method, parse_methods
from agents.runs.state import memory_build_costs
from graph.events import MemoryWritten
from graph.fingerprint import compute_fingerprint
from graph.replay import drop_projection, replay
from graph.store import EventStore
from query.recipes import RECIPES, Recipe, register_recipe

pytestmark = pytest.mark.neo4j


def _turn(session: str, ordinal: int, role: str, text: str = "x") -> HistoryTurn:
    return HistoryTurn(
        session_id=session, session_ordinal=int(session[-1]), started_at=None, turn_id=f"{session}-t{ordinal}",
        ordinal=ordinal, role=role, speaker=None, text=text, at=None, tool_calls=[],
    )


def test_pairs_are_a_user_turn_and_the_assistant_turns_up_to_the_next_user_turn() -> None:
    turns = [
        _turn("s1", 1, "assistant"), _turn("s1", 2, "user"), _turn("s1", 3, "assistant"), _turn("s1", 4, "assistant"),
        _turn("s1", 5, "user"), _turn("s2", 1, "user"), _turn("s2", 2, "assistant"),
    ]
    pairs = history_pairs(turns)
    assert [p.turn_ids for p in pairs] == [
        ["s1-t1"], ["s1-t2", "s1-t3", "s1-t4"], ["s1-t5"], ["s2-t1", "s2-t2"],
    ]
    assert [p.pair_id for p in pairs] == ["s1-t1", "s1-t2", "s1-t5", "s2-t1"]


def test_unknown_system_names_the_choices() -> None:
    with pytest.raises(UnknownMemorySystemError, match="raw_turns"):
        get_memory_system("mem-zero")


def test_llm_built_system_without_an_endpoint_says_what_to_set(store: EventStore) -> None:
    with pytest.raises(MemorySystemError, match="COLABENCH_LLM_BASE_URL"):
        open_memory_system("mem0", store, llm=None)


def test_methods_derive_memory_system_states_and_links_from_their_recipes() -> None:
    memkb, mem0, hybrid = get_method("MEMKB"), get_method("MEM0"), get_method("HYBRID")
    assert (memkb.memory_system, memkb.needs_states, memkb.needs_memory_links) == ("mem0", True, True)
    assert (mem0.memory_system, mem0.needs_states, mem0.needs_memory_links) == ("mem0", False, False)
    assert (hybrid.memory_system, hybrid.needs_states) == (None, False)
    assert get_method("MEMKB_NO_STATE").needs_states is False
    assert get_method("MEMKB_RAW_TURNS").memory_system == "raw_turns"
    assert get_method("GRAPHITI").memory_system == "graphiti" and get_method("AMEM").memory_system == "amem"
    assert [m.name for m in parse_methods("all")] == ["HYBRID", "MEM0", "GRAPHITI", "AMEM", "MEMKB"]
    assert len(parse_methods("every")) > 5
    assert memkb.model_dump()["memory_system"] == "mem0"  # run records name the memory system


class _Failing(Exception):
    pass


_ECHO_RECIPE = Recipe(
    name="TEST_ECHO", description="the echo test system's memories (cosine)", memory_channels=("semantic",),
    return_memories=True, memory_system="test_echo",
)


class _EchoSystem(MemorySystem):
    """A test system registered from outside the package (a new system touches only its own module): one
    memory per user turn of a pair, echoing the text; can be told to fail at a pair or cite a foreign turn."""

    name = "test_echo"
    label = "Echo (test)"
    description = "one memory per user turn, verbatim"
    needs_llm = False
    search_recipe = "TEST_ECHO"
    builder = "test-echo/v1"
    fail_at: ClassVar[str | None] = None
    bad_turn: ClassVar[str | None] = None
    calls: ClassVar[list[str]] = []

    def build_pair(self, profile_id, pair):  # type: ignore[no-untyped-def]
        type(self).calls.append(pair.pair_id)
        if pair.pair_id == type(self).fail_at:
            raise _Failing(pair.pair_id)
        writes = []
        for turn in pair.turns:
            if turn.role == "user" and turn.text.strip():
                sources = [turn.turn_id] if type(self).bad_turn is None else [type(self).bad_turn]
                writes.append(
                    MemoryWritten(
                        system=self.name, memory_id=f"test_echo:{turn.turn_id}", profile_id=profile_id, op="ADD",
                        text=turn.text, source_turn_ids=sources,
                    )
                )
        return writes


@pytest.fixture(autouse=True, scope="module")
def _echo_registered() -> Iterator[None]:
    """The echo system and its recipe, registered for this module's tests only (other modules list the shipped
    recipes exactly)."""
    register_recipe(_ECHO_RECIPE)
    register_memory_system(_EchoSystem)
    yield
    MEMORY_SYSTEMS.pop("test_echo", None)
    RECIPES.pop("TEST_ECHO", None)


def _counts(store: EventStore, profile_id: str) -> tuple[int, int, int]:
    """(Memory nodes, build steps, log events) of the echo system for the profile."""
    with store.driver.session() as session:
        record = session.run(
            "RETURN COUNT { MATCH (:Profile {id: $p})-[:HAS_MEMORY]->(:Memory {system: 'test_echo'}) } AS memories, "
            "COUNT { MATCH (:Profile {id: $p})-[:HAS_BUILD_STEP]->(:MemoryBuildStep {system: 'test_echo'}) } "
            "AS steps, COUNT { MATCH (e:Event) WHERE e.type IN ['MemoryWritten', 'MemoryPairProcessed'] "
            "AND e.payload CONTAINS 'test_echo' } AS events",
            p=profile_id,
        ).single()
    assert record is not None
    return int(record["memories"]), int(record["steps"]), int(record["events"])


def test_pair_build_resumes_without_duplicates_and_refuses_foreign_turns(sample_store: EventStore) -> None:
    store = sample_store
    profile = "p-daniel"
    assert "test_echo" in MEMORY_SYSTEMS
    pairs = history_pairs(load_public_history(store.driver, store.database, profile))
    users = sum(1 for p in pairs for t in p.turns if t.role == "user" and t.text.strip())
    try:
        # A write that cites a turn of no profile is refused, naming system, profile and turn; nothing is written.
        _EchoSystem.bad_turn = "t-nowhere"
        with pytest.raises(MemoryWriteError, match=r"'test_echo'.*'p-daniel'.*'t-nowhere'"):
            prepare_memory("test_echo", store, None, profile)
        assert _counts(store, profile) == (0, 0, 0)
        _EchoSystem.bad_turn = None

        # A crash at the fourth pair keeps the three pairs before it, whole.
        _EchoSystem.fail_at = pairs[3].pair_id
        with pytest.raises(_Failing):
            prepare_memory("test_echo", store, None, profile)
        memories, steps, _ = _counts(store, profile)
        assert steps == 3
        assert memories == sum(1 for p in pairs[:3] for t in p.turns if t.role == "user" and t.text.strip())

        # The rerun skips what was built and finishes; a third run does nothing.
        _EchoSystem.fail_at = None
        _EchoSystem.calls.clear()
        report = prepare_memory("test_echo", store, None, profile)
        assert _EchoSystem.calls == [p.pair_id for p in pairs[3:]]
        assert (report.pairs_total, report.pairs_skipped, report.pairs_built) == (len(pairs), 3, len(pairs) - 3)
        assert _counts(store, profile)[:2] == (users, len(pairs))
        again = prepare_memory("test_echo", store, None, profile)
        assert again.pairs_built == 0 and _counts(store, profile)[:2] == (users, len(pairs))

        # Every memory derives from a turn of its profile, and its build step covers that turn.
        with store.driver.session() as session:
            orphans = session.run(
                "MATCH (m:Memory {system: 'test_echo'}) WHERE NOT EXISTS { "
                "MATCH (m)-[:DERIVED_FROM]->(t:Turn {profile_id: m.profile_id})"
                "<-[:COVERS]-(:MemoryBuildStep)-[:WROTE]->(m)"
                " } RETURN count(m) AS n"
            ).single()
        assert orphans is not None and orphans["n"] == 0
        costs = memory_build_costs(store, "test_echo", [profile])
        assert costs["total"]["pairs"] == len(pairs) and costs["total"]["llm_calls"] == 0

        # The pair events replay to the same projection.
        before = compute_fingerprint(store.driver, store.database)
        drop_projection(store)
        replay(store)
        after = compute_fingerprint(store.driver, store.database)
        assert after.digest == before.digest, before.differences(after)
    finally:
        _EchoSystem.fail_at = None
        _EchoSystem.bad_turn = None


def test_build_context_defaults() -> None:
    ctx = BuildContext(store=None)  # type: ignore[arg-type]
    assert ctx.llm is None and ctx.options == {}


def test_every_shipped_system_searches_with_a_recipe_over_its_own_memories() -> None:
    from agents.memory.registry import SYSTEM_MODULES
    from query.recipes import RECIPES

    assert set(SYSTEM_MODULES) >= {"raw_turns", "mem0", "graphiti", "amem"}  # found by their folders
    for name in sorted(SYSTEM_MODULES):
        cls = get_memory_system(name)
        recipe = RECIPES.get(cls.search_recipe)
        assert recipe is not None, f"{name}: search_recipe {cls.search_recipe!r} is not a recipe"
        assert recipe.memory_system == name, f"{name}: {recipe.name} ranks the memories of {recipe.memory_system}"
        assert recipe.return_memories, f"{name}: {recipe.name} returns no memories"


def test_the_recipe_declares_its_memory_response_shape() -> None:
    from query.linked_memory_response import LinkExpandedResponse, memory_response
    from query.recipes import RECIPES

    shaped = {name for name, recipe in RECIPES.items() if isinstance(memory_response(recipe), LinkExpandedResponse)}
    assert shaped == {"AMEM"}
    renamed = RECIPES["AMEM"].model_copy(update={"name": "AMEM_COPY"})
    assert isinstance(memory_response(renamed), LinkExpandedResponse)  # the shape follows the field, not the name
