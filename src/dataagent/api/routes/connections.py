"""Connections to users' databases (`connections:*`, owner only). Secrets never come back."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Response
from pydantic import ConfigDict, Field, SecretStr, ValidationError

from dataagent.api.deps import CipherDep, QueryPoolDep
from dataagent.api.schemas import (
    ERROR_RESPONSES,
    POOL_RESPONSES,
    ApiInput,
    ApiModel,
    Envelope,
    ErrorBody,
)
from dataagent.auth.dependencies import SessionDep, SettingsDep, require
from dataagent.auth.permissions import Permission
from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.engines import FILE_DIALECTS, ConnectionSpec, check_access, test_connection
from dataagent.sources.policy import DIALECT_ALIASES, DIALECTS
from dataagent.sources.pool import QueryPool
from dataagent.store import connections
from dataagent.store.models import Connection, User
from dataagent.store.targets import connection_target

router = APIRouter(prefix="/api/connections", tags=["connections"], responses=ERROR_RESPONSES)
Reader = Annotated[User, Depends(require(Permission.CONNECTIONS_READ))]
Writer = Annotated[User, Depends(require(Permission.CONNECTIONS_WRITE))]


class ConnectionPublic(ApiModel):
    """A connection as the API shows it: never a password or a URL with one."""

    id: uuid.UUID
    name: str
    dialect: str
    kind: str
    display: str
    server_version: str | None
    last_tested_at: datetime | None
    created_at: datetime
    updated_at: datetime


class CredentialFields(ApiInput):
    """Either `url`, or host / port / database / username / password."""

    url: SecretStr | None = Field(None, min_length=1, max_length=4096)
    host: str | None = Field(None, min_length=1, max_length=255)
    port: int | None = Field(None, ge=1, le=65535)
    database: str | None = Field(None, min_length=1, max_length=4096)
    username: str | None = Field(None, min_length=1, max_length=255)
    password: SecretStr | None = Field(None, max_length=1024)

    def credential_values(self) -> dict[str, Any]:
        """The credential fields that were given."""
        return {
            k: getattr(self, k) for k in CredentialFields.model_fields if k in self.model_fields_set
        }


def _url_matches_dialect(schema: dict[str, Any]) -> None:
    """Write the spec's rules into the schema: each dialect's URL schemes, and without a URL,
    a file path (SQLite, DuckDB) or a host and database name (servers)."""
    no_url = {"url": {"type": "null"}}
    rules: list[dict[str, Any]] = [
        {
            "if": {
                "properties": {"dialect": {"enum": sorted(FILE_DIALECTS)}, **no_url},
                "required": ["dialect"],
            },
            "then": {"required": ["database"], "properties": {"database": {"type": "string"}}},
        },
        {
            "if": {
                "properties": {
                    "dialect": {"enum": [d for d in DIALECTS if d not in FILE_DIALECTS]},
                    **no_url,
                },
                "required": ["dialect"],
            },
            "then": {
                "required": ["host", "database"],
                "properties": {"host": {"type": "string"}, "database": {"type": "string"}},
            },
        },
    ]
    for dialect in DIALECTS:
        schemes = sorted(a for a, d in DIALECT_ALIASES.items() if d == dialect)
        pattern = f"^({'|'.join(schemes)})(\\+[a-z0-9]+)?://"
        rules.append(
            {
                "if": {"properties": {"dialect": {"const": dialect}}, "required": ["dialect"]},
                "then": {"properties": {"url": {"pattern": pattern}}},
            }
        )
    schema["allOf"] = rules


class ConnectionCreate(CredentialFields):
    """A new connection."""

    model_config = ConfigDict(json_schema_extra=_url_matches_dialect)

    name: str = Field(min_length=1, max_length=255)
    dialect: Literal["postgresql", "sqlite", "duckdb", "mysql"]


class ConnectionUpdate(CredentialFields):
    """A new name, or new credentials (merged over the stored ones)."""

    name: str | None = Field(None, min_length=1, max_length=255)
    dialect: Literal["postgresql", "sqlite", "duckdb", "mysql"] | None = None


class ConnectionTestResult(ApiModel):
    """Whether the database answered, and its version."""

    ok: bool
    server_version: str | None
    error: str | None
    error_code: str | None


async def build_spec(
    values: dict[str, Any], settings: Settings, pool: QueryPool, owner_id: uuid.UUID
) -> ConnectionSpec:
    """A validated ConnectionSpec the access policy allows; errors never echo secrets.

    A file must lie inside the admin's roots; a reachable server must not log in as a
    privileged account (an unreachable one is checked when it is first used).
    """
    try:
        spec = ConnectionSpec.model_validate(values)
    except ValidationError as exc:
        reasons = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR, f"Invalid connection: {reasons}."
        ) from None
    await pool.run(owner_id, check_access, spec, connections.access_policy(settings))
    return spec


def _public(connection: Connection) -> ConnectionPublic:
    return ConnectionPublic.model_validate(connection)


@router.get("", operation_id="listConnections")
async def list_connections(user: Reader, session: SessionDep) -> Envelope[list[ConnectionPublic]]:
    """The caller's connections."""
    return Envelope(data=[_public(c) for c in await connections.list_connections(session, user.id)])


@router.post("", status_code=201, operation_id="createConnection", responses=POOL_RESPONSES)
async def create_connection(
    user: Writer,
    session: SessionDep,
    settings: SettingsDep,
    cipher: CipherDep,
    pool: QueryPoolDep,
    body: ConnectionCreate,
) -> Envelope[ConnectionPublic]:
    """Store a connection; its credentials are encrypted at rest."""
    values = {"dialect": body.dialect, **body.credential_values()}
    spec = await build_spec(values, settings, pool, user.id)
    connection = await connections.create_connection(session, cipher, user.id, body.name, spec)
    return Envelope(data=_public(connection))


@router.get("/{connection_id}", operation_id="getConnection")
async def get_connection(
    user: Reader, session: SessionDep, connection_id: uuid.UUID
) -> Envelope[ConnectionPublic]:
    """One of the caller's connections."""
    return Envelope(data=_public(await connections.get_connection(session, user.id, connection_id)))


@router.patch(
    "/{connection_id}",
    operation_id="updateConnection",
    responses={
        **POOL_RESPONSES,
        409: {"model": ErrorBody, "description": "An upload's connection: rename only"},
    },
)
async def update_connection(
    user: Writer,
    session: SessionDep,
    settings: SettingsDep,
    cipher: CipherDep,
    pool: QueryPoolDep,
    connection_id: uuid.UUID,
    body: ConnectionUpdate,
) -> Envelope[ConnectionPublic]:
    """Rename a connection or change its credentials."""
    connection = await connections.get_connection(session, user.id, connection_id)
    spec = None
    changes = body.credential_values()
    if changes or body.dialect:
        connections.check_editable(connection)
        current = cipher.decrypt(connection.secret)
        values = {k: v for k, v in current.model_dump().items() if v is not None}
        if "url" in changes:  # a new URL replaces the parts it implies
            values = {"dialect": values["dialect"]}
        values.update({k: v for k, v in changes.items() if v is not None})
        if body.dialect:
            values["dialect"] = body.dialect
        spec = await build_spec(values, settings, pool, user.id)
    connection = await connections.update_connection(session, cipher, connection, body.name, spec)
    return Envelope(data=_public(connection))


@router.delete("/{connection_id}", status_code=204, operation_id="deleteConnection")
async def delete_connection(
    user: Writer, session: SessionDep, connection_id: uuid.UUID
) -> Response:
    """Delete a connection."""
    connection = await connections.get_connection(session, user.id, connection_id)
    await connections.delete_connection(session, connection)
    return Response(status_code=204)


@router.post("/{connection_id}/test", operation_id="testConnection", responses=POOL_RESPONSES)
async def check_connection(
    user: Reader,
    session: SessionDep,
    settings: SettingsDep,
    cipher: CipherDep,
    pool: QueryPoolDep,
    connection_id: uuid.UUID,
) -> Envelope[ConnectionTestResult]:
    """Try to reach the database; report its version or a sanitised error."""
    connection = await connections.get_connection(session, user.id, connection_id)
    target = connection_target(connection, cipher, settings)
    check = await pool.run(user.id, test_connection, target.spec, target.policy)
    if check.ok:
        await connections.record_test(session, connection, check.server_version)
    return Envelope(
        data=ConnectionTestResult(
            ok=check.ok,
            server_version=check.server_version,
            error=check.error,
            error_code=check.error_code,
        )
    )
