"""The agent's `create_chart` tool: draw rows the model already has as a chart in the answer.

The model passes a `ChartRequest` (type, title, rows, x, y, optional series, a scatter's
optional label). Before any other work its arguments are measured against the `chart_*`
limits (total size, rows, columns, label lengths): the model is not trusted, and megabytes
of rows once took minutes to draw. A request that is too big or does not validate is refused with
"Error (VALIDATION_ERROR): the chart was not made. …" saying what to fix (a `ToolException`
the tool turns into an error result). A chart that is made is kept (PNG + Vega-Lite spec),
reported through `on_chart` (the run turns it into a `chart` event), and answered with the
markdown image link the model puts in its answer.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import ValidationError

from dataagent.charts import ChartRequest, describe, prepare, size_problems
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.services import charts
from dataagent.services.context import AppContext

log = logging.getLogger(__name__)

TOOL_NAME = "create_chart"
# The validation errors shown to the model: enough to fix the call, not one per bad row.
MAX_ERRORS_SHOWN = 5

OnChart = Callable[[dict[str, Any]], Awaitable[None]]
NOT_MADE = "Error (VALIDATION_ERROR): the chart was not made."

DESCRIPTION = """\
Draw a chart from rows you already have (e.g. a query result) and show it in your answer.
Use it when a picture says more than a table: a trend over time (chart_type "line"),
comparing categories ("bar"), shares of a whole across a few categories ("pie", one y
column, no negative values), each category split into parts ("stacked_bar", with
`series` or several y columns), or how two measures relate ("scatter": one point per
row, x and one y column both numeric).
Arguments: chart_type; title; data: the rows as objects, column name -> value (at most
{rows:,} rows of at most {columns} columns, labels of at most {text_chars} characters:
aggregate with SQL first); x: the category or date column (a numeric column for scatter);
y: a list of numeric columns (several y columns give several series); series: optional
column whose values split the rows into series (long format, one y column); label
(scatter only): optional column naming each point, shown in its tooltip.
More than 15 categories are cut to the 14 largest plus "Other" (a scatter keeps every
point).
Returns a markdown image link and what the chart shows: put the link in your answer,
unchanged, where the chart belongs."""


def make_chart_tool(
    ctx: AppContext, owner_id: uuid.UUID, message_id: uuid.UUID | None, on_chart: OnChart
) -> BaseTool:
    """The `create_chart` tool for one answer: charts are kept for this owner and message."""
    limits = charts.chart_limits(ctx.settings)

    async def create_chart(**arguments: Any) -> str:
        # The arguments arrive unvalidated (the schema below is only shown to the model), so
        # that their size is measured before pydantic or matplotlib spend time on them.
        too_big = size_problems(arguments, limits)
        if too_big:
            raise ToolException(refusal(too_big))
        try:
            request = ChartRequest.model_validate(arguments)
        except ValidationError as error:
            raise ToolException(explain(error)) from None
        try:
            chart = await charts.create_chart(ctx, owner_id, message_id, request)
        except DataAgentError as error:
            if error.code is ErrorCode.VALIDATION_ERROR:
                raise ToolException(refusal([error.message])) from None
            raise ToolException(f"Error ({error.code.value}): {error.message}") from None
        except Exception:
            log.exception("drawing a chart failed")
            raise ToolException(
                "Error (INTERNAL_ERROR): the chart could not be drawn; answer with a table instead."
            ) from None
        payload = charts.chart_event(chart, request.chart_type)
        await on_chart(payload)
        summary = describe(prepare(request))
        return f"![{_alt(request.title)}]({payload['url']})\n{summary}"

    return StructuredTool.from_function(
        coroutine=create_chart,
        name=TOOL_NAME,
        description=DESCRIPTION.format(
            rows=limits.rows, columns=limits.columns, text_chars=limits.text_chars
        ),
        args_schema=ChartRequest.model_json_schema(),
        # A refusal is the tool's answer (an error result), not an exception of the loop.
        handle_tool_error=True,
    )


def refusal(problems: list[str]) -> str:
    """The "Error (VALIDATION_ERROR): the chart was not made. …" text the model reads: at most
    `MAX_ERRORS_SHOWN` problems."""
    shown = problems[:MAX_ERRORS_SHOWN]
    more = len(problems) - len(shown)
    text = f"{NOT_MADE} " + " ".join(line if line.endswith(".") else line + "." for line in shown)
    if more:
        text += f" (and {more} more problems)"
    return text


def explain(error: ValidationError) -> str:
    """A validation error as the refusal the model reads to fix its call."""
    lines: list[str] = []
    for item in error.errors(include_url=False):
        message = str(item["msg"]).removeprefix("Value error, ")
        where = ".".join(str(part) for part in item["loc"])
        line = f"{where}: {message}" if where else message
        if line not in lines:
            lines.append(line)
    return refusal(lines)


def _alt(title: str) -> str:
    """The title as markdown image text: one line, brackets escaped."""
    text = " ".join(title.split())
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
