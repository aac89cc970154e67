"""Shares of an ontology (its owner's, or an admin's to manage): someone it is shared with
may read it and ask about it, nothing else. Anyone else, a grantee included, gets 404."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, Response

from dataagent.api.deps import ContextDep, OntologyReader, OntologyWriter, SessionDep
from dataagent.api.schemas import ERROR_RESPONSES, POOL_RESPONSES, Envelope, ErrorBody
from dataagent.api.schemas.shares import ShareCreate, SharePublic, share_public
from dataagent.services import shares

router = APIRouter(prefix="/api/ontologies", tags=["ontologies"], responses=ERROR_RESPONSES)
_CREATE_RESPONSES: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorBody, "description": "Shared with this user or group already"},
    **POOL_RESPONSES,
}


@router.get("/{ontology_id}/shares", operation_id="listOntologyShares")
async def list_shares(
    user: OntologyReader, session: SessionDep, ontology_id: uuid.UUID
) -> Envelope[list[SharePublic]]:
    """Who the ontology is shared with, oldest share first."""
    rows = await shares.list_shares(session, user, ontology_id)
    return Envelope(data=[share_public(r) for r in rows])


@router.post(
    "/{ontology_id}/shares",
    status_code=201,
    operation_id="createOntologyShare",
    responses=_CREATE_RESPONSES,
)
async def create_share(
    user: OntologyWriter,
    context: ContextDep,
    session: SessionDep,
    ontology_id: uuid.UUID,
    body: ShareCreate,
) -> Envelope[SharePublic]:
    """Share the ontology with a user or a group, optionally under a PostgreSQL role
    (checked against the database now, and at each query)."""
    row = await shares.create_share(
        context, session, user, ontology_id, body.user_id, body.group_id, body.database_role
    )
    return Envelope(data=share_public(row))


@router.delete(
    "/{ontology_id}/shares/{share_id}", status_code=204, operation_id="deleteOntologyShare"
)
async def delete_share(
    user: OntologyWriter, session: SessionDep, ontology_id: uuid.UUID, share_id: uuid.UUID
) -> Response:
    """Revoke a share: in force on the grantee's next request, on every server."""
    await shares.delete_share(session, user, ontology_id, share_id)
    return Response(status_code=204)
