"""The pipeline with no model: the offline planner's plan as the planner phase's artifact,
and the templated narrative of its result.

Contract: `plan_offline(ctx, scope, question, today)` is the offline planner's reading of
the question (`agent.offline.planner.plan_question`, with the ontology's value index);
`plan_artifact` turns it into the PlanArtifact the other phases work from: one `sql` step
carrying its QueryPlan when it answers, else a `conversational` plan with no step (the
explainer then says what was understood and what was not: `abstention_text`).
`narrative` writes the answer from the main result with no model: the figures (numbers
formatted as the rows hold them), the first rows named, what the question was read as.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import re
from collections.abc import Sequence
from typing import Any

from dataagent.agent.offline.planner import OfflinePlan, describe, plan_question
from dataagent.agent.pipeline.state import PlanArtifact, PlanStep, SqlResult, StepResult
from dataagent.agent.tools import ToolScope
from dataagent.semantic.plan import Filter, QueryPlan
from dataagent.services import ontologies
from dataagent.services.context import AppContext

# Words by which a question leans on the conversation before it ("now show it per store",
# "same for 2024"): the offline planner reads one question alone, so the fast path leaves
# such a question of a conversation to the model. ("this" is left out: "this year".)
_BACK_REFERENCE = re.compile(
    r"^\s*(and|or|but)\b|\b(it|its|that|those|these|them|they|their|same|instead|also"
    r"|again|previous|above|what about|how about)\b",
    re.IGNORECASE,
)

# Rows the narrative names, and rows its table shows.
NAMED_ROWS = 3
TABLE_ROWS = 10
OFFLINE_INTENT = "Answered by the offline planner (no model)."


async def plan_offline(
    ctx: AppContext, scope: ToolScope, question: str, today: dt.date
) -> OfflinePlan:
    """The offline planner's plan of the question over the answer's ontology."""
    async with ctx.database.session() as session:
        values = await ontologies.value_index(session, scope.access)
    return plan_question(question, scope.model, values, today=today)


def refers_back(question: str) -> bool:
    """Whether the question leans on what was said before it (see `_BACK_REFERENCE`)."""
    return _BACK_REFERENCE.search(question) is not None


def plan_artifact(question: str, offline: OfflinePlan) -> PlanArtifact:
    """The planner phase's artifact of an offline plan (see the module docstring)."""
    understood = list(offline.understood)
    if not offline.answered or offline.plan is None:
        return PlanArtifact(
            complexity="conversational",
            intent="The offline planner could not read this question with confidence.",
            metrics=understood,
        )
    query_plan = offline.plan
    step = PlanStep(
        id=1,
        description=question.strip()[:1000] or "The question",
        strategy="sql",
        datasets=list(query_plan.datasets),
        expected_output=", ".join(understood)[:1000],
        query_plan=query_plan,
    )
    return PlanArtifact(
        complexity="simple",
        intent=OFFLINE_INTENT,
        metrics=[m.name for m in query_plan.metrics]
        + [f"{m.aggregation}({m.field})" for m in query_plan.measures],
        dimensions=[
            d.field + (f" by {d.time_grain}" if d.time_grain else "") for d in query_plan.dimensions
        ],
        time_window=_window_words(query_plan),
        filters=_filter_words(query_plan),
        steps=[step],
    )


def abstention_text(offline: OfflinePlan) -> str:
    """What an abstaining answer says (the offline planner's own description)."""
    return describe(offline)


# --- the narrative ------------------------------------------------------------------------------


def narrative(offline: OfflinePlan, results: Sequence[StepResult]) -> str:
    """The answer's text from the main result, with no model."""
    main = next((r for r in reversed(results) if r.sql_result is not None and not r.error), None)
    read_as = read_as_words(offline.understood)
    if main is None or main.sql_result is None:
        failed = next((r.error for r in results if r.error), None)
        why = f": {failed}" if failed else "."
        return f"I read the question as **{read_as}**, but its query did not run{why}"
    sql = main.sql_result
    if not sql.rows:
        return f"No rows match **{read_as}**."
    if len(sql.rows) == 1:
        return f"{_single_row(sql)}\n\n_Read as: {read_as}._"
    return _many_rows(sql, read_as)


def read_as_words(understood: Sequence[str]) -> str:
    """What the planner understood as one phrase: the measure, its groupings ("by ..."),
    then the rest ("net revenue by region, 2025")."""
    phrases = [p.strip() for p in understood if p.strip()]
    if not phrases:
        return "the plan shown in the details"
    groupings = [p for p in phrases if p.lower().startswith(("by ", "per "))]
    others = [p for p in phrases if p not in groupings]
    head = " ".join(others[:1] + groupings)
    return ", ".join([head, *others[1:]])


def _single_row(sql: SqlResult) -> str:
    row = sql.rows[0]
    pairs = [(_label(c), format_value(v)) for c, v in zip(sql.columns, row, strict=False)]
    if len(pairs) == 1:
        return f"**{pairs[0][0]}**: {pairs[0][1]}"
    return "\n".join(f"- **{name}**: {value}" for name, value in pairs)


def _many_rows(sql: SqlResult, read_as: str) -> str:
    count = f"{sql.row_count:,}"
    parts = [f"**{read_as[:1].upper()}{read_as[1:]}**: {count} rows."]
    labels = [i for i, c in enumerate(sql.columns) if _is_label_column(sql.rows, i)]
    numbers = [i for i in range(len(sql.columns)) if i not in labels]
    if labels and numbers and _descending(sql.rows, numbers[0]):
        # Ordered by its first figure: the leaders are named.
        first, value = labels[0], numbers[0]
        named = [
            f"{format_value(row[first])} ({format_value(row[value])})"
            for row in sql.rows[:NAMED_ROWS]
        ]
        parts.append(f"Highest {_label(sql.columns[value]).lower()}: " + "; ".join(named) + ".")
    shown = sql.rows[:TABLE_ROWS]
    parts.append(table(sql.columns, shown))
    if len(shown) < sql.row_count:
        parts.append(f"_The first {len(shown)} of {count} rows; all of them are in the details._")
    return "\n\n".join(parts)


def _is_label_column(rows: Sequence[Sequence[Any]], index: int) -> bool:
    cells = [row[index] for row in rows if index < len(row) and row[index] is not None]
    return bool(cells) and not all(_is_number(c) for c in cells)


def _descending(rows: Sequence[Sequence[Any]], index: int) -> bool:
    values = [row[index] for row in rows if _is_number(row[index])]
    return len(values) >= 2 and all(a >= b for a, b in itertools.pairwise(values))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def format_value(value: Any) -> str:
    """A cell as the narrative writes it: thousands separated, at most two decimals."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        return f"{value:,.2f}"
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Rows as a markdown table with readable headers and formatted cells."""

    def cell(value: Any) -> str:
        return format_value(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(_label(c) for c in columns) + " |"]
    lines.append("|" + "---|" * len(columns))
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _label(column: str) -> str:
    words = column.replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else column


def _window_words(plan: QueryPlan) -> str | None:
    window = plan.time_window
    if window is None:
        return None
    if window.period == "to_date":
        return f"{window.grain} to date on {window.field}"
    plural = "s" if window.count != 1 else ""
    count = f"{window.count} " if window.count != 1 else ""
    return f"{window.period} {count}{window.grain}{plural} on {window.field}"


def _filter_words(plan: QueryPlan) -> list[str]:
    words = []
    for item in plan.filters:
        conditions = [item] if isinstance(item, Filter) else item.any
        words.append(" or ".join(_condition(c) for c in conditions))
    return words


def _condition(condition: Filter) -> str:
    if condition.value is None:
        return f"{condition.field} {condition.op}"
    value = condition.value
    shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return f"{condition.field} {condition.op} {shown}"
