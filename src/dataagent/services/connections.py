"""Connections to users' databases: create, change, test, and resolve what a query runs on.

The access policy comes from here: what a connection of a kind may open on this server
(`DATAAGENT_FILE_ROOTS`, the private data directory, the file a managed connection owns,
whether privileged accounts are allowed). The demo set-up obeys it like everyone else.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.config import Settings
from dataagent.dialects import FILE_DIALECTS
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.services.context import AppContext
from dataagent.services.ontologies import ready_model
from dataagent.sources.access import AccessPolicy
from dataagent.sources.engines import ConnectionCheck, ConnectionSpec, check_access
from dataagent.sources.engines import test_connection as check_connection
from dataagent.store import connections, semantic_models, shares
from dataagent.store.models import Connection
from dataagent.store.shares import OntologyAccess
from dataagent.vocabulary import MANAGED_CONNECTION_KINDS, ConnectionKind


@dataclass(frozen=True)
class QueryTarget:
    """A decrypted connection, what it may open (with the asker's database role, for a
    grantee whose share names one), and the ontology's table allow-list."""

    spec: ConnectionSpec
    policy: AccessPolicy
    connection_id: uuid.UUID
    ontology_id: uuid.UUID | None = None
    allowed_tables: list[str] | None = None
    # True when the asker is not the connection's owner: nothing about the connection (its
    # host, account, URL) may reach them, in an answer or an error.
    shared: bool = False


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
    """The access policy for opening a connection of this kind on this server.

    A managed connection (an upload's, the demo's) may open exactly its own file, even in
    the data directory; nobody can point it elsewhere (`update_connection` refuses).
    """
    own: list[Path] = []
    if kind in MANAGED_CONNECTION_KINDS and spec is not None and spec.dialect in FILE_DIALECTS:
        own.append(Path(spec.endpoint().database or ""))
    return AccessPolicy.server(
        file_roots=settings.file_roots,
        private_roots=private_paths(settings),
        own_files=own,
        allow_privileged=settings.allow_privileged_accounts,
    )


def build_spec(values: dict[str, Any]) -> ConnectionSpec:
    """A validated ConnectionSpec; errors say what is wrong without echoing secrets."""
    try:
        return ConnectionSpec.model_validate(values)
    except ValidationError as exc:
        reasons = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR, f"Invalid connection: {reasons}."
        ) from None


async def _checked_spec(
    ctx: AppContext, owner_id: uuid.UUID, values: dict[str, Any]
) -> ConnectionSpec:
    """A spec the access policy allows: a file inside the admin's roots, a reachable server
    that does not log in as a privileged account (an unreachable one is checked when used)."""
    spec = build_spec(values)
    await ctx.query_pool.run(owner_id, check_access, spec, access_policy(ctx.settings))
    return spec


async def list_connections(session: AsyncSession, owner_id: uuid.UUID) -> list[Connection]:
    """The caller's connections, newest first."""
    return await connections.list_connections(session, owner_id)


async def get_connection(
    session: AsyncSession, owner_id: uuid.UUID, connection_id: uuid.UUID
) -> Connection:
    """The caller's connection, or NOT_FOUND."""
    return await connections.get_connection(session, owner_id, connection_id)


async def create_connection(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    name: str,
    values: dict[str, Any],
) -> Connection:
    """Check and store a connection (credentials encrypted at rest), and commit."""
    spec = await _checked_spec(ctx, owner_id, values)
    connection = await connections.add_connection(session, ctx.cipher, owner_id, name, spec)
    await session.commit()
    return connection


async def add_managed_connection(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    name: str,
    spec: ConnectionSpec,
    kind: ConnectionKind,
) -> Connection:
    """A connection Data Agent makes for a file it keeps (flushed, not committed: the caller
    commits it with what it belongs to)."""
    return await connections.add_connection(session, ctx.cipher, owner_id, name, spec, kind)


async def update_connection(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    connection_id: uuid.UUID,
    name: str | None,
    changes: dict[str, Any],
) -> Connection:
    """Rename a connection, or merge new credential fields (`dialect` included) over the
    stored ones (a new `url` replaces the parts it implies); checked like a new one."""
    connection = await connections.get_connection(session, owner_id, connection_id)
    spec = None
    if changes:
        if connection.kind in MANAGED_CONNECTION_KINDS:
            raise DataAgentError(
                ErrorCode.CONFLICT,
                "This connection belongs to an uploaded dataset (or the demo); its file cannot "
                "be changed. Rename it, or upload the files again.",
            )
        current = ctx.cipher.decrypt(connection.secret)
        values = {k: v for k, v in current.model_dump().items() if v is not None}
        if "url" in changes:  # a new URL replaces the parts it implies
            values = {"dialect": values["dialect"]}
        values.update(changes)
        spec = await _checked_spec(ctx, owner_id, values)
    connections.change_connection(session, connection, ctx.cipher, name, spec)
    await session.commit()
    return connection


async def delete_connection(
    session: AsyncSession, owner_id: uuid.UUID, connection_id: uuid.UUID
) -> None:
    """Delete a connection (its semantic models keep their YAML), and commit."""
    connection = await connections.get_connection(session, owner_id, connection_id)
    await connections.delete_connection(session, connection)
    await session.commit()


async def test_connection(
    ctx: AppContext, session: AsyncSession, owner_id: uuid.UUID, connection_id: uuid.UUID
) -> ConnectionCheck:
    """Try to reach the database under the access policy; remember when it answered."""
    connection = await connections.get_connection(session, owner_id, connection_id)
    target = connection_target(ctx, connection)
    check = await ctx.query_pool.run(owner_id, check_connection, target.spec, target.policy)
    if check.ok:
        connections.record_test(connection, check.server_version)
        await session.commit()
    return check


test_connection.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def connection_target(ctx: AppContext, connection: Connection) -> QueryTarget:
    """The decrypted spec of a connection the caller owns, with its access policy."""
    spec = ctx.cipher.decrypt(connection.secret)
    policy = access_policy(ctx.settings, connection.kind, spec)
    return QueryTarget(spec, policy, connection.id)


async def ontology_target(
    ctx: AppContext, session: AsyncSession, access: OntologyAccess
) -> QueryTarget:
    """Where a ready ontology's queries run: its semantic model's connection (its owner's,
    whoever asks), limited to the ontology's datasets, under the asker's database role."""
    ontology = access.ontology
    allowed = [d.source for d in ready_model(ontology).datasets]
    connection_id = (
        await semantic_models.connection_of(session, access.owner_id, ontology.semantic_model_id)
        if ontology.semantic_model_id
        else None
    )
    if connection_id is None:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, "The ontology has no connection to query.")
    connection = await connections.get_connection(session, access.owner_id, connection_id)
    target = connection_target(ctx, connection)
    return replace(
        target,
        policy=replace(target.policy, database_role=access.database_role),
        ontology_id=ontology.id,
        allowed_tables=allowed,
        shared=access.kind == "shared",
    )


async def resolve_target(
    ctx: AppContext,
    session: AsyncSession,
    user_id: uuid.UUID,
    connection_id: uuid.UUID | None,
    ontology_id: uuid.UUID | None,
) -> QueryTarget:
    """Where a query runs: one of the caller's connections, or the connection of an
    ontology they reach (their own or shared), limited to its datasets."""
    if ontology_id is not None:
        return await ontology_target(
            ctx, session, await shares.reach(session, user_id, ontology_id)
        )
    if connection_id is None:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, "Give a connection or an ontology.")
    connection = await connections.get_connection(session, user_id, connection_id)
    return connection_target(ctx, connection)
