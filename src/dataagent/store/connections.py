"""Connections to users' databases: owner-scoped rows, credentials encrypted at rest."""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.sources.credentials import CredentialCipher
from dataagent.sources.engines import ConnectionSpec
from dataagent.store import audit
from dataagent.store.models import Connection
from dataagent.store.ownership import get_owned
from dataagent.store.types import utcnow
from dataagent.vocabulary import ConnectionKind


async def list_connections(session: AsyncSession, owner_id: uuid.UUID) -> list[Connection]:
    """The owner's connections, newest first."""
    rows = await session.scalars(
        select(Connection)
        .where(Connection.owner_id == owner_id)
        .order_by(Connection.created_at.desc(), Connection.id)
    )
    return list(rows)


async def get_connection(
    session: AsyncSession, owner_id: uuid.UUID, connection_id: uuid.UUID
) -> Connection:
    """The owner's connection, or NOT_FOUND."""
    return await get_owned(session, Connection, owner_id, connection_id, "Connection")


async def add_connection(
    session: AsyncSession,
    cipher: CredentialCipher,
    owner_id: uuid.UUID,
    name: str,
    spec: ConnectionSpec,
    kind: ConnectionKind = "database",
) -> Connection:
    """Add a connection with its credentials encrypted (flushed, with its audit event)."""
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
    return connection


def change_connection(
    session: AsyncSession,
    connection: Connection,
    cipher: CredentialCipher,
    name: str | None,
    spec: ConnectionSpec | None,
) -> None:
    """A new name, or new credentials (the last test's results no longer hold)."""
    if name is not None:
        connection.name = name
    if spec is not None:
        connection.dialect = spec.dialect
        connection.display = spec.display()
        connection.secret = cipher.encrypt(spec)
        connection.server_version = None
        connection.last_tested_at = None
    audit.record(session, connection.owner_id, "connection.update", "connection", connection.id)


def record_test(connection: Connection, server_version: str | None) -> None:
    """Remember when a connection last answered, and with which server version."""
    connection.server_version = server_version
    connection.last_tested_at = utcnow()


async def delete_connection(session: AsyncSession, connection: Connection) -> None:
    """Delete a connection (with its audit event)."""
    audit.record(session, connection.owner_id, "connection.delete", "connection", connection.id)
    await session.delete(connection)
