"""Seed 000's five tools, bound to one answer.

`query_database`, `get_dataset_details`, `get_sample_data`, `run_python` and
`list_datasets` are LangChain tools over one `ToolScope`: the caller, the chat's query
target (the ontology's tables are the allow-list), the question, the run and the answer's
`ToolBudget`. A tool that fails raises `ToolException` with "Error (CODE): message";
`tool_calls.run_tool_call` turns that (and unknown tools, malformed or schema-invalid
arguments) into text the model reads, so the model can recover. Each tool opens its own
short database session.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import pandas as pd
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field
from sqlglot import exp

from dataagent.agent.budget import ToolBudget, ToolLimits, cut_output
from dataagent.agent.events import Emit
from dataagent.agent.grounding import prompt_metrics
from dataagent.agent.prompts import metric_line
from dataagent.dialects import qualified_name, sqlglot_name
from dataagent.errors import DataAgentError
from dataagent.ontology.metrics import metric_datasets
from dataagent.semantic.model import SemanticModel
from dataagent.services import charts as chart_store
from dataagent.services import ontologies, queries
from dataagent.services.connections import QueryTarget
from dataagent.services.context import AppContext
from dataagent.sources.results import QueryResult, to_markdown
from dataagent.store.models import Ontology
from dataagent.store.shares import OntologyAccess

SAMPLE_DEFAULT = 10
SAMPLE_MAX = 50
DATASET_SEPARATOR = "\n\n---\n\n"
_MEDIA_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".svg": "image/svg+xml",
}


@dataclass
class ToolScope:
    """What one answer's tools work with, and what they collect along the way."""

    ctx: AppContext
    owner_id: uuid.UUID
    access: OntologyAccess
    model: SemanticModel
    target: QueryTarget
    emit: Emit
    question: str | None = None
    run_id: uuid.UUID | None = None
    message_id: uuid.UUID | None = None
    # Every successful query's rows, in order: `df1`, `df2`, ... in run_python.
    frames: list[pd.DataFrame] = field(default_factory=list)
    datasets_used: list[str] = field(default_factory=list)
    charts: list[dict[str, Any]] = field(default_factory=list)
    queries_run: int = 0
    # What the answer's tool calls may still cost (made from the settings).
    budget: ToolBudget = field(init=False)

    def __post_init__(self) -> None:
        self.budget = ToolBudget(ToolLimits.of(self.ctx.settings))

    @property
    def ontology(self) -> Ontology:
        """The ontology the answer is about."""
        return self.access.ontology

    @property
    def dialect(self) -> str:
        """The product dialect of the data."""
        return self.model.dialect

    def used(self, names: Sequence[str]) -> None:
        """Note datasets the answer relied on (first use first, each once)."""
        for name in names:
            if name not in self.datasets_used:
                self.datasets_used.append(name)

    def datasets_of_tables(self, tables: Sequence[str]) -> list[str]:
        """The datasets whose source tables a query read."""
        wanted = {t.lower() for t in tables} | {t.lower().rsplit(".", 1)[-1] for t in tables}
        found = []
        for dataset in self.model.datasets:
            source = dataset.source.lower()
            if source in wanted or source.rsplit(".", 1)[-1] in wanted:
                found.append(dataset.name)
        return found


def error_text(exc: DataAgentError) -> str:
    """A tool failure as the model reads it."""
    return f"Error ({exc.code.value}): {exc.message}"


# --- the tools ---------------------------------------------------------------------------------


class QueryArgs(BaseModel):
    """Arguments of query_database."""

    sql: str = Field(description="One read-only SQL SELECT (or WITH ... SELECT) statement.")


class DetailsArgs(BaseModel):
    """Arguments of get_dataset_details."""

    datasetNames: list[str] = Field(description="Names of the datasets to describe.")


class SampleArgs(BaseModel):
    """Arguments of get_sample_data."""

    datasetName: str = Field(description="Name of the dataset.")
    limit: int = Field(SAMPLE_DEFAULT, description="Rows to return (default 10, at most 50).")


class PythonArgs(BaseModel):
    """Arguments of run_python."""

    code: str = Field(description="Python code to execute.")


class NoArgs(BaseModel):
    """No arguments."""


async def _run_sql(scope: ToolScope, sql: str) -> QueryResult:
    ctx = scope.ctx
    async with ctx.database.session() as session:
        try:
            recorded = await queries.run_and_record(
                ctx,
                session,
                scope.owner_id,
                scope.target,
                sql,
                question=scope.question,
                run_id=scope.run_id,
            )
        except DataAgentError as exc:
            raise ToolException(error_text(exc)) from exc
    return recorded.result


def _frame(result: QueryResult) -> pd.DataFrame:
    return pd.DataFrame(result.rows, columns=result.columns)


def make_tools(scope: ToolScope) -> list[BaseTool]:
    """The five tools of seed 000, bound to this answer."""

    async def query_database(sql: str) -> str:
        result = await _run_sql(scope, sql)
        scope.queries_run += 1
        scope.frames.append(_frame(result))
        scope.used(scope.datasets_of_tables(result.tables))
        name = f"df{len(scope.frames)}"
        return f"{to_markdown(result)}\n\n(In run_python this result is `{name}`.)"

    async def get_dataset_details(datasetNames: list[str]) -> str:
        async with scope.ctx.database.session() as session:
            found = await ontologies.datasets_by_name(session, scope.access, datasetNames)
        names = [d.name for d in found]
        unknown = [n for n in dict.fromkeys(datasetNames) if n not in names]
        if not found:
            raise ToolException(
                f"Error (NOT_FOUND): no dataset is named {', '.join(unknown) or '(none given)'}; "
                "call list_datasets to see the names."
            )
        scope.used(names)
        text = DATASET_SEPARATOR.join(d.yaml.strip() for d in found)
        text += _metrics_note(scope.model, names)
        if unknown:
            text += (
                f"\n\n(Unknown datasets: {', '.join(unknown)}; "
                "call list_datasets to see the names.)"
            )
        return text

    async def get_sample_data(datasetName: str, limit: int = SAMPLE_DEFAULT) -> str:
        dataset = scope.model.dataset(datasetName)
        if dataset is None:
            raise ToolException(
                f"Error (NOT_FOUND): no dataset is named {datasetName}; "
                "call list_datasets to see the names."
            )
        rows = min(max(int(limit), 1), SAMPLE_MAX)
        table = qualified_name(dataset.source.split("."), scope.dialect)
        sql = exp.select("*").from_(table, dialect=sqlglot_name(scope.dialect)).limit(rows)
        result = await _run_sql(scope, sql.sql(dialect=sqlglot_name(scope.dialect)))
        scope.used([dataset.name])
        return to_markdown(result)

    async def run_python(code: str) -> str:
        return await _run_python(scope, code)

    async def list_datasets() -> str:
        async with scope.ctx.database.session() as session:
            datasets, _ = await ontologies.graph_of(session, scope.access)
        if not datasets:
            return "No datasets found in the ontology."
        lines = [
            f"- **{d.name}**: {d.description or 'No description'} (source: {d.source or 'unknown'})"
            for d in datasets
        ]
        listing = f"{len(datasets)} datasets available:\n\n" + "\n".join(lines)
        return listing + _metrics_note(scope.model)

    return [
        StructuredTool.from_function(
            coroutine=query_database,
            name="query_database",
            description=(
                "Execute a read-only SQL query against the database. Returns column names and "
                f"rows (max {scope.ctx.settings.query_max_rows} rows, "
                f"{scope.ctx.settings.query_timeout_s:g}-second timeout). Only SELECT queries "
                "are allowed. For large result sets, use aggregations, GROUP BY, or LIMIT "
                "clauses. Each result becomes a DataFrame (df1, df2, ...) for run_python."
            ),
            args_schema=QueryArgs,
        ),
        StructuredTool.from_function(
            coroutine=get_dataset_details,
            name="get_dataset_details",
            description="Get detailed YAML definitions for specific datasets by name.",
            args_schema=DetailsArgs,
        ),
        StructuredTool.from_function(
            coroutine=get_sample_data,
            name="get_sample_data",
            description=("Get sample rows from a dataset to understand data structure and values."),
            args_schema=SampleArgs,
        ),
        StructuredTool.from_function(
            coroutine=run_python,
            name="run_python",
            description=(
                "Execute Python code in a sandboxed environment. Use pandas for data "
                "manipulation and matplotlib/seaborn for charts (save them as PNG files). "
                "Earlier query results of this answer are DataFrames df1, df2, ... and df "
                "(the latest). Returns stdout, errors and links to the charts."
            ),
            args_schema=PythonArgs,
        ),
        StructuredTool.from_function(
            coroutine=list_datasets,
            name="list_datasets",
            description=(
                "List ALL available datasets/tables in the ontology. Returns names, "
                "descriptions, and source table references. Use this when you need to "
                "discover tables beyond those provided in the system prompt."
            ),
            args_schema=NoArgs,
        ),
    ]


def _metrics_note(model: SemanticModel, datasets: Sequence[str] | None = None) -> str:
    """The model's metrics (those reading one of `datasets`, when given), one line each."""
    wanted = set(datasets) if datasets is not None else None
    names = [
        m.name for m in model.metrics if wanted is None or wanted & set(metric_datasets(model, m))
    ]
    if not names:
        return ""
    heading = "Metrics defined" if wanted is None else "Metrics reading these datasets"
    lines = [metric_line(m) for m in prompt_metrics(model, names)]
    return f"\n\n{heading} ({len(lines)}):\n\n" + "\n".join(lines)


async def _run_python(scope: ToolScope, code: str) -> str:
    data: dict[str, pd.DataFrame] = {f"df{i}": f for i, f in enumerate(scope.frames, start=1)}
    if scope.frames:
        data["df"] = scope.frames[-1]
    try:
        result = await scope.ctx.sandbox.execute(code, data=data, owner=str(scope.owner_id))
    except DataAgentError as exc:
        raise ToolException(error_text(exc)) from exc
    blocks = []
    # The sandbox keeps up to a megabyte of each stream; the model reads a part of each, so
    # that a flood of output cannot push the error out of what it sees.
    room = scope.budget.limits.chars_per_call
    if result.stdout.strip():
        blocks.append(f"**Output:**\n```\n{cut_output(result.stdout.rstrip(), room // 2)}\n```")
    errors = cut_output(result.stderr.rstrip(), room // 4, keep="last")
    if result.error is not None:
        message = f"{result.error.code.value}: {result.error.message}"
        errors = f"{errors}\n{message}" if errors else message
    if errors:
        blocks.append(f"**Errors:**\n```\n{errors}\n```")
    if result.charts:
        links = await keep_images(scope, result.charts)
        blocks.append("**Charts:**\n" + "\n".join(links))
    blocks.append(f"(Executed in {result.execution_time_ms}ms)")
    output = "\n\n".join(blocks)
    if not result.ok:
        raise ToolException(output)
    return output


async def keep_images(scope: ToolScope, images: Sequence[Any]) -> list[str]:
    """Store drawn images as charts of the answer; markdown links to them (not base64)."""
    lines = []
    for image in images:
        path = PurePosixPath(image.filename)
        title = path.stem.replace("_", " ").replace("-", " ").strip() or "chart"
        media_type = _MEDIA_TYPES.get(path.suffix.lower(), "application/octet-stream")
        async with scope.ctx.database.session() as session:
            try:
                chart = await chart_store.save_image(
                    session,
                    scope.owner_id,
                    scope.message_id,
                    image.content(),
                    title,
                    media_type=media_type,
                )
            except DataAgentError as exc:
                # An SVG, a file that is not the image it claims, one too large: say so.
                lines.append(f"(The image {image.filename} was not kept: {exc.message})")
                continue
            await session.commit()
            chart_id = chart.id
        url = chart_store.chart_url(chart_id)
        entry = {"id": str(chart_id), "url": url, "title": title, "chartType": "image"}
        scope.charts.append(entry)
        await scope.emit("chart", {**entry, "spec": None})
        lines.append(f"![chart]({url})")
    return lines
