"""One strict validator (issue 31, item 2): loose JSON types, bad manifests and broken cross-record invariants
are refused by `load_input` with file, line and field, before any event exists (so nothing is written)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ingest.errors import InputError
from ingest.pipeline import load_input
from tests.conftest import MINI_BUNDLE

Edit = Callable[[list[dict[str, Any]]], None]


def _bundle(
    tmp_path: Path, kind: str | None = None, edit: Edit | None = None, manifest: dict[str, Any] | None = None
) -> Path:
    folder = tmp_path / "bundle"
    shutil.copytree(MINI_BUNDLE, folder)
    if kind and edit:
        path = folder / f"{kind}.jsonl"
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        edit(records)
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    if manifest is not None:
        data = json.loads((folder / "bundle.json").read_text(encoding="utf-8"))
        data.update(manifest)
        (folder / "bundle.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def _problems(path: Path) -> str:
    with pytest.raises(InputError) as caught:
        load_input(path)
    return str(caught.value)


def _set(index: int, **values: Any) -> Edit:
    def edit(records: list[dict[str, Any]]) -> None:
        records[index].update(values)

    return edit


LOOSE = [
    ("doc_links", _set(0, weight="1.0"), "doc_links.jsonl:1", "weight"),
    ("doc_links", _set(0, weight=True), "doc_links.jsonl:1", "weight"),
    ("facts", _set(0, private="no"), "facts.jsonl:1", "private"),
]


@pytest.mark.parametrize(("kind", "edit", "where", "field"), LOOSE)
def test_a_loose_json_type_is_refused_with_file_line_and_field(
    tmp_path: Path, kind: str, edit: Edit, where: str, field: str
) -> None:
    text = _problems(_bundle(tmp_path, kind, edit))
    assert where in text and field in text


def test_a_true_for_a_line_number_is_refused(tmp_path: Path) -> None:
    def edit(records: list[dict[str, Any]]) -> None:
        records[2]["turns"][1]["tool_calls"][0]["returned"][0]["start_line"] = True

    text = _problems(_bundle(tmp_path, "sessions", edit))
    assert "sessions.jsonl:3" in text and "start_line" in text


def test_a_self_link_and_a_restated_pair_are_refused(tmp_path: Path) -> None:
    def edit(records: list[dict[str, Any]]) -> None:
        records.append({**records[0], "weight": 0.3})
        records.append({**records[1], "dst": records[1]["src"]})

    text = _problems(_bundle(tmp_path, "doc_links", edit))
    assert "doc_links.jsonl:4: dst" in text and "already linked at line 1" in text
    assert "doc_links.jsonl:5: dst" in text and "linked to itself" in text


def test_a_cycle_of_supersedes_is_refused(tmp_path: Path) -> None:
    def edit(records: list[dict[str, Any]]) -> None:
        records[0]["supersedes"], records[1]["supersedes"] = records[1]["fact_id"], records[0]["fact_id"]

    text = _problems(_bundle(tmp_path, "facts", edit))
    assert "facts.jsonl:1: supersedes" in text and "cycle" in text


def test_a_requirement_id_equal_to_another_items_derived_id_is_caught_before_ingest(tmp_path: Path) -> None:
    def edit(records: list[dict[str, Any]]) -> None:
        records[1]["requirements"][0]["requirement_id"] = f"{records[0]['item_id']}-r0"

    text = _problems(_bundle(tmp_path, "items", edit))
    assert "items.jsonl:" in text and "requirement_id" in text and "already used" in text


@pytest.mark.parametrize("char", ["\u202e", "\u200b"])
def test_ids_with_invisible_or_bidi_characters_are_refused(tmp_path: Path, char: str) -> None:
    text = _problems(_bundle(tmp_path, "facts", _set(0, fact_id=f"mini-f{char}x")))
    assert "facts.jsonl:1: fact_id" in text and "invisible" in text


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"items": "itemz.jsonl"}, "files.items"),
        ({"items": "."}, "files.items"),
        ({"itemz": "items.jsonl"}, "unknown record kind"),
        ({"items": "a\x00b.jsonl"}, "NUL"),
        ({"items": "x" * 5000}, "too long"),
    ],
)
def test_a_manifest_files_entry_that_names_no_record_file_is_refused(
    tmp_path: Path, files: dict[str, str], expected: str
) -> None:
    text = _problems(_bundle(tmp_path, manifest={"files": files}))
    assert "bundle.json" in text and expected in text


def test_kb_metadata_that_is_not_an_object_is_a_located_problem(tmp_path: Path) -> None:
    kb = tmp_path / "kb.jsonl"
    kb.write_text(
        json.dumps({"doc_id": "d1", "title": "T", "text": "alpha", "metadata": "abc"}) + "\n", encoding="utf-8"
    )
    text = _problems(kb)
    assert "kb.jsonl:1: metadata" in text and "JSON object" in text
