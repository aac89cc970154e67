"""The FastAPI application factory."""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from dataagent import __version__
from dataagent.api.errors import BodyLimitMiddleware, install_error_handlers
from dataagent.api.routes import (
    auth,
    chats,
    connections,
    datasets,
    health,
    ontologies,
    query,
    semantic_models,
    users,
)
from dataagent.auth.login_limits import LoginLimiter
from dataagent.config import Settings
from dataagent.llm.embeddings import provider_from_settings
from dataagent.sandbox import sandbox_from_settings
from dataagent.sources import isolation
from dataagent.sources.credentials import CredentialCipher
from dataagent.sources.pool import QueryPool
from dataagent.store.database import Database

log = logging.getLogger(__name__)


def create_app(settings: Settings) -> FastAPI:
    """Build the app for these settings; the app database must already be migrated."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # DuckDB queries run in children of a fork server; start it before the first one.
        await app.state.query_pool.run(None, isolation.warm_up)
        # The sandbox's zygotes start in the background: seconds each, not worth waiting for.
        app.state.sandbox.warm_up()
        yield
        await app.state.sandbox.aclose()
        app.state.query_pool.shutdown()
        await app.state.database.dispose()

    app = FastAPI(
        title="Data Agent",
        version=__version__,
        summary="Ask questions of your databases in plain language.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.database = Database(settings.resolved_database_url)
    app.state.secret_key = settings.resolved_secret_key()
    app.state.cipher = CredentialCipher(app.state.secret_key)
    app.state.query_pool = QueryPool(settings.query_max_concurrency, settings.query_max_per_user)
    app.state.login_limiter = LoginLimiter.from_settings(settings)
    # Refuses executions (not start-up) when bubblewrap is missing and unsafe mode is off.
    app.state.sandbox = sandbox_from_settings(settings)
    # Loaded on first use: the local model takes about a second to read.
    app.state.embeddings = functools.cache(lambda: provider_from_settings(settings))

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
    routers = (
        health.router,
        auth.router,
        users.router,
        chats.router,
        connections.router,
        datasets.router,
        semantic_models.router,
        ontologies.router,
        query.router,
    )
    for router in routers:
        app.include_router(router)
    return app
