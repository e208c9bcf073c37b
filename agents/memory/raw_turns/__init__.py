"""`raw_turns`: the no-LLM memory system (one card per user turn, verbatim). `system` holds the registered
class; the cards themselves are built by agents.memory.cards.raw_turn_cards."""
