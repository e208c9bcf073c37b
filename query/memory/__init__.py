"""Memory building: raw-turn cards, memory-document links, and the incremental per-profile update."""

from query.memory.history_reads import card_history_reads
from query.memory.links import LINK_BUILDER, build_document_links, link_query_text
from query.memory.raw_turns import SYSTEM as RAW_TURNS_SYSTEM
from query.memory.raw_turns import build_raw_turn_cards, raw_card_id
from query.memory.update import update_profile_memory

__all__ = [
    "LINK_BUILDER",
    "RAW_TURNS_SYSTEM",
    "build_document_links",
    "build_raw_turn_cards",
    "card_history_reads",
    "link_query_text",
    "raw_card_id",
    "update_profile_memory",
]
