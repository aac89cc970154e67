"""Reports of answers (seed 003): one complete answer as a declarative document of blocks.

A report is data, never code: markdown, tables, charts (their stored Vega-Lite spec and
image), lineage, assumptions, caveats, the verification and the SQL, built from the
message's content and metadata. Both answer modes are read: a ReAct answer's `toolCalls`
(its `query_database` calls: SQL and result table), `charts` and `datasetsUsed`; a pipeline
answer's `stepResults`, `verificationReport`, `dataLineage`, `caveats` and `assumptions`
(also under `explainerOutput`). Metadata is read defensively: a field of the wrong shape is
left out, never an error. `services.report_html` turns a report into one HTML file.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.services import charts as chart_service
from dataagent.services import chats
from dataagent.store.models import Chart, DataChatMessage

# Rows of one table a report keeps (the answer's metadata is bounded already).
MAX_TABLE_ROWS = 200
TITLE_CHARS = 120
NOT_AN_ANSWER = "A report is made of an answer (an assistant message), not of a question."
_CHART_LINK = re.compile(r"!\[[^\]\n]*\]\(/api/charts/([0-9a-fA-F-]{36})\.png\)[ \t]*\n?")
# The sections a pipeline answer ends with ("## Caveats", "## Assumptions"): blocks here.
_CLOSING_SECTIONS = re.compile(r"\n+#{1,6}[ \t]+(?:Caveats|Assumptions)[ \t]*\n.*\Z", re.DOTALL)
_MARKDOWN_ROW = re.compile(r"^\|(.*)\|\s*$")
_SUMMARY = re.compile(r"^\((\d+) rows?, \d+ ?ms(; truncated[^)]*)?\)")


@dataclass(frozen=True)
class MarkdownBlock:
    """Narrative text, as markdown (raw HTML in it is shown as text, never run)."""

    text: str
    type: Literal["markdown"] = "markdown"


@dataclass(frozen=True)
class TableBlock:
    """A result table: its columns, up to `MAX_TABLE_ROWS` rows, and how many it had."""

    title: str
    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    truncated: bool
    type: Literal["table"] = "table"


@dataclass(frozen=True)
class ChartBlock:
    """A chart of the answer: its image and (for a drawn chart) its Vega-Lite spec."""

    chart_id: uuid.UUID
    title: str | None
    chart_type: str
    spec: dict[str, Any] | None
    image_url: str
    type: Literal["chart"] = "chart"


@dataclass(frozen=True)
class LineageJoin:
    """A join as the lineage shows it."""

    from_: str
    to: str
    on: str


@dataclass(frozen=True)
class LineageBlock:
    """Where the numbers come from."""

    datasets: list[str]
    joins: list[LineageJoin] = field(default_factory=list)
    filters: list[str] = field(default_factory=list)
    time_window: str | None = None
    grain: str = ""
    row_count: int | None = None
    type: Literal["lineage"] = "lineage"


@dataclass(frozen=True)
class ItemsBlock:
    """A list of sentences: the assumptions made, or the caveats."""

    type: Literal["assumptions", "caveats"]
    items: list[str]


@dataclass(frozen=True)
class CheckLine:
    """One check of the verification."""

    name: str
    passed: bool
    message: str = ""


@dataclass(frozen=True)
class VerificationBlock:
    """The verifier's result: passed or not, and each check."""

    passed: bool
    checks: list[CheckLine]
    type: Literal["verification"] = "verification"


@dataclass(frozen=True)
class SqlBlock:
    """A query the answer ran (`step_id` for a pipeline step's)."""

    sql: str
    step_id: int | None = None
    type: Literal["sql"] = "sql"


Block = (
    MarkdownBlock
    | TableBlock
    | ChartBlock
    | LineageBlock
    | ItemsBlock
    | VerificationBlock
    | SqlBlock
)


@dataclass(frozen=True)
class Report:
    """One answer as a report. `images` holds each chart's bytes and media type by id (for
    the HTML file; never sent as JSON)."""

    title: str
    question: str
    created_at: datetime
    status: str
    blocks: list[Block]
    images: dict[uuid.UUID, tuple[bytes, str]] = field(default_factory=dict, repr=False)


async def get_report(
    session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID, message_id: uuid.UUID
) -> Report:
    """The report of one of the caller's answers.

    NOT_FOUND as for any message not theirs; CONFLICT for a question, or for an answer
    that is not complete (still generating, failed, or asking a clarification).
    """
    message = await chats.get_message(session, owner_id, chat_id, message_id)
    if message.role != "assistant":
        raise DataAgentError(ErrorCode.CONFLICT, NOT_AN_ANSWER)
    if message.status != "complete":
        raise DataAgentError(
            ErrorCode.CONFLICT,
            f"Only a complete answer can be turned into a report; this one is {message.status}.",
        )
    _, messages = await chats.get_chat_with_messages(session, owner_id, chat_id)
    question = chats.question_of(messages, message)
    kept = await chart_service.charts_of_message(session, owner_id, message.id)
    return build_report(message, question.content if question else "", kept)


def build_report(message: DataChatMessage, question: str, kept: list[Chart]) -> Report:
    """The report of an answer, its question and its kept charts (no database work)."""
    metadata = message.metadata_ if isinstance(message.metadata_, dict) else {}
    explained = _dict(metadata.get("explainerOutput"))
    assumptions = _texts(metadata.get("assumptions")) or _texts(explained.get("assumptions"))
    caveats = _texts(metadata.get("caveats")) or _texts(explained.get("caveats"))
    narrative = explained.get("narrative")
    if not isinstance(narrative, str) or not narrative.strip():
        narrative = message.content
        if assumptions or caveats:
            # The answer's text ends with its caveats and assumptions: they have blocks here.
            narrative = _CLOSING_SECTIONS.sub("\n", narrative)
    chart_ids = {str(chart.id) for chart in kept}
    # The charts are blocks of their own; a link to one in the text would show it twice.
    narrative, removed = _CHART_LINK.subn(
        lambda m: "" if m.group(1).lower() in chart_ids else m.group(0), narrative
    )
    if removed:
        narrative = re.sub(r"\n{3,}", "\n\n", narrative)
    narrative = narrative.strip()

    blocks: list[Block] = []
    if narrative:
        blocks.append(MarkdownBlock(narrative))
    blocks.extend(_chart_blocks(kept, metadata))
    steps = [_dict(step) for step in _list(metadata.get("stepResults"))]
    if steps:
        tables, queries = _pipeline_results(steps)
    else:
        tables, queries = _react_results(_list(metadata.get("toolCalls")))
    blocks.extend(tables)
    if assumptions:
        blocks.append(ItemsBlock("assumptions", assumptions))
    if caveats:
        blocks.append(ItemsBlock("caveats", caveats))
    lineage = _lineage(_dict(metadata.get("dataLineage")), _texts(metadata.get("datasetsUsed")))
    if lineage is not None:
        blocks.append(lineage)
    verification = _verification(_dict(metadata.get("verificationReport")))
    if verification is not None:
        blocks.append(verification)
    blocks.extend(queries)
    return Report(
        title=_title(question) or "Report",
        question=question,
        created_at=message.created_at,
        status=message.status,
        blocks=blocks,
        images={chart.id: (chart.content, chart.media_type) for chart in kept},
    )


def _title(question: str) -> str:
    line = " ".join(question.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


def _chart_blocks(kept: list[Chart], metadata: dict[str, Any]) -> list[ChartBlock]:
    types = {
        str(item.get("id")): item.get("chartType")
        for item in map(_dict, _list(metadata.get("charts")))
    }
    blocks = []
    for chart in kept:
        chart_type = types.get(str(chart.id))
        if not isinstance(chart_type, str):
            chart_type = "image" if chart.spec is None else "chart"
        blocks.append(
            ChartBlock(
                chart_id=chart.id,
                title=chart.title,
                chart_type=chart_type,
                spec=chart.spec,
                image_url=chart_service.chart_url(chart.id),
            )
        )
    return blocks


def _pipeline_results(steps: list[dict[str, Any]]) -> tuple[list[TableBlock], list[SqlBlock]]:
    tables: list[TableBlock] = []
    queries: list[SqlBlock] = []
    for step in steps:
        result = _dict(step.get("sqlResult"))
        sql = result.get("sql")
        if not isinstance(sql, str) or not sql.strip():
            continue
        step_id = step.get("stepId")
        step_id = step_id if isinstance(step_id, int) and not isinstance(step_id, bool) else None
        queries.append(SqlBlock(sql.strip(), step_id))
        columns = _texts(result.get("columns"))
        if not columns:
            continue
        rows = [list(row) for row in _list(result.get("rows")) if isinstance(row, list)]
        description = step.get("description")
        title = description if isinstance(description, str) and description else ""
        title = title or (f"Step {step_id}" if step_id is not None else "Result")
        row_count = result.get("rowCount")
        tables.append(
            _table(
                title,
                columns,
                rows,
                row_count if isinstance(row_count, int) else len(rows),
                result.get("truncated") is True,
            )
        )
    return tables, queries


def _react_results(calls: list[Any]) -> tuple[list[TableBlock], list[SqlBlock]]:
    tables: list[TableBlock] = []
    queries: list[SqlBlock] = []
    for call in map(_dict, calls):
        if call.get("name") != "query_database" or call.get("isError") is True:
            continue
        sql = _dict(call.get("args")).get("sql")
        if not isinstance(sql, str) or not sql.strip():
            continue
        queries.append(SqlBlock(sql.strip()))
        result = call.get("result")
        parsed = parse_markdown_table(result) if isinstance(result, str) else None
        if parsed is not None:
            columns, rows, row_count, truncated = parsed
            tables.append(_table(f"Query {len(queries)}", columns, rows, row_count, truncated))
    return tables, queries


def _table(
    title: str, columns: list[str], rows: list[list[Any]], row_count: int, truncated: bool
) -> TableBlock:
    kept = rows[:MAX_TABLE_ROWS]
    return TableBlock(
        title=title,
        columns=columns,
        rows=kept,
        row_count=max(row_count, len(rows)),
        truncated=truncated or len(kept) < len(rows),
    )


def parse_markdown_table(text: str) -> tuple[list[str], list[list[Any]], int, bool] | None:
    """The columns, rows, row count and truncation of a result as `sources.results.to_markdown`
    writes it (and as the metadata keeps it, maybe cut); None when it holds no table.

    Cells stay text (`NULL` is None); a result cut short keeps its whole rows and is marked
    truncated.
    """
    lines = text.split("\n")
    if len(lines) < 2 or not _MARKDOWN_ROW.match(lines[0]) or not lines[1].startswith("|---"):
        return None
    columns = _cells(lines[0])
    rows: list[list[Any]] = []
    ended = False
    for line in lines[2:]:
        if not line.strip():
            ended = True
            continue
        if ended:
            summary = _SUMMARY.match(line)
            if summary is None:
                break
            return columns, rows, int(summary.group(1)), summary.group(2) is not None
        cells = _cells(line) if _MARKDOWN_ROW.match(line) else None
        if cells is None or len(cells) != len(columns):
            break  # the text was cut inside this row
        rows.append([None if cell == "NULL" else cell for cell in cells])
    return columns, rows, len(rows), True


def _cells(line: str) -> list[str]:
    """The cells of a markdown table row (`\\|` and `\\\\` unescaped)."""
    inner = line.strip()[1:-1]
    cells, current, escaped = [], [], False
    for char in inner:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "|":
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    cells.append("".join(current).strip())
    return cells


def _lineage(lineage: dict[str, Any], datasets_used: list[str]) -> LineageBlock | None:
    datasets = _texts(lineage.get("datasets")) or datasets_used
    if not lineage and not datasets:
        return None
    joins = []
    for join in map(_dict, _list(lineage.get("joins"))):
        start, end, on = join.get("from"), join.get("to"), join.get("on")
        if isinstance(start, str) and isinstance(end, str) and isinstance(on, str):
            joins.append(LineageJoin(start, end, on))
    window = lineage.get("timeWindow")
    grain = lineage.get("grain")
    row_count = lineage.get("rowCount")
    return LineageBlock(
        datasets=datasets,
        joins=joins,
        filters=_texts(lineage.get("filters")),
        time_window=window if isinstance(window, str) else None,
        grain=grain if isinstance(grain, str) else "",
        row_count=row_count if isinstance(row_count, int) else None,
    )


def _verification(report: dict[str, Any]) -> VerificationBlock | None:
    passed = report.get("passed")
    if not isinstance(passed, bool):
        return None
    checks = []
    for check in map(_dict, _list(report.get("checks"))):
        name, ok, message = check.get("name"), check.get("passed"), check.get("message", "")
        if isinstance(name, str) and isinstance(ok, bool):
            checks.append(CheckLine(name, ok, message if isinstance(message, str) else ""))
    return VerificationBlock(passed, checks)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _texts(value: Any) -> list[str]:
    return [item for item in _list(value) if isinstance(item, str) and item.strip()]
