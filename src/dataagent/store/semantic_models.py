"""Semantic models: owner-scoped rows holding each model's YAML."""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.semantic.model import SemanticModel
from dataagent.store import audit
from dataagent.store.models import SemanticModelRecord
from dataagent.store.ownership import get_owned


def set_model(record: SemanticModelRecord, model: SemanticModel, text: str) -> None:
    """Store a model's YAML and the counts shown beside it (the generator's base stays)."""
    record.yaml = text
    record.dialect = model.dialect
    record.dataset_count = len(model.datasets)
    record.relationship_count = len(model.relationships)


async def add_semantic_model(
    session: AsyncSession,
    owner_id: uuid.UUID,
    connection_id: uuid.UUID | None,
    name: str,
    description: str | None,
    model: SemanticModel,
    text: str,
    generated_text: str | None = None,
) -> SemanticModelRecord:
    """Add a semantic model (flushed, with its audit event); `generated_text` is the
    generator's output it started from, when it was generated."""
    record = SemanticModelRecord(
        owner_id=owner_id,
        connection_id=connection_id,
        name=name,
        description=description,
        generated_yaml=generated_text,
    )
    set_model(record, model, text)
    session.add(record)
    await session.flush()
    audit.record(session, owner_id, "semantic_model.create", "semantic_model", record.id)
    return record


async def list_semantic_models(
    session: AsyncSession, owner_id: uuid.UUID
) -> list[SemanticModelRecord]:
    """The owner's semantic models, newest first."""
    rows = await session.scalars(
        select(SemanticModelRecord)
        .where(SemanticModelRecord.owner_id == owner_id)
        .order_by(SemanticModelRecord.created_at.desc(), SemanticModelRecord.id)
    )
    return list(rows)


async def get_semantic_model(
    session: AsyncSession, owner_id: uuid.UUID, model_id: uuid.UUID
) -> SemanticModelRecord:
    """The owner's semantic model, or NOT_FOUND."""
    return await get_owned(session, SemanticModelRecord, owner_id, model_id, "Semantic model")


async def connection_of(
    session: AsyncSession, owner_id: uuid.UUID, model_id: uuid.UUID
) -> uuid.UUID | None:
    """The connection the owner's semantic model reads from; None when it has none or is not
    theirs. Reads that one column, not the model's YAML."""
    return await session.scalar(
        select(SemanticModelRecord.connection_id).where(
            SemanticModelRecord.id == model_id, SemanticModelRecord.owner_id == owner_id
        )
    )


async def delete_semantic_model(session: AsyncSession, record: SemanticModelRecord) -> None:
    """Delete a semantic model (with its audit event)."""
    audit.record(session, record.owner_id, "semantic_model.delete", "semantic_model", record.id)
    await session.delete(record)
