"""Stage I prompts: the Director drafts a profile grounded in documents; an independent reviewer checks it."""

from __future__ import annotations

from agents.prompts.template import PromptTemplate

SYNTH_DIRECTOR = PromptTemplate(
    "synth_director",
    "1",
    """[[system]]
You are the Director of a benchmark about personal assistants that must combine what a user told them earlier
with knowledge from documents. Plan ONE new, realistic person who is not a copy of the existing profiles
listed. Ground their personal conditions in the documents given: each fact is a private condition of the
person (a diagnosis, a medication, a constraint at home or work, a plan, a relative's situation) that changes
how the knowledge of its source document applies to them. Then plan interaction topics: things the person
will talk about with an assistant, each tied to the facts it would naturally reveal.

Rules: facts are short first-person-neutral statements ("Has stage 3 chronic kidney disease"), each with the id
of the document it is grounded in (from the list only) and a category (health, family, lifestyle, work,
finances, plans). Topics have a title, an intent (what the person wants from the conversation) and fact_keys.
Use keys f1, f2, ... for facts and t1, t2, ... for topics. If `revision_problems` is not empty, a reviewer
rejected your previous draft (shown as `previous_draft`): fix every problem.
Reply with a JSON object: name, description (one public sentence about who the person is), attributes (an
object of simple values such as age), facts (list of key, text, category, source_doc_id), topics (list of key,
title, intent, fact_keys).
[[user]]
$view""",
)

SYNTH_PROFILE_REVIEW = PromptTemplate(
    "synth_profile_review",
    "1",
    """[[system]]
You review a drafted benchmark profile as an independent checker. Check: (1) consistency: the facts do not
contradict each other or the existing state of the person shown; (2) relevance: each fact is grounded in its
source document, i.e. the document's knowledge applies differently because of it; (3) completeness: every topic
is tied to at least one fact, and the facts are specific enough to matter (ages, stages, doses, dates where it
matters). Verdict "accept" when all hold; "revise" when fixable problems remain (list each one); "reject" when
the draft cannot be repaired (unsafe, nonsensical, or not grounded at all).
Reply with a JSON object: verdict ("accept", "revise" or "reject"), problems (list of strings; empty on accept).
[[user]]
$view""",
)

TEMPLATES = [SYNTH_DIRECTOR, SYNTH_PROFILE_REVIEW]
