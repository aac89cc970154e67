"""Semantic models (`semantic_models:*`, owner only): generate from a connection, edit YAML."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Response

from dataagent.api.deps import ContextDep, SemanticModelReader, SemanticModelWriter, SessionDep
from dataagent.api.schemas import ERROR_RESPONSES, POOL_RESPONSES, Envelope
from dataagent.api.schemas.semantic_models import (
    SemanticModelCreate,
    SemanticModelPublic,
    SemanticModelRegenerated,
    SemanticModelSummary,
    SemanticModelUpdate,
)
from dataagent.services import semantic_models

router = APIRouter(
    prefix="/api/semantic-models", tags=["semantic-models"], responses=ERROR_RESPONSES
)


@router.get("", operation_id="listSemanticModels")
async def list_models(
    user: SemanticModelReader, session: SessionDep
) -> Envelope[list[SemanticModelSummary]]:
    """The caller's semantic models."""
    rows = await semantic_models.list_semantic_models(session, user.id)
    return Envelope(data=[SemanticModelSummary.model_validate(r) for r in rows])


@router.post("", status_code=201, operation_id="createSemanticModel", responses=POOL_RESPONSES)
async def create_model(
    user: SemanticModelWriter, context: ContextDep, session: SessionDep, body: SemanticModelCreate
) -> Envelope[SemanticModelPublic]:
    """Introspect a connection and generate its semantic model (deterministic, no LLM)."""
    record = await semantic_models.create_from_connection(
        context, session, user.id, body.connection_id, body.name, body.description
    )
    return Envelope(data=SemanticModelPublic.model_validate(record))


@router.get("/{model_id}", operation_id="getSemanticModel")
async def get_model(
    user: SemanticModelReader, session: SessionDep, model_id: uuid.UUID
) -> Envelope[SemanticModelPublic]:
    """One semantic model with its YAML."""
    record = await semantic_models.get_semantic_model(session, user.id, model_id)
    return Envelope(data=SemanticModelPublic.model_validate(record))


@router.patch("/{model_id}", operation_id="updateSemanticModel")
async def update_model(
    user: SemanticModelWriter, session: SessionDep, model_id: uuid.UUID, body: SemanticModelUpdate
) -> Envelope[SemanticModelPublic]:
    """Change the name, description or YAML."""
    record = await semantic_models.update_semantic_model(
        session, user.id, model_id, body.name, body.description, body.yaml
    )
    return Envelope(data=SemanticModelPublic.model_validate(record))


@router.post(
    "/{model_id}/regenerate", operation_id="regenerateSemanticModel", responses=POOL_RESPONSES
)
async def regenerate_model(
    user: SemanticModelWriter, context: ContextDep, session: SessionDep, model_id: uuid.UUID
) -> Envelope[SemanticModelRegenerated]:
    """Introspect the connection again and merge the new generation into the model: edits,
    deletions and additions of yours are kept; the answer lists every change."""
    record, changes = await semantic_models.regenerate_semantic_model(
        context, session, user.id, model_id
    )
    public = SemanticModelPublic.model_validate(record)
    return Envelope(data=SemanticModelRegenerated(**public.model_dump(), changes=changes))


@router.delete("/{model_id}", status_code=204, operation_id="deleteSemanticModel")
async def delete_model(
    user: SemanticModelWriter, session: SessionDep, model_id: uuid.UUID
) -> Response:
    """Delete a semantic model."""
    await semantic_models.delete_semantic_model(session, user.id, model_id)
    return Response(status_code=204)
