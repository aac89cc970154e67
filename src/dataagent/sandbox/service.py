"""The sandbox as its own HTTP service: `POST /execute` and `GET /health` (the seed's API)."""

from __future__ import annotations

import base64
import binascii
import hmac
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pandas as pd
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, model_validator

from dataagent.config import Settings
from dataagent.errors import HTTP_STATUS, DataAgentError, ErrorCode
from dataagent.sandbox.pool import LocalSandbox
from dataagent.sandbox.tables import decode_frame

MAX_CODE_CHARS = 200_000
MAX_TIMEOUT_S = 600.0


class TableIn(BaseModel):
    """One table: base64 Arrow IPC stream bytes (`arrow`) or a list of JSON records."""

    arrow: str | None = None
    records: list[dict[str, Any]] | None = None

    @model_validator(mode="after")
    def _one_form(self) -> TableIn:
        if (self.arrow is None) == (self.records is None):
            raise ValueError("give exactly one of 'arrow' or 'records'")
        return self

    def frame(self) -> pd.DataFrame:
        """The table as a DataFrame."""
        if self.records is not None:
            return pd.DataFrame.from_records(self.records)
        try:
            return decode_frame(base64.b64decode(self.arrow or "", validate=True))
        except (binascii.Error, ValueError, OSError) as exc:
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR, "A table is not valid Arrow data."
            ) from exc


class ExecuteRequest(BaseModel):
    """The seed's request: code and a timeout in seconds, plus named tables."""

    code: str = Field(max_length=MAX_CODE_CHARS)
    timeout: float | None = Field(None, gt=0, le=MAX_TIMEOUT_S)
    data: dict[str, TableIn] | None = None


def create_app(
    settings: Settings, *, sandbox: LocalSandbox | None = None, token: str | None = None
) -> FastAPI:
    """The sandbox service; with `token`, every request needs `Authorization: Bearer <token>`."""
    pool = sandbox or LocalSandbox.from_settings(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await pool.start()
        try:
            yield
        finally:
            await pool.aclose()

    app = FastAPI(title="Data Agent sandbox", lifespan=lifespan)

    @app.middleware("http")
    async def authorise(request: Request, call_next: Any) -> Any:
        if token and request.url.path != "/health":
            given = request.headers.get("authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                error = DataAgentError(ErrorCode.UNAUTHORIZED, "A valid sandbox token is required.")
                return JSONResponse(error.to_body(), status_code=error.status)
        return await call_next(request)

    @app.exception_handler(DataAgentError)
    async def on_error(_: Request, exc: DataAgentError) -> JSONResponse:
        return JSONResponse(exc.to_body(), status_code=exc.status)

    @app.get("/health", operation_id="sandbox_health")
    async def health() -> JSONResponse:
        status = pool.status()
        code = 200 if pool.available else 503
        return JSONResponse({"status": "ok" if pool.available else "unavailable", **status}, code)

    @app.post("/execute", operation_id="sandbox_execute")
    async def execute(body: ExecuteRequest) -> JSONResponse:
        frames = {name: table.frame() for name, table in (body.data or {}).items()}
        result = await pool.execute(body.code, frames or None, timeout_s=body.timeout)
        status = HTTP_STATUS[result.error.code] if result.error else 200
        return JSONResponse(result.to_wire(), status_code=status)

    return app
