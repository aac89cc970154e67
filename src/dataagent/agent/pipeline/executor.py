"""Phase 4, the executor: the steps in dependency order, SQL pilot then full, Python in the
sandbox.

Contract: `execute(state, run)` returns `{"step_results": list[StepResult]}`.

Each step emits `step_start`, its tool calls (`tool_start`, then `tool_end` or `tool_error`,
with the phase and the step's id) and `step_complete`. A SQL step runs its `QuerySpec`'s
pilot (10 rows) and then its full form through `services.queries.run_and_record` (the SQL
guard, the ontology's allow-list, a run record linked to the answer's run). A failure gets
ONE model repair (the SQL, the error and the datasets' YAML), and the repaired SQL runs pilot
then full again; a step that still fails keeps its error for the verifier and the explainer
(nothing is raised), except a rate limit or a cancellation, which end the answer as they do
in the agent loop; an offline answer (`run.offline`) runs no pilot and is not repaired. A
Python step's code is written by the model (one call) and runs in the sandbox with each
dependency's rows as `step_N_data` and, after its own SQL, `current_data` (an offline
answer has none).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from langchain_core.messages import HumanMessage, SystemMessage

from dataagent.agent.pipeline.state import (
    PipelineRun,
    PipelineState,
    PlanStep,
    PythonResult,
    QuerySpec,
    SqlResult,
    StepResult,
)
from dataagent.agent.prompts import DIALECT_NAMES
from dataagent.agent.tools import keep_images
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.calls import bounded_json, clip_text, text_of
from dataagent.services import queries
from dataagent.sources.results import QueryResult

PHASE = "executor"
STEP_ROWS_KEPT = 100
# What the Python prompt shows of each DataFrame: its first rows and its columns' types.
SAMPLE_ROWS = 5
SCHEMA_CHARS = 12_000
# Errors that end the answer, as they do in the agent loop; errors no rewrite can fix.
FATAL = frozenset({ErrorCode.RATE_LIMITED, ErrorCode.CANCELLED})
NOT_REPAIRABLE = frozenset(
    {ErrorCode.CONNECTION_FAILED, ErrorCode.SERVICE_UNAVAILABLE, ErrorCode.INTERNAL_ERROR}
)

REPAIR_PROMPT = """\
You repair one read-only SQL query that failed. You are given the query, the database's
error and the schema of the datasets it may read (YAML: each dataset's `source` is its
table, each field's `expression` its column). Write the corrected query in the {dialect}
dialect: the same question, only the tables and columns of the schema, one SELECT (or
WITH ... SELECT) statement. Answer with the query alone in a ```sql block."""

PYTHON_PROMPT = """\
You write Python that analyses data already loaded as pandas DataFrames. The variables
listed below exist; use them (never read files, never connect to anything). pandas, numpy
and matplotlib are available. Print the results the analysis finds (numbers, small tables
with `to_string()`); save any chart as a PNG file in the working directory
(`plt.savefig("name.png")`). Answer with the code alone in a ```python block."""


async def execute(state: PipelineState, run: PipelineRun) -> dict[str, Any]:
    """Run every step of the plan, each after the steps it depends on."""
    plan = state.get("plan")
    steps = plan.steps if plan is not None else []
    specs = {spec.step_id: spec for spec in state.get("query_specs", [])}
    executor = _Executor(run, state, specs)
    order, problems = dependency_order(steps)
    for step in order:
        await run.emit(
            "step_start",
            {"stepId": step.id, "description": step.description, "strategy": step.strategy},
        )
        result = await executor.run_step(step, problems.get(step.id))
        executor.results[step.id] = result
        done: dict[str, Any] = {"stepId": step.id, "status": "failed" if result.error else "ok"}
        if result.sql_result is not None:
            done["rowCount"] = result.sql_result.row_count
        await run.emit("step_complete", done)
    return {"step_results": [executor.results[step.id] for step in steps]}


def dependency_order(steps: Sequence[PlanStep]) -> tuple[list[PlanStep], dict[int, str]]:
    """The steps in an order that runs each after its dependencies (plan order otherwise),
    and why a step cannot run: a dependency the plan lacks, or a cycle."""
    ids = {step.id for step in steps}
    problems: dict[int, str] = {}
    for step in steps:
        missing = [d for d in step.depends_on if d not in ids]
        if missing:
            problems[step.id] = (
                f"Step {step.id} depends on {_steps(missing)}, which the plan does not have."
            )
    order: list[PlanStep] = []
    placed: set[int] = set()
    waiting = list(steps)
    while waiting:
        ready = [s for s in waiting if all(d in placed or d not in ids for d in s.depends_on)]
        if not ready:
            stuck = sorted(s.id for s in waiting)
            for step in waiting:
                problems[step.id] = (
                    f"{_steps(stuck).capitalize()} cannot run: their dependencies form a cycle."
                )
            order += waiting
            break
        for step in ready:
            order.append(step)
            placed.add(step.id)
        waiting = [s for s in waiting if s.id not in placed]
    return order, problems


def _steps(ids: Sequence[int]) -> str:
    names = [str(i) for i in ids]
    if len(names) == 1:
        return f"step {names[0]}"
    return "steps " + ", ".join(names[:-1]) + " and " + names[-1]


class _StepFailed(Exception):
    """A step's SQL or code failed for good (kept on its result, not raised further)."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass
class _Executor:
    """One executor phase: the answer, its state, and the steps' results and rows so far."""

    run: PipelineRun
    state: PipelineState
    specs: dict[int, QuerySpec]
    results: dict[int, StepResult] = field(default_factory=dict)
    frames: dict[int, pd.DataFrame] = field(default_factory=dict)

    async def run_step(self, step: PlanStep, problem: str | None) -> StepResult:
        """One step's result (its error kept on it when it fails)."""
        result = StepResult(step_id=step.id, description=step.description, strategy=step.strategy)
        failed = [d for d in step.depends_on if d in self.results and self.results[d].error]
        if problem is None and failed:
            first = self.results[failed[0]]
            problem = f"Not run: it depends on {_steps(failed)}, which failed."
            result.error_code = first.error_code
        if problem is not None:
            result.error = problem
            result.error_code = result.error_code or ErrorCode.VALIDATION_ERROR.value
            return result
        try:
            if step.strategy in ("sql", "sql_then_python"):
                await self._sql_step(step, result)
            if step.strategy in ("python", "sql_then_python"):
                await self._python_step(step, result)
        except _StepFailed as failure:
            result.error, result.error_code = failure.message, failure.code
        return result

    # --- SQL ---------------------------------------------------------------------------------

    async def _sql_step(self, step: PlanStep, result: StepResult) -> None:
        spec = self.specs.get(step.id)
        if spec is None:
            raise _StepFailed(
                f"Step {step.id} has no SQL: the SQL builder wrote none for it.",
                ErrorCode.VALIDATION_ERROR.value,
            )
        if not spec.full_sql:
            raise _StepFailed(
                spec.notes or f"Step {step.id} has no SQL.", ErrorCode.VALIDATION_ERROR.value
            )
        origin_plan = spec.origin == "plan" and step.query_plan is not None
        try:
            ran, sql = await self._pilot_then_full(step, spec.pilot_sql, spec.full_sql, origin_plan)
        except DataAgentError as first:
            if first.code in FATAL:
                raise
            if first.code in NOT_REPAIRABLE or self.run.offline is not None:
                # An offline answer has no model to repair with.
                raise _StepFailed(first.message, first.code.value) from None
            repaired = await self._repair(step, spec.full_sql, first)
            if repaired is None:
                raise _StepFailed(first.message, first.code.value) from None
            result.repaired = True
            try:
                ran, sql = await self._pilot_then_full(step, repaired, repaired, False)
            except DataAgentError as second:
                if second.code in FATAL:
                    raise
                raise _StepFailed(second.message, second.code.value) from None
        result.sql_result = SqlResult(
            sql=sql,
            columns=list(ran.result.columns),
            rows=ran.result.rows[:STEP_ROWS_KEPT],
            row_count=ran.result.row_count,
            truncated=ran.result.truncated or ran.result.row_count > STEP_ROWS_KEPT,
            exec_time_ms=ran.result.execution_ms,
            query_record_id=str(ran.record.id),
        )
        self.frames[step.id] = pd.DataFrame(ran.result.rows, columns=ran.result.columns)

    async def _pilot_then_full(
        self, step: PlanStep, pilot_sql: str, full_sql: str, origin_plan: bool
    ) -> tuple[queries.RecordedQuery, str]:
        # An offline answer's SQL is compiled from its plan and never repaired: a pilot
        # would only run the query twice.
        if self.run.offline is None:
            await self._query(step, pilot_sql, pilot=True, origin_plan=origin_plan)
        return await self._query(step, full_sql, pilot=False, origin_plan=origin_plan), full_sql

    async def _query(
        self, step: PlanStep, sql: str, *, pilot: bool, origin_plan: bool
    ) -> queries.RecordedQuery:
        """One run of SQL as a tool call: its events and its entry in the metadata."""
        run, scope = self.run, self.run.scope
        args = {"sql": sql, "pilot": pilot}
        call = _ToolCall(run, step.id, "query_database", args)
        await call.start()
        plan = step.query_plan.model_dump(mode="json") if origin_plan and step.query_plan else None
        try:
            async with run.ctx.database.session() as session:
                ran = await queries.run_and_record(
                    run.ctx,
                    session,
                    scope.owner_id,
                    scope.target,
                    sql,
                    pilot=pilot,
                    question=self.state["question"],
                    run_id=scope.run_id,
                    mode="plan" if plan is not None else "sql",
                    plan=plan,
                )
        except DataAgentError as exc:
            await call.failed(exc.message, exc.code.value)
            raise
        scope.queries_run += 1
        scope.used(scope.datasets_of_tables(ran.result.tables))
        await call.ended(_rows(ran.result))
        return ran

    async def _repair(self, step: PlanStep, sql: str, error: DataAgentError) -> str | None:
        """The model's corrected SQL (one call), or None when it wrote none."""
        run = self.run
        prompt = REPAIR_PROMPT.format(dialect=DIALECT_NAMES.get(run.model.dialect, "SQL"))
        material = render_repair(sql, f"{error.code.value}: {error.message}", self._schema())
        reply = await run.client.invoke(
            [SystemMessage(prompt), HumanMessage(material)],
            phase=PHASE,
            purpose="sql_repair",
            step_id=step.id,
        )
        repaired = fenced(text_of(reply.content), "sql")
        if not _QUERY_START.match(repaired) or repaired.rstrip(";") == sql.strip().rstrip(";"):
            return None
        return repaired

    def _schema(self) -> str:
        join_plan = self.state.get("join_plan")
        datasets = join_plan.relevant_datasets if join_plan is not None else []
        if datasets:
            text = "\n---\n".join(d.yaml.strip() for d in datasets)
        else:
            text = "\n---\n".join(d.yaml.strip() for d in self.run.grounding.datasets)
        return clip_text(text, SCHEMA_CHARS)

    # --- Python ------------------------------------------------------------------------------

    async def _python_step(self, step: PlanStep, result: StepResult) -> None:
        if self.run.offline is not None:
            raise _StepFailed(
                "A Python step needs a model to write its code.", ErrorCode.LLM_UNAVAILABLE.value
            )
        data = {f"step_{d}_data": self.frames[d] for d in step.depends_on if d in self.frames}
        if step.strategy == "sql_then_python" and step.id in self.frames:
            data["current_data"] = self.frames[step.id]
        run = self.run
        material = render_python_request(
            self.state["question"], step, data, self._schema() if not data else ""
        )
        reply = await run.client.invoke(
            [SystemMessage(PYTHON_PROMPT), HumanMessage(material)],
            phase=PHASE,
            purpose="python",
            step_id=step.id,
        )
        code = fenced(text_of(reply.content), "python")
        if not code:
            raise _StepFailed("The model wrote no Python for this step.", ErrorCode.LLM_ERROR.value)
        result.python_result, failure = await self._sandbox(step, code, data)
        if failure is not None:
            raise failure

    async def _sandbox(
        self, step: PlanStep, code: str, data: dict[str, pd.DataFrame]
    ) -> tuple[PythonResult, _StepFailed | None]:
        """Run the step's code: what it printed and drew, and how it failed (if it did)."""
        run, scope = self.run, self.run.scope
        call = _ToolCall(run, step.id, "run_python", {"code": code})
        await call.start()
        try:
            outcome = await run.ctx.sandbox.execute(code, data=data, owner=str(scope.owner_id))
        except DataAgentError as exc:
            await call.failed(exc.message, exc.code.value)
            if exc.code in FATAL:
                raise
            return PythonResult(code=code, error=exc.message), _StepFailed(
                exc.message, exc.code.value
            )
        before = len(scope.charts)
        await keep_images(scope, outcome.charts)
        charts = scope.charts[before:]
        stdout = clip_text(outcome.stdout, run.ctx.settings.agent_tool_result_chars * 4)
        python = PythonResult(code=code, stdout=stdout, charts=list(charts))
        if outcome.ok:
            await call.ended(stdout or f"(no output; {len(charts)} charts)")
            return python, None
        if outcome.error is not None:
            message, code_of = outcome.error.message, outcome.error.code.value
        else:
            # The code raised: the model wrote it, so it is the model's error.
            last = outcome.stderr.strip().splitlines()[-1:] or ["the code raised an error"]
            message, code_of = last[0], ErrorCode.LLM_ERROR.value
        python.error = message
        await call.failed(message, code_of)
        return python, _StepFailed(f"The step's Python failed: {message}", code_of)


class _ToolCall:
    """One tool call of a step: `tool_start`, then `tool_end` or `tool_error`, and its entry in
    the answer's `toolCalls`."""

    def __init__(self, run: PipelineRun, step_id: int, name: str, args: dict[str, Any]) -> None:
        self.run = run
        self.step_id = step_id
        self.name = name
        self.chars = run.ctx.settings.agent_tool_result_chars
        self.args = bounded_json(args, self.chars)
        self.started = time.perf_counter()

    def _head(self) -> dict[str, Any]:
        return {"phase": PHASE, "stepId": self.step_id, "name": self.name}

    async def start(self) -> None:
        """`tool_start`."""
        self.started = time.perf_counter()
        await self.run.emit("tool_start", {**self._head(), "args": self.args})

    async def ended(self, result: str) -> None:
        """`tool_end`, and the call kept."""
        text = clip_text(result, self.chars)
        self._keep(text, is_error=False)
        await self.run.emit("tool_end", {**self._head(), "result": text})

    async def failed(self, error: str, code: str) -> None:
        """`tool_error`, and the call kept."""
        text = clip_text(error, self.chars)
        self._keep(f"Error ({code}): {text}", is_error=True)
        await self.run.emit("tool_error", {**self._head(), "error": text, "code": code})

    def _keep(self, result: str, *, is_error: bool) -> None:
        self.run.tool_calls.append(
            {
                **self._head(),
                "args": self.args,
                "result": result,
                "isError": is_error,
                "durationMs": round((time.perf_counter() - self.started) * 1000),
            }
        )


def _rows(result: QueryResult) -> str:
    count = f"{result.row_count:,} row{'' if result.row_count == 1 else 's'}"
    return f"{count} (truncated)" if result.truncated else count


# --- prompts ---------------------------------------------------------------------------------

# What a query the model wrote begins with (a reply of words alone is no repair).
_QUERY_START = re.compile(r"\s*(--[^\n]*\n\s*)*(\(|with\b|select\b)", re.I)
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)


def fenced(text: str, language: str) -> str:
    """The code of a model's answer: its ```language block (or its first block of any
    language), else the whole text."""
    blocks = [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]
    for lang, body in blocks:
        if lang == language:
            return body.strip()
    if blocks:
        return blocks[0][1].strip()
    return text.strip()


def render_repair(sql: str, error: str, schema: str) -> str:
    """The repair call's material: the failed query, the error, the schema."""
    return (
        f"Failed query:\n```sql\n{sql.strip()}\n```\n\nError: {error}\n\n"
        f"Schema of the datasets:\n```yaml\n{schema.strip()}\n```"
    )


def describe_frame(name: str, frame: pd.DataFrame) -> str:
    """A DataFrame as the Python prompt shows it: rows, columns and types, the first rows."""
    types = ", ".join(f"{c} ({t})" for c, t in zip(frame.columns, frame.dtypes, strict=True))
    head = frame.head(SAMPLE_ROWS).to_string(index=False, max_colwidth=60)
    return f"`{name}`: {len(frame):,} rows; columns {types}\n```\n{head}\n```"


def render_python_request(
    question: str, step: PlanStep, data: dict[str, pd.DataFrame], schema: str
) -> str:
    """The Python call's material: the question, the step, and each DataFrame it has."""
    parts = [f"Question: {question}", f"Step {step.id}: {step.description}"]
    if step.analysis:
        parts.append(f"Analysis to do: {step.analysis}")
    if step.expected_output:
        parts.append(f"Expected output: {step.expected_output}")
    if data:
        parts.append("DataFrames:\n\n" + "\n\n".join(describe_frame(n, f) for n, f in data.items()))
    else:
        parts.append("No DataFrames are loaded for this step.")
    if schema:
        parts.append(f"Schema of the datasets:\n```yaml\n{schema}\n```")
    return "\n\n".join(parts)
