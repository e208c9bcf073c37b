"""Report pages and their data keep gold exactly as GraphQL does: a real evaluation report (on disk with every
reference answer) is served without reference answers unless the request carries the API token or the server
reveals them, through every channel (report.json, report.html, report.md, the folder URL, /reports/latest, any
JSON file), never as the raw file, and public responses carry no absolute path."""

from __future__ import annotations

import html
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from tests.api_support import TOKEN, api_client
from tests.paths import REPO
from tests.report_support import reference_answers, shown_answers, write_mini_report

pytestmark = pytest.mark.neo4j

BEARER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def report(mini_store: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("report-data")
    reports = root / "reports"
    folder = write_mini_report(mini_store, reports, root)
    return {"root": root, "reports": reports, "folder": folder, "batch": folder.name}


def gold_texts(report: dict[str, Any]) -> list[str]:
    """Requirement texts and actions, and judge rationales, of the report on disk (gold beside the answers)."""
    data = json.loads((report["folder"] / "report.json").read_text(encoding="utf-8"))
    texts = {r[key] for item in data["items"] for r in item["requirements"] for key in ("text", "action") if r[key]}
    for item in data["items"]:
        for attempt in item["attempts"].values():
            texts |= {j["rationale"] for j in attempt.get("judgments", []) if j.get("rationale")}
    return sorted(texts)


def shown_gold(text: str, report: dict[str, Any]) -> list[str]:
    return [g for g in gold_texts(report) if g in text or html.escape(g) in text or html.escape(g, False) in text]


@pytest.fixture(scope="module")
def client(report: dict[str, Any], neo4j_settings: Any, driver: Driver, encoder: Any) -> Iterator[TestClient]:
    with api_client(neo4j_settings, driver, encoder, token=TOKEN, reports_dir=report["reports"]) as c:
        yield c


def test_the_report_on_disk_holds_every_reference_answer(report: dict[str, Any]) -> None:
    """The premise: the files `colabench report` writes are the full copy, gold included."""
    for name in ("report.json", "report.html"):
        assert shown_answers((report["folder"] / name).read_text(encoding="utf-8")) == reference_answers()


def test_report_json_without_the_token_has_no_reference_answer_and_lists_what_was_hidden(
    client: TestClient, report: dict[str, Any]
) -> None:
    for headers in ({}, {"Authorization": "Bearer not-the-token-0123456789"}):
        response = client.get(f"/reports/{report['batch']}/report.json", headers=headers)
        assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
        assert shown_answers(response.text) == []
        assert shown_gold(response.text, report) == []
        data = response.json()
        assert data["items"] and all(item["reference_answer"] is None for item in data["items"])
        assert all(r["text"] is None and r["action"] is None for item in data["items"] for r in item["requirements"])
        hidden = set(data["redacted_fields"])
        for i, item in enumerate(data["items"]):
            assert f"items[{i}].reference_answer" in hidden
            for j, _ in enumerate(item["requirements"]):
                assert {f"items[{i}].requirements[{j}].text", f"items[{i}].requirements[{j}].action"} <= hidden
        assert any(path.endswith(".rationale") for path in hidden)
        # a judge's details are gold whole (by the record): every attempt's judgments[].details is null
        judgments = [j for item in data["items"] for a in item["attempts"].values() for j in a.get("judgments", [])]
        assert judgments and all(j["details"] is None for j in judgments if j["id"])
        assert any(path.endswith(".details") for path in hidden)
        # Everything that is not gold is still there: ids and structure of requirements, verdicts.
        first = data["items"][0]["requirements"][0]
        assert first["id"] and first["statements"] and first["spans"] and data["runs"][0]["metrics"]["n_items"] == 4


def test_report_json_with_the_token_has_every_reference_answer(client: TestClient, report: dict[str, Any]) -> None:
    response = client.get(f"/reports/{report['batch']}/report.json", headers=BEARER)
    assert shown_answers(response.text) == reference_answers()
    assert sorted(shown_gold(response.text, report)) == sorted(gold_texts(report))
    assert "redacted_fields" not in response.json()


@pytest.mark.parametrize("page", ["{batch}/report.html", "{batch}/", "{batch}", "latest", "{batch}/report.md"])
def test_report_pages_without_the_token_show_no_reference_answer_and_with_it_show_them(
    client: TestClient, report: dict[str, Any], page: str
) -> None:
    url = "/reports/" + page.format(batch=report["batch"])
    anonymous = client.get(url)
    assert anonymous.status_code == 200, anonymous.text
    assert shown_answers(anonymous.text) == [] and shown_gold(anonymous.text, report) == []
    with_token = client.get(url, headers=BEARER)
    if page.endswith(".md"):  # the Markdown report has no traces, so no answers even for the token
        assert with_token.text == anonymous.text and "# ColaBench evaluation" in anonymous.text
        return
    assert "reference-answer-hidden" in anonymous.text and "/static/report-links.js" in anonymous.text
    assert shown_answers(with_token.text) == reference_answers()
    assert sorted(shown_gold(with_token.text, report)) == sorted(gold_texts(report))
    assert "reference-answer-hidden" not in with_token.text


def test_the_reveal_setting_shows_reference_answers_to_everyone(
    report: dict[str, Any], neo4j_settings: Any, driver: Driver, encoder: Any
) -> None:
    settings = {"reports_dir": report["reports"], "reveal_reference_answers": True}
    with api_client(neo4j_settings, driver, encoder, **settings) as revealing:
        for name in ("report.json", "report.html"):
            assert shown_answers(revealing.get(f"/reports/{report['batch']}/{name}").text) == reference_answers()


def test_gold_dependent_responses_are_never_cached_across_the_authorization_header(
    client: TestClient, report: dict[str, Any]
) -> None:
    for name in ("report.json", "report.html"):
        url = f"/reports/{report['batch']}/{name}"
        assert client.get(url).headers["vary"] == "Authorization"
        assert client.get(url, headers=BEARER).headers["cache-control"] == "no-store"


def test_latest_json_and_every_public_response_carry_no_absolute_path(
    client: TestClient, report: dict[str, Any]
) -> None:
    on_disk = json.loads((report["reports"] / "latest.json").read_text())
    assert Path(on_disk["path"]).is_absolute()  # the CLI's pointer keeps it (`report --latest` reads it)
    latest = client.get("/reports/latest.json")
    assert latest.status_code == 200
    pointer = latest.json()
    assert pointer["path"] == report["batch"] and pointer["page"] == f"/reports/{report['batch']}/report.html"
    assert client.get(pointer["page"]).status_code == 200
    secrets = (str(report["root"]), str(report["root"].resolve()), str(REPO))
    for url in (
        "/reports/latest.json",
        "/reports/",
        f"/reports/{report['batch']}/report.json",
        f"/reports/{report['batch']}/report.html",
        f"/reports/{report['batch']}/report.md",
    ):
        body = client.get(url, headers=BEARER).text
        assert not [s for s in secrets if s in body], url


def test_any_json_file_in_the_reports_directory_is_served_without_gold(
    client: TestClient, report: dict[str, Any]
) -> None:
    extra = report["reports"] / "notes" / "answers.json"
    extra.parent.mkdir(exist_ok=True)
    extra.write_text(json.dumps({"rows": [{"item": "i-mini-01", "reference_answer": reference_answers()[0]}]}))
    assert client.get("/reports/notes/answers.json").json() == {
        "rows": [{"item": "i-mini-01", "reference_answer": None}],
        "redacted_fields": ["rows[0].reference_answer"],
    }
    assert client.get("/reports/notes/answers.json", headers=BEARER).json()["rows"][0]["reference_answer"]


def test_a_page_whose_report_json_cannot_be_read_is_refused_never_served_raw(
    client: TestClient, report: dict[str, Any]
) -> None:
    broken = report["reports"] / "broken"
    shutil.copytree(report["folder"], broken)
    (broken / "report.json").write_text('{"kind": "evaluation", "items": [')
    for name in ("report.html", "report.md", "report.json", ""):
        response = client.get(f"/reports/broken/{name}")
        assert response.status_code == 500 and shown_answers(response.text) == [], name
        assert "cannot be served" in response.json()["detail"]


def test_a_report_json_of_a_newer_format_is_refused_by_name_and_an_unversioned_one_served(
    client: TestClient, report: dict[str, Any]
) -> None:
    data = json.loads((report["folder"] / "report.json").read_text(encoding="utf-8"))
    assert data["format_version"] == 1  # what `colabench report` writes
    newer, older = report["reports"] / "newer", report["reports"] / "older"
    for folder, version in ((newer, 9), (older, None)):
        shutil.copytree(report["folder"], folder)
        changed = {k: v for k, v in data.items() if k != "format_version"}
        if version is not None:
            changed["format_version"] = version
        (folder / "report.json").write_text(json.dumps(changed), encoding="utf-8")
    for name in ("report.html", "report.md", "report.json"):
        response = client.get(f"/reports/newer/{name}")
        assert response.status_code == 500 and shown_answers(response.text) == [], name
        detail = response.json()["detail"]
        assert "newer/report.json: format version 9 is newer than the supported version 1" in detail, detail
        assert str(report["root"]) not in detail
        assert client.get(f"/reports/older/{name}").status_code == 200, name


def test_absolute_paths_inside_report_data_become_relative_or_their_last_name(tmp_path: Path) -> None:
    from api.report_view import public_data

    data = {
        "kind": "retrieval",
        "evaluation": {"path": "/srv/datasets/colabench-sample", "dataset": "sample"},
        "cache_path": str(tmp_path / "reports" / "run-1" / "cache.sqlite"),
        "note": "/not/a/path/field stays as written",
    }
    assert public_data(data, tmp_path / "reports", gold_visible=True) == {
        "kind": "retrieval",
        "evaluation": {"path": "colabench-sample", "dataset": "sample"},
        "cache_path": "run-1/cache.sqlite",
        "note": "/not/a/path/field stays as written",
    }
