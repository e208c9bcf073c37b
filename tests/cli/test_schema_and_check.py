"""CLI commands that need no database: schema, check."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.paths import REPO


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=REPO, capture_output=True, text=True,
                          env=dict(os.environ), timeout=120)


def test_schema_prints_a_json_schema_for_every_bundle_file() -> None:
    done = _cli("schema")
    assert done.returncode == 0, done.stderr
    schema = json.loads(done.stdout)
    assert set(schema["records"]) == {"documents", "doc_links", "profiles", "facts", "topics", "sessions", "items"}
    item = schema["records"]["items"]
    assert "requirements" in item["properties"] and "question" in item["required"]


def test_check_accepts_the_bundled_sample() -> None:
    done = _cli("check", "sample")
    assert done.returncode == 0, done.stdout + done.stderr
    flat = " ".join(done.stdout.split())  # the console wraps long lines at its width
    assert "ok" in flat and "items 28" in flat


def test_check_reports_every_located_problem_and_exits_2() -> None:
    done = _cli("check", str(REPO / "tests" / "fixtures" / "bad_bundles" / "support_exposed"))
    assert done.returncode == 2
    assert "items.jsonl:1: support_doc_ids.0:" in done.stdout.replace("\n", "")


def test_check_refuses_nan_and_infinity_with_file_line_and_field() -> None:
    done = _cli("check", str(REPO / "tests" / "fixtures" / "bad_bundles" / "non_finite_numbers"))
    assert done.returncode == 2
    flat = "".join((done.stdout + done.stderr).split())  # the console wraps long lines at its width
    assert "doc_links.jsonl:2:weight:NaNisnotafinitenumber" in flat
    assert "doc_links.jsonl:3:weight:Infinityisnotafinitenumber" in flat
    assert "sessions.jsonl:1:turns.0.metadata.score:-Infinity" in flat
    assert "Traceback" not in done.stderr


def test_neo4j_going_away_mid_command_is_one_message_that_says_how_to_resume(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from neo4j.exceptions import ServiceUnavailable

    from cli.context import expected_errors

    @expected_errors
    def dies() -> None:
        raise ServiceUnavailable("Failed to read from defunct connection")

    with pytest.raises(SystemExit) as stopped:
        dies()
    assert stopped.value.code == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "is not reachable: start it with `./colabench neo4j start`" in err and "resumes" in err
    assert "Traceback" not in err and "defunct" not in err
