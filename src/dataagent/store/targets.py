"""Where a query runs: a connection, or an ontology's connection limited to its datasets."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.credentials import CredentialCipher
from dataagent.sources.engines import ConnectionSpec
from dataagent.store import connections, ontologies
from dataagent.store.models import SemanticModelRecord


@dataclass(frozen=True)
class QueryTarget:
    """A decrypted connection, and the table allow-list when an ontology scopes it."""

    spec: ConnectionSpec
    connection_id: uuid.UUID
    ontology_id: uuid.UUID | None
    allowed_tables: list[str] | None


async def resolve_target(
    session: AsyncSession,
    cipher: CredentialCipher,
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
    return QueryTarget(cipher.decrypt(connection.secret), connection.id, ontology_id, allowed)
