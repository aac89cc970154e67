"""Readiness (is the app database answering and migrated?) and the page at `/`."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, JSONResponse

from dataagent import __version__
from dataagent.api.deps import ContextDep

router = APIRouter(tags=["health"])

HOME_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Data Agent</title>
</head>
<body>
<h1>Data Agent</h1>
<p>The server is running. The web page comes later; for now, use the API.</p>
<ul>
<li><a href="/docs">API documentation</a> (<a href="/openapi.json">OpenAPI document</a>)</li>
<li><a href="/api/health">Health check</a></li>
</ul>
</body>
</html>
"""


# `/healthz` is the seeds' path (and what probes expect); both paths are this one function.
@router.get("/api/health", operation_id="health")
@router.get("/healthz", operation_id="healthz")
async def health(context: ContextDep) -> JSONResponse:
    """200 when the app database is reachable, 503 otherwise."""
    ok = await context.database.ping()
    body = {
        "status": "ok" if ok else "unavailable",
        "version": __version__,
        "checks": {"database": "ok" if ok else "unreachable"},
    }
    return JSONResponse(body, status_code=200 if ok else 503)


@router.get("/", include_in_schema=False)
async def home() -> HTMLResponse:
    """A small page saying what runs here, until the web page is built."""
    return HTMLResponse(HOME_PAGE)
