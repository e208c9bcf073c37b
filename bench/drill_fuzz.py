"""Fuzzing drill of every loader: hypothesis generates bad inputs, the real CLI reads them.

    python -m bench.drill_fuzz [--cases 10000] [--seed 0]

For each loader (bundle folder and .tar.gz, knowledge base, LoCoMo, LongMemEval, iKAT, `profile append`) a
valid seed input is corrupted one way (broken or truncated JSON, bytes that are not UTF-8, deep nesting,
duplicate keys, NaN, ids with control characters or 100,000 characters, over-long texts and lines, wrong
types, missing fields, bad timestamps, dangling references, archive members outside the bundle or links,
non-gzip or truncated archives and .gz files, manifests naming files outside the bundle), and bundles get
bundle-level mutations too (bench/fuzz_bundle_mutations.py: manifests, cross-record invariants, duplicated
archive members). Each input is validated in-process; one the loader refuses is then given to the CLI command
a user would run (`ingest` or `profile append`) and its exit code, its message and the event log are checked.
The `bundle_reingest` loader ingests its seed bundle first, then gives `ingest` copies that restate a record
with changed content (re-ingest conflicts): each must be refused (exit 2) by the pre-flight check with nothing
written, not even `IngestStarted`. It reports:

- tracebacks: a loader or the CLI raised anything but its typed input error (must be 0);
- events written for a rejected input: the log head moved (must be 0);
- messages lacking file:line:field: a problem line without its file, a location (line, archive member,
  or the record path of a whole-JSON file; whole-file problems such as "not gzip" name the file; a
  pre-flight conflict names `(graph)` or `(input)` and the key) and a field (must be 0);
- accepted: the corruption happened to leave a valid input (not counted as bad records).

Small limits are set for the drill (they are configurable, see ingest/limits.py) so that over-long inputs
stay cheap to generate. Progress lines are printed every 500 cases.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import re
import shutil
import sys
import tarfile
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from neo4j import Driver

from bench.fuzz_bundle_mutations import INVARIANT_ACTIONS, MANIFEST_ACTIONS, REINGEST_ACTIONS, add_gates, mutate
from graph.cypher_files import load_cypher
from ingest.errors import InputError
from ingest.limits import InputLimits, limits_in_force

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"

# Small limits keep over-long values cheap to generate (the same checks as the defaults, scaled down).
DRILL_LIMITS = InputLimits(
    max_line_bytes=20_000,
    max_text_chars=2_000,
    max_document_chars=10_000,
    max_id_chars=64,
    max_json_depth=16,
    max_archive_members=50,
    max_archive_bytes=1_000_000,
)
DEPTHS = (17, 40, 1_000, 5_000, 200_000)
BAD_ID_CHARS = ("\x00", "\n", "\r", "\t", "\x1b", "\x7f", "\x85", "\u2028")
BAD_BYTES = (b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80", b"\xf8\x88\x80\x80\x80")
# Problems about a file as a whole (not gzip, unreadable archive): they name the file and this field.
FILE_LEVEL_FIELDS = {"(archive)", "(gzip)", "(file)", "bundle.json"}
# What a pre-flight problem names instead of a file: the graph it conflicts with, or the input as a whole.
PREFLIGHT_FILES = {"(graph)", "(input)"}
_PROBLEM = re.compile(r"^(?P<file>[^:]*?)(?::(?P<line>\d+))?: (?P<field>.+?): (?P<message>.+)$")


# --- seed inputs ------------------------------------------------------------------------------------------


@dataclass
class SeedFile:
    """One file of a seed input: a JSON value (whole file) or records (JSONL)."""

    name: str
    value: Any
    jsonl: bool
    gz: bool = False


@dataclass
class Loader:
    name: str
    files: Callable[[], list[SeedFile]]
    layout: str  # "dir": the files form a folder given to the CLI; "file": the first file is given
    command: Callable[[Path], list[str]]
    id_keys: tuple[str, ...]
    required: tuple[str, ...]
    archive: bool = False
    # The seed is ingested first and every case restates it with changed content: refused by the pre-flight
    # check (after validation passed), so the CLI runs even when the in-process validation accepts the input.
    reingest: bool = False


def _read_jsonl(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _bundle_files() -> list[SeedFile]:
    root = FIXTURES / "mini_bundle"
    out = [SeedFile("bundle.json", json.loads((root / "bundle.json").read_text()), jsonl=False)]
    for path in sorted(root.glob("*.jsonl")):
        out.append(SeedFile(path.name, _read_jsonl(path), jsonl=True))
    return out


def _reingest_files() -> list[SeedFile]:
    files = _bundle_files()
    add_gates({f.name: f.value for f in files})
    return files


def _kb_files() -> list[SeedFile]:
    return [SeedFile("kb.jsonl.gz", _read_jsonl(FIXTURES / "mini_bundle" / "documents.jsonl"), jsonl=True, gz=True)]


def _locomo_files() -> list[SeedFile]:
    return [SeedFile("locomo_mini.json", json.loads((FIXTURES / "locomo" / "locomo_mini.json").read_text()), False)]


def _longmemeval_files() -> list[SeedFile]:
    value = json.loads((FIXTURES / "longmemeval" / "longmemeval_s_mini.json").read_text())
    return [SeedFile("longmemeval_s_mini.json.gz", value, jsonl=False, gz=True)]


def _ikat_files() -> list[SeedFile]:
    root = FIXTURES / "ikat"
    return [
        SeedFile("2023_test_topics.json", json.loads((root / "2023_test_topics.json").read_text()), False),
        SeedFile("2023_test_topics_psg_text.jsonl", _read_jsonl(root / "2023_test_topics_psg_text.jsonl"), True),
    ]


def _append_files() -> list[SeedFile]:
    records = [
        {
            "profile_id": "mini-p-sam",
            "session_id": "fuzz-session-1",
            "started_at": "2025-06-02T18:00:00Z",
            "turns": [
                {"turn_id": "fuzz-t-1", "role": "user", "text": "My knee hurts after running.", "at": None},
                {"role": "assistant", "text": "Rest it for a few days and see whether the pain eases."},
            ],
        },
        {"session_id": "fuzz-session-1", "turns": [{"turn_id": "fuzz-t-3", "role": "user", "text": "Thanks."}]},
    ]
    return [SeedFile("append.jsonl", records, jsonl=True)]


def _copy_extra(target: Path) -> None:
    for name in ("ptkb_rel_nist", "ptkb_rel_org"):
        shutil.copy(FIXTURES / "ikat" / name, target / name)


LOADERS: dict[str, Loader] = {
    "bundle": Loader(
        "bundle", _bundle_files, "dir", lambda p: ["ingest", str(p), "--format", "bundle"],
        ("doc_id", "profile_id", "fact_id", "topic_id", "session_id", "turn_id", "item_id", "src", "dst"),
        ("doc_id", "profile_id", "fact_id", "text", "turns", "question", "role", "session_id", "item_id"),
    ),
    "bundle.tar.gz": Loader(
        "bundle.tar.gz", _bundle_files, "dir", lambda p: ["ingest", str(p), "--format", "bundle"],
        ("doc_id", "profile_id", "fact_id", "session_id", "turn_id", "item_id"),
        ("doc_id", "profile_id", "text", "turns"),
        archive=True,
    ),
    "bundle_reingest": Loader(
        "bundle_reingest", _reingest_files, "dir", lambda p: ["ingest", str(p), "--format", "bundle"],
        (), (), reingest=True,
    ),
    "kb": Loader(
        "kb", _kb_files, "file", lambda p: ["ingest", str(p), "--format", "kb"], ("doc_id",), ("doc_id", "text")
    ),
    "locomo": Loader(
        "locomo", _locomo_files, "file", lambda p: ["ingest", str(p), "--format", "locomo"],
        ("sample_id", "dia_id"), ("sample_id", "conversation", "qa", "speaker", "dia_id", "text"),
    ),
    "longmemeval": Loader(
        "longmemeval", _longmemeval_files, "file", lambda p: ["ingest", str(p), "--format", "longmemeval"],
        ("question_id", "haystack_session_ids", "answer_session_ids"),
        ("question_id", "question", "haystack_sessions", "haystack_session_ids", "content", "role"),
    ),
    "ikat": Loader(
        "ikat", _ikat_files, "dir", lambda p: ["ingest", str(p), "--format", "ikat"], ("number", "doc_id"),
        ("number", "turns", "doc_id", "passage_text"),
    ),
    "profile_append": Loader(
        "profile_append", _append_files, "file", lambda p: ["profile", "append", str(p)],
        ("profile_id", "session_id", "turn_id"), ("session_id", "turns", "role", "text"),
    ),
}  # fmt: skip


# --- corruptions ------------------------------------------------------------------------------------------

TEXT_ACTIONS = ("truncate", "bad_bytes", "garbage", "deep_nesting", "duplicate_key", "long_line")
VALUE_ACTIONS = ("bad_id", "long_text", "non_finite", "wrong_type", "drop_required", "unknown_field")
BUNDLE_ACTIONS = ("bad_timestamp", "dangling_ref")
ARCHIVE_ACTIONS = ("member_traversal", "member_absolute", "member_symlink", "member_hardlink", "archive_not_gzip",
                   "archive_truncated", "manifest_escape", "duplicate_member")  # fmt: skip
BUNDLE_LEVEL_ACTIONS = (*MANIFEST_ACTIONS, *INVARIANT_ACTIONS, *REINGEST_ACTIONS)
GZ_ACTIONS = ("gzip_truncated", "gzip_not_gzip")


def _actions(loader: Loader) -> list[str]:
    if loader.reingest:
        return list(REINGEST_ACTIONS)
    actions = [*TEXT_ACTIONS, *VALUE_ACTIONS]
    if loader.name.startswith("bundle"):
        actions += [*BUNDLE_ACTIONS, "manifest_escape", *MANIFEST_ACTIONS, *INVARIANT_ACTIONS]
    if loader.archive:
        actions += list(ARCHIVE_ACTIONS)
    if any(f.gz for f in loader.files()):
        actions += list(GZ_ACTIONS)
    return actions


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, value) inside a JSON value, containers included."""
    yield prefix, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, (*prefix, index))


def _set(root: Any, path: tuple[Any, ...], new: Any) -> None:
    node = root
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = new


def _wrong_type(value: Any, pick: int) -> Any:
    if isinstance(value, str):
        return [12, {"x": 1}, ["a"], True][pick % 4]
    if isinstance(value, bool | int | float):
        return [{"x": 1}, ["a", 2], "not a number"][pick % 3]
    if isinstance(value, list):
        return ["text", 5, {"x": [1]}][pick % 3]
    if isinstance(value, dict):
        return ["text", 7, [1, 2]][pick % 3]
    return [[1], {"y": 2}][pick % 2]


MARK = "@@FUZZMARK@@"


def _pick(data: st.DataObject, items: list[Any], label: str) -> Any:
    """One of `items` (the seeds always offer at least one candidate of each kind the drill draws)."""
    if not items:
        raise AssertionError(f"the seed input has no {label} to corrupt")
    return data.draw(st.sampled_from(items), label=label)


@dataclass
class Case:
    loader: str
    action: str
    detail: str = ""


@dataclass
class Outcome:
    case: Case
    kind: str  # rejected | accepted | traceback
    written: int = 0
    unlocated: list[str] = field(default_factory=list)
    message: str = ""


def _serialise(seed: SeedFile) -> list[str]:
    """Text lines of a seed file (one per record for JSONL, a pretty-printed document otherwise)."""
    if seed.jsonl:
        return [json.dumps(record, ensure_ascii=False) for record in seed.value]
    return json.dumps(seed.value, ensure_ascii=False, indent=1).split("\n")


def build_case(data: st.DataObject, loader: Loader, target: Path) -> tuple[Case, Path]:
    """Draw one corruption, write the corrupted input under `target`; the path the CLI is given."""
    files = loader.files()
    action = data.draw(st.sampled_from(_actions(loader)), label="action")
    case = Case(loader.name, action)
    limits = DRILL_LIMITS
    index = data.draw(st.integers(0, len(files) - 1), label="file")
    seed = files[index]
    texts: dict[str, bytes] = {}

    if action in BUNDLE_LEVEL_ACTIONS:
        case.detail = mutate(data, {f.name: f.value for f in files}, action)
    if action in VALUE_ACTIONS or action in BUNDLE_ACTIONS:
        value = seed.value
        leaves = [(p, v) for p, v in _paths(value) if p]
        if action == "bad_id":
            ids = [(p, v) for p, v in leaves if p[-1] in loader.id_keys or (len(p) > 1 and p[-2] in loader.id_keys)]
            ids = [(p, v) for p, v in ids if isinstance(v, str)] or [
                (p, v) for p, v in leaves if p[-1] in loader.id_keys
            ]
            if not ids:
                action = case.action = "wrong_type"
            else:
                path, old = data.draw(st.sampled_from(ids), label="id")
                style = data.draw(st.sampled_from(("control", "long", "empty", "space")), label="style")
                base = str(old) if isinstance(old, str) and old else "id"
                if style == "control":
                    char = data.draw(st.sampled_from(BAD_ID_CHARS), label="char")
                    at = data.draw(st.integers(0, len(base)), label="at")
                    bad = base[:at] + char + base[at:]
                elif style == "long":
                    bad = base + "x" * data.draw(st.sampled_from((limits.max_id_chars + 1, 1_000, 100_000)))
                elif style == "empty":
                    bad = ""
                else:
                    bad = " " + base
                _set(value, path, bad)
                case.detail = f"{style} at {'.'.join(map(str, path))}"
        if action == "long_text":
            strings = [(p, v) for p, v in leaves if isinstance(v, str)]
            path, _ = _pick(data, strings, "text")
            cap = limits.max_document_chars if seed.jsonl else limits.max_text_chars
            size = data.draw(st.integers(cap + 1, cap * 3), label="size")
            _set(value, path, "lorem " * (size // 6 + 1))
            case.detail = f"{size} chars at {'.'.join(map(str, path))}"
        elif action == "non_finite":
            path, _ = _pick(data, leaves, "leaf")
            _set(value, path, MARK + data.draw(st.sampled_from(("NaN", "Infinity", "-Infinity"))) + MARK)
            case.detail = ".".join(map(str, path))
        elif action == "wrong_type":
            typed = [(p, v) for p, v in leaves if isinstance(p[-1], str) and p[-1] in loader.required]
            path, old = _pick(data, typed or leaves, "leaf")
            _set(value, path, _wrong_type(old, data.draw(st.integers(0, 11))))
            case.detail = ".".join(map(str, path))
        elif action == "drop_required":
            owners = [(p, v) for p, v in _paths(value) if isinstance(v, dict) and set(v) & set(loader.required)]
            if owners:
                path, owner = data.draw(st.sampled_from(owners), label="owner")
                key = data.draw(st.sampled_from(sorted(set(owner) & set(loader.required))), label="key")
                del owner[key]
                case.detail = ".".join(map(str, (*path, key)))
        elif action == "unknown_field":
            owners = [(p, v) for p, v in _paths(value) if isinstance(v, dict)]
            path, owner = _pick(data, owners, "owner")
            owner["fuzz_unknown_" + data.draw(st.text("abcxyz", min_size=1, max_size=6))] = 1
            case.detail = ".".join(map(str, path))
        elif action == "bad_timestamp":
            stamps = [(p, v) for p, v in leaves if p[-1] in ("at", "started_at", "asked_at") and isinstance(v, str)]
            if stamps:
                path, _ = data.draw(st.sampled_from(stamps), label="stamp")
                _set(
                    value,
                    path,
                    data.draw(st.sampled_from(("yesterday", "2025-13-45", "12/31/2024", "2025-01-01T25:00"))),
                )
                case.detail = ".".join(map(str, path))
        elif action == "dangling_ref":
            refs = [
                (p, v) for p, v in leaves if p[-1] in ("profile_id", "src", "dst", "topic_id") and isinstance(v, str)
            ]
            if refs:
                path, _ = data.draw(st.sampled_from(refs), label="ref")
                _set(value, path, "missing-" + data.draw(st.text("abcdef0123", min_size=1, max_size=8)))
                case.detail = ".".join(map(str, path))

    for other in files:
        texts[other.name] = "\n".join(_serialise(other)).replace(f'"{MARK}', "").replace(f'{MARK}"', "").encode() + (
            b"\n" if other.jsonl else b""
        )

    raw = texts[seed.name]
    if action in TEXT_ACTIONS:
        rows = raw.split(b"\n")
        row = data.draw(st.integers(0, max(len([x for x in rows if x]) - 1, 0)), label="line") if seed.jsonl else -1
        if action == "truncate":
            if seed.jsonl:
                line = rows[row]
                rows[row] = line[: data.draw(st.integers(1, max(len(line) - 2, 1)))]
                raw = b"\n".join(rows)
            else:
                raw = raw[: data.draw(st.integers(1, len(raw) - 2))]
        elif action == "bad_bytes":
            at = data.draw(st.integers(0, len(raw) - 1), label="at")
            raw = raw[:at] + data.draw(st.sampled_from(BAD_BYTES)) + raw[at:]
        elif action == "garbage":
            junk = data.draw(st.sampled_from(("}", "{", ",", "]]", '"', ":", "nul", "tru", "\\", "'x'")))
            at = data.draw(st.integers(0, len(raw) - 1), label="at")
            raw = raw[:at] + junk.encode() + raw[at:]
        elif action == "deep_nesting":
            depth = data.draw(st.sampled_from(DEPTHS), label="depth")
            nested = ("[" * depth + "]" * depth).encode()
            if seed.jsonl:
                line = rows[row]
                cut = line.rfind(b"}")
                rows[row] = line[:cut] + b', "deep": ' + nested + line[cut:]
                raw = b"\n".join(rows)
            else:
                cut = raw.rfind(b"]")
                raw = raw[:cut] + b", " + nested + raw[cut:]
            case.detail = f"depth {depth}"
        elif action == "duplicate_key":
            text = raw.decode()
            keys = sorted(set(re.findall(r'"([A-Za-z_]+)": ', text)))
            key = data.draw(st.sampled_from(keys), label="key")
            spot = text.index(f'"{key}": ')
            text = text[:spot] + f'"{key}": "dup", ' + text[spot:]
            raw = text.encode()
            case.detail = key
        elif action == "long_line":
            if seed.jsonl:
                line = rows[row]
                cut = line.rfind(b"}")
                pad = b"x" * (limits.max_line_bytes + data.draw(st.integers(1, 5_000)))
                rows[row] = line[:cut] + b', "pad": "' + pad + b'"' + line[cut:]
                raw = b"\n".join(rows)
            else:
                cut = raw.rfind(b"]")
                raw = raw[:cut] + b', "' + b"y" * (limits.max_text_chars * 2) + b'"' + raw[cut:]
    texts[seed.name] = raw

    folder = target / "input"
    folder.mkdir()
    for other in files:
        data_bytes = texts[other.name]
        if other.gz:
            data_bytes = gzip.compress(data_bytes, mtime=0)
        (folder / other.name).write_bytes(data_bytes)
    if loader.name == "ikat":
        _copy_extra(folder)

    if action in GZ_ACTIONS:
        gz = next(f for f in files if f.gz)
        path = folder / gz.name
        if action == "gzip_truncated":
            blob = path.read_bytes()
            path.write_bytes(blob[: max(2, (len(blob) - 9) * data.draw(st.integers(1, 99), label="cut") // 100)])
        else:
            path.write_bytes(texts[gz.name])
    if action == "manifest_escape":
        manifest = json.loads((folder / "bundle.json").read_text())
        kind = data.draw(st.sampled_from(("documents", "profiles", "facts", "sessions")), label="kind")
        escape = data.draw(st.sampled_from(("../../../../etc/passwd", "/etc/passwd", "..\\..\\secret", "sub/../../x")))
        manifest.setdefault("files", {})[kind] = escape
        (folder / "bundle.json").write_text(json.dumps(manifest))
        case.detail = f"files.{kind} = {escape}"

    given_path = folder / files[0].name if loader.layout == "file" else folder
    if loader.archive:
        given_path = _archive(data, folder, target, action, case)
    return case, given_path


def _archive(data: st.DataObject, folder: Path, target: Path, action: str, case: Case) -> Path:
    archive = target / "bundle.tar.gz"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(folder, arcname="bundle")
        if action in ("member_traversal", "member_absolute", "member_symlink", "member_hardlink"):
            info = tarfile.TarInfo(
                {
                    "member_traversal": data.draw(st.sampled_from(("../evil.jsonl", "bundle/../../evil", "a/../../b"))),
                    "member_absolute": data.draw(st.sampled_from(("/tmp/colabench-evil", "/etc/cron.d/x"))),
                    "member_symlink": "bundle/facts.jsonl",
                    "member_hardlink": "bundle/topics.jsonl",
                }[action]
            )
            payload = b'{"x": 1}\n'
            if action == "member_symlink":
                info.type = tarfile.SYMTYPE
                info.linkname = data.draw(st.sampled_from(("/etc/passwd", "../../../etc/shadow")))
                tar.addfile(info)
            elif action == "member_hardlink":
                info.type = tarfile.LNKTYPE
                info.linkname = "bundle/documents.jsonl"
                tar.addfile(info)
            else:
                info.size = len(payload)
                tar.addfile(info, io.BytesIO(payload))
            case.detail = f"{info.name} -> {info.linkname}" if info.linkname else info.name
        if action == "duplicate_member":
            name = data.draw(st.sampled_from(sorted(p.name for p in folder.glob("*.jsonl"))), label="member")
            spelled = data.draw(st.sampled_from((f"bundle/{name}", f"./bundle/{name}", f"bundle//{name}")))
            payload = (folder / name).read_bytes()
            payload = payload[: data.draw(st.integers(0, len(payload)), label="cut")]
            info = tarfile.TarInfo(spelled)
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))
            case.detail = spelled
    blob = buffer.getvalue()
    if action == "archive_not_gzip":
        archive.write_bytes(blob if data.draw(st.booleans()) else b"PK\x03\x04 not a tarball")
    elif action == "archive_truncated":
        packed = gzip.compress(blob, mtime=0)
        archive.write_bytes(packed[: max(10, len(packed) * data.draw(st.integers(1, 95), label="cut") // 100)])
    else:
        archive.write_bytes(gzip.compress(blob, mtime=0))
    return archive


# --- running a case ---------------------------------------------------------------------------------------


def _event_count(driver: Driver) -> int:
    with driver.session() as session:
        record = session.run(load_cypher("log/read_head"), genesis="").single()
    return int(record["seq"]) if record else 0


def _validate(loader: Loader, path: Path) -> None:
    """What the CLI runs before writing anything (raises InputError when the input is refused)."""
    if loader.name == "profile_append":
        from api.growth.file_format import read_append_file

        read_append_file(path)
    else:
        from ingest.pipeline import load_input

        load_input(path, "bundle" if loader.name.startswith("bundle") else loader.name)


def unlocated_lines(output: str, root: Path) -> list[str]:
    """Problem lines of a rejection message that lack file, location or field."""
    lines = output.split("\n")
    try:
        start = next(i for i, line in enumerate(lines) if "problem(s)" in line) + 1
    except StopIteration:
        return [output.strip()[:300] or "(no message)"]
    bad = []
    for line in lines[start:]:
        if not line.strip() or line.startswith("... and "):
            continue
        match = _PROBLEM.match(line)
        if match is not None and match["file"] in PREFLIGHT_FILES and match["field"].strip():
            continue  # a pre-flight conflict: located by the key it names
        if match is None or not match["file"].startswith(str(root)):
            bad.append(line[:300])
            continue
        file, number, where = match["file"], match["line"], match["field"]
        whole_json = file.endswith((".json", ".json.gz"))
        located = bool(number) or "!" in file or where in FILE_LEVEL_FIELDS or (whole_json and bool(where))
        if not located:
            bad.append(line[:300])
    return bad


@cache
def _cli() -> Any:
    """The CLI's click command, built once (typer's test runner rebuilds it on every invocation)."""
    import typer

    from cli import app

    return typer.main.get_command(app)


@dataclass
class CliResult:
    exit_code: int
    output: str
    exception: BaseException | None


def invoke_cli(args: list[str]) -> CliResult:
    """Run the CLI in-process as a user's shell would (exit code, stdout and stderr together)."""
    captured = io.StringIO()
    code: int = 0
    error: BaseException | None = None
    with redirect_stdout(captured), redirect_stderr(captured):
        try:
            returned = _cli().main(args=args, prog_name="colabench", standalone_mode=False)
            code = returned if isinstance(returned, int) else 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException as exc:  # what the drill counts as a traceback
            error, code = exc, 1
    return CliResult(code, captured.getvalue(), error)


def run_case(loader: Loader, case: Case, path: Path, root: Path, driver: Driver | None) -> Outcome:
    try:
        _validate(loader, path)
    except InputError:
        pass
    except BaseException:  # anything but the typed input error is what the drill counts
        return Outcome(case, "traceback", message=traceback.format_exc(limit=6))
    else:
        if not loader.reingest:
            return Outcome(case, "accepted")
    before = _event_count(driver) if driver is not None else 0
    result = invoke_cli(loader.command(path))
    written = (_event_count(driver) - before) if driver is not None else 0
    output = result.output
    if result.exception is not None or "Traceback" in output:
        trace = "".join(traceback.format_exception(result.exception)) if result.exception else output
        return Outcome(case, "traceback", written, message=trace[-2000:])
    unlocated = unlocated_lines(output, root)
    return Outcome(case, "rejected" if result.exit_code == 2 else f"exit {result.exit_code}", written, unlocated,
                   output[-600:])  # fmt: skip


# --- the drill --------------------------------------------------------------------------------------------


@dataclass
class DrillReport:
    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, kind: str) -> int:
        return sum(o.kind == kind for o in self.outcomes)

    @property
    def bad_records(self) -> int:
        return sum(o.kind != "accepted" for o in self.outcomes)

    @property
    def tracebacks(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.kind == "traceback"]

    @property
    def written(self) -> int:
        return sum(o.written for o in self.outcomes if o.kind != "accepted")

    @property
    def unlocated(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.unlocated]

    @property
    def other_exits(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.kind.startswith("exit")]

    def summary(self) -> str:
        per: Counter[str] = Counter(o.case.loader for o in self.outcomes if o.kind != "accepted")
        actions: Counter[str] = Counter(o.case.action for o in self.outcomes if o.kind != "accepted")
        return "\n".join(
            [
                f"generated inputs: {len(self.outcomes):,} in {self.seconds:.0f} s "
                f"({len(self.outcomes) / max(self.seconds, 1e-9):.0f}/s)",
                f"bad inputs (refused): {self.bad_records:,}; accepted (corruption left a valid input): "
                f"{self.count('accepted'):,}",
                f"tracebacks: {len(self.tracebacks)}",
                f"events written for a rejected input: {self.written}",
                f"messages lacking file:line:field: {len(self.unlocated)}",
                f"other exit codes than 2: {len(self.other_exits)}",
                "per loader: " + ", ".join(f"{k} {v}" for k, v in sorted(per.items())),
                "per corruption: " + ", ".join(f"{k} {v}" for k, v in sorted(actions.items())),
            ]
        )


@contextmanager
def _quiet_env() -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in ("COLUMNS", "TERM")}
    os.environ["COLUMNS"] = "1000"  # one problem per line in the captured message
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run_drill(
    cases: int, driver: Driver | None, seed: int = 0, loaders: list[str] | None = None, progress: bool = True
) -> DrillReport:
    """Generate corrupted inputs until about `cases` of them were refused, spread evenly over the loaders, and
    run each (see the module doc); inputs a corruption left valid are counted apart."""
    names = loaders or list(LOADERS)
    report = DrillReport()
    started = time.perf_counter()
    per_loader = max(1, -(-cases // len(names)))  # rounded up: at least `cases` in all
    with limits_in_force(DRILL_LIMITS), _quiet_env(), tempfile.TemporaryDirectory(prefix="colabench-fuzz-") as tmp:
        counter = [0]

        def record(data: st.DataObject, loader: Loader) -> None:
            counter[0] += 1
            target = Path(tmp) / f"case-{counter[0]}"
            target.mkdir()
            try:
                case, path = build_case(data, loader, target)
                report.outcomes.append(run_case(loader, case, path, target, driver))
            finally:
                shutil.rmtree(target, ignore_errors=True)
            if progress and len(report.outcomes) % 500 == 0:
                elapsed = time.perf_counter() - started
                print(
                    f"[fuzz] {len(report.outcomes):,}/{cases:,} inputs, {elapsed:.0f} s, tracebacks "
                    f"{len(report.tracebacks)}, unlocated {len(report.unlocated)}",
                    flush=True,
                )

        for name in names:
            loader = LOADERS[name]
            if loader.reingest:
                if driver is None:
                    continue  # re-ingest conflicts need the graph the seed was ingested into
                ingest_seed(loader, Path(tmp) / f"seed-{name}")

            def refused(name: str = name) -> int:
                return sum(o.case.loader == name and o.kind != "accepted" for o in report.outcomes)

            # Until the loader has its share of bad (refused) inputs: a corruption may leave an input valid, and
            # hypothesis may stop a run early (it deduplicates inputs).
            for attempt in range(20):
                wanted = per_loader - refused()
                if wanted <= 0:
                    break
                _hypothesis_run(record, loader, wanted, seed + attempt)()
    report.seconds = time.perf_counter() - started
    return report


def ingest_seed(loader: Loader, folder: Path) -> None:
    """Ingest a loader's seed input with the CLI (the graph its re-ingest cases conflict with)."""
    folder.mkdir()
    for seed in loader.files():
        (folder / seed.name).write_text("\n".join(_serialise(seed)) + "\n", encoding="utf-8")
    result = invoke_cli(loader.command(folder))
    if result.exit_code != 0 or result.exception is not None:
        raise RuntimeError(f"the {loader.name} seed did not ingest (exit {result.exit_code}): {result.output[-2000:]}")


def _hypothesis_run(
    record: Callable[[st.DataObject, Loader], None], loader: Loader, examples: int, seed: int
) -> Callable[[], None]:
    """A hypothesis-driven function that records `examples` generated cases of `loader` when called."""
    from hypothesis import seed as hypothesis_seed

    @hypothesis_seed(seed)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def generated(data: st.DataObject) -> None:
        record(data, loader)

    return generated


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--cases", type=int, default=10_000, help="bad (refused) inputs to generate, spread over the loaders"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--loader", action="append", choices=sorted(LOADERS), help="only these loaders")
    parser.add_argument("--show", type=int, default=3, help="failures of each kind to print")
    args = parser.parse_args(argv)
    from bench.neo4j_for_bench import bench_neo4j_server

    print(f"[fuzz] starting a throwaway Neo4j; {args.cases:,} inputs over {len(args.loader or LOADERS)} loaders")
    with bench_neo4j_server(heap="1g", pagecache_mib=128) as (neo4j, driver, _pid):
        # The in-process CLI (re-ingest cases reach the graph) uses this server.
        os.environ["NEO4J_URI"] = neo4j.effective_uri
        report = run_drill(args.cases, driver, args.seed, args.loader)
    print(report.summary())
    written = [o for o in report.outcomes if o.written and o.kind != "accepted"]
    for title, items in (("traceback", report.tracebacks), ("unlocated", report.unlocated),
                         ("other exit", report.other_exits), ("written", written)):  # fmt: skip
        for outcome in items[: args.show]:
            print(f"--- {title}: {outcome.case} ({outcome.written} events)\n{outcome.message or outcome.unlocated}")
    failed = report.tracebacks or report.written or report.unlocated
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
