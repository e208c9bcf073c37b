"""Stage 0 prompts: the linker proposes searches from a seed document, then picks knowledge relations."""

from __future__ import annotations

from agents.prompts.template import PromptTemplate

SYNTH_LINK_QUERIES = PromptTemplate(
    "synth_link_queries",
    "1",
    """[[system]]
You help build a linked knowledge base for a benchmark about personal assistants. You are shown one seed
document of the knowledge base. Propose one to three short search queries that would find OTHER documents whose
knowledge must be combined with this one to advise a real person (a condition and its treatment, a risk and a
precaution, a test and what its result means, a rule and its exception). Do not search for the seed's title.
Reply with a JSON object: queries (a list of one to three strings).
[[user]]
$view""",
)

SYNTH_LINK_PICK = PromptTemplate(
    "synth_link_pick",
    "1",
    """[[system]]
You are linking documents of a knowledge base. You see a seed document and candidate documents that searches
returned, each with an excerpt. Choose the candidates whose knowledge genuinely relates to the seed (at most
`links_wanted`). For each, describe the knowledge relation in one sentence (how the two documents must be read
together) and give a weight between 0 and 1 (1: one cannot be applied correctly without the other). Only use
candidate ids from the list; never the seed itself. Choosing none is allowed when nothing relates.
Reply with a JSON object: links (a list of objects with dst_doc_id, relation, weight).
[[user]]
$view""",
)

TEMPLATES = [SYNTH_LINK_QUERIES, SYNTH_LINK_PICK]
