"""Administration (`users:manage`): seed 000's embedding backfill for one ontology."""

from __future__ import annotations

import uuid

from fastapi import APIRouter

from dataagent.api.deps import Admin, ContextDep, SessionDep
from dataagent.api.schemas import BUILD_RESPONSES, ERROR_RESPONSES, Envelope
from dataagent.api.schemas.ontologies import BackfillResult, ontology_public
from dataagent.services import ontologies

router = APIRouter(prefix="/api/admin", tags=["admin"], responses=ERROR_RESPONSES)


@router.post(
    "/ontologies/{ontology_id}/backfill-embeddings",
    operation_id="backfillOntologyEmbeddings",
    responses=BUILD_RESPONSES,
)
async def backfill_embeddings(
    admin: Admin, context: ContextDep, session: SessionDep, ontology_id: uuid.UUID
) -> Envelope[BackfillResult]:
    """Embed an ontology's datasets again (any user's): what `dataagent ontology backfill`
    does for stale ones. Answers when the build has ended, `ready` or `failed`."""
    ontology = await ontologies.backfill_embeddings(context, session, ontology_id)
    emails = await ontologies.owner_emails(session, {ontology.owner_id})
    # As its owner sees it: an admin reaches every ontology here, and owns it or not.
    shown = ontology_public(ontology, "owner", emails.get(ontology.owner_id, ""))
    return Envelope(data=BackfillResult(ontology=shown))
