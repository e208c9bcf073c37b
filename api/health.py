"""Liveness (`/healthz`: the process answers) and readiness (`/readyz`: Neo4j answers and holds a log)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from api.errors import ServiceUnavailableError
from api.resources import Resources
from graph.version import __version__

router = APIRouter()


@router.get("/healthz", include_in_schema=False)
async def healthz() -> dict[str, str]:
    return {"status": "ok", "version": __version__}


@router.get("/readyz", include_in_schema=False)
async def readyz(request: Request) -> JSONResponse:
    resources: Resources = request.app.state.resources
    cache = getattr(request.app.state, "response_cache", None)
    try:
        head_seq = await resources.reader.head_seq()
        incomplete = await resources.reader.rows("incomplete_ingests")
    except ServiceUnavailableError as exc:
        return JSONResponse({"status": "unavailable", "neo4j": str(exc)}, status_code=503)
    return JSONResponse(
        {
            "status": "ready",
            "neo4j": "ok",
            "log_head_seq": head_seq,
            # an interrupted ingest: the graph may lack part of that input until it is ingested again
            "incomplete_ingests": incomplete,
            "mutations": "enabled" if resources.settings.mutations_enabled else "disabled (no API token configured)",
            "response_cache": cache.stats() if cache is not None else "off",
        }
    )
