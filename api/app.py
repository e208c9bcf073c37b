"""The FastAPI application: GraphQL at /graphql, the graph browser at /browser, the adjudication page at
/adjudicate, report pages at /reports/,
health at /healthz and readiness at /readyz. `create_app()` is also the uvicorn factory."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from neo4j import AsyncDriver, Driver

from api import exchanges, health, reports
from api.error_shield import ErrorShieldMiddleware
from api.graphql_body import GraphQLBodyMiddleware
from api.graphql_router import ColabenchGraphQLRouter
from api.request_limits import BodySizeLimitMiddleware
from api.request_log import RequestLogMiddleware, configure_logging, log
from api.resources import Resources, open_async_driver
from api.response_cache import ResponseCache, ResponseCacheMiddleware
from api.schema import QueryLimits, build_schema
from api.schema.context import ApiContext, check_bearer
from api.security_headers import SecurityHeadersMiddleware
from api.settings import ApiSettings
from graph.settings import Neo4jSettings
from graph.version import __version__

if TYPE_CHECKING:
    from graph.embeddings import CachedEncoder

STATIC_DIR = Path(__file__).resolve().parent / "static"


def create_app(
    settings: ApiSettings | None = None,
    neo4j: Neo4jSettings | None = None,
    *,
    async_driver: AsyncDriver | None = None,
    sync_driver: Driver | None = None,
    encoder: CachedEncoder | None = None,
    configure_logs: bool = True,
) -> FastAPI:
    """The API app. Drivers are opened at startup (or passed in by tests) and closed at shutdown."""
    settings = settings or ApiSettings()
    neo4j = neo4j or Neo4jSettings()
    if configure_logs:
        configure_logging(settings.log_json)
    app = FastAPI(
        title="colabench provenance API",
        version=__version__,
        lifespan=_lifespan(settings, neo4j, async_driver, sync_driver, encoder),
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    _add_routes(app, settings)
    _add_pages(app)
    _add_middleware(app, settings)
    return app


def _lifespan(
    settings: ApiSettings,
    neo4j: Neo4jSettings,
    async_driver: AsyncDriver | None,
    sync_driver: Driver | None,
    encoder: CachedEncoder | None,
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's lifespan: open the resources (and warm the retriever when mutations are on) at startup, close
    them and the exchange store at shutdown."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        driver = async_driver or open_async_driver(neo4j)
        resources = Resources(
            settings, neo4j, driver, sync_driver=sync_driver, encoder=encoder, owns_async_driver=async_driver is None
        )
        app.state.resources = resources
        log.info(
            "api started",
            extra={
                "neo4j": neo4j.effective_uri,
                "mutations": settings.mutations_enabled,
                "cors_origins": settings.cors_origins,
                "reports_dir": str(settings.effective_reports_dir),
            },
        )
        if settings.mutations_enabled:
            # Appends update memory through the retriever: load it in the background, off the request path.
            asyncio.get_running_loop().run_in_executor(None, resources.warm_up)
        try:
            yield
        finally:
            await resources.close()
            kept = getattr(app.state, "exchanges", None)
            if kept is not None:
                kept.close()

    return lifespan


def _add_routes(app: FastAPI, settings: ApiSettings) -> None:
    """GraphQL at /graphql (with the settings' query limits and the caller's bearer token in its context), the
    health, reports and exchanges routers, and the static files."""

    async def graphql_context(request: Request) -> ApiContext:
        resources: Resources = request.app.state.resources
        auth = check_bearer(request.headers.get("authorization"), settings.token)
        return ApiContext(resources, auth, getattr(request.state, "request_id", "-"))

    limits = QueryLimits(
        max_depth=settings.max_depth,
        max_tokens=settings.max_tokens,
        max_aliases=settings.max_aliases,
        max_cost=settings.max_cost,
        introspection=settings.introspection,
    )
    graphql = ColabenchGraphQLRouter(
        build_schema(limits), context_getter=graphql_context, graphql_ide=None, multipart_uploads_enabled=False
    )
    app.include_router(graphql, prefix="/graphql")
    app.include_router(health.router)
    app.include_router(reports.router)
    app.include_router(exchanges.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")


def _add_pages(app: FastAPI) -> None:
    """The static pages: the graph browser, the exchange viewer, the adjudication page, and / -> /browser."""

    @app.get("/browser", include_in_schema=False)
    async def browser() -> FileResponse:
        return FileResponse(STATIC_DIR / "browser.html", media_type="text/html")

    @app.get("/exchange", include_in_schema=False)
    async def exchange_page() -> FileResponse:
        return FileResponse(STATIC_DIR / "exchange.html", media_type="text/html")

    @app.get("/adjudicate", include_in_schema=False)
    async def adjudicate_page() -> FileResponse:
        # A static page: every case it shows comes from GraphQL calls that need the API token.
        return FileResponse(STATIC_DIR / "adjudicate.html", media_type="text/html")

    @app.get("/", include_in_schema=False)
    async def root() -> RedirectResponse:
        return RedirectResponse("/browser")


def _add_middleware(app: FastAPI, settings: ApiSettings) -> None:
    """The middleware stack, the response cache (when the settings keep one) innermost."""
    # Added innermost first (the last added runs first): request log -> security headers -> error shield (an
    # uncaught exception still answers JSON 500 with headers and id) -> body size limit -> CORS -> GraphQL body
    # shape (a malformed body is refused with 400 before strawberry parses it) -> response cache -> app, so cached
    # answers still get ids, logs, size checks and headers.
    if settings.response_cache_entries > 0:
        cache = ResponseCache(settings.response_cache_entries, settings.response_cache_mib * 1024 * 1024)
        app.state.response_cache = cache

        async def head_seq() -> int:
            resources: Resources = app.state.resources
            return await resources.reader.head_seq()

        app.add_middleware(
            ResponseCacheMiddleware,
            cache=cache,
            head_seq=head_seq,
            token=settings.token,
            reveal_gold=settings.reveal_reference_answers,
        )
    app.add_middleware(GraphQLBodyMiddleware, path="/graphql")
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type", "X-Request-ID"],
            max_age=600,
        )
    app.add_middleware(BodySizeLimitMiddleware, max_bytes=settings.max_body_bytes)
    app.add_middleware(ErrorShieldMiddleware)
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(RequestLogMiddleware)
