"""Run capsules (seed 004): every SQL execution against a user's database is recorded here."""

from __future__ import annotations

import uuid
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.config import Settings
from dataagent.errors import DataAgentError
from dataagent.sources.executor import execute_query
from dataagent.sources.pool import QueryPool
from dataagent.sources.results import QueryError, QueryResult
from dataagent.store.models import QueryRun
from dataagent.store.ownership import get_owned
from dataagent.store.targets import QueryTarget

PREVIEW_ROWS = 5


def _summary(result: QueryResult) -> dict[str, Any]:
    return {
        "columns": result.columns,
        "preview": result.rows[:PREVIEW_ROWS],
        "tables": result.tables,
        "truncatedBy": result.truncated_by,
        "pilot": result.pilot,
    }


async def execute_and_record(
    session: AsyncSession,
    settings: Settings,
    pool: QueryPool,
    owner_id: uuid.UUID,
    target: QueryTarget,
    sql: str,
    *,
    max_rows: int | None = None,
    pilot: bool = False,
    question: str | None = None,
    mode: Literal["sql", "plan"] = "sql",
    plan: dict[str, Any] | None = None,
    dataset_version: str | None = None,
) -> tuple[QueryResult, QueryRun]:
    """Run SQL through the executor on the query pool and store its run capsule.

    The capsule is stored whether the query succeeds or fails; a failure is re-raised after
    it is recorded, with the run id in the error's details. A user over their share of the
    pool gets RATE_LIMITED before anything runs (and nothing is recorded).
    """

    def run() -> QueryResult:
        return execute_query(
            target.spec,
            sql,
            policy=target.policy,
            allowed_tables=target.allowed_tables,
            max_rows=max_rows or settings.query_max_rows,
            timeout_s=settings.query_timeout_s,
            max_bytes=settings.query_max_bytes,
            max_cell_chars=settings.query_max_cell_chars,
            memory_mb=settings.query_memory_mb,
            pilot=pilot,
        )

    error: QueryError | None = None
    try:
        result = await pool.run(owner_id, run)
    except QueryError as exc:
        error, result = exc, exc.result
    record = QueryRun(
        owner_id=owner_id,
        connection_id=target.connection_id,
        ontology_id=target.ontology_id,
        dataset_version=dataset_version,
        question=question,
        mode=mode,
        plan=plan,
        sql=sql,
        compiled_sql=result.executed_sql,
        status=result.status,
        row_count=result.row_count,
        truncated=result.truncated,
        result_summary=_summary(result),
        error_code=result.error_code,
        error_message=result.error_message,
        execution_ms=result.execution_ms,
    )
    session.add(record)
    await session.commit()
    if error is not None:
        raise DataAgentError(error.code, error.message, {"runId": str(record.id)})
    return result, record


async def get_run(session: AsyncSession, owner_id: uuid.UUID, run_id: uuid.UUID) -> QueryRun:
    """The caller's run capsule, or NOT_FOUND."""
    return await get_owned(session, QueryRun, owner_id, run_id, "Run")
