"""The query room: retrieval over the evidence graph.

`retriever.Retriever` runs the named recipes of `recipes` (HYBRID, SEMANTIC, KEYWORD, MEMKB, MEMKB_NO_STATE,
MEMKB_NO_LINKS, RAW_TURNS) and the Read tool; records are in `results`, typed errors in `errors`. Channels:
`knowledge` (chunk full-text and vectors), `memory_channels` (a profile's cards), `fusion` (RRF),
`round_robin` (the memory-linked list). `memory/` builds raw-turn cards and memory-document links;
`evaluation/` is the retrieval-line evaluation (no LLM).
"""
