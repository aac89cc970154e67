"""The prompts of the planner, the navigator's dataset search and the SQL builder.

Pure: plain data in, text out (constants and render functions, as `agent/prompts.py`, whose
dataset, metric and join renderers they reuse). A prompt holds only what the phase needs:
the planner the datasets retrieval found (never the whole model), the SQL builder the
datasets and join path of one step, so a prompt's size follows the question, not the
ontology.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

from dataagent.agent.prompts import (
    DIALECT_NAMES,
    FAN_OUT_NOTE,
    JoinHint,
    PromptDataset,
    PromptMetric,
    dataset_block,
    join_line,
    metric_line,
)
from dataagent.semantic.joins import JoinEdge, JoinPath

PLANNER_ROLE = (
    "You are the planner of a data analysis pipeline. You read a user's question about "
    "their data and write a plan: what the question asks, the steps that answer it, and "
    "the checks the answer must pass. You write no SQL: later phases find the join paths, "
    "compile or write each step's SQL, run it, verify and explain the results."
)

PLANNER_POLICY = """## How to Plan

- `complexity`: `conversational` for what needs no data (a greeting, thanks, a question \
about you or about the wording of an earlier answer): no steps. `simple`: one query answers \
it. `analytical`: comparisons, several queries or analysis.
- `steps`: every data question has at least one, with ids 1, 2, 3, ... in order; \
`dependsOn` names only earlier steps. `strategy`: `sql` (one query), `python` (analysis or \
a chart over earlier steps' results; it reads no database), `sql_then_python` (a query, then \
Python over its result, described in `analysis`). Use as few steps as answer the question: \
one when one query does.
- Each step names its `datasets`, exactly as listed below.
- `intent`, `metrics`, `dimensions`, `timeWindow`, `filters`: what the question asks, in \
words. `grain`: what one result row is (`month`, `customer`, `store-month`; `total` for a \
single row).
- `acceptanceChecks`: one to three things the result must satisfy, each a sentence; add \
`python` only when it can assert it over `step_N_data` (step N's rows as a pandas \
DataFrame) or `current_data` (the last step's), e.g. \
`assert (step_1_data["revenue"] >= 0).all()`.
- `ambiguities`: what you had to assume: the question it settles and the assumption made.
- Clarify (`shouldClarify: true`, at most 3 `clarificationQuestions`, each with the \
`assumption` you would otherwise make and a `preferenceKey` such as `default_time_window`) \
only for a critical ambiguity: one that changes which data is read, which metric is \
computed or how the result reads, and that no reasonable default, the conversation or the \
user's preferences settle. "Show me top customers" needs no question (default: by \
revenue); "Analyze sales", with no context and several plausible time windows, may. A plan \
that clarifies has no steps."""

QUERY_PLAN_GUIDE = """## Query Plans

When the semantic model can express a step (metrics, aggregates of fields, groupings, \
filters, time windows, comparisons with an earlier period, top N), give the step a \
`queryPlan`: it is compiled to exact SQL, with the right joins and no double counting, and \
costs no further model call. Its keys (field names as `dataset.field`, exactly as the YAML \
gives them):
- `datasets`: the datasets it is about (bare field names resolve there; `*` counts rows);
- `metrics`: `[{"name": metric, "alias"?, "share_of_total"?}]` (a metric listed below);
- `measures`: `[{"field": "dataset.field" | "dataset.*", "aggregation": sum | avg | min | \
max | count | count_distinct, "alias"?}]`;
- `dimensions`: `[{"field", "time_grain"?: day | week | month | quarter | year, "alias"?}]`;
- `filters`: `[{"field", "op": = | != | > | >= | < | <= | in | not_in | between | like | \
is_null | is_not_null, "value"}]`, AND-ed; `{"any": [filters]}` is an OR-group;
- `having`: `[{"by": output column, "op", "value": number}]`;
- `time_window`: `{"field": date field, "period": last | to_date | previous, "grain", \
"count"}`, relative to `reference_date` (`YYYY-MM-DD`, default today);
- `compare`: `previous_period` | `previous_year` (needs `time_window`);
- `top`: `{"n", "by", "within"?: [dimensions], "direction"?: desc | asc}`;
- `order`: `[{"by", "direction"?: asc | desc}]`; `limit`.
Example, "order count per month in 2024": `{"measures": [{"field": "orders.*", \
"aggregation": "count", "alias": "orders"}], "dimensions": [{"field": "orders.order_date", \
"time_grain": "month", "alias": "month"}], "filters": [{"field": "orders.order_date", \
"op": "between", "value": ["2024-01-01", "2024-12-31"]}], "order": [{"by": "month"}]}`.
Leave `queryPlan` out when a step needs what a plan cannot say (window functions, \
self-joins, lists of rows with row-level logic); its SQL is then written from the step."""

SQL_ROLE = (
    "You write one read-only SQL query that answers one step of a data analysis plan. "
    "The semantic model below is the only source of truth: you are FORBIDDEN from using a "
    "table, column or join it does not give."
)

NAVIGATOR_ROLE = (
    "You find, in a semantic model, the datasets that can answer the steps of a data "
    "analysis plan. The plan named no dataset, or names the model lacks. Use the tools: "
    "`list_datasets` lists every dataset; `get_dataset_details` gives the YAML of named "
    "datasets, the authoritative schema (exactly which fields exist and their types); "
    "`get_relationships` lists how datasets join. You are FORBIDDEN from guessing dataset "
    "names, fields or joins. When you know which datasets serve the plan, call "
    "`choose_datasets` with their exact names, or with none and the reason when nothing in "
    "the model fits the question."
)


# Retrieved datasets the planner sees in full (YAML); the rest, one line each. A model of
# thousands of datasets then costs the planner about what the demo's six do.
PLANNER_FULL_DATASETS = 6


def _datasets(datasets: Sequence[PromptDataset], heading: str) -> str:
    if not datasets:
        return ""
    return "\n\n".join([heading, *(dataset_block(d) for d in datasets)])


def _more_datasets(datasets: Sequence[PromptDataset]) -> str:
    if not datasets:
        return ""
    lines = [
        "Also found, less relevant (a step may name one; the next phase gives its fields):",
        *(
            f"- **{d.name}**: {' '.join((d.description or 'No description').split())}"
            for d in datasets
        ),
    ]
    return "\n".join(lines)


def _metrics(metrics: Sequence[PromptMetric]) -> str:
    if not metrics:
        return ""
    lines = [
        "## Metrics\n",
        "Metrics defined in the semantic model that may match the question; name them in a "
        "`queryPlan` when the question asks for one.\n",
        *(metric_line(m) for m in metrics),
    ]
    return "\n".join(lines)


def _joins(hints: Sequence[JoinHint]) -> str:
    if not hints:
        return ""
    return "\n".join(["## Relationships\n", *(join_line(h) for h in hints), f"\n{FAN_OUT_NOTE}"])


def _preferences(preferences: Mapping[str, str]) -> str:
    if not preferences:
        return ""
    lines = [
        "## User Preferences\n",
        "The following preferences have been stored by the user. Use them to:",
        "- avoid unnecessary clarifying questions (treat these as resolved ambiguities);",
        "- inform which datasets, time windows or metrics to prioritize;",
        "- apply any formatting or output preferences to your plan.\n",
        "Preferences:",
        *(f"- {key}: {value}" for key, value in sorted(preferences.items())),
    ]
    return "\n".join(lines)


def _clarification(answered: Sequence[Mapping[str, str]]) -> str:
    if not answered:
        return ""
    lines = [
        "## Clarification Answered\n",
        "Before this message the user was asked the questions below; the message answers "
        "them (or accepts the assumptions). Do not ask again: plan with the answers. In "
        "`preferencesFromClarification`, list what the answers settle for later questions "
        "too (`key`: the question's preference key, `value`: the answer, `question`).\n",
    ]
    for item in answered:
        question = item.get("question", "").strip()
        assumption = item.get("assumption", "").strip()
        key = item.get("preferenceKey") or item.get("preference_key") or ""
        extra = "; ".join(
            part
            for part in (
                f"assumption: {assumption}" if assumption else "",
                f"key: {key}" if key else "",
            )
            if part
        )
        lines.append(f"- {question}" + (f" ({extra})" if extra else ""))
    return "\n".join(lines)


def _conversation(conversation: str) -> str:
    if not conversation.strip():
        return ""
    return (
        "## Previous Conversation\n\n"
        "The conversation so far; the new question follows it and may refer to it.\n\n"
        f"{conversation.strip()}"
    )


def planner_prompt(
    datasets: Sequence[PromptDataset],
    joins: Sequence[JoinHint],
    metrics: Sequence[PromptMetric],
    dialect: str,
    today: dt.date,
    *,
    conversation: str = "",
    preferences: Mapping[str, str] | None = None,
    answered_clarification: Sequence[Mapping[str, str]] = (),
) -> str:
    """The planner's system prompt: role, policy, query plans, the retrieved datasets,
    metrics and joins, the database, preferences, an answered clarification, the history."""
    if datasets:
        heading = (
            "## Datasets\n\n"
            f"These {len(datasets)} datasets of the semantic model looked most relevant to "
            "the question (found by search, best first). Plan with them; a step that needs "
            "another dataset may name it, and the next phase looks it up."
        )
    else:
        heading = ""
    full, more = datasets[:PLANNER_FULL_DATASETS], datasets[PLANNER_FULL_DATASETS:]
    sections = [
        PLANNER_ROLE,
        PLANNER_POLICY,
        QUERY_PLAN_GUIDE,
        _datasets(full, heading)
        or (
            "## Datasets\n\nThe search for datasets relevant to this question found nothing. "
            "Name the datasets each step would need; the next phase looks them up in the "
            "whole semantic model."
        ),
        _more_datasets(more),
        _metrics(metrics),
        _joins(joins),
        f"## Database\n\nThe database is {DIALECT_NAMES.get(dialect, dialect)}. "
        f"Today is {today.isoformat()}.",
        _preferences(preferences or {}),
        _clarification(answered_clarification),
        _conversation(conversation),
    ]
    return "\n\n".join(s for s in sections if s) + "\n"


def navigator_prompt(
    question: str,
    steps: Sequence[tuple[int, str, Sequence[str]]],
    missing: Sequence[str],
    max_rounds: int,
) -> str:
    """The system prompt of the navigator's dataset search: role, the plan, what is missing."""
    lines = [
        f"{n}. {text}" + (f" (named: {', '.join(names)})" if names else "")
        for n, text, names in steps
    ]
    parts = [
        NAVIGATOR_ROLE,
        f"At most {max_rounds} rounds of tool calls; choose before they run out.",
        f"## The Question\n\n{question.strip()}",
        "## The Plan's Steps\n\n" + "\n".join(lines),
    ]
    if missing:
        parts.append(
            "## Not in the Semantic Model\n\nThe plan named these datasets, which do not "
            f"exist: {', '.join(missing)}. Find what the model has instead."
        )
    return "\n\n".join(parts) + "\n"


def edge_line(edge: JoinEdge) -> str:
    """One edge of a join path: its condition, its cardinality as walked, its relationship."""
    condition = " AND ".join(
        f"{edge.from_dataset}.{a} = {edge.to_dataset}.{b}"
        for a, b in zip(edge.from_columns, edge.to_columns, strict=False)
    )
    walked = edge.cardinality.value.replace("_", "-")
    return f"- {condition} ({walked}; {edge.relationship})"


def join_paths_section(paths: Sequence[JoinPath]) -> str:
    """The join paths a step's SQL follows, and which datasets they repeat."""
    if not paths or all(not p.edges for p in paths):
        return "## Join Path\n\nOne dataset: no join."
    lines = ["## Join Path\n", "Join exactly along these edges (columns as given):"]
    for path in paths:
        lines.extend(edge_line(e) for e in path.edges)
        if path.duplicated_datasets:
            lines.append(
                f"\nThese joins repeat rows of {', '.join(path.duplicated_datasets)}: "
                f"{FAN_OUT_NOTE}"
            )
    return "\n".join(lines)


def sql_prompt(
    dialect: str,
    step: str,
    plan_context: str,
    paths: Sequence[JoinPath],
    datasets: Sequence[PromptDataset],
    *,
    diagnosis: str = "",
    problem: str = "",
    previous_sql: str = "",
) -> str:
    """The SQL builder's system prompt for one step; `problem` (with the SQL it was found
    in) when the query is written again."""
    name = DIALECT_NAMES.get(dialect, dialect)
    rules = (
        "## Rules\n\n"
        f"- Write {name} SQL: one SELECT (or WITH ... SELECT), nothing that writes.\n"
        "- Read only the datasets below, by their `source` tables, and only the fields their "
        "YAML lists; a field whose `expression` is not a plain column is derived: write its "
        "expression.\n"
        "- Join only along the join path given, on the columns it names.\n"
        "- Apply every filter the step and the plan ask for; group by exactly the step's "
        "grain; keep rows whose join keys are NULL when the question would count them "
        "(LEFT JOIN).\n"
        "- Add no LIMIT unless the step asks for the top N: the system caps the rows.\n"
        "- Answer with `sql`, `expectedColumns` (the output column names, in order) and "
        "`notes` (assumptions, in a sentence or two)."
    )
    sections = [
        SQL_ROLE,
        rules,
        f"## The Step\n\n{step.strip()}",
        f"## The Plan\n\n{plan_context.strip()}" if plan_context.strip() else "",
        join_paths_section(paths),
        _datasets(datasets, "## Datasets"),
    ]
    if diagnosis.strip():
        sections.append(
            "## Revision\n\nThe verifier found a problem with the previous answer; avoid it:\n\n"
            f"{diagnosis.strip()}"
        )
    if problem.strip():
        earlier = f"\n\n```sql\n{previous_sql.strip()}\n```" if previous_sql.strip() else ""
        sections.append(
            f"## Problem to Fix\n\nThe previous SQL for this step was refused: {problem.strip()}"
            f"{earlier}"
        )
    return "\n\n".join(s for s in sections if s) + "\n"
