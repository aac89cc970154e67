"""Semantic models: generated from a connection (introspection, no LLM), edited as YAML."""

from __future__ import annotations

import uuid
from collections import Counter

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.curation import ModelChange, merge_models
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
    text = dump_yaml(model)
    record = await semantic_models.add_semantic_model(
        session, owner_id, connection.id, name, description, model, text, text
    )
    await session.commit()
    return record


async def regenerate_semantic_model(
    ctx: AppContext, session: AsyncSession, owner_id: uuid.UUID, model_id: uuid.UUID
) -> tuple[SemanticModelRecord, list[ModelChange]]:
    """Introspect the model's connection again (on the query pool) and merge the new
    generation into the stored model, keeping people's edits; store both, say what changed."""
    record = await semantic_models.get_semantic_model(session, owner_id, model_id)
    if record.connection_id is None:
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR,
            "The semantic model has no connection to read from (it was deleted); "
            "create a new model from a connection instead.",
        )
    connection = await connections.get_connection(session, owner_id, record.connection_id)
    target = connection_target(ctx, connection)
    theirs = await ctx.query_pool.run(
        owner_id,
        introspect_and_generate,
        target.spec,
        target.policy,
        record.name,
        record.description,
    )
    base = _generated_base(record)
    model, changes = merge_models(base, load_yaml(record.yaml), theirs)
    semantic_models.set_model(record, model, dump_yaml(model))
    record.generated_yaml = dump_yaml(theirs)
    audit.record(
        session,
        record.owner_id,
        "semantic_model.regenerate",
        "semantic_model",
        record.id,
        dict(Counter(c.change for c in changes)),
    )
    await session.commit()
    return record, changes


def _generated_base(record: SemanticModelRecord) -> SemanticModel | None:
    """The generation the stored model started from; None when unknown (stored before
    generations were kept) or no longer valid under today's rules."""
    if record.generated_yaml is None:
        return None
    try:
        return load_yaml(record.generated_yaml)
    except DataAgentError:
        return None


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
