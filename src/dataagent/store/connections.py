"""Connections to users' databases: owner-scoped, credentials encrypted at rest."""

from __future__ import annotations

import uuid
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.credentials import CredentialCipher
from dataagent.sources.engines import FILE_DIALECTS, ConnectionSpec
from dataagent.store import audit
from dataagent.store.models import Connection
from dataagent.store.ownership import get_owned
from dataagent.store.types import utcnow


def check_file_target(spec: ConnectionSpec, protected: list[Path]) -> None:
    """Refuse file connections that would expose the app's own files (its database, keys)."""
    if spec.dialect not in FILE_DIALECTS:
        return
    target = Path(spec.endpoint().database or "").expanduser().resolve()
    for path in protected:
        path = path.resolve()
        if target == path or path in target.parents:
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR, "That file belongs to Data Agent itself."
            )


async def list_connections(session: AsyncSession, owner_id: uuid.UUID) -> list[Connection]:
    """The caller's connections, newest first."""
    rows = await session.scalars(
        select(Connection)
        .where(Connection.owner_id == owner_id)
        .order_by(Connection.created_at.desc(), Connection.id)
    )
    return list(rows)


async def get_connection(
    session: AsyncSession, owner_id: uuid.UUID, connection_id: uuid.UUID
) -> Connection:
    """The caller's connection, or NOT_FOUND."""
    return await get_owned(session, Connection, owner_id, connection_id, "Connection")


async def create_connection(
    session: AsyncSession,
    cipher: CredentialCipher,
    owner_id: uuid.UUID,
    name: str,
    spec: ConnectionSpec,
    kind: str = "database",
) -> Connection:
    """Store a connection with its credentials encrypted, and commit."""
    connection = Connection(
        owner_id=owner_id,
        name=name,
        dialect=spec.dialect,
        kind=kind,
        display=spec.display(),
        secret=cipher.encrypt(spec),
    )
    session.add(connection)
    await session.flush()
    audit.record(session, owner_id, "connection.create", "connection", connection.id)
    await session.commit()
    return connection


async def update_connection(
    session: AsyncSession,
    cipher: CredentialCipher,
    connection: Connection,
    name: str | None,
    spec: ConnectionSpec | None,
) -> Connection:
    """Rename a connection or replace its credentials, and commit."""
    if name is not None:
        connection.name = name
    if spec is not None:
        connection.dialect = spec.dialect
        connection.display = spec.display()
        connection.secret = cipher.encrypt(spec)
        connection.server_version = None
        connection.last_tested_at = None
    audit.record(session, connection.owner_id, "connection.update", "connection", connection.id)
    await session.commit()
    return connection


async def record_test(
    session: AsyncSession, connection: Connection, server_version: str | None
) -> None:
    """Remember when a connection last answered, and with which server version."""
    connection.server_version = server_version
    connection.last_tested_at = utcnow()
    await session.commit()


async def delete_connection(session: AsyncSession, connection: Connection) -> None:
    """Delete a connection (its semantic models keep their YAML), and commit."""
    audit.record(session, connection.owner_id, "connection.delete", "connection", connection.id)
    await session.delete(connection)
    await session.commit()
