"""Seed 004's five tools, and the one way the agent server runs a query.

`list_datasets`, `get_dataset_schema`, `execute_query_plan`, `execute_sql` and
`get_run_status` are LangChain tools over one `PlanScope`: the caller, what the question is
about (an ontology or a file dataset: its semantic model and where its queries run), the
question and the run. `run_plan` and `run_sql` are what the two query tools, and the answer
made without a model, execute: a plan is validated (`QueryPlan`), compiled
(`semantic.compiler`), then guarded and run like any SQL, through `services.queries`, which
keeps a run capsule of every query (mode `plan` or `sql`), refused and failed ones included.
SQL runs only when the person asked for SQL (`PlanScope.sql_allowed`).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field, ValidationError

from dataagent.agent.tools import error_text
from dataagent.errors import DataAgentError, ErrorCode, validation_problems
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.plan import QueryPlan
from dataagent.services import queries
from dataagent.services.connections import QueryTarget
from dataagent.services.context import AppContext
from dataagent.sources.results import QueryResult
from dataagent.vocabulary import QueryMode

# Rows of a result the model reads (the response and the capsule keep what the executor
# returned).
MODEL_ROWS = 50
SAMPLE_VALUES = 5
SQL_NOT_ASKED = (
    "Error (VALIDATION_ERROR): SQL runs only when the person asks for SQL; "
    "write a QueryPlan and call execute_query_plan."
)

Stage = Literal["planning", "validating", "executing"]
OnStage = Callable[[Stage], Awaitable[None]]


@dataclass(frozen=True)
class DataSource:
    """What a question is about: one of the caller's ontologies or file datasets, with the
    semantic model the plans are written against and where their queries run."""

    kind: Literal["ontology", "dataset"]
    id: uuid.UUID
    name: str
    model: SemanticModel
    target: QueryTarget
    # A file dataset's version hash, kept on each run capsule.
    version: str | None = None


@dataclass(frozen=True)
class Executed:
    """One query run for an answer: the plan (mode `plan`) or SQL, and its capsule."""

    mode: QueryMode
    plan: dict[str, Any] | None
    compiled_sql: str
    record_id: uuid.UUID
    result: QueryResult


@dataclass
class PlanScope:
    """What one answer's tools work with, and the queries it ran (in order)."""

    ctx: AppContext
    owner_id: uuid.UUID
    source: DataSource
    question: str
    on_stage: OnStage
    run_id: uuid.UUID | None = None
    sql_allowed: bool = False
    executed: list[Executed] = field(default_factory=list)
    # The last query that failed (its error), when no query has succeeded since.
    failure: DataAgentError | None = None


def server_error(exc: DataAgentError) -> DataAgentError:
    """A query's failure as the agent server reports it: the executor's QUERY_TIMEOUT is
    seed 004's RUNNER_TIMEOUT; everything else as it is."""
    if exc.code is ErrorCode.QUERY_TIMEOUT:
        return DataAgentError(ErrorCode.RUNNER_TIMEOUT, exc.message, exc.details)
    return exc


async def _run(
    scope: PlanScope, sql: str, mode: QueryMode, plan: dict[str, Any] | None
) -> Executed:
    ctx = scope.ctx
    await scope.on_stage("executing")
    async with ctx.database.session() as session:
        try:
            recorded = await queries.run_and_record(
                ctx,
                session,
                scope.owner_id,
                scope.source.target,
                sql,
                question=scope.question,
                mode=mode,
                plan=plan,
                dataset_version=scope.source.version,
                run_id=scope.run_id,
            )
        except DataAgentError as exc:
            scope.failure = server_error(exc)
            raise scope.failure from exc
    executed = Executed(mode, plan, sql, recorded.record.id, recorded.result)
    scope.executed.append(executed)
    scope.failure = None
    return executed


async def run_plan(scope: PlanScope, plan: QueryPlan) -> Executed:
    """Compile the plan against the source's model and run it (a capsule of mode `plan`)."""
    await scope.on_stage("validating")
    model = scope.source.model
    try:
        compiled = compile_plan(plan, model, model.dialect)
    except DataAgentError as exc:
        scope.failure = exc
        raise
    return await _run(
        scope, compiled.sql, "plan", plan.model_dump(mode="json", exclude_defaults=True)
    )


async def run_sql(scope: PlanScope, sql: str) -> Executed:
    """Guard and run SQL the person asked for (a capsule of mode `sql`, refused ones too)."""
    await scope.on_stage("validating")
    return await _run(scope, sql, "sql", None)


def result_for_model(executed: Executed) -> str:
    """A query's result as the model reads it: its capsule id, columns and first rows."""
    result = executed.result
    shown = result.rows[:MODEL_ROWS]
    body: dict[str, Any] = {
        "runId": str(executed.record_id),
        "columns": result.columns,
        "rows": shown,
        "rowCount": result.row_count,
    }
    if len(shown) < result.row_count or result.truncated:
        body["note"] = f"Only the first {len(shown)} rows are shown here."
    return json.dumps(body, default=str, ensure_ascii=False)


def dataset_listing(model: SemanticModel) -> str:
    """The model's datasets and metrics, one line each."""
    lines = [
        f"- {d.name}: {d.description or 'no description'} ({len(d.fields)} fields)"
        for d in model.datasets
    ]
    if model.metrics:
        lines.append("Metrics:")
        lines += [f"- {m.name}: {m.label or m.description or m.name}" for m in model.metrics]
    return "\n".join(lines) or "No datasets."


def dataset_schema(model: SemanticModel, name: str) -> str:
    """One dataset's fields (type, sample values) and relationships, as text."""
    dataset = model.dataset(name)
    if dataset is None:
        names = ", ".join(d.name for d in model.datasets)
        raise ToolException(f"Error (NOT_FOUND): no dataset is named {name!r}; use one of {names}.")
    lines = [f"Dataset {dataset.name} (table {dataset.source}): {dataset.description or ''}"]
    for f in dataset.fields:
        samples = ", ".join(str(v) for v in f.sample_values[:SAMPLE_VALUES])
        sample_text = f"; e.g. {samples}" if samples else ""
        lines.append(f"- {dataset.name}.{f.name} ({f.data_type.value}){sample_text}")
    for r in model.relationships:
        if dataset.name in (r.from_dataset, r.to_dataset):
            lines.append(
                f"Joins: {r.from_dataset}.{','.join(r.from_columns)} -> "
                f"{r.to_dataset}.{','.join(r.to_columns)}"
            )
    return "\n".join(lines)


class NoArgs(BaseModel):
    """No arguments."""


class SchemaArgs(BaseModel):
    """Arguments of get_dataset_schema."""

    dataset: str = Field(description="The name of a dataset (from list_datasets).")


class PlanArgs(BaseModel):
    """Arguments of execute_query_plan."""

    plan_json: dict[str, Any] | str = Field(
        description="The QueryPlan, as a JSON object (or its JSON text)."
    )


class SqlArgs(BaseModel):
    """Arguments of execute_sql."""

    sql: str = Field(description="One read-only SQL SELECT statement.")


class RunArgs(BaseModel):
    """Arguments of get_run_status."""

    run_id: str = Field(description="A runId an execute tool returned.")


def parse_plan(plan_json: dict[str, Any] | str) -> QueryPlan:
    """The model's plan as a QueryPlan; VALIDATION_ERROR saying what is wrong."""
    try:
        if isinstance(plan_json, str):
            return QueryPlan.model_validate_json(plan_json)
        return QueryPlan.model_validate(plan_json)
    except ValidationError as exc:
        problems = validation_problems(exc, "plan")
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR, f"The QueryPlan is not valid: {problems}."
        ) from exc


def make_plan_tools(scope: PlanScope) -> list[BaseTool]:
    """Seed 004's five tools, bound to this answer."""

    async def list_datasets() -> str:
        return dataset_listing(scope.source.model)

    async def get_dataset_schema(dataset: str) -> str:
        return dataset_schema(scope.source.model, dataset)

    async def execute_query_plan(plan_json: dict[str, Any] | str) -> str:
        try:
            executed = await run_plan(scope, parse_plan(plan_json))
        except DataAgentError as exc:
            if scope.failure is None:
                scope.failure = exc
            raise ToolException(error_text(scope.failure)) from exc
        return result_for_model(executed)

    async def execute_sql(sql: str) -> str:
        if not scope.sql_allowed:
            raise ToolException(SQL_NOT_ASKED)
        try:
            executed = await run_sql(scope, sql)
        except DataAgentError as exc:
            raise ToolException(error_text(scope.failure or exc)) from exc
        return result_for_model(executed)

    async def get_run_status(run_id: str) -> str:
        try:
            record_id = uuid.UUID(run_id)
        except ValueError as exc:
            raise ToolException("Error (VALIDATION_ERROR): runId is not a UUID.") from exc
        async with scope.ctx.database.session() as session:
            try:
                record = await queries.get_query_record(session, scope.owner_id, record_id)
            except DataAgentError as exc:
                raise ToolException(error_text(exc)) from exc
        return json.dumps(
            {
                "runId": str(record.id),
                "status": record.status,
                "mode": record.mode,
                "rowCount": record.row_count,
                "error": record.error_message,
            }
        )

    return [
        StructuredTool.from_function(
            coroutine=list_datasets,
            name="list_datasets",
            description="List the datasets (tables) and metrics you can query.",
            args_schema=NoArgs,
        ),
        StructuredTool.from_function(
            coroutine=get_dataset_schema,
            name="get_dataset_schema",
            description="The fields of one dataset (types, sample values) and its joins.",
            args_schema=SchemaArgs,
        ),
        StructuredTool.from_function(
            coroutine=execute_query_plan,
            name="execute_query_plan",
            description=(
                "Validate, compile and run a QueryPlan (JSON). Returns runId, columns, rows "
                f"(at most {MODEL_ROWS} shown) and rowCount. Prefer this to SQL."
            ),
            args_schema=PlanArgs,
        ),
        StructuredTool.from_function(
            coroutine=execute_sql,
            name="execute_sql",
            description=(
                "Run one read-only SQL SELECT statement, only when the person asked for SQL. "
                "Returns runId, columns, rows and rowCount."
            ),
            args_schema=SqlArgs,
        ),
        StructuredTool.from_function(
            coroutine=get_run_status,
            name="get_run_status",
            description="The status of a query run (its runId): status, mode, rowCount, error.",
            args_schema=RunArgs,
        ),
    ]
