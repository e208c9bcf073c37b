"""Read a bundle folder or .tar.gz into validated records, collecting every located problem."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
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
from ingest.safe_archive import inside, member_display, unpacked_archive

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


def _find(root: Path, stem: str) -> Path | None:
    for name in (f"{stem}.jsonl", f"{stem}.jsonl.gz"):
        if (root / name).is_file():
            return root / name
    return None


def read_bundle(path: Path) -> Bundle:
    """Parse and validate every record; raise InputError listing every problem (nothing is written). An
    archive is unpacked (vetted, see `ingest.safe_archive`) into a temporary folder removed before returning."""
    if path.is_dir():
        return _read_root(path, lambda file: str(file))
    with unpacked_archive(path) as target:
        candidates = [p.parent for p in target.rglob("bundle.json")]
        if len(candidates) != 1:
            raise InputError([Problem(str(path), None, "bundle.json", "the archive must hold exactly one bundle.json")])
        bundle = _read_root(candidates[0], lambda file: member_display(path, file.relative_to(target).as_posix()))
        bundle.root = path
        return bundle


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a name the file system refuses (too long...) names no file
        return False


def _record_file(
    root: Path, manifest_path: str, kind: str, manifest: BundleManifest, problems: list[Problem]
) -> Path | None:
    """The file of a record kind: the manifest's override (a relative path inside the bundle) or the default."""
    if kind not in manifest.files:
        file = _find(root, kind)
    else:
        named = manifest.files[kind]
        pure = PurePosixPath(named.replace("\\", "/"))
        if not named or pure.is_absolute() or ".." in pure.parts or (len(named) > 1 and named[1] == ":"):
            problems.append(
                Problem(
                    manifest_path, None, f"files.{kind}", f"{named[:200]!r} is not a relative path inside the bundle"
                )
            )
            return None
        file = root / pure
    if file is not None and _is_file(file) and not inside(root, file):
        problems.append(
            Problem(manifest_path, None, f"files.{kind}", f"{file.name!r} leads outside the bundle (a link); refused")
        )
        return None
    return file


def _read_root(root: Path, display: Callable[[Path], str]) -> Bundle:
    problems: list[Problem] = []
    manifest_path = root / "bundle.json"
    if not manifest_path.is_file():
        raise InputError([Problem(display(root), None, "bundle.json", "missing: a bundle folder needs a manifest")])
    manifest_name = display(manifest_path)
    if not inside(root, manifest_path):
        raise InputError([Problem(manifest_name, None, "(file)", "leads outside the bundle (a link); refused")])
    raw_manifest = load_json(manifest_path, manifest_name)
    if not isinstance(raw_manifest, dict):
        raise InputError([Problem(manifest_name, None, "(record)", "expected a JSON object")])
    try:
        manifest = BundleManifest.model_validate(raw_manifest)
    except ValidationError as exc:
        raise InputError(problems_from_validation(manifest_name, None, exc)) from exc
    bundle = Bundle(root=root, manifest=manifest)
    for kind, model in RECORD_FILES.items():
        file = _record_file(root, manifest_name, kind, manifest, problems)
        if file is None or not _is_file(file):
            reported = any(p.field == f"files.{kind}" for p in problems)
            if kind in manifest.files and not reported:
                # a named file must be there: a typo would otherwise drop a whole record kind without a word
                problems.append(
                    Problem(
                        manifest_name,
                        None,
                        f"files.{kind}",
                        f"{manifest.files[kind][:200]!r} is not a file of the bundle (missing, or a folder)",
                    )
                )
            elif kind in ("profiles", "documents") and not reported:
                problems.append(Problem(display(root), None, kind, f"missing file {kind}.jsonl"))
            continue
        name = display(file)
        target: list[Located[object]] = getattr(bundle, kind)
        for number, raw in iter_jsonl(file, problems, name):
            try:
                target.append(Located(model.model_validate(raw), name, number))
            except ValidationError as exc:
                problems.extend(problems_from_validation(name, number, exc))
    if problems:
        raise InputError(problems)
    return bundle
