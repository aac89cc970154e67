"""Queries against users' databases: run SQL, or compile a QueryPlan and run it, recorded.

Every execution goes through `sources.executor.execute_query` on the query pool, with the
limits from the settings and the target's access policy, and is recorded whether it
succeeds or fails.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError
from dataagent.semantic.compiler import CompiledQuery, compile_plan
from dataagent.semantic.plan import QueryPlan
from dataagent.services.connections import QueryTarget, ontology_target, resolve_target
from dataagent.services.context import AppContext
from dataagent.services.ontologies import ready_model
from dataagent.sources.executor import execute_query
from dataagent.sources.results import QueryError, QueryResult
from dataagent.store import query_records, shares
from dataagent.store.models import QueryRecord
from dataagent.vocabulary import QueryMode


@dataclass(frozen=True)
class RecordedQuery:
    """What came back, and the record that keeps it."""

    result: QueryResult
    record: QueryRecord


@dataclass(frozen=True)
class CompiledPlan:
    """A QueryPlan compiled for its ontology's dialect, and the run when it was executed."""

    compiled: CompiledQuery
    run: RecordedQuery | None = None


async def run_and_record(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    target: QueryTarget,
    sql: str,
    *,
    max_rows: int | None = None,
    pilot: bool = False,
    question: str | None = None,
    mode: QueryMode = "sql",
    plan: dict[str, Any] | None = None,
    dataset_version: str | None = None,
    run_id: uuid.UUID | None = None,
) -> RecordedQuery:
    """Run SQL on the query pool and keep its record, whether it succeeds or fails.

    `run_id` links the record to the agent run that asked for it. A failure is re-raised
    once recorded, with the record's id in the error's details (`runId`). A user over their
    share of the pool gets RATE_LIMITED before anything runs (and nothing is recorded).
    """
    settings = ctx.settings

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
            shared=target.shared,
        )

    error: QueryError | None = None
    try:
        result = await ctx.query_pool.run(owner_id, run)
    except QueryError as exc:
        error, result = exc, exc.result
    record = await query_records.add_query_record(
        session,
        owner_id,
        result,
        connection_id=target.connection_id,
        ontology_id=target.ontology_id,
        mode=mode,
        plan=plan,
        question=question,
        dataset_version=dataset_version,
        run_id=run_id,
    )
    await session.commit()
    if error is not None:
        raise DataAgentError(error.code, error.message, {"runId": str(record.id)})
    return RecordedQuery(result, record)


async def run_sql(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    sql: str,
    *,
    connection_id: uuid.UUID | None = None,
    ontology_id: uuid.UUID | None = None,
    max_rows: int | None = None,
) -> RecordedQuery:
    """Run SQL on one of the caller's connections, or on the connection of an ontology they
    reach, limited to its datasets."""
    target = await resolve_target(ctx, session, owner_id, connection_id, ontology_id)
    return await run_and_record(ctx, session, owner_id, target, sql, max_rows=max_rows)


async def compile_and_run(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    ontology_id: uuid.UUID,
    plan: QueryPlan,
    *,
    execute: bool = False,
    max_rows: int | None = None,
    question: str | None = None,
    run_id: uuid.UUID | None = None,
) -> CompiledPlan:
    """Compile a QueryPlan against a ready ontology the caller reaches; with `execute`, run
    it too (under their database role, recorded as theirs).

    `run_id`, as for `run_and_record`, links the query's record to the agent run that asked.
    """
    access = await shares.reach(session, owner_id, ontology_id)
    model = ready_model(access.ontology)
    compiled = compile_plan(plan, model, model.dialect)
    if not execute:
        return CompiledPlan(compiled)
    target = await ontology_target(ctx, session, access)
    run = await run_and_record(
        ctx,
        session,
        owner_id,
        target,
        compiled.sql,
        max_rows=max_rows,
        question=question,
        mode="plan",
        plan=plan.model_dump(mode="json"),
        run_id=run_id,
    )
    return CompiledPlan(compiled, run)


async def get_query_record(
    session: AsyncSession, owner_id: uuid.UUID, record_id: uuid.UUID
) -> QueryRecord:
    """One of the caller's query records (run capsules), or NOT_FOUND."""
    return await query_records.get_query_record(session, owner_id, record_id)
