"""Bundle-level mutations of the fuzzing drill (bench/drill_fuzz.py): what no single-record corruption reaches.

- manifest mutations: a `files` entry that names no record file (a typo, a NUL, a folder, 5,000 characters,
  an empty name, not a string), an unknown record kind in `files`, `files` or a manifest field of the wrong
  type, a missing `name`;
- cross-record invariants: a self-link, a restated document pair with another weight, a `supersedes` cycle, an
  explicit requirement id equal to another item's derived one, two records with one id, an id with an
  invisible or bidi character;
- a duplicated archive member (the second copy of a record file under the same path);
- re-ingest conflicts: the seed bundle is ingested first, then a copy restating a record with changed content
  (a document, fact or item text, a link weight, a gate's verdict or a second verdict of the same gate, an
  augmentation, a turn's exposure lines or disclosures) must be refused by the pre-flight check with nothing
  written.

Each mutation edits the parsed seed files in place (`files`: name -> SeedFile value) and says what it did.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st

MANIFEST_ACTIONS = ("manifest_files", "manifest_field")
INVARIANT_ACTIONS = ("self_link", "restated_pair", "supersedes_cycle", "derived_id_clash", "duplicate_id",
                     "invisible_id")  # fmt: skip
REINGEST_ACTIONS = ("changed_document", "changed_fact", "changed_item", "changed_link", "changed_verdict",
                    "restated_verdict", "changed_augmentation", "changed_exposure", "changed_disclosure")  # fmt: skip
RECORD_KINDS = ("documents", "doc_links", "profiles", "facts", "topics", "sessions", "items")
INVISIBLE = ("\u200b", "\u202e", "\u2066", "\ufeff", "\u00ad", "\u200d")


def add_gates(files: dict[str, Any]) -> None:
    """The re-ingest seed: the first item verified by the History Gate, the second augmented from the first (so
    that verdicts and augmentations are in the graph before a changed copy comes)."""
    items = files["items.jsonl"]
    items[0]["verifications"] = [{"gate": "history", "verdict": "pass"}]
    items[1]["augmented_from"] = {"from_item_id": items[0]["item_id"], "direction": "recombine"}


def mutate(data: st.DataObject, files: dict[str, Any], action: str) -> str:
    """Apply one bundle-level mutation; the case detail."""
    return _MUTATIONS[action](data, files)


def _draw(data: st.DataObject, options: list[Any] | tuple[Any, ...], label: str) -> Any:
    if not options:
        raise AssertionError(f"the seed bundle has no {label} to mutate")
    return data.draw(st.sampled_from(list(options)), label=label)


# --- manifest ---------------------------------------------------------------------------------------------


def _manifest_files(data: st.DataObject, files: dict[str, Any]) -> str:
    manifest = files["bundle.json"]
    kind = _draw(data, RECORD_KINDS, "kind")
    style = _draw(data, ("typo", "nul", "folder", "long", "empty", "not_a_string", "unknown_kind", "not_object"),
                  "style")  # fmt: skip
    value: Any = {
        "typo": f"{kind[:-1]}z.jsonl",
        "nul": f"{kind}\x00.jsonl",
        "folder": _draw(data, (".", "./", "sub"), "folder"),
        "long": "x" * data.draw(st.sampled_from((300, 5_000)), label="length"),
        "empty": "",
        "not_a_string": _draw(data, (3, None, True, ["a.jsonl"], {"path": "a.jsonl"}), "value"),
    }.get(style)
    if style == "unknown_kind":
        manifest["files"] = {f"{kind}_extra": f"{kind}.jsonl"}
    elif style == "not_object":
        manifest["files"] = _draw(data, ("items.jsonl", ["items.jsonl"], 1), "files")
    else:
        manifest["files"] = {kind: value}
    return f"files {style} {kind}"


def _manifest_field(data: st.DataObject, files: dict[str, Any]) -> str:
    manifest = files["bundle.json"]
    style = _draw(data, ("drop_name", "name_type", "version_type", "attribution_type", "unknown_key"), "style")
    if style == "drop_name":
        del manifest["name"]
    elif style == "name_type":
        manifest["name"] = _draw(data, (7, ["mini"], None, {"x": 1}), "name")
    elif style == "version_type":
        manifest["version"] = _draw(data, (1, 1.5, True, ["1"]), "version")
    elif style == "attribution_type":
        manifest["attribution"] = _draw(data, ("all mine", 3, [1, 2]), "attribution")
    else:
        manifest["fuzz_" + data.draw(st.text("abcxyz", min_size=1, max_size=5), label="key")] = "x"
    return style


# --- cross-record invariants --------------------------------------------------------------------------------


def _self_link(data: st.DataObject, files: dict[str, Any]) -> str:
    link = _draw(data, files["doc_links.jsonl"], "link")
    link["dst"] = link["src"]
    return link["src"]


def _restated_pair(data: st.DataObject, files: dict[str, Any]) -> str:
    links = files["doc_links.jsonl"]
    link = _draw(data, links, "link")
    weight = data.draw(st.floats(0.01, 1.0, allow_nan=False).filter(lambda w: w != link["weight"]), label="weight")
    links.append({**link, "weight": weight})
    return f"{link['src']}->{link['dst']} weight {weight:.3f}"


def _supersedes_cycle(data: st.DataObject, files: dict[str, Any]) -> str:
    facts = files["facts.jsonl"]
    size = data.draw(st.integers(1, min(3, len(facts))), label="cycle")
    chosen = facts[:size]
    for fact, after in zip(chosen, [*chosen[1:], chosen[0]], strict=True):
        fact["supersedes"] = after["fact_id"]
    return f"cycle of {size}"


def _derived_id_clash(data: st.DataObject, files: dict[str, Any]) -> str:
    items = files["items.jsonl"]
    owner, other = data.draw(st.permutations(range(len(items))), label="items")[:2]
    index = data.draw(st.integers(0, len(items[other]["requirements"]) - 1), label="requirement")
    items[owner]["requirements"][0]["requirement_id"] = f"{items[other]['item_id']}-r{index}"
    return f"{items[owner]['item_id']} takes {items[other]['item_id']}-r{index}"


_ID_FIELDS = {"documents.jsonl": "doc_id", "facts.jsonl": "fact_id", "profiles.jsonl": "profile_id",
              "topics.jsonl": "topic_id", "sessions.jsonl": "session_id", "items.jsonl": "item_id"}  # fmt: skip


def _duplicate_id(data: st.DataObject, files: dict[str, Any]) -> str:
    name = _draw(data, sorted(_ID_FIELDS), "file")
    records = files[name]
    record = copy.deepcopy(_draw(data, records, "record"))
    text_key = next((k for k in ("text", "question", "name", "title") if isinstance(record.get(k), str)), None)
    if text_key:
        record[text_key] += " (a second copy)"
    records.append(record)
    return f"{name} {record[_ID_FIELDS[name]]}"


def _invisible_id(data: st.DataObject, files: dict[str, Any]) -> str:
    name = _draw(data, sorted(_ID_FIELDS), "file")
    record = _draw(data, files[name], "record")
    key = _ID_FIELDS[name]
    char = _draw(data, INVISIBLE, "char")
    at = data.draw(st.integers(0, len(record[key])), label="at")
    record[key] = record[key][:at] + char + record[key][at:]
    return f"{name} {key} U+{ord(char):04X}"


# --- re-ingest conflicts ------------------------------------------------------------------------------------


def _suffix(data: st.DataObject) -> str:
    return " " + data.draw(st.text("abcdefghij ", min_size=1, max_size=12).map(str.strip).filter(bool), label="s")


def _changed_text(file: str, key: str) -> Any:
    def change(data: st.DataObject, files: dict[str, Any]) -> str:
        record = _draw(data, files[file], "record")
        record[key] = record[key] + _suffix(data)
        return f"{file} {key}"

    return change


def _changed_link(data: st.DataObject, files: dict[str, Any]) -> str:
    link = _draw(data, files["doc_links.jsonl"], "link")
    if data.draw(st.booleans(), label="weight?"):
        link["weight"] = data.draw(st.floats(0.01, 1.0).filter(lambda w: w != link["weight"]), label="weight")
    else:
        link["description"] = link.get("description", "") + _suffix(data)
    return f"{link['src']}->{link['dst']}"


def _changed_verdict(data: st.DataObject, files: dict[str, Any]) -> str:
    verdict = _draw(data, ("fail", "revise", "unsure", "pass-after-revision"), "verdict")
    files["items.jsonl"][0]["verifications"][0]["verdict"] = verdict
    return verdict


def _restated_verdict(data: st.DataObject, files: dict[str, Any]) -> str:
    verdict = _draw(data, ("fail", "revise", "unsure"), "verdict")
    files["items.jsonl"][0]["verifications"].append({"gate": "history", "verdict": verdict})
    return verdict


def _changed_augmentation(data: st.DataObject, files: dict[str, Any]) -> str:
    augmented = files["items.jsonl"][1]["augmented_from"]
    if data.draw(st.booleans(), label="direction?"):
        augmented["direction"] = _draw(data, ("replace", "merge", "rephrase"), "direction")
        return augmented["direction"]
    augmented["details"] = {"note": _suffix(data).strip()}
    return "details"


def _changed_exposure(data: st.DataObject, files: dict[str, Any]) -> str:
    spans = [
        span
        for session in files["sessions.jsonl"]
        for turn in session["turns"]
        for call in turn.get("tool_calls", [])
        for span in call["returned"]
        if span["end_line"] > span["start_line"]
    ]
    span = _draw(data, spans, "span")
    span["end_line"] = data.draw(st.integers(span["start_line"], span["end_line"] - 1), label="end")
    return f"{span['doc_id']} {span['start_line']}-{span['end_line']}"


def _changed_disclosure(data: st.DataObject, files: dict[str, Any]) -> str:
    facts: dict[str, list[str]] = {}
    for fact in files["facts.jsonl"]:
        facts.setdefault(fact["profile_id"], []).append(fact["fact_id"])
    options = [
        (turn, fact)
        for session in files["sessions.jsonl"]
        for turn in session["turns"]
        if turn["role"] == "user"
        for fact in facts.get(session["profile_id"], [])
        if fact not in turn.get("disclosed_fact_ids", [])
    ]
    turn, fact = _draw(data, options, "disclosure")
    turn["disclosed_fact_ids"] = [*turn.get("disclosed_fact_ids", []), fact]
    return f"{turn['turn_id']} + {fact}"


_MUTATIONS = {
    "manifest_files": _manifest_files,
    "manifest_field": _manifest_field,
    "self_link": _self_link,
    "restated_pair": _restated_pair,
    "supersedes_cycle": _supersedes_cycle,
    "derived_id_clash": _derived_id_clash,
    "duplicate_id": _duplicate_id,
    "invisible_id": _invisible_id,
    "changed_document": _changed_text("documents.jsonl", "text"),
    "changed_fact": _changed_text("facts.jsonl", "text"),
    "changed_item": _changed_text("items.jsonl", "question"),
    "changed_link": _changed_link,
    "changed_verdict": _changed_verdict,
    "restated_verdict": _restated_verdict,
    "changed_augmentation": _changed_augmentation,
    "changed_exposure": _changed_exposure,
    "changed_disclosure": _changed_disclosure,
}
