"""Read a bundle folder or .tar.gz into validated records, collecting every located problem."""

from __future__ import annotations

import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import ValidationError

from ingest.bundle.models import (
    RECORD_FILES,
    BundleManifest,
    DocLinkRecord,
    DocumentRecord,
    FactRecord,
    ItemRecord,
    ProfileRecord,
    SessionRecord,
    TopicRecord,
)
from ingest.errors import InputError, Problem, problems_from_validation
from ingest.jsonl import iter_jsonl, load_json

T = TypeVar("T")


@dataclass
class Located(Generic[T]):
    record: T
    file: str
    line: int


@dataclass
class Bundle:
    root: Path
    manifest: BundleManifest
    documents: list[Located[DocumentRecord]] = field(default_factory=list)
    doc_links: list[Located[DocLinkRecord]] = field(default_factory=list)
    profiles: list[Located[ProfileRecord]] = field(default_factory=list)
    facts: list[Located[FactRecord]] = field(default_factory=list)
    topics: list[Located[TopicRecord]] = field(default_factory=list)
    sessions: list[Located[SessionRecord]] = field(default_factory=list)
    items: list[Located[ItemRecord]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.manifest.name


def is_bundle(path: Path) -> bool:
    if path.is_dir():
        return (path / "bundle.json").is_file()
    return path.name.endswith((".tar.gz", ".tgz"))


def _unpack(path: Path) -> Path:
    target = Path(tempfile.mkdtemp(prefix="colabench-bundle-"))
    with tarfile.open(path, "r:gz") as archive:
        archive.extractall(target, filter="data")
    candidates = [p.parent for p in target.rglob("bundle.json")]
    if len(candidates) != 1:
        raise InputError([Problem(str(path), None, "bundle.json", "the archive must hold exactly one bundle.json")])
    return candidates[0]


def _find(root: Path, stem: str) -> Path | None:
    for name in (f"{stem}.jsonl", f"{stem}.jsonl.gz"):
        if (root / name).is_file():
            return root / name
    return None


def read_bundle(path: Path) -> Bundle:
    """Parse and validate every record; raise InputError listing every problem (nothing is written)."""
    root = path if path.is_dir() else _unpack(path)
    problems: list[Problem] = []
    manifest_path = root / "bundle.json"
    if not manifest_path.is_file():
        raise InputError([Problem(str(root), None, "bundle.json", "missing: a bundle folder needs a manifest")])
    try:
        manifest = BundleManifest.model_validate(load_json(manifest_path))
    except ValidationError as exc:
        raise InputError(problems_from_validation(str(manifest_path), None, exc)) from exc
    bundle = Bundle(root=root, manifest=manifest)
    for kind, model in RECORD_FILES.items():
        file = root / manifest.files[kind] if kind in manifest.files else _find(root, kind)
        if file is None or not file.is_file():
            if kind in ("profiles", "documents"):
                problems.append(Problem(str(root), None, kind, f"missing file {kind}.jsonl"))
            continue
        target: list[Located[object]] = getattr(bundle, kind)
        for number, raw in iter_jsonl(file, problems):
            try:
                target.append(Located(model.model_validate(raw), str(file), number))
            except ValidationError as exc:
                problems.extend(problems_from_validation(str(file), number, exc))
    if problems:
        raise InputError(problems)
    return bundle
