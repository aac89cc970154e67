"""A person's preferences under /api/data-agent/preferences, as seed 001 describes."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Query, Response

from dataagent.api.deps import DataAgentReader, DataAgentWriter, SessionDep
from dataagent.api.schemas import ERROR_RESPONSES, Envelope
from dataagent.api.schemas.preferences import (
    PreferenceCreate,
    PreferencePublic,
    PreferenceUpdate,
    preference_public,
)
from dataagent.services import preferences
from dataagent.store.preferences import PreferenceFilter
from dataagent.vocabulary import PreferenceScope

router = APIRouter(
    prefix="/api/data-agent/preferences", tags=["data-agent"], responses=ERROR_RESPONSES
)

OntologyIdParam = Annotated[uuid.UUID | None, Query(alias="ontologyId")]


@router.get("", operation_id="listPreferences")
async def list_preferences(
    user: DataAgentReader,
    session: SessionDep,
    ontology_id: OntologyIdParam = None,
    scope: PreferenceScope = "all",
) -> Envelope[list[PreferencePublic]]:
    """The caller's preferences, global ones first: `global` (no ontology), `ontology` (that
    ontology's: `ontologyId` required, else 400) or `all` (with `ontologyId`, the global ones
    and that ontology's; without, every one). 404 for an ontology not the caller's."""
    rows = await preferences.list_preferences(
        session, user.id, PreferenceFilter(scope, ontology_id)
    )
    return Envelope(data=[preference_public(row) for row in rows])


@router.post("", status_code=201, operation_id="savePreference")
async def save_preference(
    user: DataAgentWriter, session: SessionDep, body: PreferenceCreate
) -> Envelope[PreferencePublic]:
    """Store a preference, or replace the value (and source) of the caller's one with that key
    in that scope (an upsert: 201 either way). 404 for an ontology not the caller's."""
    preference = await preferences.save(
        session, user.id, body.ontology_id, body.key, body.value, body.source
    )
    return Envelope(data=preference_public(preference))


@router.patch("/{preference_id}", operation_id="updatePreference")
async def update_preference(
    user: DataAgentWriter, session: SessionDep, preference_id: uuid.UUID, body: PreferenceUpdate
) -> Envelope[PreferencePublic]:
    """Give one of the caller's preferences a new value."""
    preference = await preferences.update_value(session, user.id, preference_id, body.value)
    return Envelope(data=preference_public(preference))


@router.delete("/{preference_id}", status_code=204, operation_id="deletePreference")
async def delete_preference(
    user: DataAgentWriter, session: SessionDep, preference_id: uuid.UUID
) -> Response:
    """Delete one of the caller's preferences."""
    await preferences.delete_preference(session, user.id, preference_id)
    return Response(status_code=204)


@router.delete("", status_code=204, operation_id="clearPreferences")
async def clear_preferences(
    user: DataAgentWriter, session: SessionDep, ontology_id: OntologyIdParam = None
) -> Response:
    """Delete the caller's preferences of one ontology, or, without `ontologyId`, all of them
    (global ones included). 404 for an ontology not the caller's."""
    await preferences.clear(session, user.id, ontology_id)
    return Response(status_code=204)
