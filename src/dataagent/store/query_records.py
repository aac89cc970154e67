"""Query records (seed 004's run capsules): every SQL execution against a user's database."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.sources.results import QueryResult
from dataagent.store.models import QueryRecord
from dataagent.store.ownership import get_owned
from dataagent.vocabulary import QueryMode

PREVIEW_ROWS = 5


def _summary(result: QueryResult) -> dict[str, Any]:
    return {
        "columns": result.columns,
        "preview": result.rows[:PREVIEW_ROWS],
        "tables": result.tables,
        "truncatedBy": result.truncated_by,
        "pilot": result.pilot,
    }


async def add_query_record(
    session: AsyncSession,
    owner_id: uuid.UUID,
    result: QueryResult,
    *,
    connection_id: uuid.UUID | None,
    ontology_id: uuid.UUID | None,
    mode: QueryMode,
    plan: dict[str, Any] | None = None,
    question: str | None = None,
    dataset_version: str | None = None,
    run_id: uuid.UUID | None = None,
) -> QueryRecord:
    """Add the record of one execution, succeeded or failed (flushed)."""
    record = QueryRecord(
        owner_id=owner_id,
        connection_id=connection_id,
        ontology_id=ontology_id,
        dataset_version=dataset_version,
        question=question,
        mode=mode,
        plan=plan,
        sql=result.sql,
        compiled_sql=result.executed_sql,
        status=result.status,
        row_count=result.row_count,
        truncated=result.truncated,
        result_summary=_summary(result),
        error_code=result.error_code,
        error_message=result.error_message,
        execution_ms=result.execution_ms,
        run_id=run_id,
    )
    session.add(record)
    await session.flush()
    return record


async def get_query_record(
    session: AsyncSession, owner_id: uuid.UUID, record_id: uuid.UUID
) -> QueryRecord:
    """The owner's query record, or NOT_FOUND."""
    return await get_owned(session, QueryRecord, owner_id, record_id, "Run")
