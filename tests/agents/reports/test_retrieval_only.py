"""The retrieval-only report (what `run` writes without an LLM) reads like the full one: recall@k curves and
per-question-type bars beside its tables, item rows naming gold and ranked documents by title with hits marked
and browser links, requirements with the user statements behind them; its gold stays hidden from a served
copy without the API token; and `report --latest --out DIR` writes it into DIR."""

from __future__ import annotations

import html
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver
from rich.console import Console

from graph.store import EventStore
from tests.api_support import TOKEN, api_client
from tests.cli.test_run_and_report_processes import cli_env
from tests.paths import REPO
from tests.report_support import reference_answers, shown_answers

pytestmark = pytest.mark.neo4j

MINI = REPO / "tests" / "fixtures" / "mini_bundle"
FOLDER = "mini-retrieval-only"


def _jsonl(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (MINI / name).read_text("utf-8").splitlines() if line.strip()]


def _turn_texts() -> dict[str, str]:
    return {t["turn_id"]: t["text"] for s in _jsonl("sessions.jsonl") for t in s["turns"]}


@pytest.fixture(scope="module")
def written(mini_store: EventStore, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The retrieval-only report of MEMKB_RAW_TURNS and HYBRID on `mini`, written as `run` writes it."""
    from agents.methods import parse_methods
    from agents.reports.retrieval_only import build_retrieval_report
    from agents.reports.write import reports_dir, write_report

    root = tmp_path_factory.mktemp("retrieval-report")
    (root / "empty.toml").write_text("")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("COLABENCH_CONFIG", str(root / "empty.toml"))
        env.setenv("COLABENCH_DATA_DIR", str(root / "data"))
        data = build_retrieval_report(
            mini_store,
            str(MINI),
            parse_methods("MEMKB_RAW_TURNS,HYBRID"),
            items=None,
            item_ids=[],
            console=Console(file=io.StringIO()),
        )
        page = write_report(data, reports_dir() / FOLDER)
    return {"root": root, "data": data, "html": page.read_text("utf-8"), "folder": page.parent}


def _item_blocks(page: str) -> dict[str, str]:
    """item id -> the HTML of its expandable row."""
    blocks = re.findall(r"<details class='item-row'><summary><code>([^<]+)</code>(.*?)</div></details>", page, re.S)
    return {html.unescape(item_id): body for item_id, body in blocks}


def test_retrieval_report_draws_recall_curves_and_per_type_bars_beside_the_tables(written: dict[str, Any]) -> None:
    page = written["html"]
    assert "RETRIEVAL-ONLY REPORT" in page
    assert 'aria-label="recall@k, knowledge line, document level"' in page
    assert 'aria-label="recall@k, memory line, turn level"' in page
    assert "<polyline" in page  # one curve per recipe and family
    assert 'aria-label="recall_any@5 per question type"' in page
    for question_type in {i["question_type"] for i in _jsonl("items.jsonl")}:
        assert f">{question_type}</text>" in page  # a bar group per question type
    assert "macro mean over types" in page
    assert '{"recall_any@1"' not in page  # no raw metrics dict any more


def test_item_rows_name_gold_and_ranked_documents_by_title_with_hits_marked(written: dict[str, Any]) -> None:
    titles = {d["doc_id"]: d["title"] for d in _jsonl("documents.jsonl")}
    blocks = _item_blocks(written["html"])
    items = _jsonl("items.jsonl")
    assert set(blocks) == {i["item_id"] for i in items}
    rows = [r for r in written["data"]["evaluation"]["rows"] if r["line"] == "knowledge" and r["skipped"] is None]
    assert rows
    for item in items:
        block = blocks[item["item_id"]]
        assert html.escape(item["question"][:60]) in block
        for doc_id in item["support_doc_ids"]:
            assert f'<a href="/browser#node={doc_id}" title="{doc_id}">{html.escape(titles[doc_id])}</a>' in block
    for row in rows:
        block = blocks[row["item_id"]]
        ranks = [r for r, d in enumerate(row["ranked"], start=1) if d in set(row["gold"])]
        mark = f"{row['recipe']} document <span class='hit'>&#10003;{ranks[0]}</span>" if ranks else "&#10007;"
        assert mark in block
        top = row["ranked"][0]
        assert html.escape(titles[top]) in block  # the ranked list is shown by title
        if ranks and ranks[0] <= 10:
            gold = row["ranked"][ranks[0] - 1]
            assert f"<li class='hit-row' value='{ranks[0]}'><span class='hit' title='gold'>&#10003;</span> " in block
            assert f"/browser#node={gold}" in block
    assert any(r["metrics"].get("recall_any@5") for r in rows)  # the fixture has hits to mark


def test_item_rows_show_requirements_with_the_user_statements_that_disclosed_them(written: dict[str, Any]) -> None:
    blocks = _item_blocks(written["html"])
    turns = _turn_texts()
    for item in _jsonl("items.jsonl"):
        block = blocks[item["item_id"]]
        assert html.escape(item["reference_answer"]) in block
        for req in item["requirements"]:
            assert html.escape(req["text"]) in block
            for turn_id in req.get("turn_ids", []):
                assert f"/browser#node={turn_id}" in block
                assert html.escape(turns[turn_id]) in block
    # the statement's session is named too (the session of the first item's statement)
    session_id = written["data"]["titles"]["mini-s-1-t0"]["session_id"]
    assert f"/browser#node={session_id}" in blocks["i-mini-01"]


@pytest.fixture(scope="module")
def client(written: dict[str, Any], neo4j_settings: Any, driver: Driver, encoder: Any) -> Iterator[TestClient]:
    with api_client(neo4j_settings, driver, encoder, token=TOKEN, reports_dir=written["folder"].parent) as c:
        yield c


def test_served_retrieval_report_hides_requirements_and_reference_answers_without_the_token(
    written: dict[str, Any], client: TestClient
) -> None:
    requirement_texts = [r["text"] for i in _jsonl("items.jsonl") for r in i["requirements"]]
    assert shown_answers(written["html"]) == reference_answers()  # the premise: the file on disk has gold
    for page in ("report.html", "report.md", "report.json"):
        response = client.get(f"/reports/{FOLDER}/{page}")
        assert response.status_code == 200
        assert shown_answers(response.text) == []
        assert [t for t in requirement_texts if t in response.text or html.escape(t) in response.text] == []
    public = client.get(f"/reports/{FOLDER}/report.html").text
    assert "reference-answer-hidden" in public and "/browser#node=" in public
    assert "mini-s-1-t0" in public  # the structure (which statements) stays
    allowed = client.get(f"/reports/{FOLDER}/report.html", headers={"Authorization": f"Bearer {TOKEN}"}).text
    assert shown_answers(allowed) == reference_answers()


def test_report_latest_out_writes_the_retrieval_only_report_into_that_folder(
    written: dict[str, Any], tmp_path: Path
) -> None:
    env = cli_env(tmp_path)
    env["COLABENCH_DATA_DIR"] = str(written["root"] / "data")
    out = tmp_path / "copy"
    done = subprocess.run(
        [sys.executable, "-m", "cli", "report", "--latest", "--out", str(out)],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert str(out / "report.html") in "".join(done.stdout.split())
    assert (out / "report.html").read_text("utf-8") == written["html"]
    assert json.loads((out / "report.json").read_text("utf-8"))["kind"] == "retrieval"
    assert (out / "report.md").is_file()


def test_retrieval_report_names_the_keyword_channel_with_the_index_analyzer_read_from_neo4j(
    written: dict[str, Any],
) -> None:
    page = written["html"]
    assert "note: keyword channel english: word tokens with inner apostrophes, lower-cased" in page
    assert "full-text index chunk_text (Lucene analyzer &#x27;standard-no-stop-words&#x27;, read from Neo4j)" in page
