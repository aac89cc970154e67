"""The FastAPI application factory."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Lifespan

from dataagent import __version__
from dataagent.api.errors import BodyLimitMiddleware, install_error_handlers
from dataagent.api.mcp_server import McpEndpoint
from dataagent.api.routes import (
    admin,
    agent,
    agent_server,
    auth,
    charts,
    chats,
    connections,
    datasets,
    groups,
    health,
    llm,
    ontologies,
    preferences,
    query,
    reports,
    runs,
    semantic_models,
    shares,
    users,
)
from dataagent.api.security_headers import SecurityHeadersMiddleware
from dataagent.api.web import WebPageRoute
from dataagent.config import Settings
from dataagent.runs.system import RunSystem
from dataagent.services.context import AppContext
from dataagent.sources import isolation

log = logging.getLogger(__name__)

ROUTERS = (
    health.router,
    auth.router,
    auth.me_router,
    users.router,
    groups.router,
    chats.router,
    preferences.router,
    reports.router,
    agent.router,
    agent_server.router,
    runs.router,
    charts.router,
    connections.router,
    datasets.router,
    semantic_models.router,
    ontologies.router,
    shares.router,
    query.router,
    admin.router,
    llm.router,
)


class DataAgentApp(FastAPI):
    """FastAPI with the security headers outermost, on the 500s of unhandled errors too.

    (`add_middleware` would place them inside Starlette's ServerErrorMiddleware.)
    """

    def build_middleware_stack(self) -> ASGIApp:
        """The usual stack, wrapped in the security headers."""
        return SecurityHeadersMiddleware(super().build_middleware_stack())


def create_app(settings: Settings) -> FastAPI:
    """Build the app for these settings; the app database must already be migrated."""
    context = AppContext.from_settings(settings)
    # Answers and ontology builds run as durable runs (the context's builds go on them).
    run_system = RunSystem.install(context)
    # The MCP server's streamable HTTP transport, at /mcp (docs/mcp.md).
    mcp = McpEndpoint(run_system)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Runs (answers, builds) a stopped server left are failed as interrupted, now and
        # periodically after (also those of another process that died), never stuck.
        await run_system.start()
        # DuckDB queries run in children of a fork server; start it before the first one.
        await context.query_pool.run(None, isolation.warm_up)
        # The sandbox's zygotes start in the background: seconds each, not worth waiting for.
        context.sandbox.warm_up()
        async with mcp.running():
            yield
        await run_system.stop()
        await context.aclose()

    app = _app_with_routes(lifespan)
    app.state.context = context
    app.state.runs = run_system

    install_error_handlers(app)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_credentials=True,
            allow_methods=["*"],
            allow_headers=["*"],
        )
    app.add_middleware(
        BodyLimitMiddleware,
        max_json_bytes=settings.max_body_bytes,
        max_upload_bytes=settings.upload_max_bytes,
    )
    app.router.routes.append(mcp.route())
    # Last: every other GET is a page path (client-side routes get the page's index.html).
    app.router.routes.append(WebPageRoute(settings.web_dir))
    return app


def openapi_document() -> dict[str, Any]:
    """The HTTP API's OpenAPI document, from the routes alone.

    No settings, no context: nothing is opened, created or written (no data directory, no
    secret key, no database), so `dataagent openapi` runs anywhere.
    """
    return _app_with_routes(None).openapi()


def _app_with_routes(lifespan: Lifespan[FastAPI] | None) -> FastAPI:
    app = DataAgentApp(
        title="Data Agent",
        version=__version__,
        summary="Ask questions of your databases in plain language.",
        lifespan=lifespan,
    )
    for router in ROUTERS:
        app.include_router(router)
    return app
