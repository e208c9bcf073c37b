"""Input hardening of every loader: limits, strict JSON, safe archives, located errors (issue 11, items 4-6).

These tests need no Neo4j: a refused input never reaches the store (tests/ingest/test_fuzz_loaders.py checks that
against the real database)."""

from __future__ import annotations

import gzip
import io
import json
import shutil
import tarfile
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ingest.errors import InputError
from ingest.limits import InputLimits, limits_in_force
from ingest.pipeline import load_input
from ingest.safe_archive import TEMP_PREFIX
from tests.paths import REPO

MINI = REPO / "tests" / "fixtures" / "mini_bundle"


def _problems(path: Path, fmt: str) -> str:
    with pytest.raises(InputError) as caught:
        load_input(path, fmt)
    return str(caught.value)


def _kb(tmp_path: Path, *lines: str | bytes, name: str = "kb.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(b"\n".join(x if isinstance(x, bytes) else x.encode() for x in lines) + b"\n")
    return path


GOOD = json.dumps({"doc_id": "d1", "title": "T", "text": "one line"})


def _bundle_copy(tmp_path: Path) -> Path:
    target = tmp_path / "bundle"
    shutil.copytree(MINI, target)
    return target


def _rewrite(path: Path, line: int, change: dict[str, object]) -> None:
    rows = path.read_text().splitlines()
    record = json.loads(rows[line - 1])
    record.update(change)
    rows[line - 1] = json.dumps(record)
    path.write_text("\n".join(rows) + "\n")


def test_200000_deep_nesting_is_refused_at_file_line_without_recursion_error(tmp_path: Path) -> None:
    deep = '{"doc_id": "d2", "title": "T", "text": "x", "metadata": {"a": ' + "[" * 200_000 + "]" * 200_000 + "}}"
    message = _problems(_kb(tmp_path, GOOD, deep), "kb")
    assert "kb.jsonl:2: (json): arrays or objects are nested too deeply" in message


def test_nesting_over_the_configured_depth_names_the_field(tmp_path: Path) -> None:
    nested = '{"doc_id": "d2", "title": "T", "text": "x", "metadata": {"a": ' + "[" * 20 + "]" * 20 + "}}"
    assert load_input(_kb(tmp_path, nested), "kb").events
    with limits_in_force(InputLimits(max_json_depth=10)):
        message = _problems(_kb(tmp_path, nested), "kb")
    assert "kb.jsonl:1: metadata.a.0.0.0.0.0.0.0.0: nested more than 10 levels deep" in message


def test_duplicate_keys_are_refused_naming_the_key(tmp_path: Path) -> None:
    line = '{"doc_id": "d1", "title": "T", "text": "first", "text": "second"}'
    message = _problems(_kb(tmp_path, line), "kb")
    assert "kb.jsonl:1: text: duplicate key" in message


@pytest.mark.parametrize(
    ("bad_id", "expected"),
    [
        ("mini\x00p", "control character"),
        ("mini\np", "control character"),
        ("x" * 100_000, "longer than the limit of 256"),
        (" padded", "white space"),
    ],
)
def test_bad_ids_are_refused_in_bundles_with_file_line_and_field(tmp_path: Path, bad_id: str, expected: str) -> None:
    bundle = _bundle_copy(tmp_path)
    _rewrite(bundle / "facts.jsonl", 1, {"fact_id": bad_id})
    message = _problems(bundle, "bundle")
    assert "facts.jsonl:1: fact_id: " in message and expected in message


def test_a_fact_over_the_text_limit_is_refused_and_the_limit_is_configurable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = _bundle_copy(tmp_path)
    _rewrite(bundle / "facts.jsonl", 2, {"text": "a" * 150_000})
    assert "facts.jsonl:2: text: a text of 150,000 characters is longer than the limit of 100,000" in _problems(
        bundle, "bundle"
    )
    monkeypatch.setenv("COLABENCH_MAX_TEXT_CHARS", "200000")
    with limits_in_force(InputLimits()):
        assert load_input(bundle, "bundle").events


def test_a_line_over_max_line_bytes_is_refused_and_reading_goes_on(tmp_path: Path) -> None:
    long_line = json.dumps({"doc_id": "d2", "title": "T", "text": "y" * 50_000})
    with limits_in_force(InputLimits(max_line_bytes=10_000)):
        message = _problems(_kb(tmp_path, GOOD, long_line, '{"doc_id": "d3", "title": 5, "text": "z"}'), "kb")
    assert "kb.jsonl:2: (line): longer than 10,000 bytes" in message
    assert "kb.jsonl:3: title:" in message


def test_non_utf8_bytes_name_file_line_and_position(tmp_path: Path) -> None:
    message = _problems(_kb(tmp_path, GOOD, b'{"doc_id": "d2", "title": "caf\xe9", "text": "x"}'), "kb")
    assert "kb.jsonl:2: (encoding): not UTF-8: byte 0xe9 at byte 31 of the line" in message


def test_a_truncated_jsonl_gz_names_the_line_and_the_cli_does_not_just_say_aborted(tmp_path: Path) -> None:
    from cli import app

    lines = [json.dumps({"doc_id": f"d{i}", "title": "T", "text": "some text " * 20}) for i in range(200)]
    packed = gzip.compress(("\n".join(lines) + "\n").encode())
    path = tmp_path / "kb.jsonl.gz"
    path.write_bytes(packed[: len(packed) // 2])
    message = _problems(path, "kb")
    assert "kb.jsonl.gz:" in message and "(gzip): the gzip stream ends early (the file is truncated)" in message
    result = CliRunner().invoke(app, ["ingest", str(path), "--format", "kb"])
    assert result.exit_code == 2 and "Aborted" not in result.output and "truncated" in result.output


def test_a_json_syntax_error_names_line_and_column_once(tmp_path: Path) -> None:
    path = tmp_path / "longmemeval_s_x.json"
    path.write_text('[\n  {"question_id": "q1",\n   "question": }\n]')
    message = _problems(path, "longmemeval")
    assert "longmemeval_s_x.json:3: (json): not valid JSON: Expecting value at column 16" in message
    path.write_text('[\n  {"question_id": "q1",\n   "question": "cut off')
    message = _problems(path, "longmemeval")
    assert "longmemeval_s_x.json:3: (json): not valid JSON: Unterminated string starting at column 16" in message
    assert "at at" not in message


def test_cli_prints_problem_lines_verbatim_without_emoji_or_markup(tmp_path: Path) -> None:
    from cli import app

    path = tmp_path / "longmemeval_s_x.json"
    path.write_text("[" + "\n" * 99 + '{"question_id": "q1", "question": "x" "y"}]')
    result = CliRunner().invoke(app, ["ingest", str(path), "--format", "longmemeval"])
    assert result.exit_code == 2
    assert "longmemeval_s_x.json:100: (json): not valid JSON: Expecting ',' delimiter" in result.output


def _tar(tmp_path: Path, extra: tarfile.TarInfo | None = None, payload: bytes = b"") -> Path:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(MINI, arcname="mini")
        if extra is not None:
            tar.addfile(extra, io.BytesIO(payload) if payload else None)
    path = tmp_path / "mini.tar.gz"
    path.write_bytes(buffer.getvalue())
    return path


def _temp_folders() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob(f"{TEMP_PREFIX}*")}


def test_a_clean_archive_ingests_and_leaves_no_temporary_folder(tmp_path: Path) -> None:
    before = _temp_folders()
    assert len(load_input(_tar(tmp_path), "bundle").events) == len(load_input(MINI, "bundle").events)
    assert _temp_folders() == before


@pytest.mark.parametrize(
    ("name", "kind", "link", "expected"),
    [
        ("../evil.jsonl", tarfile.REGTYPE, "", "a path with `..`"),
        ("/tmp/colabench-evil", tarfile.REGTYPE, "", "an absolute path"),
        ("mini/facts2.jsonl", tarfile.SYMTYPE, "/etc/passwd", "a symbolic link (to '/etc/passwd'); links are refused"),
        ("mini/topics2.jsonl", tarfile.LNKTYPE, "mini/facts.jsonl", "a hard link"),
    ],
)
def test_archive_members_outside_the_bundle_or_links_are_refused_and_the_temp_folder_is_removed(
    tmp_path: Path, name: str, kind: bytes, link: str, expected: str
) -> None:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    payload = b'{"x": 1}\n' if kind == tarfile.REGTYPE else b""
    info.size = len(payload)
    before = _temp_folders()
    message = _problems(_tar(tmp_path, info, payload), "bundle")
    assert f"mini.tar.gz!{name}: (member): {expected}" in message
    assert _temp_folders() == before
    assert not Path("/tmp/colabench-evil").exists()


def test_a_tar_gz_that_is_not_gzip_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "fake.tar.gz"
    path.write_bytes(b"this is plain text, not an archive")
    assert "fake.tar.gz: (archive): not a gzip file" in _problems(path, "bundle")


def test_a_manifest_naming_a_file_outside_the_bundle_is_refused_and_not_read(tmp_path: Path) -> None:
    bundle = _bundle_copy(tmp_path)
    manifest = json.loads((bundle / "bundle.json").read_text())
    manifest["files"] = {"facts": "../../../../etc/passwd", "topics": "/etc/passwd"}
    (bundle / "bundle.json").write_text(json.dumps(manifest))
    message = _problems(bundle, "bundle")
    assert "bundle.json: files.facts: '../../../../etc/passwd' is not a relative path inside the bundle" in message
    assert "bundle.json: files.topics: '/etc/passwd' is not a relative path inside the bundle" in message
    assert "root:" not in message


def test_check_and_ingest_refuse_the_same_bad_timestamp_with_one_validator(tmp_path: Path) -> None:
    from cli import app

    bundle = _bundle_copy(tmp_path)
    _rewrite(bundle / "sessions.jsonl", 1, {"started_at": "2025-13-45"})
    runner = CliRunner()
    checked = runner.invoke(app, ["check", str(bundle)])
    ingested = runner.invoke(app, ["ingest", str(bundle)])
    expected = "sessions.jsonl:1: started_at: '2025-13-45' is not an ISO 8601 timestamp"
    assert checked.exit_code == 2 and expected in " ".join(checked.output.split())
    assert ingested.exit_code == 2 and expected in " ".join(ingested.output.split())


def test_profile_append_refuses_deep_nesting_and_duplicate_keys_with_locations(tmp_path: Path) -> None:
    from api.growth.file_format import read_append_file

    path = tmp_path / "append.jsonl"
    path.write_text(
        '{"session_id": "s1", "turns": [{"role": "user", "text": "hi", "text": "again"}]}\n'
        + '{"session_id": "s1", "turns": '
        + "[" * 100_000
        + "]" * 100_000
        + "}\n"
    )
    with pytest.raises(InputError) as caught:
        read_append_file(path)
    message = str(caught.value)
    assert "append.jsonl:1: turns.0.text: duplicate key" in message
    assert "append.jsonl:2: (json): arrays or objects are nested too deeply" in message


def test_ikat_qrels_with_bytes_that_are_not_utf8_name_the_file_and_line(tmp_path: Path) -> None:
    folder = tmp_path / "ikat"
    shutil.copytree(REPO / "tests" / "fixtures" / "ikat", folder)
    (folder / "ptkb_rel_nist").write_bytes(b"9-1_1 0 1 2\n9-1_2 0 \xff 1\n")
    assert "ptkb_rel_nist:2: (encoding): not UTF-8: byte 0xff at byte 9 of the line" in _problems(folder, "ikat")
