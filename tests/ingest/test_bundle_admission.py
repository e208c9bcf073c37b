"""Items carry their admission path (issue 22, item 7; App. C.2): a bundle item's `admission` is validated,
reaches the ItemCreated metadata, and an unknown value is refused with file, line and field."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from graph.events import ItemCreated
from ingest.errors import InputError
from ingest.pipeline import load_input
from tests.conftest import MINI_BUNDLE


def _bundle_with(tmp_path: Path, admission: object) -> Path:
    folder = tmp_path / "bundle"
    shutil.copytree(MINI_BUNDLE, folder)
    items = folder / "items.jsonl"
    lines = items.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["admission"] = admission
    lines[0] = json.dumps(first)
    items.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_an_items_admission_path_reaches_its_event(tmp_path: Path) -> None:
    result = load_input(_bundle_with(tmp_path, "after_revision"))
    items = [e.event for e in result.events if isinstance(e.event, ItemCreated)]
    assert items[0].metadata["admission"] == "after_revision"
    assert all("admission" not in e.metadata for e in items[1:])


def test_an_unknown_admission_path_is_refused_with_file_line_and_field(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        load_input(_bundle_with(tmp_path, "sometimes"))
    text = str(caught.value)
    assert "items.jsonl:1" in text and "admission" in text
