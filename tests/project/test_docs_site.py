"""The docs site: `scripts/build_docs.sh` (what `make docs` and `scripts/run_tests.sh` run) builds the real pages
strictly, refuses a page with a broken link or anchor, and the built site loads nothing from another host."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.paths import REPO

ROOT = REPO
BUILD = ROOT / "scripts" / "build_docs.sh"


def _build(site: Path, config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BUILD), str(site), str(config)], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("site")
    result = _build(site, ROOT / "mkdocs.yml")
    assert result.returncode == 0, result.stderr
    return site


def test_every_nav_page_is_built(built_site: Path) -> None:
    nav = re.findall(r"^\s+- [^:]+: (\S+\.md)$", (ROOT / "mkdocs.yml").read_text(), flags=re.M)
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert sorted(nav) == pages
    for page in nav:
        assert (built_site / page.replace(".md", ".html")).is_file(), page


def test_built_site_loads_no_remote_asset(built_site: Path) -> None:
    remote = []
    for html in built_site.rglob("*.html"):
        remote += re.findall(r"<(?:script|link|img)\b[^>]*(?:src|href)=\"(?:https?:)?//[^\"]+\"", html.read_text())
    assert remote == []


@pytest.mark.parametrize(
    "broken",
    ["See [the log](no-such-page.md).", "See [the log](concepts.md#no-such-anchor)."],
    ids=["missing-page", "missing-anchor"],
)
def test_broken_link_fails_the_build_naming_the_page(tmp_path: Path, broken: str) -> None:
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    with (tmp_path / "docs" / "layout.md").open("a") as page:
        page.write(f"\n{broken}\n")
    result = _build(tmp_path / "site", tmp_path / "mkdocs.yml")
    assert result.returncode == 1
    assert "layout.md" in result.stderr and "strict" in result.stderr


def test_readme_links_resolve_to_files() -> None:
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)
    local = [t for t in targets if "://" not in t]
    assert local, "the README links into docs/"
    assert [t for t in local if not (ROOT / t).is_file()] == []
