"""The reading side of memory cards shared by every system: which documents a card's history read, and profile
checks. The writers (raw-turn and unit cards, document links, per-profile upkeep) live in agents/memory/cards/."""

from query.memory.history_reads import card_history_reads

__all__ = ["card_history_reads"]
