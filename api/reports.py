"""Report pages of evaluation runs, served from the configured reports directory under /reports/.

A folder URL opens its index.html or report.html; /reports/latest follows `latest.json` (written by
`colabench report`). Reports link evidence into the browser as `/browser#node=<url-encoded id>`; elements that
only carry a `data-node-id` attribute are turned into such links by /static/report-links.js, added to every
served page.

Gold stays hidden exactly as in GraphQL: JSON files, and report.html / report.md rendered from their
report.json, leave out reference answers unless the request carries the API token or the server reveals them
(`api.report_view`); `latest.json` is served with a reports-relative path, never the writer's absolute one.
"""

from __future__ import annotations

import html
import json
import time
from pathlib import Path
from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from api.report_view import PageRenderer, ReportDataError, is_rendered_page, json_body, latest_body
from api.request_log import log
from api.resources import Resources
from api.schema.context import check_bearer, gold_visible

router = APIRouter()

LINK_SCRIPT = b'<script src="/static/report-links.js"></script>'
MAX_LISTED = 500
# What a report folder's URL opens (evaluation runs write report.html; a hand-made index wins).
PAGE_NAMES = ("index.html", "report.html")
_PAGES = PageRenderer()


def _reports_dir(request: Request) -> Path:
    resources: Resources = request.app.state.resources
    return resources.settings.effective_reports_dir


def _resolve(base: Path, relative: str) -> Path:
    """The file under `base` named by `relative`; 404 for anything outside it (.., symlinks out, absolute) and for
    a name no file system can hold (a NUL, a name too long: OSError / ValueError from the path calls)."""
    try:
        target = (base / relative).resolve()
        if not target.is_relative_to(base.resolve()):
            raise HTTPException(status_code=404, detail="not found")
        if target.is_dir():
            target = next((target / n for n in PAGE_NAMES if (target / n).is_file()), target / PAGE_NAMES[0])
        if not target.is_file():
            raise HTTPException(status_code=404, detail="not found")
    except (OSError, ValueError):
        raise HTTPException(status_code=404, detail="not found") from None
    return target


def _may_see_gold(request: Request) -> bool:
    """The GraphQL rule: the server reveals gold, or the request carries the API token."""
    settings = request.app.state.resources.settings
    return gold_visible(settings, check_bearer(request.headers.get("authorization"), settings.token))


def _gold_dependent(body: bytes, media_type: str, visible: bool) -> Response:
    """A response whose content depends on the Authorization header: never cached across it."""
    headers = {"Vary": "Authorization", "Cache-Control": "no-store" if visible else "no-cache"}
    return Response(body, media_type=media_type, headers=headers)


def _html_with_links(path: Path) -> bytes:
    return _with_links(path.read_bytes())


def _with_links(data: bytes) -> bytes:
    marker = data.lower().rfind(b"</body>")
    return data[:marker] + LINK_SCRIPT + data[marker:] if marker >= 0 else data + LINK_SCRIPT


def _listing(base: Path) -> str:
    found = base.rglob("*.html") if base.is_dir() else iter(())
    pages = sorted(
        (p for p in found if p.is_file() and len(p.relative_to(base).parts) <= 3),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )[:MAX_LISTED]
    rows = "\n".join(
        f'<li><a href="/reports/{quote(str(p.relative_to(base)))}">{html.escape(str(p.relative_to(base)))}</a> '
        f"<small>{time.strftime('%Y-%m-%d %H:%M', time.localtime(p.stat().st_mtime))}</small></li>"
        for p in pages
    )
    body = f"<ul>{rows}</ul>" if rows else "<p>No reports yet: run an evaluation and write its report here.</p>"
    latest = "<p><a href='/reports/latest'>latest report</a></p>" if _latest_page(base) else ""
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>colabench reports</title></head><body>"
        f"<h1>Evaluation reports</h1><p><a href='/browser'>graph browser</a></p>{latest}{body}</body></html>"
    )


def _latest_page(base: Path) -> str | None:
    """The reports-relative path of the page `latest.json` points at, if it lies inside the reports directory."""
    pointer = base / "latest.json"
    if not pointer.is_file():
        return None
    try:
        folder = Path(json.loads(pointer.read_text(encoding="utf-8"))["path"]).resolve()
    except (ValueError, KeyError, TypeError, OSError):
        return None
    if not folder.is_relative_to(base.resolve()):
        return None
    page = next((folder / name for name in PAGE_NAMES if (folder / name).is_file()), None)
    return str(page.relative_to(base.resolve())) if page else None


@router.get("/reports", include_in_schema=False)
@router.get("/reports/", include_in_schema=False)
async def reports_index(request: Request) -> Response:
    base = _reports_dir(request)
    if (base / "index.html").is_file():
        return HTMLResponse(_html_with_links(base / "index.html"))
    return HTMLResponse(_listing(base))


@router.get("/reports/latest", include_in_schema=False)
async def latest_report(request: Request) -> Response:
    """Redirect to the report `latest.json` names (written by `colabench report`)."""
    page = _latest_page(_reports_dir(request))
    if page is None:
        raise HTTPException(status_code=404, detail="no latest report yet")
    return RedirectResponse(f"/reports/{quote(page)}")


@router.get("/reports/{path:path}", include_in_schema=False)
async def report_file(request: Request, path: str) -> Response:
    base = _reports_dir(request)
    if not base.is_dir():
        raise HTTPException(status_code=404, detail="not found")
    target = _resolve(base, path)
    visible = _may_see_gold(request)
    try:
        if target == (base / "latest.json").resolve():
            return _gold_dependent(latest_body(target, base, _latest_page(base)), "application/json", False)
        if target.suffix.lower() == ".json":
            body = await run_in_threadpool(json_body, target, base, visible)
            return _gold_dependent(body, "application/json", visible)
        if is_rendered_page(target):
            page = (await run_in_threadpool(_PAGES.render, target, base, visible)).encode("utf-8")
            if target.suffix == ".html":
                return _gold_dependent(_with_links(page), "text/html; charset=utf-8", visible)
            return _gold_dependent(page, "text/markdown; charset=utf-8", visible)
    except ReportDataError as exc:
        # Never fall back to the file itself: it may carry gold.
        log.warning("report not served", extra={"report": path, "problem": str(exc)})
        raise HTTPException(status_code=500, detail=f"this report cannot be served: {exc}") from exc
    if target.suffix.lower() in (".html", ".htm"):
        return HTMLResponse(_html_with_links(target))
    return FileResponse(target)
