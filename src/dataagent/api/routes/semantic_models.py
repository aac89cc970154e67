"""Semantic models (`semantic_models:*`, owner only): generate from a connection, edit YAML."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Response
from pydantic import Field

from dataagent.api.deps import CipherDep, QueryPoolDep
from dataagent.api.schemas import ERROR_RESPONSES, POOL_RESPONSES, ApiInput, ApiModel, Envelope
from dataagent.auth.dependencies import SessionDep, SettingsDep, require
from dataagent.auth.permissions import Permission
from dataagent.store import connections, semantic_models
from dataagent.store.models import SemanticModelRecord, User
from dataagent.store.targets import connection_target

router = APIRouter(
    prefix="/api/semantic-models", tags=["semantic-models"], responses=ERROR_RESPONSES
)
Reader = Annotated[User, Depends(require(Permission.SEMANTIC_MODELS_READ))]
Writer = Annotated[User, Depends(require(Permission.SEMANTIC_MODELS_WRITE))]


class SemanticModelSummary(ApiModel):
    """A semantic model without its YAML."""

    id: uuid.UUID
    name: str
    description: str | None
    connection_id: uuid.UUID | None
    dialect: str
    dataset_count: int
    relationship_count: int
    created_at: datetime
    updated_at: datetime


class SemanticModelPublic(SemanticModelSummary):
    """A semantic model with its YAML."""

    yaml: str


class SemanticModelCreate(ApiInput):
    """Generate a model from one of the caller's connections."""

    connection_id: uuid.UUID
    name: str = Field(min_length=1, max_length=255)
    description: str | None = Field(None, max_length=10_000)


class SemanticModelUpdate(ApiInput):
    """A new name, description or YAML (validated; errors point at line and field)."""

    name: str | None = Field(None, min_length=1, max_length=255)
    description: str | None = Field(None, max_length=10_000)
    yaml: str | None = Field(None, min_length=1, max_length=20_000_000)


def _full(record: SemanticModelRecord) -> SemanticModelPublic:
    return SemanticModelPublic.model_validate(record)


@router.get("", operation_id="listSemanticModels")
async def list_models(user: Reader, session: SessionDep) -> Envelope[list[SemanticModelSummary]]:
    """The caller's semantic models."""
    rows = await semantic_models.list_semantic_models(session, user.id)
    return Envelope(data=[SemanticModelSummary.model_validate(r) for r in rows])


@router.post("", status_code=201, operation_id="createSemanticModel", responses=POOL_RESPONSES)
async def create_model(
    user: Writer,
    session: SessionDep,
    settings: SettingsDep,
    cipher: CipherDep,
    pool: QueryPoolDep,
    body: SemanticModelCreate,
) -> Envelope[SemanticModelPublic]:
    """Introspect a connection and generate its semantic model (deterministic, no LLM)."""
    connection = await connections.get_connection(session, user.id, body.connection_id)
    target = connection_target(connection, cipher, settings)
    record = await semantic_models.create_from_connection(
        session,
        pool,
        user.id,
        connection.id,
        target.spec,
        target.policy,
        body.name,
        body.description,
    )
    return Envelope(data=_full(record))


@router.get("/{model_id}", operation_id="getSemanticModel")
async def get_model(
    user: Reader, session: SessionDep, model_id: uuid.UUID
) -> Envelope[SemanticModelPublic]:
    """One semantic model with its YAML."""
    return Envelope(
        data=_full(await semantic_models.get_semantic_model(session, user.id, model_id))
    )


@router.patch("/{model_id}", operation_id="updateSemanticModel")
async def update_model(
    user: Writer, session: SessionDep, model_id: uuid.UUID, body: SemanticModelUpdate
) -> Envelope[SemanticModelPublic]:
    """Change the name, description or YAML."""
    record = await semantic_models.get_semantic_model(session, user.id, model_id)
    record = await semantic_models.update_semantic_model(
        session, record, body.name, body.description, body.yaml
    )
    return Envelope(data=_full(record))


@router.delete("/{model_id}", status_code=204, operation_id="deleteSemanticModel")
async def delete_model(user: Writer, session: SessionDep, model_id: uuid.UUID) -> Response:
    """Delete a semantic model."""
    record = await semantic_models.get_semantic_model(session, user.id, model_id)
    await semantic_models.delete_semantic_model(session, record)
    return Response(status_code=204)
