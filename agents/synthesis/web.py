"""The synthesis `web` role's tools: a JSON search endpoint (the shape of SearxNG's `/search?format=json`: a
`results` list of objects with `url`, `title`, `content`) and fetching pages over HTTP, with robots.txt
respected, size and content-type limits, and the page text extracted by trafilatura.

Off unless configured: `COLABENCH_WEB_SEARCH_URL` or `search_url` in the `[web]` table of colabench.toml.
Nothing here writes events; stage_web turns each fetch into events (one transaction per seed document).
"""

from __future__ import annotations

import hashlib
import json
import threading
import urllib.error
import urllib.parse
import urllib.request
import urllib.robotparser
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field
from pydantic_settings import SettingsConfigDict

from agents.synthesis.errors import SynthesisError
from graph.config_file import TableSettings
from graph.events import now_iso

FetchOutcome = Literal["document", "duplicate", "robots_disallowed", "too_large", "not_html", "no_text", "http_error"]


class WebSettings(TableSettings):
    """Where the web role searches, and the limits of one fetch."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True)

    search_url: str | None = Field(
        default=None, validation_alias=AliasChoices("COLABENCH_WEB_SEARCH_URL", "search_url")
    )
    user_agent: str = Field(
        default="colabench-synthesis", validation_alias=AliasChoices("COLABENCH_WEB_USER_AGENT", "user_agent")
    )
    timeout_s: float = Field(
        default=15.0, gt=0, le=300, validation_alias=AliasChoices("COLABENCH_WEB_TIMEOUT_S", "timeout_s")
    )
    max_page_bytes: int = Field(
        default=2_000_000,
        ge=1_000,
        le=50_000_000,
        validation_alias=AliasChoices("COLABENCH_WEB_MAX_PAGE_BYTES", "max_page_bytes"),
    )
    min_text_chars: int = Field(
        default=200, ge=1, le=100_000, validation_alias=AliasChoices("COLABENCH_WEB_MIN_TEXT_CHARS", "min_text_chars")
    )

    config_table: ClassVar[str] = "web"

    @property
    def enabled(self) -> bool:
        return bool(self.search_url)

    def public_record(self) -> dict[str, Any]:
        return {
            "search_url": self.search_url,
            "user_agent": self.user_agent,
            "max_page_bytes": self.max_page_bytes,
            "min_text_chars": self.min_text_chars,
        }


class SearchHit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")
    url: str
    title: str = ""
    content: str = ""


@dataclass(frozen=True)
class FetchedPage:
    """One fetch: where it went, what came back and what became of it (`text` only for outcome document)."""

    url: str
    final_url: str
    fetched_at: str
    outcome: FetchOutcome
    status: int | None = None
    content_type: str | None = None
    n_bytes: int = 0
    title: str = ""
    text: str = ""
    reason: str = ""

    @property
    def text_sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


class WebError(SynthesisError):
    """The search endpoint cannot be used (unreachable, or its reply is not the expected JSON)."""


class WebClient:
    """Search and fetch with one settings object; robots.txt is read once per host and kept."""

    def __init__(self, settings: WebSettings) -> None:
        if not settings.search_url:
            raise WebError("web search is not configured (COLABENCH_WEB_SEARCH_URL or [web] search_url)")
        self.settings = settings
        self._robots: dict[str, urllib.robotparser.RobotFileParser | None] = {}
        self._lock = threading.Lock()

    # --- search ------------------------------------------------------------------------------------------

    def search(self, query: str, limit: int) -> list[SearchHit]:
        assert self.settings.search_url is not None
        parts = urllib.parse.urlsplit(self.settings.search_url)
        params = [*urllib.parse.parse_qsl(parts.query), ("q", query), ("format", "json")]
        url = urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(params)))
        try:
            status, _, body, _ = self._get(url, 5_000_000)
        except (urllib.error.URLError, OSError) as exc:
            raise WebError(f"web search at {self.settings.search_url}: {exc}") from exc
        if status != 200:
            raise WebError(f"web search at {self.settings.search_url}: HTTP {status}")
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise WebError(f"web search at {self.settings.search_url}: the reply is not JSON ({exc})") from exc
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            raise WebError(f"web search at {self.settings.search_url}: the reply has no 'results' list")
        hits: list[SearchHit] = []
        for raw in results:
            if isinstance(raw, dict) and isinstance(raw.get("url"), str) and _http_url(raw["url"]):
                hits.append(SearchHit.model_validate({k: v for k, v in raw.items() if isinstance(v, str)}))
            if len(hits) >= limit:
                break
        return hits

    # --- robots and fetch --------------------------------------------------------------------------------

    def allowed(self, url: str) -> bool:
        """robots.txt of the URL's host allows our user agent (a missing robots.txt allows; an unreadable one,
        e.g. 5xx or a timeout, does not)."""
        parts = urllib.parse.urlsplit(url)
        host = f"{parts.scheme}://{parts.netloc}"
        with self._lock:
            known = host in self._robots
            parser = self._robots.get(host)
        if not known:
            parser = self._read_robots(host)
            with self._lock:
                self._robots[host] = parser
        if parser is None:
            return False
        return parser.can_fetch(self.settings.user_agent, url)

    def _read_robots(self, host: str) -> urllib.robotparser.RobotFileParser | None:
        parser = urllib.robotparser.RobotFileParser(host + "/robots.txt")
        try:
            status, _, body, _ = self._get(host + "/robots.txt", 500_000)
        except (urllib.error.URLError, OSError):
            return None
        if status >= 500:
            return None
        if status >= 400:
            parser.parse([])  # no robots.txt: everything is allowed
        else:
            parser.parse(body.decode("utf-8", errors="replace").splitlines())
        return parser

    def fetch(self, url: str) -> FetchedPage:
        at = now_iso()
        if not self.allowed(url):
            return FetchedPage(url, url, at, "robots_disallowed", reason="robots.txt disallows this URL")
        limit = self.settings.max_page_bytes
        try:
            status, ctype, body, final = self._get(url, limit)
        except (urllib.error.URLError, OSError) as exc:
            return FetchedPage(url, url, at, "http_error", reason=str(exc)[:300])
        page = FetchedPage(url, final, at, "document", status=status, content_type=ctype, n_bytes=len(body))
        if final != url and not self.allowed(final):
            reason = f"redirected to {final}, which robots.txt disallows"
            return replace(page, outcome="robots_disallowed", reason=reason)
        if status != 200:
            return replace(page, outcome="http_error", reason=f"HTTP {status}")
        if len(body) > limit:
            return replace(page, outcome="too_large", reason=f"more than {limit:,} bytes")
        kind = (ctype or "").split(";")[0].strip().lower()
        if kind not in ("text/html", "application/xhtml+xml", "text/plain"):
            return replace(page, outcome="not_html", reason=f"content type {ctype!r}")
        title, text = extract_text(body, kind)
        if len(text) < self.settings.min_text_chars:
            wanted = self.settings.min_text_chars
            return replace(
                page, outcome="no_text", reason=f"{len(text)} characters of text extracted (at least {wanted} wanted)"
            )
        return replace(page, title=title, text=text)

    def _get(self, url: str, limit: int) -> tuple[int, str | None, bytes, str]:
        """(status, content type, at most limit + 1 bytes of the body, final URL after redirects)."""
        request = urllib.request.Request(url, headers={"User-Agent": self.settings.user_agent})
        try:
            with urllib.request.urlopen(request, timeout=self.settings.timeout_s) as response:
                return response.status, response.headers.get("Content-Type"), response.read(limit + 1), response.url
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers.get("Content-Type"), exc.read(min(limit + 1, 100_000)), url


def _http_url(url: str) -> bool:
    return urllib.parse.urlsplit(url).scheme in ("http", "https")


def extract_text(body: bytes, kind: str) -> tuple[str, str]:
    """(title, main text) of a page: trafilatura's extraction for HTML (navigation, scripts and boilerplate
    left out; paragraphs one to a line), the text itself for text/plain."""
    if kind == "text/plain":
        text = body.decode("utf-8", errors="replace").strip()
        return (text.split("\n", 1)[0][:200], text)
    import trafilatura

    html = body.decode("utf-8", errors="replace")
    text = trafilatura.extract(html, include_comments=False, include_tables=True, favor_recall=True) or ""
    metadata = trafilatura.extract_metadata(html)
    title = (metadata.title if metadata is not None and metadata.title else "") or ""
    lines = [line.rstrip() for line in text.split("\n")]
    return title.strip(), "\n".join(line for line in lines if line.strip())


def web_doc_id(text: str) -> str:
    """A web page's document id: from its extracted text, so the same body under two URLs is one document."""
    return "web-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
