"""Memory cards written without an LLM and MemKB's memory-document links: raw-turn cards, round and session
cards, the links of every card to its history reads and unexposed neighbours, and the incremental per-profile
upkeep used when turns are appended. Each write is an event; the readers are in query/."""

from agents.memory.cards.document_links import LINK_BUILDER, build_document_links, link_query_text
from agents.memory.cards.raw_turn_cards import SYSTEM as RAW_TURNS_SYSTEM
from agents.memory.cards.raw_turn_cards import build_raw_turn_cards, raw_card_id
from agents.memory.cards.upkeep import update_profile_memory

__all__ = [
    "LINK_BUILDER",
    "RAW_TURNS_SYSTEM",
    "build_document_links",
    "build_raw_turn_cards",
    "link_query_text",
    "raw_card_id",
    "update_profile_memory",
]
