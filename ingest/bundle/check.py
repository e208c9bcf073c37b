"""Cross-reference checks of a bundle (`./colabench check PATH`).

Beyond ids resolving, it enforces ColaBench's construction rules: an item's support documents were
never exposed in that profile's history; its history documents were; every fact a requirement uses
was disclosed in a turn of the profile; user statements are user turns of the profile.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ingest.bundle.models import LineSpan
from ingest.bundle.reader import Bundle
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
    report = CheckReport()
    add = report.problems.append
    seen: dict[str, str] = {}

    def claim(identifier: str, kind: str, file: str, line: int, name: str) -> None:
        if identifier in seen:
            add(Problem(file, line, name, f"id {identifier!r} is already used by a {seen[identifier]}"))
        else:
            seen[identifier] = kind

    doc_lines: dict[str, int] = {}
    for doc_loc in bundle.documents:
        claim(doc_loc.record.doc_id, "document", doc_loc.file, doc_loc.line, "doc_id")
        doc_lines[doc_loc.record.doc_id] = line_count(doc_loc.record.text)

    def check_span(span: LineSpan, file: str, line: int, name: str) -> None:
        if span.doc_id not in doc_lines:
            add(Problem(file, line, f"{name}.doc_id", f"unknown document {span.doc_id!r}"))
        elif span.end_line > doc_lines[span.doc_id]:
            add(
                Problem(
                    file,
                    line,
                    f"{name}.end_line",
                    f"line {span.end_line} is past the end of {span.doc_id} ({doc_lines[span.doc_id]} lines)",
                )
            )

    link_lines: dict[tuple[str, str], int] = {}
    for link_loc in bundle.doc_links:
        for name in ("src", "dst"):
            if getattr(link_loc.record, name) not in doc_lines:
                add(Problem(link_loc.file, link_loc.line, name, f"unknown document {getattr(link_loc.record, name)!r}"))
        pair = (link_loc.record.src, link_loc.record.dst)
        if pair[0] == pair[1]:
            add(Problem(link_loc.file, link_loc.line, "dst", f"a document cannot be linked to itself ({pair[0]!r})"))
        elif pair in link_lines:
            add(
                Problem(
                    link_loc.file,
                    link_loc.line,
                    "dst",
                    f"{pair[0]!r} -> {pair[1]!r} is already linked at line {link_lines[pair]}; give each pair once",
                )
            )
        else:
            link_lines[pair] = link_loc.line

    profiles: set[str] = set()
    for profile_loc in bundle.profiles:
        claim(profile_loc.record.profile_id, "profile", profile_loc.file, profile_loc.line, "profile_id")
        profiles.add(profile_loc.record.profile_id)

    fact_profile: dict[str, str] = {}
    for fact_loc in bundle.facts:
        claim(fact_loc.record.fact_id, "fact", fact_loc.file, fact_loc.line, "fact_id")
        fact_profile[fact_loc.record.fact_id] = fact_loc.record.profile_id
        if fact_loc.record.profile_id not in profiles:
            add(Problem(fact_loc.file, fact_loc.line, "profile_id", f"unknown profile {fact_loc.record.profile_id!r}"))
    for fact_loc in bundle.facts:  # a superseded fact must be another fact of the same profile
        old = fact_loc.record.supersedes
        if old is not None and (old == fact_loc.record.fact_id or fact_profile.get(old) != fact_loc.record.profile_id):
            add(
                Problem(
                    fact_loc.file,
                    fact_loc.line,
                    "supersedes",
                    f"{old!r} is not another fact of {fact_loc.record.profile_id!r}",
                )
            )

    superseded_by = {f.record.fact_id: f.record.supersedes for f in bundle.facts if f.record.supersedes}
    for fact_loc in bundle.facts:  # a chain of replacements must end: A supersedes B supersedes A is refused
        start, walk, steps = fact_loc.record.fact_id, superseded_by.get(fact_loc.record.fact_id), 0
        while walk is not None and walk != start and steps <= len(superseded_by):
            walk, steps = superseded_by.get(walk), steps + 1
        if walk == start and superseded_by.get(start) != start:
            add(Problem(fact_loc.file, fact_loc.line, "supersedes", f"{start!r} takes part in a cycle of supersedes"))

    topic_profile: dict[str, str] = {}
    for topic_loc in bundle.topics:
        claim(topic_loc.record.topic_id, "topic", topic_loc.file, topic_loc.line, "topic_id")
        topic_profile[topic_loc.record.topic_id] = topic_loc.record.profile_id
        if topic_loc.record.profile_id not in profiles:
            add(
                Problem(
                    topic_loc.file, topic_loc.line, "profile_id", f"unknown profile {topic_loc.record.profile_id!r}"
                )
            )
        for i, fid in enumerate(topic_loc.record.fact_ids):
            if fact_profile.get(fid) != topic_loc.record.profile_id:
                add(
                    Problem(
                        topic_loc.file,
                        topic_loc.line,
                        f"fact_ids.{i}",
                        f"{fid!r} is not a fact of {topic_loc.record.profile_id!r}",
                    )
                )

    turn_info: dict[str, tuple[str, str, str]] = {}  # turn -> (profile, role, session)
    disclosed: dict[str, set[str]] = defaultdict(set)  # profile -> facts disclosed
    exposed: dict[str, set[str]] = defaultdict(set)  # profile -> documents exposed
    session_count: dict[str, int] = defaultdict(int)
    for session_loc in bundle.sessions:
        session = session_loc.record
        claim(session.session_id, "session", session_loc.file, session_loc.line, "session_id")
        session_count[session.profile_id] += 1
        if session.profile_id not in profiles:
            add(Problem(session_loc.file, session_loc.line, "profile_id", f"unknown profile {session.profile_id!r}"))
        if session.topic_id is not None and topic_profile.get(session.topic_id) != session.profile_id:
            add(
                Problem(
                    session_loc.file,
                    session_loc.line,
                    "topic_id",
                    f"{session.topic_id!r} is not a topic of {session.profile_id!r}",
                )
            )
        for t_index, turn in enumerate(session.turns):
            where = f"turns.{t_index}"
            claim(turn.turn_id, "turn", session_loc.file, session_loc.line, f"{where}.turn_id")
            turn_info[turn.turn_id] = (session.profile_id, turn.role, session.session_id)
            for f_index, fid in enumerate(turn.disclosed_fact_ids):
                if fact_profile.get(fid) != session.profile_id:
                    add(
                        Problem(
                            session_loc.file,
                            session_loc.line,
                            f"{where}.disclosed_fact_ids.{f_index}",
                            f"{fid!r} is not a fact of {session.profile_id!r}",
                        )
                    )
                disclosed[session.profile_id].add(fid)
            for c_index, call in enumerate(turn.tool_calls):
                if turn.role != "assistant":
                    add(
                        Problem(
                            session_loc.file, session_loc.line, f"{where}.tool_calls", "only assistant turns call tools"
                        )
                    )
                for r_index, span in enumerate(call.returned):
                    check_span(
                        span, session_loc.file, session_loc.line, f"{where}.tool_calls.{c_index}.returned.{r_index}"
                    )
                    exposed[session.profile_id].add(span.doc_id)

    items_per_profile: dict[str, int] = defaultdict(int)
    item_ids = {i.record.item_id for i in bundle.items}
    for item_loc in bundle.items:
        item = item_loc.record
        claim(item.item_id, "item", item_loc.file, item_loc.line, "item_id")
        items_per_profile[item.profile_id] += 1
        if item.profile_id not in profiles:
            add(Problem(item_loc.file, item_loc.line, "profile_id", f"unknown profile {item.profile_id!r}"))
            continue
        for i, did in enumerate(item.support_doc_ids):
            if did not in doc_lines:
                add(Problem(item_loc.file, item_loc.line, f"support_doc_ids.{i}", f"unknown document {did!r}"))
            elif did in exposed[item.profile_id]:
                add(
                    Problem(
                        item_loc.file,
                        item_loc.line,
                        f"support_doc_ids.{i}",
                        f"{did!r} was already exposed in {item.profile_id!r}'s history; support documents "
                        "must be new to the profile",
                    )
                )
        for i, did in enumerate(item.history_doc_ids):
            if did not in doc_lines:
                add(Problem(item_loc.file, item_loc.line, f"history_doc_ids.{i}", f"unknown document {did!r}"))
            elif did not in exposed[item.profile_id]:
                add(
                    Problem(
                        item_loc.file,
                        item_loc.line,
                        f"history_doc_ids.{i}",
                        f"{did!r} was never exposed in {item.profile_id!r}'s history",
                    )
                )
        if item.augmented_from is not None and item.augmented_from.from_item_id not in item_ids:
            add(
                Problem(
                    item_loc.file,
                    item_loc.line,
                    "augmented_from.from_item_id",
                    f"unknown item {item.augmented_from.from_item_id!r}",
                )
            )
        if not item.requirements:
            add(Problem(item_loc.file, item_loc.line, "requirements", "an item needs at least one answer requirement"))
        for r_index, req in enumerate(item.requirements):
            where = f"requirements.{r_index}"
            # the id ingest will use, derived (<item_id>-r<ordinal>) when not given: a given id that equals another
            # requirement's derived one is caught here, not halfway through an ingest
            claim(
                req.requirement_id or f"{item.item_id}-r{r_index}",
                "requirement",
                item_loc.file,
                item_loc.line,
                f"{where}.requirement_id",
            )
            for i, tid in enumerate(req.turn_ids):
                info = turn_info.get(tid)
                if info is None or info[0] != item.profile_id:
                    add(
                        Problem(
                            item_loc.file,
                            item_loc.line,
                            f"{where}.turn_ids.{i}",
                            f"{tid!r} is not a turn of {item.profile_id!r}",
                        )
                    )
                elif info[1] != "user":
                    add(
                        Problem(
                            item_loc.file, item_loc.line, f"{where}.turn_ids.{i}", f"{tid!r} is not a user statement"
                        )
                    )
            for i, fid in enumerate(req.fact_ids):
                if fact_profile.get(fid) != item.profile_id:
                    add(
                        Problem(
                            item_loc.file,
                            item_loc.line,
                            f"{where}.fact_ids.{i}",
                            f"{fid!r} is not a fact of {item.profile_id!r}",
                        )
                    )
                elif fid not in disclosed[item.profile_id]:
                    add(
                        Problem(
                            item_loc.file,
                            item_loc.line,
                            f"{where}.fact_ids.{i}",
                            f"{fid!r} is never disclosed in {item.profile_id!r}'s history",
                        )
                    )
            for s_index, span in enumerate(req.spans):
                check_span(span, item_loc.file, item_loc.line, f"{where}.spans.{s_index}")
                allowed = set(item.support_doc_ids) | set(item.history_doc_ids)
                if span.doc_id in doc_lines and span.doc_id not in allowed:
                    add(
                        Problem(
                            item_loc.file,
                            item_loc.line,
                            f"{where}.spans.{s_index}.doc_id",
                            f"{span.doc_id!r} is neither a support nor a history document of the item",
                        )
                    )

    report.counts = {
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
    report.warnings = shape_warnings(bundle_shape(bundle))
    return report


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
