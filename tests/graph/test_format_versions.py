"""Versioned outputs (issue 23.7): report.json, the JSONL event export, the LLM exchange store and its export
carry a format version; every reader refuses a newer one with one line naming the file, the version found and
the one it reads, and still reads older and unversioned files."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agents.llm.exchanges import (
    EXCHANGES_FORMAT,
    EXCHANGES_FORMAT_VERSION,
    ExchangeStore,
    export_exchanges,
    import_exchanges,
)
from agents.reports.write import REPORT_FORMAT_VERSION, check_report_version, write_report
from graph.format_version import FormatVersionError, header_line
from graph.transfer import EVENTS_FORMAT, EVENTS_FORMAT_VERSION, log_file_version, read_log_file
from tests.paths import FIXTURES

V1_LOG = FIXTURES / "logs" / "v1_run_log.jsonl"


def _newer(where: str, found: int, supported: int) -> str:
    return rf"{where}: format version {found} is newer than the supported version {supported}"


# --- report.json ---------------------------------------------------------------------------------------------


@pytest.fixture
def tiny_kind(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Any]:
    """A report kind with one-line renderers registered for the test (the version rule does not depend on what
    the pages show), and a data directory of its own for `latest.json`."""
    from agents.reports import write

    monkeypatch.setenv("COLABENCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setitem(write._RENDERERS, "tiny", (lambda d: f"<p>{d['n']}</p>", lambda d: f"n = {d['n']}"))
    return {"kind": "tiny", "n": 3}


def test_report_json_is_written_with_its_format_version(tmp_path: Path, tiny_kind: dict[str, Any]) -> None:
    write_report({**tiny_kind, "format_version": 99}, tmp_path / "r")
    data = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert data["format_version"] == REPORT_FORMAT_VERSION == 1


def test_a_newer_report_json_is_refused_by_name_and_older_ones_read() -> None:
    assert check_report_version({"kind": "evaluation"}, "old/report.json") == 0
    assert check_report_version({"format_version": 1}, "r/report.json") == 1
    with pytest.raises(FormatVersionError, match=_newer("r/report.json", 2, REPORT_FORMAT_VERSION)):
        check_report_version({"format_version": 2}, "r/report.json")
    for bad in ("2", True, -1, 1.5):
        with pytest.raises(FormatVersionError, match="is not a whole number"):
            check_report_version({"format_version": bad}, "r/report.json")


def test_report_copies_a_report_only_when_it_can_read_its_version(tmp_path: Path, tiny_kind: dict[str, Any]) -> None:
    from cli.report_cmd import copy_retrieval_report

    folder = tmp_path / "written"
    write_report(tiny_kind, folder)
    source = folder / "report.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    source.write_text(json.dumps({**data, "format_version": 7}), encoding="utf-8")
    with pytest.raises(FormatVersionError, match=_newer(str(source), 7, 1)):
        copy_retrieval_report(folder, tmp_path / "copy")
    assert not (tmp_path / "copy").exists()
    del data["format_version"]  # a report written before versions existed
    source.write_text(json.dumps(data), encoding="utf-8")
    assert copy_retrieval_report(folder, tmp_path / "copy") == tmp_path / "copy" / "report.html"
    assert json.loads((tmp_path / "copy" / "report.json").read_text(encoding="utf-8"))["format_version"] == 1


# --- the JSONL event export ------------------------------------------------------------------------------------


def _log_with_header(tmp_path: Path, version: int, kind: str = EVENTS_FORMAT) -> Path:
    path = tmp_path / "log.jsonl"
    path.write_text(header_line(kind, version) + V1_LOG.read_text(encoding="utf-8"), encoding="utf-8")
    return path


def test_an_unversioned_and_a_current_event_export_read_the_same_events(tmp_path: Path) -> None:
    old = read_log_file(V1_LOG)
    assert log_file_version(V1_LOG) == 0
    current = _log_with_header(tmp_path, EVENTS_FORMAT_VERSION)
    assert log_file_version(current) == 1
    assert read_log_file(current) == old and len(old) == 86


def test_a_newer_event_export_is_refused_naming_file_and_versions(tmp_path: Path) -> None:
    newer = _log_with_header(tmp_path, EVENTS_FORMAT_VERSION + 1)
    for read in (read_log_file, log_file_version):
        with pytest.raises(FormatVersionError, match=_newer(str(newer), 2, 1)):
            read(newer)
    other = _log_with_header(tmp_path, 1, kind=EXCHANGES_FORMAT)
    with pytest.raises(FormatVersionError, match="not 'colabench-events'"):
        read_log_file(other)


def test_events_import_of_a_newer_export_stops_with_one_line_before_touching_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused before the exchanges beside it are imported and before the database is opened (no Neo4j needed
    for this test: the command never gets that far)."""
    from cli import app

    exchanges_path = tmp_path / "data" / "llm_exchanges.sqlite"
    monkeypatch.setenv("COLABENCH_LLM_EXCHANGES", str(exchanges_path))
    newer = _log_with_header(tmp_path, 5)
    beside = newer.with_name(newer.name + ".exchanges.jsonl")
    source = ExchangeStore(tmp_path / "source.sqlite")
    source.put(role="answerer", request={"model": "m", "messages": [{"role": "user", "content": "q"}]},
               reply={"content": "a"})
    export_exchanges(source, beside)
    done = CliRunner().invoke(app, ["events", "import", str(newer)])
    assert done.exit_code == 1, done.output
    lines = [line for line in done.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "format version 5 is newer than the supported version 1" in lines[0]
    assert "log.jsonl" in lines[0] and "Traceback" not in done.output
    assert not exchanges_path.exists()


# --- the LLM exchange store and its export ---------------------------------------------------------------------


def _put(store: ExchangeStore, text: str = "q") -> str:
    return store.put(role="answerer", request={"model": "m", "messages": [{"role": "user", "content": text}]},
                     reply={"content": "a"})


def test_the_exchange_store_carries_its_version_and_a_newer_store_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite"
    store = ExchangeStore(path)
    key = _put(store)
    store.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == EXCHANGES_FORMAT_VERSION
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 3")
    with pytest.raises(FormatVersionError, match=_newer(str(path), 3, 1)):
        ExchangeStore(path).show(key)


def test_an_exchange_store_written_before_versions_still_reads_and_is_stamped(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite"
    store = ExchangeStore(path)
    key = _put(store)
    shown = store.show(key)
    store.close()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 0")
    again = ExchangeStore(path)
    assert again.show(key) == shown
    again.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 1


def test_the_exchanges_export_has_a_header_and_a_newer_one_imports_nothing(tmp_path: Path) -> None:
    source = ExchangeStore(tmp_path / "a.sqlite")
    key = _put(source)
    path = tmp_path / "log.jsonl.exchanges.jsonl"
    assert export_exchanges(source, path) == 2
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0]) == {"format": EXCHANGES_FORMAT, "format_version": 1} and len(lines) == 3
    newer = tmp_path / "newer.jsonl"
    newer.write_text("\n".join([header_line(EXCHANGES_FORMAT, 2).strip(), *lines[1:]]) + "\n", encoding="utf-8")
    target = ExchangeStore(tmp_path / "b.sqlite")
    with pytest.raises(FormatVersionError, match=_newer(str(newer), 2, 1)):
        import_exchanges(target, newer)
    assert target.stored_bytes()["exchanges"] == 0
    unversioned = tmp_path / "unversioned.jsonl"
    unversioned.write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
    assert import_exchanges(target, unversioned) == 2
    assert target.show(key) == source.show(key)
