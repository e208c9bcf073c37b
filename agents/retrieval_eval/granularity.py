"""Memory-line granularity of `eval retrieval`: which cards the memory channels rank, and the levels scored.

| granularity | cards (system) | levels |
| --- | --- | --- |
| turn | one per memory-evidence turn (`raw_turns`) | `turn`, `session_turn2session`, `session_best_turn` |
| round | a user turn with its assistant reply (`raw_rounds`) | `round`, `session_round2session`, `session_best_round` |
| session | one per session (`raw_sessions`) | `session_whole` |

- Between two people (LoCoMo) a round is a turn with the other speaker's reply (agents.memory.cards.unit_cards).
- `turn` / `round`: the unit ranking against the gold units (a round is gold when it holds a gold turn, of
  either role: single-session-assistant evidence is an assistant turn).
- `session_whole`: LongMemEval's whole-session units; gold = the sessions holding a gold memory-evidence turn.
- `session_turn2session` / `session_round2session`: LongMemEval's unit->session mapping with its effective k
  (agents.retrieval_eval.metrics.unit_to_session_metrics).
- `session_best_turn` / `session_best_round`: an extra, not a LongMemEval definition: sessions ranked by
  their best unit (first appearance, deduplicated), any unit of a gold session counting as a hit; it reads
  higher than the mapping above and is not comparable with published session figures.

Only recipes whose memory channels read `raw_turns` are moved to the granularity's cards; recipes reading an
LLM-built memory keep their own cards (reported at turn granularity).
"""

from __future__ import annotations

from typing import Literal

from agents.memory.cards.raw_turn_cards import SYSTEM as RAW_TURNS
from agents.memory.cards.unit_cards import ROUND_SYSTEM, SESSION_SYSTEM
from graph.errors import UsageError
from query.recipes import Recipe

Granularity = Literal["turn", "round", "session"]
GRANULARITIES: tuple[Granularity, ...] = ("turn", "round", "session")
UNIT_SYSTEMS: dict[str, str] = {"turn": RAW_TURNS, "round": ROUND_SYSTEM, "session": SESSION_SYSTEM}
LEVELS: dict[str, tuple[str, ...]] = {
    "turn": ("turn", "session_turn2session", "session_best_turn"),
    "round": ("round", "session_round2session", "session_best_round"),
    "session": ("session_whole",),
}
LEVEL_DEFINITIONS: dict[str, str] = {
    "turn": "turn units (LongMemEval's turn level)",
    "round": "round units: a user turn with its assistant reply (between two people: a turn with the other's reply)",
    "session_whole": "whole sessions as units (LongMemEval's session granularity)",
    "session_turn2session": "turns mapped to sessions, effective k (LongMemEval's turn->session metrics)",
    "session_round2session": "rounds mapped to sessions, effective k (LongMemEval's mapping, round units)",
    "session_best_turn": "sessions by their best turn (extra; not a LongMemEval definition)",
    "session_best_round": "sessions by their best round (extra; not a LongMemEval definition)",
}


def check_granularity(value: str) -> Granularity:
    """The granularity named by `value`; ValueError naming the choices otherwise."""
    for g in GRANULARITIES:
        if value == g:
            return g
    raise UsageError(f"--granularity must be one of {', '.join(GRANULARITIES)}, got {value!r}")


def unit_recipe(recipe: Recipe, granularity: str) -> Recipe:
    """`recipe` with its memory channels reading the granularity's cards (raw-turn recipes only)."""
    if recipe.memory_system != RAW_TURNS or granularity == "turn":
        return recipe
    return recipe.model_copy(update={"memory_system": UNIT_SYSTEMS[granularity]})


def memory_granularity(recipe: Recipe, granularity: str) -> str:
    """The granularity the recipe's memory line is scored at (LLM-built memories: always turn)."""
    return granularity if recipe.memory_system == RAW_TURNS else "turn"
