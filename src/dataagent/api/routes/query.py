"""Run read-only SQL through the executor (`POST /api/query`) and read run capsules."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from dataagent.api.deps import CipherDep, QueryPoolDep
from dataagent.api.schemas import ERROR_RESPONSES, POOL_RESPONSES, ApiInput, ApiModel, Envelope
from dataagent.auth.dependencies import SessionDep, SettingsDep, require
from dataagent.auth.permissions import Permission
from dataagent.sources.results import QueryResult
from dataagent.store import runs
from dataagent.store.models import QueryRun, User
from dataagent.store.targets import resolve_target

router = APIRouter(prefix="/api", tags=["query"], responses=ERROR_RESPONSES)
Reader = Annotated[User, Depends(require(Permission.CONNECTIONS_READ))]


class QueryInput(ApiInput):
    """SQL to run against a connection, or an ontology's connection (limited to its tables)."""

    # Exactly one of the two, written into the schema so clients see the rule.
    model_config = ConfigDict(
        json_schema_extra={"oneOf": [{"required": ["connectionId"]}, {"required": ["ontologyId"]}]}
    )

    connection_id: uuid.UUID | SkipJsonSchema[None] = None
    ontology_id: uuid.UUID | SkipJsonSchema[None] = None
    sql: str = Field(min_length=1, max_length=100_000)
    max_rows: int | None = Field(None, ge=1, le=10_000)

    @model_validator(mode="after")
    def _one_target(self) -> QueryInput:
        if (self.connection_id is None) == (self.ontology_id is None):
            raise ValueError("give exactly one of connectionId or ontologyId")
        return self


class QueryOutput(ApiModel):
    """What came back, and the run capsule that records it."""

    run_id: uuid.UUID
    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    truncated: bool
    execution_ms: int
    executed_sql: str | None


def query_output(result: QueryResult, run: QueryRun) -> QueryOutput:
    """The API view of an executed query and its run capsule."""
    return QueryOutput(
        run_id=run.id,
        columns=result.columns,
        rows=result.rows,
        row_count=result.row_count,
        truncated=result.truncated,
        execution_ms=result.execution_ms,
        executed_sql=result.executed_sql,
    )


class RunPublic(ApiModel):
    """A run capsule (seed 004)."""

    id: uuid.UUID
    created_at: datetime
    connection_id: uuid.UUID | None
    ontology_id: uuid.UUID | None
    dataset_version: str | None
    question: str | None
    mode: str
    plan: dict[str, Any] | None
    sql: str
    compiled_sql: str | None
    status: str
    row_count: int
    truncated: bool
    result_summary: dict[str, Any] | None
    error_code: str | None
    error_message: str | None
    execution_ms: int


@router.post("/query", operation_id="runQuery", responses=POOL_RESPONSES)
async def run_query(
    user: Reader,
    session: SessionDep,
    settings: SettingsDep,
    cipher: CipherDep,
    pool: QueryPoolDep,
    body: QueryInput,
) -> Envelope[QueryOutput]:
    """Run one read-only statement; a policy violation is a 400 SQL_POLICY_VIOLATION."""
    target = await resolve_target(
        session, cipher, settings, user.id, body.connection_id, body.ontology_id
    )
    result, run = await runs.execute_and_record(
        session, settings, pool, user.id, target, body.sql, max_rows=body.max_rows
    )
    return Envelope(data=query_output(result, run))


@router.get("/runs/{run_id}", operation_id="getRun")
async def get_run(user: Reader, session: SessionDep, run_id: uuid.UUID) -> Envelope[RunPublic]:
    """One of the caller's run capsules."""
    return Envelope(data=RunPublic.model_validate(await runs.get_run(session, user.id, run_id)))
