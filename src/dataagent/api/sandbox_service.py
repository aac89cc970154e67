"""The sandbox as its own HTTP service: `POST /execute` and `GET /health` (the seed's API).

In the API room because it is a web app; the sandbox it serves is `dataagent.sandbox`.
"""

from __future__ import annotations

import base64
import binascii
import hmac
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

import pandas as pd
import pyarrow as pa
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag

from dataagent.api.errors import install_error_handlers
from dataagent.config import Settings
from dataagent.errors import HTTP_STATUS, DataAgentError, ErrorCode
from dataagent.sandbox.pool import LocalSandbox
from dataagent.sandbox.tables import decode_frame

MAX_CODE_CHARS = 200_000
MAX_TIMEOUT_S = 600.0
MAX_OWNER_CHARS = 200
TABLE_SHAPES = (
    'a table is a list of records, {"records": [...]} or {"arrow": "<base64 Arrow IPC stream>"}'
)

Records = Annotated[
    list[dict[str, Any]],
    Field(title="Records", description="The seeds' shape: one JSON object per row."),
]


class RecordsTable(BaseModel):
    """A table as a list of JSON records under `records`."""

    model_config = ConfigDict(extra="forbid")

    records: Records


class ArrowTable(BaseModel):
    """A table as base64 Arrow IPC stream bytes: column types survive (RemoteSandbox sends this)."""

    model_config = ConfigDict(extra="forbid")

    arrow: str = Field(description="An Arrow IPC stream, base64-encoded.")


def _table_shape(value: Any) -> str | None:
    """Which of the three shapes a table is in (None: none of them, refused with 400)."""
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        return key if key in ("records", "arrow") else None
    if isinstance(value, RecordsTable | ArrowTable):
        return "records" if isinstance(value, RecordsTable) else "arrow"
    return None


TableIn = Annotated[
    Annotated[Records, Tag("list")]
    | Annotated[RecordsTable, Tag("records")]
    | Annotated[ArrowTable, Tag("arrow")],
    Discriminator(_table_shape, custom_error_type="table_shape", custom_error_message=TABLE_SHAPES),
]


def table_frame(table: list[dict[str, Any]] | RecordsTable | ArrowTable) -> pd.DataFrame:
    """The table as a DataFrame; undecodable Arrow data is a VALIDATION_ERROR."""
    if isinstance(table, list):
        return pd.DataFrame.from_records(table)
    if isinstance(table, RecordsTable):
        return pd.DataFrame.from_records(table.records)
    try:
        return decode_frame(base64.b64decode(table.arrow, validate=True))
    except (binascii.Error, pa.ArrowException, ValueError, OSError) as exc:
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR, "A table is not valid Arrow data."
        ) from exc


class ExecuteRequest(BaseModel):
    """The seed's request: code and a timeout in seconds, plus named tables and an owner."""

    code: str = Field(max_length=MAX_CODE_CHARS)
    timeout: float | None = Field(None, gt=0, le=MAX_TIMEOUT_S)
    owner: str | None = Field(
        None,
        max_length=MAX_OWNER_CHARS,
        description=(
            "Who the run is for (the app sends the person's id): each owner gets a fair "
            "share of the sandbox. Requests without one share one anonymous share."
        ),
    )
    data: dict[str, TableIn] | None = Field(
        None,
        description="Tables by variable name: " + TABLE_SHAPES + ".",
        examples=[{"df": [{"col1": 1, "col2": 2}]}],
    )


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

    install_error_handlers(app)

    @app.get("/health", operation_id="sandbox_health")
    async def health() -> JSONResponse:
        status = pool.status()
        code = 200 if pool.available else 503
        return JSONResponse({"status": "ok" if pool.available else "unavailable", **status}, code)

    @app.post("/execute", operation_id="sandbox_execute")
    async def execute(body: ExecuteRequest) -> JSONResponse:
        frames = {name: table_frame(table) for name, table in (body.data or {}).items()}
        result = await pool.execute(
            body.code, frames or None, timeout_s=body.timeout, owner=body.owner
        )
        status = HTTP_STATUS[result.error.code] if result.error else 200
        return JSONResponse(result.to_wire(), status_code=status)

    return app
