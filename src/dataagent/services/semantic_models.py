"""Semantic models: generated from a connection (introspection, no LLM), edited as YAML."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.semantic.generation import generate_semantic_model
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.yaml_io import dump_yaml, load_yaml
from dataagent.services.connections import connection_target
from dataagent.services.context import AppContext
from dataagent.sources.access import AccessPolicy
from dataagent.sources.engines import ConnectionSpec
from dataagent.sources.introspection import introspect
from dataagent.store import audit, connections, semantic_models
from dataagent.store.models import SemanticModelRecord


def introspect_and_generate(
    spec: ConnectionSpec, policy: AccessPolicy, name: str, description: str | None = None
) -> SemanticModel:
    """Read a database's schema (through the one read-only opener, under the access policy)
    and generate its semantic model. Blocking; deterministic."""
    return generate_semantic_model(introspect(spec, policy), name, spec.dialect, description)


async def create_from_connection(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    connection_id: uuid.UUID,
    name: str,
    description: str | None,
) -> SemanticModelRecord:
    """Introspect one of the caller's connections (on the query pool), store the model."""
    connection = await connections.get_connection(session, owner_id, connection_id)
    target = connection_target(ctx, connection)
    model = await ctx.query_pool.run(
        owner_id, introspect_and_generate, target.spec, target.policy, name, description
    )
    record = await semantic_models.add_semantic_model(
        session, owner_id, connection.id, name, description, model, dump_yaml(model)
    )
    await session.commit()
    return record


async def list_semantic_models(
    session: AsyncSession, owner_id: uuid.UUID
) -> list[SemanticModelRecord]:
    """The caller's semantic models, newest first."""
    return await semantic_models.list_semantic_models(session, owner_id)


async def get_semantic_model(
    session: AsyncSession, owner_id: uuid.UUID, model_id: uuid.UUID
) -> SemanticModelRecord:
    """The caller's semantic model, or NOT_FOUND."""
    return await semantic_models.get_semantic_model(session, owner_id, model_id)


async def update_semantic_model(
    session: AsyncSession,
    owner_id: uuid.UUID,
    model_id: uuid.UUID,
    name: str | None,
    description: str | None,
    yaml_text: str | None,
) -> SemanticModelRecord:
    """Rename, re-describe or replace the YAML (validated: errors name line and field)."""
    record = await semantic_models.get_semantic_model(session, owner_id, model_id)
    if yaml_text is not None:
        semantic_models.set_model(record, load_yaml(yaml_text), yaml_text)
    if name is not None:
        record.name = name
    if description is not None:
        record.description = description
    audit.record(session, record.owner_id, "semantic_model.update", "semantic_model", record.id)
    await session.commit()
    return record


async def delete_semantic_model(
    session: AsyncSession, owner_id: uuid.UUID, model_id: uuid.UUID
) -> None:
    """Delete a semantic model; ontologies built from it keep their own copy."""
    record = await semantic_models.get_semantic_model(session, owner_id, model_id)
    await semantic_models.delete_semantic_model(session, record)
    await session.commit()
