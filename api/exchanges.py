"""`GET /exchanges/<hash>`: one kept LLM exchange (the exact request a model was sent, and its reply) as JSON,
the target of the "exact request" links of reports and the graph browser.

Judge and synthesis exchanges hold gold (the reference answer, a profile's private facts) and follow the
rule of every other gold field (`gold_visible`): the request carries the API token, or the server reveals
reference answers; otherwise 403. Other roles' requests (the answering agent, memory building, the state
summary) show only what that role was shown and are served to everyone.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from api.schema.context import check_bearer, gold_visible

if TYPE_CHECKING:
    from agents.llm.exchanges import ExchangeStore

router = APIRouter()


def _store(request: Request) -> ExchangeStore | None:
    """The data directory's exchange store (opened once per app), or None when nothing was kept yet."""
    from agents.llm.exchanges import ExchangeStore
    from agents.llm.settings import LLMGlobalSettings

    store: ExchangeStore | None = getattr(request.app.state, "exchanges", None)
    if store is None:
        path = LLMGlobalSettings().exchanges_path
        if not path.exists():
            return None
        store = ExchangeStore(path)
        request.app.state.exchanges = store
    return store


@router.get("/exchanges/{key}", include_in_schema=False)
async def exchange(request: Request, key: str) -> Response:
    # Imported here: the LLM layer (the openai SDK) stays out of the API's start-up.
    from agents.llm.exchanges import GOLD_ROLES, ExchangeNotFoundError, check_exchange_hash
    from graph.format_version import FormatVersionError

    try:
        check_exchange_hash(key)
    except ExchangeNotFoundError as exc:
        raise HTTPException(status_code=400, detail=str(exc)) from exc
    store = _store(request)
    if store is None:
        raise HTTPException(status_code=404, detail=f"no LLM exchange {key!r}: no exchange store yet")
    try:
        role = await run_in_threadpool(store.role_of, key)
        settings = request.app.state.resources.settings
        visible = gold_visible(settings, check_bearer(request.headers.get("authorization"), settings.token))
        if role in GOLD_ROLES and not visible:
            raise HTTPException(
                status_code=403,
                detail=f"this {role} exchange holds gold: send the API token as a bearer token",
            )
        shown = await run_in_threadpool(store.show, key)
    except ExchangeNotFoundError as exc:
        raise HTTPException(status_code=404, detail=str(exc)) from exc
    except FormatVersionError as exc:
        # Said without the store's path (the API shows no path of the machine).
        raise HTTPException(
            status_code=500,
            detail=f"the LLM exchange store has format version {exc.found}, newer than the supported version "
            f"{exc.supported}: serve it with a newer colabench",
        ) from exc
    headers = {"Vary": "Authorization", "Cache-Control": "no-store" if role in GOLD_ROLES else "no-cache"}
    body = json.dumps(shown, ensure_ascii=False, indent=2, sort_keys=True).encode("utf-8")
    return Response(body, media_type="application/json", headers=headers)
