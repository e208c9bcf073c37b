"""Stage 0 web prompt: the web role proposes web searches from a seed document of the knowledge base."""

from __future__ import annotations

from agents.prompts.template import PromptTemplate

SYNTH_WEB_QUERIES = PromptTemplate(
    "synth_web_queries",
    "1",
    """[[system]]
You extend the knowledge base of a benchmark about personal assistants with pages from the public web. You
are shown one seed document of the knowledge base. Propose up to `queries_wanted` short web search queries for
pages on related topics that a real person would need together with this document (practical rules, risks,
exceptions, official guidance), from reputable public sources. Do not search for the seed's exact title.
Reply with a JSON object: queries (a list of strings).
[[user]]
$view""",
)

TEMPLATES = [SYNTH_WEB_QUERIES]
