"""Connections to users' databases (`connections:*`, owner only). Secrets never come back."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, Response

from dataagent.api.deps import ConnectionReader, ConnectionWriter, ContextDep, SessionDep
from dataagent.api.schemas import ERROR_RESPONSES, POOL_RESPONSES, Envelope, ErrorBody
from dataagent.api.schemas.connections import (
    ConnectionCreate,
    ConnectionPublic,
    ConnectionTestResult,
    ConnectionUpdate,
    connection_public,
)
from dataagent.services import connections

router = APIRouter(prefix="/api/connections", tags=["connections"], responses=ERROR_RESPONSES)
_MANAGED: dict[int | str, dict[str, Any]] = {
    **POOL_RESPONSES,
    409: {"model": ErrorBody, "description": "An upload's connection: rename only"},
}


@router.get("", operation_id="listConnections")
async def list_connections(
    user: ConnectionReader, session: SessionDep
) -> Envelope[list[ConnectionPublic]]:
    """The caller's connections."""
    found = await connections.list_connections(session, user.id)
    return Envelope(data=[connection_public(c) for c in found])


@router.post("", status_code=201, operation_id="createConnection", responses=POOL_RESPONSES)
async def create_connection(
    user: ConnectionWriter, context: ContextDep, session: SessionDep, body: ConnectionCreate
) -> Envelope[ConnectionPublic]:
    """Store a connection; its credentials are encrypted at rest."""
    values = {"dialect": body.dialect, **body.credential_values()}
    connection = await connections.create_connection(context, session, user.id, body.name, values)
    return Envelope(data=connection_public(connection))


@router.get("/{connection_id}", operation_id="getConnection")
async def get_connection(
    user: ConnectionReader, session: SessionDep, connection_id: uuid.UUID
) -> Envelope[ConnectionPublic]:
    """One of the caller's connections."""
    connection = await connections.get_connection(session, user.id, connection_id)
    return Envelope(data=connection_public(connection))


@router.patch("/{connection_id}", operation_id="updateConnection", responses=_MANAGED)
async def update_connection(
    user: ConnectionWriter,
    context: ContextDep,
    session: SessionDep,
    connection_id: uuid.UUID,
    body: ConnectionUpdate,
) -> Envelope[ConnectionPublic]:
    """Rename a connection or change its credentials."""
    changes = {k: v for k, v in body.credential_values().items() if v is not None}
    if body.dialect:
        changes["dialect"] = body.dialect
    connection = await connections.update_connection(
        context, session, user.id, connection_id, body.name, changes
    )
    return Envelope(data=connection_public(connection))


@router.delete("/{connection_id}", status_code=204, operation_id="deleteConnection")
async def delete_connection(
    user: ConnectionWriter, session: SessionDep, connection_id: uuid.UUID
) -> Response:
    """Delete a connection."""
    await connections.delete_connection(session, user.id, connection_id)
    return Response(status_code=204)


@router.post("/{connection_id}/test", operation_id="testConnection", responses=POOL_RESPONSES)
async def check_connection(
    user: ConnectionReader, context: ContextDep, session: SessionDep, connection_id: uuid.UUID
) -> Envelope[ConnectionTestResult]:
    """Try to reach the database; report its version or a sanitised error."""
    check = await connections.test_connection(context, session, user.id, connection_id)
    return Envelope(
        data=ConnectionTestResult(
            ok=check.ok,
            server_version=check.server_version,
            error=check.error,
            error_code=check.error_code,
        )
    )
