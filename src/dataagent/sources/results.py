"""Query results: the QueryResult model, JSON-safe values, result caps and output forms."""

from __future__ import annotations

import datetime as dt
import json
import math
import uuid
from collections.abc import Iterable, Sequence
from decimal import Decimal
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network
from typing import Any, Literal

from pydantic import BaseModel, Field

from dataagent.errors import DataAgentError, ErrorCode

PILOT_ROWS = 10
CUT_MARK = "…"
_EXACT_FLOAT_LIMIT = 2**53


class QueryResult(BaseModel):
    """One SQL run: what ran, what came back, and how it ended (all a run capsule needs)."""

    status: Literal["succeeded", "failed"] = "succeeded"
    dialect: str
    sql: str = Field(description="The SQL as submitted.")
    executed_sql: str | None = Field(
        None, description="The SQL sent to the database (re-generated and row-capped)."
    )
    tables: list[str] = Field(default_factory=list, description="Tables the query reads.")
    columns: list[str] = Field(default_factory=list)
    rows: list[list[Any]] = Field(default_factory=list, description="JSON-safe values.")
    row_count: int = 0
    truncated: bool = False
    truncated_by: Literal["rows", "bytes"] | None = None
    cells_cut: int = Field(0, description="Cells shortened to the cell length cap.")
    max_rows: int = 0
    pilot: bool = False
    execution_ms: int = 0
    error_code: str | None = None
    error_message: str | None = None


class QueryError(DataAgentError):
    """A failed run: a DataAgentError that also carries the failed QueryResult for the record."""

    def __init__(self, code: ErrorCode, message: str, result: QueryResult) -> None:
        super().__init__(code, message)
        self.result = result


def failed_result(error: DataAgentError, **fields: Any) -> QueryResult:
    """The QueryResult recording a failure."""
    return QueryResult(
        status="failed", error_code=error.code.value, error_message=error.message, **fields
    )


def build_result(
    columns: Sequence[str],
    raw_rows: Iterable[Sequence[Any]],
    *,
    max_rows: int,
    max_bytes: int,
    max_cell_chars: int,
    **fields: Any,
) -> QueryResult:
    """Convert raw driver rows to JSON-safe values, applying the row, byte and cell caps."""
    rows: list[list[Any]] = []
    used_bytes = 0
    cut = _CutCounter()
    truncated_by: Literal["rows", "bytes"] | None = None
    for raw in raw_rows:
        if len(rows) >= max_rows:
            truncated_by = "rows"
            break
        row = [json_safe(value, max_cell_chars, cut) for value in raw]
        size = len(json.dumps(row, ensure_ascii=False, default=str).encode())
        if used_bytes + size > max_bytes:
            truncated_by = "bytes"
            break
        used_bytes += size
        rows.append(row)
    return QueryResult(
        columns=list(columns),
        rows=rows,
        row_count=len(rows),
        truncated=truncated_by is not None,
        truncated_by=truncated_by,
        cells_cut=cut.count,
        max_rows=max_rows,
        **fields,
    )


class _CutCounter:
    def __init__(self) -> None:
        self.count = 0


def json_safe(value: Any, max_cell_chars: int = 2000, cut: _CutCounter | None = None) -> Any:
    """A JSON-safe form of one driver value (dates as ISO text, bytes as a placeholder)."""
    safe = _convert(value)
    if isinstance(safe, list | dict):
        text = json.dumps(safe, ensure_ascii=False, default=str)
        if len(text) <= max_cell_chars:
            return safe
        safe = text
    if isinstance(safe, str) and len(safe) > max_cell_chars:
        if cut is not None:
            cut.count += 1
        return safe[: max(max_cell_chars - len(CUT_MARK), 0)] + CUT_MARK
    return safe


def _convert(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, Decimal):
        return _decimal(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return f"<binary: {len(bytes(value))} bytes>"
    if isinstance(value, uuid.UUID | IPv4Address | IPv6Address | IPv4Network | IPv6Network):
        return str(value)
    if isinstance(value, list | tuple | set | frozenset):
        return [_convert(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _convert(item) for key, item in value.items()}
    return str(value)


def _decimal(value: Decimal) -> Any:
    if not value.is_finite():
        return "NaN" if value.is_nan() else ("Infinity" if value > 0 else "-Infinity")
    if abs(value) >= _EXACT_FLOAT_LIMIT:
        return str(value)  # a float would change the digits that matter
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and exponent >= 0:
        return int(value)  # a whole number without a scale (e.g. PostgreSQL's SUM of bigint)
    return float(value)


def to_markdown(result: QueryResult) -> str:
    """A markdown table followed by "(N rows, M ms)", as the agent's query tool returns it."""
    lines: list[str] = []
    if result.columns:
        lines.append("| " + " | ".join(_md_cell(c) for c in result.columns) + " |")
        lines.append("|" + "---|" * len(result.columns))
        for row in result.rows:
            lines.append("| " + " | ".join(_md_cell(v) for v in row) + " |")
        lines.append("")
    noun = "row" if result.row_count == 1 else "rows"
    summary = f"({result.row_count} {noun}, {result.execution_ms}ms"
    if result.truncated:
        cap = f"the {result.row_count}-row cap" if result.truncated_by == "rows" else "the size cap"
        summary += f"; truncated at {cap}, so more rows exist: aggregate, filter or add a LIMIT"
    lines.append(summary + ")")
    return "\n".join(lines)


def _md_cell(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, list | dict):
        text = json.dumps(value, ensure_ascii=False, default=str)
    elif isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = str(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def to_json(result: QueryResult) -> dict[str, Any]:
    """The JSON form of a result (every value already JSON-safe)."""
    return result.model_dump(mode="json")
