"""Run read-only SQL through the executor (`POST /api/query`) and read run capsules."""

from __future__ import annotations

import uuid

from fastapi import APIRouter

from dataagent.api.deps import ConnectionReader, ContextDep, SessionDep
from dataagent.api.schemas import ERROR_RESPONSES, POOL_RESPONSES, Envelope
from dataagent.api.schemas.queries import QueryInput, QueryOutput, QueryRecordPublic, query_output
from dataagent.services import queries

router = APIRouter(prefix="/api", tags=["query"], responses=ERROR_RESPONSES)


@router.post("/query", operation_id="runQuery", responses=POOL_RESPONSES)
async def run_query(
    user: ConnectionReader, context: ContextDep, session: SessionDep, body: QueryInput
) -> Envelope[QueryOutput]:
    """Run one read-only statement; a policy violation is a 400 SQL_POLICY_VIOLATION."""
    recorded = await queries.run_sql(
        context,
        session,
        user.id,
        body.sql,
        connection_id=body.connection_id,
        ontology_id=body.ontology_id,
        max_rows=body.max_rows,
    )
    return Envelope(data=query_output(recorded))


@router.get("/runs/{run_id}", operation_id="getRun")
async def get_run(
    user: ConnectionReader, session: SessionDep, run_id: uuid.UUID
) -> Envelope[QueryRecordPublic]:
    """One of the caller's run capsules (query records)."""
    record = await queries.get_query_record(session, user.id, run_id)
    return Envelope(data=QueryRecordPublic.model_validate(record))
