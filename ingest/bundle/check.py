"""Cross-reference checks of a bundle (`./colabench check PATH`).

Beyond ids resolving, it enforces ColaBench's construction rules: an item's support documents were
never exposed in that profile's history; its history documents were; every fact a requirement uses
was disclosed in a turn of the profile; user statements are user turns of the profile.

`check_bundle` runs the checks as named steps, one per record file in the order they refer to each other
(documents, links, profiles, facts, topics, sessions, items); each step reads what the earlier ones collected
(`_Checker`) and adds its problems in record order.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ingest.bundle.models import ItemRecord, LineSpan, RequirementRecord, SessionRecord, TurnRecord
from ingest.bundle.reader import Bundle, Located
from ingest.bundle.shape import ItemShape, Shape, shape_of, shape_warnings
from ingest.documents import line_count
from ingest.errors import Problem


@dataclass
class CheckReport:
    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    # Not problems: what makes a run's analyses uninformative (ingest/bundle/shape.py), said before the run.
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_bundle(bundle: Bundle) -> CheckReport:
    """Every cross-reference problem of `bundle` (file, line, field), its record counts and its shape warnings."""
    checker = _Checker(bundle)
    checker.documents()
    checker.doc_links()
    checker.profiles()
    checker.facts()
    checker.topics()
    checker.sessions()
    checker.items()
    return CheckReport(
        problems=checker.problems, counts=bundle_counts(bundle), warnings=shape_warnings(bundle_shape(bundle))
    )


def bundle_counts(bundle: Bundle) -> dict[str, int]:
    """Records per kind (turns and requirements counted inside their sessions and items)."""
    return {
        "documents": len(bundle.documents),
        "doc_links": len(bundle.doc_links),
        "profiles": len(bundle.profiles),
        "facts": len(bundle.facts),
        "topics": len(bundle.topics),
        "sessions": len(bundle.sessions),
        "turns": sum(len(s.record.turns) for s in bundle.sessions),
        "items": len(bundle.items),
        "requirements": sum(len(i.record.requirements) for i in bundle.items),
    }


def bundle_shape(bundle: Bundle) -> Shape:
    """The bundle's shape (profiles with items, single- vs multi-fact mix, support documents per item...)."""
    return shape_of(
        ItemShape(
            profile_id=loc.record.profile_id,
            batch=loc.record.batch,
            n_facts=len({f for r in loc.record.requirements for f in r.fact_ids}),
            n_support=len(loc.record.support_doc_ids),
        )
        for loc in bundle.items
    )


@dataclass
class _Checker:
    """The checks' running record: the problems so far and what the earlier record files declared."""

    bundle: Bundle
    problems: list[Problem] = field(default_factory=list)
    # id -> the kind of record that took it first (ids are unique across the bundle)
    seen: dict[str, str] = field(default_factory=dict)
    doc_lines: dict[str, int] = field(default_factory=dict)
    profile_ids: set[str] = field(default_factory=set)
    fact_profile: dict[str, str] = field(default_factory=dict)
    topic_profile: dict[str, str] = field(default_factory=dict)
    # turn -> (profile, role, session)
    turn_info: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    # profile -> facts disclosed in its turns, and documents its tool calls returned
    disclosed: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    exposed: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def add(self, file: str, line: int, name: str, message: str) -> None:
        self.problems.append(Problem(file, line, name, message))

    def claim(self, identifier: str, kind: str, file: str, line: int, name: str) -> None:
        """Take `identifier` for a record of `kind`; a problem when another record has it already."""
        if identifier in self.seen:
            self.add(file, line, name, f"id {identifier!r} is already used by a {self.seen[identifier]}")
        else:
            self.seen[identifier] = kind

    def check_span(self, span: LineSpan, file: str, line: int, name: str) -> None:
        """A line span names a known document and ends inside it."""
        if span.doc_id not in self.doc_lines:
            self.add(file, line, f"{name}.doc_id", f"unknown document {span.doc_id!r}")
        elif span.end_line > self.doc_lines[span.doc_id]:
            self.add(
                file,
                line,
                f"{name}.end_line",
                f"line {span.end_line} is past the end of {span.doc_id} ({self.doc_lines[span.doc_id]} lines)",
            )

    # --- one step per record file, in the order check_bundle runs them ------------------------------

    def documents(self) -> None:
        """Document ids are unique; each document's line count, for the spans."""
        for loc in self.bundle.documents:
            self.claim(loc.record.doc_id, "document", loc.file, loc.line, "doc_id")
            self.doc_lines[loc.record.doc_id] = line_count(loc.record.text)

    def doc_links(self) -> None:
        """Links join two known, different documents, each pair once."""
        link_lines: dict[tuple[str, str], int] = {}
        for loc in self.bundle.doc_links:
            for name in ("src", "dst"):
                if getattr(loc.record, name) not in self.doc_lines:
                    self.add(loc.file, loc.line, name, f"unknown document {getattr(loc.record, name)!r}")
            pair = (loc.record.src, loc.record.dst)
            if pair[0] == pair[1]:
                self.add(loc.file, loc.line, "dst", f"a document cannot be linked to itself ({pair[0]!r})")
            elif pair in link_lines:
                self.add(
                    loc.file,
                    loc.line,
                    "dst",
                    f"{pair[0]!r} -> {pair[1]!r} is already linked at line {link_lines[pair]}; give each pair once",
                )
            else:
                link_lines[pair] = loc.line

    def profiles(self) -> None:
        for loc in self.bundle.profiles:
            self.claim(loc.record.profile_id, "profile", loc.file, loc.line, "profile_id")
            self.profile_ids.add(loc.record.profile_id)

    def facts(self) -> None:
        """Facts belong to known profiles; a superseded fact is another fact of the same profile, and no chain
        of replacements comes back to where it started."""
        facts = self.bundle.facts
        for loc in facts:
            self.claim(loc.record.fact_id, "fact", loc.file, loc.line, "fact_id")
            self.fact_profile[loc.record.fact_id] = loc.record.profile_id
            if loc.record.profile_id not in self.profile_ids:
                self.add(loc.file, loc.line, "profile_id", f"unknown profile {loc.record.profile_id!r}")
        for loc in facts:
            old = loc.record.supersedes
            if old is not None and (old == loc.record.fact_id or self.fact_profile.get(old) != loc.record.profile_id):
                self.add(loc.file, loc.line, "supersedes", f"{old!r} is not another fact of {loc.record.profile_id!r}")
        superseded_by = {f.record.fact_id: f.record.supersedes for f in facts if f.record.supersedes}
        for loc in facts:  # A supersedes B supersedes A is refused
            start, walk, steps = loc.record.fact_id, superseded_by.get(loc.record.fact_id), 0
            while walk is not None and walk != start and steps <= len(superseded_by):
                walk, steps = superseded_by.get(walk), steps + 1
            if walk == start and superseded_by.get(start) != start:
                self.add(loc.file, loc.line, "supersedes", f"{start!r} takes part in a cycle of supersedes")

    def topics(self) -> None:
        """Topics belong to known profiles and concern that profile's facts."""
        for loc in self.bundle.topics:
            topic = loc.record
            self.claim(topic.topic_id, "topic", loc.file, loc.line, "topic_id")
            self.topic_profile[topic.topic_id] = topic.profile_id
            if topic.profile_id not in self.profile_ids:
                self.add(loc.file, loc.line, "profile_id", f"unknown profile {topic.profile_id!r}")
            for i, fid in enumerate(topic.fact_ids):
                if self.fact_profile.get(fid) != topic.profile_id:
                    self.add(loc.file, loc.line, f"fact_ids.{i}", f"{fid!r} is not a fact of {topic.profile_id!r}")

    def sessions(self) -> None:
        """Sessions belong to known profiles (and their topic to the same profile); then each of their turns."""
        for loc in self.bundle.sessions:
            session = loc.record
            self.claim(session.session_id, "session", loc.file, loc.line, "session_id")
            if session.profile_id not in self.profile_ids:
                self.add(loc.file, loc.line, "profile_id", f"unknown profile {session.profile_id!r}")
            if session.topic_id is not None and self.topic_profile.get(session.topic_id) != session.profile_id:
                self.add(
                    loc.file, loc.line, "topic_id", f"{session.topic_id!r} is not a topic of {session.profile_id!r}"
                )
            for t_index, turn in enumerate(session.turns):
                self._turn(loc, session, turn, f"turns.{t_index}")

    def _turn(self, loc: Located[SessionRecord], session: SessionRecord, turn: TurnRecord, where: str) -> None:
        """A turn's id, the facts it discloses (the profile's own) and the documents its tool calls return."""
        self.claim(turn.turn_id, "turn", loc.file, loc.line, f"{where}.turn_id")
        self.turn_info[turn.turn_id] = (session.profile_id, turn.role, session.session_id)
        for f_index, fid in enumerate(turn.disclosed_fact_ids):
            if self.fact_profile.get(fid) != session.profile_id:
                self.add(
                    loc.file,
                    loc.line,
                    f"{where}.disclosed_fact_ids.{f_index}",
                    f"{fid!r} is not a fact of {session.profile_id!r}",
                )
            self.disclosed[session.profile_id].add(fid)
        for c_index, call in enumerate(turn.tool_calls):
            if turn.role != "assistant":
                self.add(loc.file, loc.line, f"{where}.tool_calls", "only assistant turns call tools")
            for r_index, span in enumerate(call.returned):
                self.check_span(span, loc.file, loc.line, f"{where}.tool_calls.{c_index}.returned.{r_index}")
                self.exposed[session.profile_id].add(span.doc_id)

    def items(self) -> None:
        """Items belong to known profiles; their documents, origin and requirements (an item of an unknown
        profile is not checked further)."""
        item_ids = {i.record.item_id for i in self.bundle.items}
        for loc in self.bundle.items:
            item = loc.record
            self.claim(item.item_id, "item", loc.file, loc.line, "item_id")
            if item.profile_id not in self.profile_ids:
                self.add(loc.file, loc.line, "profile_id", f"unknown profile {item.profile_id!r}")
                continue
            self._item_documents(loc, item)
            if item.augmented_from is not None and item.augmented_from.from_item_id not in item_ids:
                self.add(
                    loc.file,
                    loc.line,
                    "augmented_from.from_item_id",
                    f"unknown item {item.augmented_from.from_item_id!r}",
                )
            if not item.requirements:
                self.add(loc.file, loc.line, "requirements", "an item needs at least one answer requirement")
            for r_index, req in enumerate(item.requirements):
                self._requirement(loc, item, req, r_index)

    def _item_documents(self, loc: Located[ItemRecord], item: ItemRecord) -> None:
        """Support documents are new to the profile's history; history documents were exposed in it."""
        exposed = self.exposed[item.profile_id]
        for i, did in enumerate(item.support_doc_ids):
            if did not in self.doc_lines:
                self.add(loc.file, loc.line, f"support_doc_ids.{i}", f"unknown document {did!r}")
            elif did in exposed:
                self.add(
                    loc.file,
                    loc.line,
                    f"support_doc_ids.{i}",
                    f"{did!r} was already exposed in {item.profile_id!r}'s history; support documents "
                    "must be new to the profile",
                )
        for i, did in enumerate(item.history_doc_ids):
            if did not in self.doc_lines:
                self.add(loc.file, loc.line, f"history_doc_ids.{i}", f"unknown document {did!r}")
            elif did not in exposed:
                self.add(
                    loc.file,
                    loc.line,
                    f"history_doc_ids.{i}",
                    f"{did!r} was never exposed in {item.profile_id!r}'s history",
                )

    def _requirement(self, loc: Located[ItemRecord], item: ItemRecord, req: RequirementRecord, r_index: int) -> None:
        """A requirement's id, its user statements, its disclosed facts and its spans in the item's documents."""
        where = f"requirements.{r_index}"
        # the id ingest will use, derived (<item_id>-r<ordinal>) when not given: a given id that equals another
        # requirement's derived one is caught here, not halfway through an ingest
        claim_id = req.requirement_id or f"{item.item_id}-r{r_index}"
        self.claim(claim_id, "requirement", loc.file, loc.line, f"{where}.requirement_id")
        for i, tid in enumerate(req.turn_ids):
            info = self.turn_info.get(tid)
            if info is None or info[0] != item.profile_id:
                self.add(loc.file, loc.line, f"{where}.turn_ids.{i}", f"{tid!r} is not a turn of {item.profile_id!r}")
            elif info[1] != "user":
                self.add(loc.file, loc.line, f"{where}.turn_ids.{i}", f"{tid!r} is not a user statement")
        for i, fid in enumerate(req.fact_ids):
            if self.fact_profile.get(fid) != item.profile_id:
                self.add(loc.file, loc.line, f"{where}.fact_ids.{i}", f"{fid!r} is not a fact of {item.profile_id!r}")
            elif fid not in self.disclosed[item.profile_id]:
                self.add(
                    loc.file,
                    loc.line,
                    f"{where}.fact_ids.{i}",
                    f"{fid!r} is never disclosed in {item.profile_id!r}'s history",
                )
        allowed = set(item.support_doc_ids) | set(item.history_doc_ids)
        for s_index, span in enumerate(req.spans):
            self.check_span(span, loc.file, loc.line, f"{where}.spans.{s_index}")
            if span.doc_id in self.doc_lines and span.doc_id not in allowed:
                self.add(
                    loc.file,
                    loc.line,
                    f"{where}.spans.{s_index}.doc_id",
                    f"{span.doc_id!r} is neither a support nor a history document of the item",
                )
