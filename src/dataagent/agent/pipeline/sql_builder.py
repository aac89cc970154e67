"""Phase 3, the SQL builder: the pilot and full SQL of each step that reads the database.

Contract: `build_sql(state, run)` returns `{"query_specs": list[QuerySpec]}`, one per step
whose strategy is `sql` or `sql_then_python`. A step's QueryPlan is compiled by
`semantic.compiler.compile_plan` (no model call); otherwise the model writes the SQL.

Before anything runs, each SQL is checked: the SQL guard (one read-only statement over the
ontology's tables) and every column against the semantic model (sqlglot qualifies the
query against a schema of the datasets' stored columns). A model's SQL that fails is written
once more with the problem; still failing, the spec keeps the problem in its `notes` (the
executor then fails the step and repairs it once). A QueryPlan that does not compile falls
back to the model with the compiler's error. On a revision, only the steps the verifier
failed are written again, by the model, with its diagnosis; the others keep their SQL.
An offline answer has no model to write with: a step whose QueryPlan does not compile gets
a spec with no SQL and the reason (`unwritten`), which the executor fails the step with.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlglot
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import ConfigDict, Field
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.schema import MappingSchema

from dataagent.agent.pipeline.navigator import SQL_STRATEGIES, Resolver
from dataagent.agent.pipeline.planner import today
from dataagent.agent.pipeline.prompts import sql_prompt
from dataagent.agent.pipeline.state import (
    Artifact,
    JoinPlanArtifact,
    PipelineRun,
    PipelineState,
    PlanArtifact,
    PlanStep,
    QuerySpec,
)
from dataagent.agent.prompts import PromptDataset
from dataagent.dialects import sqlglot_name
from dataagent.errors import DataAgentError
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.expressions import bare_column
from dataagent.semantic.joins import JoinPath
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.plan import QueryPlan
from dataagent.sources.guard import MAX_SQL_CHARS, check_sql
from dataagent.sources.results import PILOT_ROWS

PURPOSE = "step_sql"


class SqlDraft(Artifact):
    """The SQL the model writes for one step, the columns it returns, and its assumptions."""

    # Lenient with keys a model adds (an `explanation`): only these three are read.
    model_config = ConfigDict(extra="ignore")

    sql: str = Field(min_length=1, max_length=MAX_SQL_CHARS)
    expected_columns: list[str] = Field(default_factory=list)
    notes: str = Field("", max_length=4000)


# --- checks ----------------------------------------------------------------------------------


def _table(source: str) -> str:
    return source.rsplit(".", 1)[-1].strip('"`[]').lower()


def model_schema(model: SemanticModel) -> tuple[dict[str, Any], dict[str, str]]:
    """The stored columns of each dataset's table (by bare table name), and the derived fields
    (`table.name` -> expression) a query may not read as columns."""
    tables: dict[str, Any] = {}
    derived: dict[str, str] = {}
    for dataset in model.datasets:
        table = _table(dataset.source)
        columns = tables.setdefault(table, {})
        for f in dataset.fields:
            column = bare_column(f, model.dialect)
            if column is not None:
                columns[column.lower()] = "text"
            else:
                derived[f.name.lower()] = f"{dataset.name}.{f.name} = `{f.expression}`"
    return tables, derived


def column_problem(expression: exp.Expr, model: SemanticModel) -> str | None:
    """Why a query reads a column the semantic model does not have, or None."""
    tables, derived = model_schema(model)
    tree = expression.copy()
    for table in tree.find_all(exp.Table):
        table.set("db", None)
        table.set("catalog", None)
    dialect = sqlglot_name(model.dialect)
    try:
        qualify(
            tree,
            schema=MappingSchema(tables, dialect=dialect, normalize=True),
            dialect=dialect,
            validate_qualify_columns=True,
            quote_identifiers=False,
            identify=False,
        )
    except SqlglotError as exc:
        reason = str(exc).split(". Line:")[0].rstrip(".")
        used = {c.name.lower() for c in expression.find_all(exp.Column)}
        hints = [text for name, text in derived.items() if name in used]
        hint = f" Derived fields are expressions, not columns: {'; '.join(hints)}." if hints else ""
        return (
            f"the SQL reads a column the semantic model does not have ({reason}); use only "
            f"the fields the datasets' YAML lists.{hint}"
        )
    return None


def check(sql: str, run: PipelineRun) -> tuple[str | None, str]:
    """The problem with a step's SQL (guard, then columns), or None; and its pilot form."""
    model = run.model
    try:
        approved = check_sql(sql, model.dialect, run.scope.target.allowed_tables)
    except DataAgentError as exc:
        return exc.message, _pilot_of(sql, model.dialect)
    return column_problem(approved.expression, model), approved.limited_sql(PILOT_ROWS)


def _pilot_of(sql: str, dialect: str) -> str:
    """The SQL capped at the pilot's rows when sqlglot can read it; else as it is (the
    executor refuses it either way)."""
    name = sqlglot_name(dialect)
    try:
        tree = sqlglot.parse_one(sql, read=name)
    except SqlglotError:
        return sql
    if not isinstance(tree, exp.Query):
        return sql
    return exp.select("*").from_(tree.subquery("pilot")).limit(PILOT_ROWS).sql(dialect=name)


# --- what a step's prompt holds -----------------------------------------------------------------


def step_paths(join_plan: JoinPlanArtifact, names: Sequence[str]) -> list[JoinPath]:
    """The join paths a step needs: each path holding its datasets, pruned to them."""
    wanted = set(names)
    kept = []
    for path in join_plan.join_paths:
        inside = [n for n in path.datasets if n in wanted]
        if not inside:
            continue
        kept.append(path.reroot(inside[0], keep=inside))
    return kept or list(join_plan.join_paths)


def step_datasets(join_plan: JoinPlanArtifact, paths: Sequence[JoinPath]) -> list[PromptDataset]:
    """The YAML of every dataset on the step's paths."""
    on_paths = {n for p in paths for n in p.datasets}
    return [
        PromptDataset(d.name, d.description, d.yaml)
        for d in join_plan.relevant_datasets
        if d.name in on_paths or not on_paths
    ]


def plan_context(plan: PlanArtifact, step: PlanStep) -> str:
    """What the whole plan asks, for one step's SQL."""
    lines = []
    if plan.intent:
        lines.append(f"Intent: {plan.intent}")
    for label, values in (
        ("Metrics", plan.metrics),
        ("Dimensions", plan.dimensions),
        ("Filters", plan.filters),
    ):
        if values:
            lines.append(f"{label}: {'; '.join(values)}")
    if plan.time_window:
        lines.append(f"Time window: {plan.time_window}")
    if plan.grain:
        lines.append(f"Grain: {plan.grain}")
    if step.query_plan is not None:
        spec = step.query_plan.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
        lines.append(f"The planner's QueryPlan for this step: {json.dumps(spec)}")
    return "\n".join(lines)


def step_text(step: PlanStep) -> str:
    """A step as its SQL prompt states it."""
    text = f"Step {step.id}: {step.description}"
    if step.expected_output:
        text += f"\nExpected output: {step.expected_output}"
    if step.analysis:
        text += f"\nAfterwards, Python will: {step.analysis}"
    return text


# --- one step ----------------------------------------------------------------------------------


def _canonical(value: Any, resolve: Resolver, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _canonical(v, resolve, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v, resolve, key) for v in value]
    if isinstance(value, str) and key in ("field", "by", "datasets", "within"):
        head, dot, rest = value.partition(".")
        name = resolve(head) if (dot or key == "datasets") else None
        if name is not None:
            return f"{name}{dot}{rest}"
    return value


def canonical_plan(query_plan: QueryPlan, model: SemanticModel) -> QueryPlan:
    """The QueryPlan with its dataset names as the model spells them (a model may write
    `Orders.status` or a source table for a dataset)."""
    data = query_plan.model_dump(mode="json", exclude_none=True)
    return QueryPlan.model_validate(_canonical(data, Resolver(model)))


def compiled(step: PlanStep, run: PipelineRun) -> QuerySpec | str:
    """The spec of a step's QueryPlan, compiled (origin `plan`); or why it did not compile."""
    assert step.query_plan is not None
    model = run.model
    try:
        query = compile_plan(
            canonical_plan(step.query_plan, model),
            model,
            model.dialect,
            today=today(run.ctx.settings),
        )
    except DataAgentError as exc:
        return f"its QueryPlan did not compile: {exc.message}"
    problem, pilot = check(query.sql, run)
    if problem is not None:
        return f"its compiled QueryPlan was refused: {problem}"
    return QuerySpec(
        step_id=step.id,
        description=step.description,
        pilot_sql=pilot,
        full_sql=query.sql,
        expected_columns=query.columns,
        notes=" ".join(query.notes),
        origin="plan",
    )


async def written(
    state: PipelineState,
    run: PipelineRun,
    step: PlanStep,
    *,
    diagnosis: str = "",
    problem: str = "",
    previous_sql: str = "",
) -> QuerySpec:
    """The step's SQL written by the model, checked, and written once more if refused."""
    join_plan = state.get("join_plan") or JoinPlanArtifact()
    names = join_plan.step_datasets.get(step.id) or [d.name for d in join_plan.relevant_datasets]
    paths = step_paths(join_plan, names)
    datasets = step_datasets(join_plan, paths)
    context = plan_context(state["plan"], step)

    async def draft(problem: str, previous_sql: str) -> SqlDraft:
        prompt = sql_prompt(
            run.model.dialect,
            step_text(step),
            context,
            paths,
            datasets,
            diagnosis=diagnosis,
            problem=problem,
            previous_sql=previous_sql,
        )
        messages = [SystemMessage(prompt), HumanMessage(f"Write the SQL of step {step.id}.")]
        return await run.client.structured(
            messages, SqlDraft, phase="sql_builder", purpose=PURPOSE, step_id=step.id
        )

    sql = await draft(problem, previous_sql)
    found, pilot = check(sql.sql, run)
    if found is not None:
        sql = await draft(found, sql.sql)
        found, pilot = check(sql.sql, run)
    notes = " ".join(n for n in (sql.notes.strip(), f"Problem: {found}" if found else "") if n)
    return QuerySpec(
        step_id=step.id,
        description=step.description,
        pilot_sql=pilot,
        full_sql=sql.sql,
        expected_columns=sql.expected_columns,
        notes=notes,
        origin="model",
    )


# --- the phase -----------------------------------------------------------------------------------


def _failed_steps(state: PipelineState) -> set[int] | None:
    """On a revision, the steps the verifier failed (None: every step, or no revision)."""
    report = state.get("verification")
    if state.get("revision_target") is None or report is None or "query_specs" not in state:
        return None
    failed = [c.step_id for c in report.checks if not c.passed]
    if not failed or None in failed:
        return None
    return {n for n in failed if n is not None}


async def _spec(
    state: PipelineState,
    run: PipelineRun,
    step: PlanStep,
    earlier: QuerySpec | None,
    failed: set[int] | None,
) -> QuerySpec:
    diagnosis = state.get("revision_diagnosis", "") if earlier is not None else ""
    if earlier is not None:
        if failed is not None and step.id not in failed:
            return earlier  # the verifier found nothing wrong with this step
        return await written(
            state,
            run,
            step,
            diagnosis=diagnosis,
            problem="the verifier found a problem with its result (see Revision)",
            previous_sql=earlier.full_sql,
        )
    if step.query_plan is not None:
        spec = compiled(step, run)
        if isinstance(spec, QuerySpec):
            return spec
        if run.offline is not None:
            return unwritten(step, f"Step {step.id} has no SQL: {spec}.")
        return await written(state, run, step, problem=spec)
    if run.offline is not None:
        return unwritten(step, f"Step {step.id} has no QueryPlan, and no model writes SQL.")
    return await written(state, run, step)


def unwritten(step: PlanStep, problem: str) -> QuerySpec:
    """The spec of a step an offline answer cannot write SQL for: no SQL, and why (the
    executor fails the step with it)."""
    return QuerySpec(
        step_id=step.id,
        description=step.description,
        pilot_sql="",
        full_sql="",
        notes=problem,
        origin="plan",
    )


async def build_sql(state: PipelineState, run: PipelineRun) -> dict[str, Any]:
    """The SQL of each step."""
    revising = state.get("revision_target") is not None and "query_specs" in state
    before = {s.step_id: s for s in state.get("query_specs", [])} if revising else {}
    failed = _failed_steps(state)
    specs = [
        await _spec(state, run, step, before.get(step.id), failed)
        for step in state["plan"].steps
        if step.strategy in SQL_STRATEGIES
    ]
    return {"query_specs": specs}
