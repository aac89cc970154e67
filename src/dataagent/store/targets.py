"""Where a query runs: a connection, or an ontology's connection limited to its datasets."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.access import AccessPolicy
from dataagent.sources.credentials import CredentialCipher
from dataagent.sources.engines import ConnectionSpec
from dataagent.store import connections, ontologies
from dataagent.store.models import Connection, SemanticModelRecord


@dataclass(frozen=True)
class QueryTarget:
    """A decrypted connection, what it may open, and the ontology's table allow-list."""

    spec: ConnectionSpec
    policy: AccessPolicy
    connection_id: uuid.UUID
    ontology_id: uuid.UUID | None
    allowed_tables: list[str] | None


def connection_target(
    connection: Connection, cipher: CredentialCipher, settings: Settings
) -> QueryTarget:
    """The decrypted spec of a connection the caller owns, with its access policy."""
    spec = cipher.decrypt(connection.secret)
    policy = connections.access_policy(settings, connection.kind, spec)
    return QueryTarget(spec, policy, connection.id, None, None)


async def resolve_target(
    session: AsyncSession,
    cipher: CredentialCipher,
    settings: Settings,
    owner_id: uuid.UUID,
    connection_id: uuid.UUID | None,
    ontology_id: uuid.UUID | None,
) -> QueryTarget:
    """Follow ontology -> semantic model -> connection, checking ownership at each step."""
    allowed: list[str] | None = None
    if ontology_id is not None:
        ontology = await ontologies.get_owned_ontology(session, owner_id, ontology_id)
        model = ontologies.ready_model(ontology)
        allowed = [d.source for d in model.datasets]
        record = (
            await session.get(SemanticModelRecord, ontology.semantic_model_id)
            if ontology.semantic_model_id
            else None
        )
        if record is None or record.connection_id is None or record.owner_id != owner_id:
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR, "The ontology has no connection to query."
            )
        connection_id = record.connection_id
    if connection_id is None:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, "Give a connection or an ontology.")
    connection = await connections.get_connection(session, owner_id, connection_id)
    target = connection_target(connection, cipher, settings)
    return QueryTarget(target.spec, target.policy, connection.id, ontology_id, allowed)
