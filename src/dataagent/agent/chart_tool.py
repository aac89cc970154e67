"""The agent's `create_chart` tool: draw rows the model already has as a chart in the answer.

The model passes a `ChartRequest` (type, title, rows, x, y, optional series). A request
that does not validate comes back to the model as "Error: …" text saying what to fix,
never as an exception. A chart that is made is kept (PNG + Vega-Lite spec), reported
through `on_chart` (the run turns it into a `chart` event), and answered with the
markdown image link the model puts in its answer.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import ValidationError

from dataagent.charts import ChartRequest, describe, prepare
from dataagent.errors import DataAgentError
from dataagent.services import charts
from dataagent.services.context import AppContext

log = logging.getLogger(__name__)

TOOL_NAME = "create_chart"
# The validation errors shown to the model: enough to fix the call, not one per bad row.
MAX_ERRORS_SHOWN = 5

OnChart = Callable[[dict[str, Any]], Awaitable[None]]

DESCRIPTION = """\
Draw a chart from rows you already have (e.g. a query result) and show it in your answer.
Use it when a picture says more than a table: a trend over time (chart_type "line"),
comparing categories ("bar"), shares of a whole across a few categories ("pie", one y
column, no negative values), or each category split into parts ("stacked_bar", with
`series` or several y columns).
Arguments: chart_type; title; data: the rows as objects, column name -> value (at most
5,000 rows: aggregate with SQL first); x: the category or date column; y: a list of
numeric columns (several y columns give several series); series: optional column whose
values split the rows into series (long format, one y column).
More than 15 categories are cut to the 14 largest plus "Other".
Returns a markdown image link and what the chart shows: put the link in your answer,
unchanged, where the chart belongs."""


def make_chart_tool(
    ctx: AppContext, owner_id: uuid.UUID, message_id: uuid.UUID | None, on_chart: OnChart
) -> BaseTool:
    """The `create_chart` tool for one answer: charts are kept for this owner and message."""

    async def create_chart(
        chart_type: str,
        title: str,
        data: list[dict[str, Any]],
        x: str,
        y: list[str],
        series: str | None = None,
    ) -> str:
        fields = {
            "chart_type": chart_type,
            "title": title,
            "data": data,
            "x": x,
            "y": y,
            "series": series,
        }
        try:
            request = ChartRequest.model_validate(fields)
        except ValidationError as error:
            return explain(error)
        try:
            chart = await charts.create_chart(ctx, owner_id, message_id, request)
        except DataAgentError as error:
            return f"Error: the chart was not made: {error.message}"
        except Exception:
            log.exception("drawing a chart failed")
            return "Error: the chart could not be drawn; answer with a table instead."
        payload = charts.chart_event(chart, request.chart_type)
        await on_chart(payload)
        summary = describe(prepare(request))
        return f"![{_alt(request.title)}]({payload['url']})\n{summary}"

    return StructuredTool.from_function(
        coroutine=create_chart,
        name=TOOL_NAME,
        description=DESCRIPTION,
        args_schema=ChartRequest,
        handle_validation_error=explain,
    )


def explain(error: ValidationError) -> str:
    """A validation error as the "Error: …" text the model reads to fix its call."""
    lines: list[str] = []
    for item in error.errors(include_url=False):
        message = str(item["msg"]).removeprefix("Value error, ")
        where = ".".join(str(part) for part in item["loc"])
        line = f"{where}: {message}" if where else message
        if line not in lines:
            lines.append(line)
    shown = lines[:MAX_ERRORS_SHOWN]
    more = len(lines) - len(shown)
    text = "Error: the chart was not made. " + " ".join(
        line if line.endswith(".") else line + "." for line in shown
    )
    if more:
        text += f" (and {more} more problems)"
    return text


def _alt(title: str) -> str:
    """The title as markdown image text: one line, brackets escaped."""
    text = " ".join(title.split())
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
