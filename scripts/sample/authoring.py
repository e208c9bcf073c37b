"""A small authoring vocabulary for the synthetic profiles of the sample bundle.

Profiles are written as plain Python data (see profile_*.py). Document spans are given by quoting a
sentence fragment of the document: the builder finds the line that contains it, so spans stay right if
the author only knows the sentence, and a quote that is not found stops the build.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# A quoted span: (doc_id, quote) = the line holding `quote`; (doc_id, quote, end_quote) = from the line
# holding `quote` to the line holding `end_quote` (inclusive). A quote must occur on exactly one line; for
# lines a page repeats verbatim, an int gives the line number instead.
Quote = tuple[str, str | int] | tuple[str, str | int, str | int]


@dataclass
class Search:
    """Knowledge search by the assistant: `pins` are the results the author relies on (in rank order);
    the builder appends BM25 results over the sample until there are `k` results, never returning a
    document the profile must not see (its items' support documents and `Profile.avoid`)."""

    query: str
    pins: list[Quote]
    k: int = 4


@dataclass
class Read:
    """Read `n_lines` lines of a document from the line holding `quote`."""

    doc_id: str
    quote: str | int
    n_lines: int


@dataclass
class U:
    text: str
    facts: list[str] = field(default_factory=list)


@dataclass
class A:
    text: str
    calls: list[Search | Read] = field(default_factory=list)


@dataclass
class Session:
    key: str  # session id suffix
    topic: str
    started_at: str
    turns: list[U | A]


@dataclass
class Req:
    text: str
    facts: list[str]
    spans: list[Quote]
    action: str
    extra_turns: list[str] = field(default_factory=list)  # user statements beyond the disclosing turns


@dataclass
class Item:
    key: str
    question: str
    reference_answer: str
    asked_at: str
    question_type: str
    batch: str
    support: list[str]
    history: list[str]
    reqs: list[Req]


@dataclass
class Fact:
    key: str
    text: str
    category: str


@dataclass
class Topic:
    key: str
    title: str
    intent: str
    facts: list[str]


@dataclass
class Profile:
    profile_id: str
    prefix: str  # short id prefix for facts, topics, sessions, items
    name: str
    description: str
    attributes: dict[str, object]
    facts: list[Fact]
    topics: list[Topic]
    sessions: list[Session]
    items: list[Item]
    avoid: list[str] = field(default_factory=list)  # extra documents kept out of this profile's history
