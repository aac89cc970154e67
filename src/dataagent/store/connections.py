"""Connections to users' databases: owner-scoped, credentials encrypted at rest."""

from __future__ import annotations

import uuid
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.access import AccessPolicy
from dataagent.sources.credentials import CredentialCipher
from dataagent.sources.engines import FILE_DIALECTS, ConnectionSpec
from dataagent.store import audit
from dataagent.store.models import Connection
from dataagent.store.ownership import get_owned
from dataagent.store.types import utcnow

# Connections Data Agent made itself for a file it keeps (an upload, the demo database):
# their file may lie in the data directory, and nobody may point them anywhere else.
MANAGED_KINDS = frozenset({"files", "demo"})


def private_paths(settings: Settings) -> list[Path]:
    """What no connection may open: the data directory, and the app database wherever it is."""
    paths = [settings.data_dir]
    url = make_url(settings.resolved_database_url)
    if url.get_backend_name() == "sqlite" and url.database:
        db = Path(url.database)
        paths += [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
    return paths


def access_policy(
    settings: Settings, kind: str = "database", spec: ConnectionSpec | None = None
) -> AccessPolicy:
    """The access policy for opening a connection of this kind on this server."""
    own: list[Path] = []
    if kind in MANAGED_KINDS and spec is not None and spec.dialect in FILE_DIALECTS:
        own.append(Path(spec.endpoint().database or ""))
    return AccessPolicy.server(
        file_roots=settings.file_roots,
        private_roots=private_paths(settings),
        own_files=own,
        allow_privileged=settings.allow_privileged_accounts,
    )


def check_editable(connection: Connection) -> None:
    """Refuse new credentials for a connection Data Agent manages (an upload's, the demo's)."""
    if connection.kind in MANAGED_KINDS:
        raise DataAgentError(
            ErrorCode.CONFLICT,
            "This connection belongs to an uploaded dataset (or the demo); its file cannot "
            "be changed. Rename it, or upload the files again.",
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
