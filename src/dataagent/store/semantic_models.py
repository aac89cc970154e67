"""Semantic models: generated from a connection, edited as YAML, owner-scoped."""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.semantic.generation import generate_semantic_model
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.yaml_io import dump_yaml, load_yaml
from dataagent.sources.access import AccessPolicy
from dataagent.sources.engines import FILE_DIALECTS, ConnectionSpec, check_access
from dataagent.sources.introspection import introspect
from dataagent.sources.pool import QueryPool
from dataagent.store import audit
from dataagent.store.models import SemanticModelRecord
from dataagent.store.ownership import get_owned


def introspect_and_generate(
    spec: ConnectionSpec, policy: AccessPolicy, name: str, description: str | None = None
) -> SemanticModel:
    """Read a database's schema and generate its semantic model (blocking; no LLM).

    The policy is applied first, as on every open: a file must be one the policy allows (its
    resolved path is what is read), and a server account must not be privileged.
    """
    endpoint = spec.endpoint()
    database = endpoint.database
    if spec.dialect in FILE_DIALECTS:
        database = str(policy.check_file(database or ""))
    else:
        check_access(spec, policy, timeout_s=30.0, require_reachable=True)
    parts = {
        "host": endpoint.host,
        "port": endpoint.port,
        "database": database,
        "username": endpoint.username,
        "password": endpoint.password,
    }
    snapshot = introspect(spec.dialect, parts)
    return generate_semantic_model(snapshot, name, spec.dialect, description)


def _apply(record: SemanticModelRecord, model: SemanticModel, text: str) -> None:
    record.yaml = text
    record.dialect = model.dialect
    record.dataset_count = len(model.datasets)
    record.relationship_count = len(model.relationships)


async def create_from_connection(
    session: AsyncSession,
    pool: QueryPool,
    owner_id: uuid.UUID,
    connection_id: uuid.UUID,
    spec: ConnectionSpec,
    policy: AccessPolicy,
    name: str,
    description: str | None,
) -> SemanticModelRecord:
    """Introspect the connection (on the query pool), generate the model and store it."""
    model = await pool.run(owner_id, introspect_and_generate, spec, policy, name, description)
    record = SemanticModelRecord(
        owner_id=owner_id, connection_id=connection_id, name=name, description=description
    )
    _apply(record, model, dump_yaml(model))
    session.add(record)
    await session.flush()
    audit.record(session, owner_id, "semantic_model.create", "semantic_model", record.id)
    await session.commit()
    return record


async def list_semantic_models(
    session: AsyncSession, owner_id: uuid.UUID
) -> list[SemanticModelRecord]:
    """The caller's semantic models, newest first."""
    rows = await session.scalars(
        select(SemanticModelRecord)
        .where(SemanticModelRecord.owner_id == owner_id)
        .order_by(SemanticModelRecord.created_at.desc(), SemanticModelRecord.id)
    )
    return list(rows)


async def get_semantic_model(
    session: AsyncSession, owner_id: uuid.UUID, model_id: uuid.UUID
) -> SemanticModelRecord:
    """The caller's semantic model, or NOT_FOUND."""
    return await get_owned(session, SemanticModelRecord, owner_id, model_id, "Semantic model")


async def update_semantic_model(
    session: AsyncSession,
    record: SemanticModelRecord,
    name: str | None,
    description: str | None,
    yaml_text: str | None,
) -> SemanticModelRecord:
    """Rename, re-describe or replace the YAML (validated: errors name line and field)."""
    if yaml_text is not None:
        _apply(record, load_yaml(yaml_text), yaml_text)
    if name is not None:
        record.name = name
    if description is not None:
        record.description = description
    audit.record(session, record.owner_id, "semantic_model.update", "semantic_model", record.id)
    await session.commit()
    return record


async def delete_semantic_model(session: AsyncSession, record: SemanticModelRecord) -> None:
    """Delete a semantic model; ontologies built from it keep their own copy."""
    audit.record(session, record.owner_id, "semantic_model.delete", "semantic_model", record.id)
    await session.delete(record)
    await session.commit()
