"""Seed 004's agent: a question about an ontology or a file dataset, answered with a query.

QueryPlan first; SQL only when the person asks for SQL (`explicit_sql`: the message holds
a SQL statement, in a ```sql block, after "SQL:", or as the whole message).

- With a model: the agent's one loop (`react.LoopAnswer`) with seed 004's five tools
  (`agent.plan_tools`) and the prompt below; the model writes a QueryPlan (or, when asked,
  SQL), the tools run it, and the model answers from the rows. The result is the last query
  that succeeded; when every query it tried failed, that failure is the answer's error.
- With none: the offline planner (`agent.offline.planner.plan_question`) writes the plan,
  and the same path runs it; SQL the person wrote is run as it is. When the planner is not
  confident it abstains: what it understood, what it did not, what to ask instead.

The stages (`planning`, `validating`, `executing`) are told `on_stage` as they happen.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import sqlglot
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from sqlglot import exp

from dataagent.agent.budget import ToolBudget, ToolLimits
from dataagent.agent.offline.planner import OfflinePlan, plan_question
from dataagent.agent.plan_tools import (
    DataSource,
    Executed,
    OnStage,
    PlanScope,
    dataset_listing,
    make_plan_tools,
    run_plan,
    run_sql,
)
from dataagent.agent.react import LoopAnswer
from dataagent.agent.tool_calls import ToolOutcome, Turn
from dataagent.dialects import sqlglot_name
from dataagent.llm.calls import ChatClient
from dataagent.ontology.values import ValueIndex
from dataagent.services.context import AppContext

# How an answer ended when it has one (a failure is an error, not a status): a query ran
# (`succeeded`), the model replied without a query (`answered`), or the offline planner did
# not understand the question well enough to answer it (`abstained`).
ServerStatus = Literal["succeeded", "answered", "abstained"]

NO_MODEL_HINT: Final = (
    "To answer questions like this one, configure a language model (docs/configuration.md)."
)

PROMPT: Final = """You answer questions about data by running queries, then say what the \
rows show in a few plain sentences.

Write a QueryPlan and run it with execute_query_plan. Use execute_sql only when the person \
asked for SQL (they wrote a SQL statement or said so); then run their statement as given.
Never state a number you did not read in a tool result.

A QueryPlan is JSON:
{{"metrics": [{{"name": "<metric>"}}],
  "measures": [{{"field": "<dataset.field>", \
"aggregation": "sum|avg|min|max|count|count_distinct"}}],
  "dimensions": [{{"field": "<dataset.field>", "time_grain": "day|week|month|quarter|year"}}],
  "filters": [{{"field": "<dataset.field>", "op": "=|!=|>|>=|<|<=|in|not_in|between|like", \
"value": ...}}],
  "time_window": {{"field": "<dataset.date_field>", "period": "last|to_date|previous", \
"grain": "month", "count": 6}},
  "top": {{"n": 5, "by": "<metric or alias>"}},
  "order": [{{"by": "<field, alias or metric>", "direction": "asc|desc"}}],
  "limit": 100}}
Every key is optional but a plan needs a metric, a measure or a dimension. Use \
get_dataset_schema for the fields of a dataset.

The data ({dialect}):
{datasets}
"""


@dataclass(frozen=True)
class ThreadTurn:
    """An earlier question of the thread and the answer it got."""

    question: str
    answer: str


@dataclass(frozen=True)
class ServerAnswer:
    """The answer: its text, how it ended, and the query that produced its result."""

    message: str
    status: ServerStatus
    executed: Executed | None


# A statement's first word: what makes text SQL rather than a question.
_STATEMENT = re.compile(
    r"\b(select|with|insert|update|delete|drop|create|alter|truncate|merge|grant|revoke|"
    r"copy|attach|pragma|replace|call|exec|execute)\b",
    re.IGNORECASE,
)
_FENCED = re.compile(r"```(?:sql)?\s*(.+?)```", re.IGNORECASE | re.DOTALL)
_SAYS_SQL = re.compile(r"\bsql\b\s*:?", re.IGNORECASE)


def _statement(text: str, dialect: str) -> str | None:
    """`text` when it parses as one SQL statement that reads or writes a table."""
    text = text.strip().rstrip(";").strip()
    if not text:
        return None
    try:
        parsed = sqlglot.parse(text, read=sqlglot_name(dialect))
    except sqlglot.errors.SqlglotError:
        return None
    if len(parsed) != 1 or parsed[0] is None:
        return None
    tree = parsed[0]
    if isinstance(tree, exp.Select | exp.Union | exp.With) and tree.find(exp.Table) is None:
        return None  # "select the top 5 stores" parses; a question has no FROM
    if isinstance(tree, exp.Command | exp.Alias | exp.Column):
        return None
    return text


def explicit_sql(message: str, dialect: str) -> str | None:
    """The SQL statement the person asks to run, or None for a question in words."""
    fenced = _FENCED.search(message)
    if fenced:
        return _statement(fenced.group(1), dialect)
    says = _SAYS_SQL.search(message)
    if says:
        start = _STATEMENT.search(message, says.end())
        if start:
            return _statement(message[start.start() :], dialect)
    if _STATEMENT.match(message.strip()):
        return _statement(message, dialect)
    return None


def asks_for_sql(message: str, dialect: str) -> bool:
    """Whether the person asks for SQL: they say "SQL" or write a statement."""
    return bool(_SAYS_SQL.search(message)) or explicit_sql(message, dialect) is not None


def abstention(offline: OfflinePlan) -> str:
    """What the offline planner understood, what it did not, and what to ask instead."""
    parts = []
    if offline.understood:
        parts.append(f"I understood: {', '.join(offline.understood)}.")
    if offline.not_understood:
        parts.append(f"I could not place: {', '.join(offline.not_understood)}.")
    else:
        parts.append("I am not sure enough of what you mean to answer without guessing.")
    if offline.suggestions:
        asks = [s.rstrip(" .") for s in offline.suggestions[:3]]
        parts.append("Questions I can answer: " + "; ".join(asks) + ".")
    parts.append(NO_MODEL_HINT)
    return " ".join(parts)


def result_sentence(executed: Executed, understood: Sequence[str] = ()) -> str:
    """A templated sentence on what a query returned (no model)."""
    result = executed.result
    about = f" ({', '.join(understood)})" if understood else ""
    if result.row_count == 1 and len(result.columns) == 1:
        return f"The answer{about} is {result.rows[0][0]}."
    rows = "1 row" if result.row_count == 1 else f"{result.row_count} rows"
    return f"Here is the result{about}: {rows}."


async def answer_offline(
    scope: PlanScope, values: ValueIndex | None, today: dt.date
) -> ServerAnswer:
    """Answer with no model: the person's SQL, or the offline planner's plan."""
    question = scope.question
    sql = explicit_sql(question, scope.source.model.dialect) if scope.sql_allowed else None
    if sql is not None:
        executed = await run_sql(scope, sql)
        return ServerAnswer(result_sentence(executed), "succeeded", executed)
    offline = plan_question(question, scope.source.model, values, today=today)
    if not offline.answered or offline.plan is None:
        return ServerAnswer(abstention(offline), "abstained", None)
    executed = await run_plan(scope, offline.plan)
    return ServerAnswer(_offline_text(executed, offline), "succeeded", executed)


async def answer_fast(
    scope: PlanScope, values: ValueIndex | None, today: dt.date
) -> ServerAnswer | None:
    """The offline planner's answer when it is confident (no model call), else None."""
    offline = plan_question(scope.question, scope.source.model, values, today=today)
    if not offline.answered or offline.plan is None:
        return None
    executed = await run_plan(scope, offline.plan)
    return ServerAnswer(_offline_text(executed, offline), "succeeded", executed)


def _offline_text(executed: Executed, offline: OfflinePlan) -> str:
    text = result_sentence(executed, offline.understood)
    return f"{text} {' '.join(offline.notes)}" if offline.notes else text


class _QuietHooks:
    """The loop's hooks for the agent server: its events are the stages the tools tell."""

    async def on_text(self, piece: str) -> None:
        """Nothing: the answer's text comes whole, in `result`."""

    async def before_tools(self, reply: AIMessage) -> None:
        """Nothing."""

    async def on_call(self, call: dict[str, Any]) -> None:
        """Nothing."""

    async def on_outcome(self, outcome: ToolOutcome) -> None:
        """Nothing."""

    async def after_tools(self, turn: Turn, reply: AIMessage, round_: int) -> None:
        """Nothing."""


def history_messages(earlier: Sequence[ThreadTurn]) -> list[AnyMessage]:
    """The thread's earlier turns as the model reads them."""
    messages: list[AnyMessage] = []
    for turn in earlier:
        messages += [HumanMessage(turn.question), AIMessage(turn.answer)]
    return messages


async def answer_with_model(
    scope: PlanScope, client: ChatClient, earlier: Sequence[ThreadTurn]
) -> ServerAnswer:
    """Answer with the model and the five tools."""
    settings = scope.ctx.settings
    model = scope.source.model
    prompt = PROMPT.format(dialect=model.dialect, datasets=dataset_listing(model))
    loop = LoopAnswer(
        client=client,
        tools=make_plan_tools(scope),
        prompt=prompt,
        budget=ToolBudget(ToolLimits.of(settings)),
        hooks=_QuietHooks(),
        max_rounds=settings.agent_max_tool_rounds,
        last_word=True,
    )
    text = await loop.run([*history_messages(earlier), HumanMessage(scope.question)])
    if scope.executed:
        executed = scope.executed[-1]
        return ServerAnswer(text.strip() or result_sentence(executed), "succeeded", executed)
    if scope.failure is not None:
        raise scope.failure
    return ServerAnswer(text.strip() or "I have no answer to that.", "answered", None)


async def answer_question(
    ctx: AppContext,
    owner_id: uuid.UUID,
    source: DataSource,
    question: str,
    on_stage: OnStage,
    *,
    client: ChatClient | None,
    earlier: Sequence[ThreadTurn] = (),
    values: ValueIndex | None = None,
    run_id: uuid.UUID | None = None,
    today: dt.date | None = None,
) -> ServerAnswer:
    """Answer the question about `source`: with the model when `client` is given, else with
    the offline planner. A failed query raises its error (QUERY_TIMEOUT as RUNNER_TIMEOUT)."""
    scope = PlanScope(
        ctx=ctx,
        owner_id=owner_id,
        source=source,
        question=question,
        on_stage=on_stage,
        run_id=run_id,
        sql_allowed=asks_for_sql(question, source.model.dialect),
    )
    settings = ctx.settings
    # `reference_date` and `offline_fast_path` are the pipeline's settings (read here as
    # they are there, when this build has them).
    today = today or getattr(settings, "reference_date", None) or dt.datetime.now(dt.UTC).date()
    await on_stage("planning")
    if client is None:
        return await answer_offline(scope, values, today)
    if getattr(settings, "offline_fast_path", False) and not scope.sql_allowed:
        fast = await answer_fast(scope, values, today)
        if fast is not None:
            return fast
    return await answer_with_model(scope, client, earlier)
