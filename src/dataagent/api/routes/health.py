"""Readiness: is the app database answering? (The page at `/` is `api/web.py`.)"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from dataagent import __version__
from dataagent.api.deps import ContextDep

router = APIRouter(tags=["health"])


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
