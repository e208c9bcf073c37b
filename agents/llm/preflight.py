"""The endpoint check up front: before a command that needs LLM roles does any work, each role it will use is
asked once whether its endpoint answers and serves its model, so a wrong base URL, a refused connection, a
rejected key or an unknown model fails in seconds with the role, the URL and the reason, instead of after the
client's retries (up to a minute) or half-way through a batch.

One check per (endpoint, model, key): `GET <base_url>/models`, the list OpenAI-compatible servers give (OpenAI,
vLLM, llama.cpp, Ollama, LM Studio). The model in the list: fine. Not in it, or no list (HTTP 404/405 and the
like): one request of one token (`POST <base_url>/chat/completions`, `max_tokens` 1), since some servers answer
for any model name (llama.cpp's serves its one model whatever the request asks for) and some have no list. Each
request is sent once, never retried; nothing is cached or recorded, and the request holds no gold (a fixed
word), so the endpoint's error text may be shown whole (its first 300 characters).

Skipped with `--no-endpoint-check` or `endpoint_check = false` (`COLABENCH_LLM_ENDPOINT_CHECK=0`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import httpx

from agents.llm.error_text import error_body_head
from agents.llm.errors import LLMRefusedError
from agents.llm.settings import LLMRoleSettings, public_url

# What the tiny request says; the test endpoint answers it itself (tests/fake_openai), so no scripted reply goes.
PING_TEXT = "colabench endpoint check: reply with one word"
# The models list is small and quick; the tiny request may wait for a model to load (Ollama loads on demand).
LIST_TIMEOUT_S = 10.0


class EndpointCheckError(LLMRefusedError):
    """A role's endpoint failed the check up front (not reachable, refused the key, does not serve the model, or
    is not an OpenAI-compatible endpoint at that URL): nothing was sent for the command's work."""

    @property
    def carries_gold(self) -> bool:
        # the check's request is a fixed word, so nothing the endpoint echoes of it is gold, whatever the role
        return False


@dataclass(frozen=True)
class EndpointCheck:
    """The check of one role: which way it passed (`models list` or `one-token request`)."""

    role: str
    url: str
    model: str
    how: str


def _headers(settings: LLMRoleSettings) -> dict[str, str]:
    key = settings.resolved_api_key()
    return {"Authorization": f"Bearer {key}"} if key else {}


def _body_head(reply: httpx.Response) -> str:
    try:
        text = reply.text
    except (UnicodeDecodeError, httpx.HTTPError):
        return ""
    head = error_body_head(text, {"messages": [{"role": "user", "content": PING_TEXT}]})
    return f" (endpoint said: {head})" if head else ""


def _listed_models(reply: httpx.Response) -> list[str] | None:
    """The model ids of a `/models` reply, or None when it is not such a list."""
    try:
        body = reply.json()
    except ValueError:
        return None
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        return None
    return [str(entry["id"]) for entry in data if isinstance(entry, dict) and entry.get("id") is not None]


def _fail(role: str, url: str, reason: str) -> EndpointCheckError:
    error = EndpointCheckError(
        f"role {role!r} at {url}: {reason} (endpoint check before any work; --no-endpoint-check skips it)"
    )
    error.role = role
    return error


def _connection_reason(exc: httpx.HTTPError, timeout_s: float) -> str:
    if isinstance(exc, httpx.ConnectError):
        detail = str(exc) or type(exc).__name__
        if "refused" in detail.lower():
            return "connection refused: nothing listens there (is the server running, is the port right?)"
        return f"cannot connect ({detail}): is the host right?"
    if isinstance(exc, httpx.TimeoutException):
        return f"no reply within {timeout_s:g} s"
    return f"the request failed ({type(exc).__name__}: {exc})"


def check_role(settings: LLMRoleSettings, *, transport: httpx.BaseTransport | None = None) -> EndpointCheck:
    """Check one role's endpoint and model; raise EndpointCheckError with the role, URL and reason."""
    settings.require()
    role, model = settings.role, str(settings.model)
    base = str(settings.base_url).rstrip("/")
    url = public_url(base)
    headers = _headers(settings)
    with httpx.Client(transport=transport, headers=headers) as client:
        try:
            listing = client.get(base + "/models", timeout=min(LIST_TIMEOUT_S, settings.timeout_s))
        except httpx.HTTPError as exc:
            raise _fail(role, url, _connection_reason(exc, min(LIST_TIMEOUT_S, settings.timeout_s))) from None
        if listing.status_code in (401, 403):
            raise _fail(role, url, f"HTTP {listing.status_code}: the endpoint refused the API key{_body_head(listing)}")
        listed = _listed_models(listing) if listing.status_code == 200 else None
        if listed is not None and model in listed:
            return EndpointCheck(role, url, model, "models list")
        request: dict[str, Any] = {
            "model": model,
            "messages": [{"role": "user", "content": PING_TEXT}],
            "max_tokens": 1,
            "temperature": 0.0,
        }
        try:
            reply = client.post(base + "/chat/completions", json=request, timeout=settings.timeout_s)
        except httpx.HTTPError as exc:
            raise _fail(role, url, _connection_reason(exc, settings.timeout_s)) from None
    if reply.status_code == 200:
        return EndpointCheck(role, url, model, "one-token request")
    said = _body_head(reply)
    if reply.status_code in (401, 403):
        raise _fail(role, url, f"HTTP {reply.status_code}: the endpoint refused the API key{said}")
    if listed is not None and reply.status_code in (400, 404):
        shown = ", ".join(listed[:10]) + (f" and {len(listed) - 10} more" if len(listed) > 10 else "")
        raise _fail(
            role, url,
            f"unknown model {model!r}: the server lists {shown or 'no models'} (HTTP {reply.status_code}){said}",
        )
    if reply.status_code in (404, 405) and listing.status_code in (404, 405):
        raise _fail(
            role, url,
            f"no OpenAI-compatible API there (HTTP {listing.status_code} for /models, {reply.status_code} for "
            f"/chat/completions): is the base URL right? It usually ends in /v1{said}",
        )
    raise _fail(role, url, f"HTTP {reply.status_code} for a one-token request to model {model!r}{said}")


def check_roles(
    roles: Iterable[LLMRoleSettings], *, transport: httpx.BaseTransport | None = None
) -> list[EndpointCheck]:
    """Check each distinct (endpoint, model, key) once, in the order given; the first failure raises."""
    done: dict[tuple[str, str, str], EndpointCheck] = {}
    checks: list[EndpointCheck] = []
    for settings in roles:
        key = (str(settings.base_url), str(settings.model), settings.resolved_api_key())
        if key in done:
            first = done[key]
            checks.append(EndpointCheck(settings.role, first.url, first.model, f"as role {first.role!r}"))
            continue
        done[key] = check_role(settings, transport=transport)
        checks.append(done[key])
    return checks
