"""The agent's prompts: seed 000's system prompt, the history summary prompt, fixed answers,
and the notes a tool result carries when a limit cut it or kept a call from running.

Pure: plain data in, text out. The system prompt holds the datasets retrieval found for
the question (their full YAML), the relationships among them and the metrics it found (one
line each), never the whole schema, so its size grows with what was retrieved and not with
the ontology.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ROLE = (
    "You are an expert data analyst assistant. You answer questions about the user's data "
    "by exploring the datasets of their semantic model, writing read-only SQL, running it, "
    "and analysing the results. You work step by step: think about what you need, call a "
    "tool, read its result, and continue until you can answer."
)

DIALECT_NAMES = {
    "postgresql": "PostgreSQL",
    "sqlite": "SQLite",
    "duckdb": "DuckDB",
    "mysql": "MySQL/MariaDB",
}

NO_ANSWER = "I could not produce an answer to that question."
NO_ANSWER_AFTER_QUERIES = (
    "I ran the queries shown above but could not produce a written answer from them; "
    "their results are in the tool calls of this message."
)

STEP_LIMIT_NOTICE = (
    "You have reached the limit of steps for this question. Do not call any more tools. "
    "Answer now with what you have found so far, and say plainly what is missing or "
    "uncertain."
)


def call_not_run(limit: int, asked: int, not_run: int) -> str:
    """What the model reads after a turn's last result when it asked for more calls than a
    turn runs: those past the limit did not run."""
    return (
        f"Not run: {not_run} more tool calls of this turn. A turn runs at most {limit} tool "
        f"calls and this one asked for {asked}; call again for what you still need, at most "
        f"{limit} at a time."
    )


def tool_time_spent(budget_s: float) -> str:
    """The result of a tool call made after the answer's tool time ran out: it did not run."""
    return f"Not run: this answer's tool time ({budget_s:g} s) is spent; answer with what you have."


def result_cut(left: int, limit: int, reached: str) -> str:
    """The note ending a tool result the model is shown only part of.

    `reached` says which limit cut it: `call` (one result), `turn` or `answer` (all of them).
    """
    if reached == "call":
        return (
            f"\n\n[{left:,} more characters of this result were left out: a tool result shows "
            f"at most {limit:,}. To see less at once, aggregate (GROUP BY), add a LIMIT, or "
            "print less (df.head(), a summary).]"
        )
    whose = "this turn's" if reached == "turn" else "this answer's"
    advice = (
        "Ask for less per call, or make fewer calls at a time."
        if reached == "turn"
        else "Answer with what you have, or ask for much less."
    )
    return (
        f"\n\n[{left:,} more characters left out: {whose} tool results reached their limit "
        f"of {limit:,} characters. {advice}]"
    )


def output_cut(left: int, where: str) -> str:
    """The note where `run_python`'s printed output was cut (`where`: first or last part)."""
    return f"[{left:,} more characters of output left out; showing the {where} part.]"


SUMMARY_INSTRUCTIONS = (
    "You summarise the earlier part of a conversation between a user and a data analyst "
    "assistant, so the assistant can continue it. Keep what later questions may rely on: "
    "the questions asked, the datasets, columns, filters and SQL used, the figures found, "
    "assumptions made and anything left open. Write at most 200 words of plain prose or "
    "bullets. Do not invent anything."
)


@dataclass(frozen=True)
class PromptDataset:
    """A dataset retrieval found: its name, description and full YAML."""

    name: str
    description: str | None
    yaml: str


@dataclass(frozen=True)
class PromptMetric:
    """A metric of the semantic model: what it means, what it reads and how it is computed."""

    name: str
    label: str | None
    description: str | None
    format: str
    datasets: Sequence[str]
    definition: str  # `sum(quantity) where status = 'x'`, or `numerator / denominator`


def metric_line(metric: PromptMetric) -> str:
    """One metric as a Markdown list item: name, label and format, meaning, datasets, formula."""
    named = f"{metric.label}; {metric.format}" if metric.label else metric.format
    meaning = f" {metric.description.strip()}" if metric.description else ""
    if meaning and not meaning.endswith("."):
        meaning += "."
    return (
        f"- **{metric.name}** ({named}):{meaning} Datasets: {', '.join(metric.datasets)}. "
        f"Definition: `{metric.definition}`"
    )


@dataclass(frozen=True)
class JoinHint:
    """A relationship between two retrieved datasets: `from.cols = to.cols`."""

    name: str
    from_dataset: str
    from_columns: Sequence[str]
    to_dataset: str
    to_columns: Sequence[str]
    cardinality: str


@dataclass(frozen=True)
class PromptLimits:
    """The limits the database tools run under, as the prompt states them."""

    max_rows: int
    timeout_s: float
    # The tool limits of an answer, stated when given.
    calls_per_turn: int | None = None
    result_chars: int | None = None


def _datasets_section(datasets: Sequence[PromptDataset]) -> str:
    if not datasets:
        return (
            "## Available Datasets\n\n"
            "The search for datasets relevant to this question found nothing. Call "
            "`list_datasets` to see every dataset of this semantic model, then "
            "`get_dataset_details` for the ones that look relevant, before writing SQL."
        )
    parts = [
        "## Available Datasets\n\n"
        f"These {len(datasets)} datasets looked most relevant to the question (found by "
        "search, best first). Other datasets may exist: `list_datasets` lists them all."
    ]
    parts.extend(dataset_block(dataset) for dataset in datasets)
    return "\n\n".join(parts)


def dataset_block(dataset: PromptDataset) -> str:
    """One dataset as a prompt shows it: a heading and its YAML."""
    return f"### {dataset.name}\n\n```yaml\n{dataset.yaml.strip()}\n```"


def _metrics_section(metrics: Sequence[PromptMetric]) -> str:
    if not metrics:
        return ""
    lines = [
        "## Metrics\n",
        "Metrics defined in the semantic model that may match the question, best first. When "
        "the question asks for one, compute it as defined: aggregate over the metric's first "
        "dataset (fields without a prefix are its fields; `other.field` needs a join), keep "
        "its filter, and compute a ratio's two metrics separately before dividing.\n",
        *(metric_line(m) for m in metrics),
    ]
    return "\n".join(lines)


def _joins_section(hints: Sequence[JoinHint]) -> str:
    if not hints:
        return ""
    lines = [
        "## Relationships (Join Hints)\n",
        "Join these datasets on these columns (declared or inferred keys):",
    ]
    lines.extend(join_line(hint) for hint in hints)
    lines.append(f"\n{FAN_OUT_NOTE}")
    return "\n".join(lines)


FAN_OUT_NOTE = (
    'Joining from the "one" side to the "many" side repeats rows: aggregate the '
    "many side first (or count distinct keys) so totals are not inflated."
)


def join_line(hint: JoinHint) -> str:
    """One relationship as a Markdown list item: its join condition, cardinality and name."""
    condition = " AND ".join(
        f"{hint.from_dataset}.{a} = {hint.to_dataset}.{b}"
        for a, b in zip(hint.from_columns, hint.to_columns, strict=False)
    )
    return f"- {condition} ({hint.cardinality.replace('_', '-')}; {hint.name})"


def _database_section(dialect: str, limits: PromptLimits) -> str:
    name = DIALECT_NAMES.get(dialect, dialect)
    timeout = f"{limits.timeout_s:g}"
    return (
        "## Database\n\n"
        f"The database is {name}; write SQL in its dialect. Access is read-only:\n"
        "- one statement per query: a SELECT (or WITH ... SELECT); nothing that writes, "
        "creates, or changes settings;\n"
        "- only the datasets of this semantic model may be read, by their `source` tables;\n"
        f"- at most {limits.max_rows} rows come back (more are cut off and the result says "
        "so): aggregate, filter, GROUP BY or LIMIT instead of fetching raw rows;\n"
        f"- a query may run for {timeout} seconds at most."
    ) + _tool_limits(limits)


def _tool_limits(limits: PromptLimits) -> str:
    lines = []
    if limits.calls_per_turn is not None:
        lines.append(
            f"- at most {limits.calls_per_turn} tool calls run per turn; further calls of "
            "that turn are not run;"
        )
    if limits.result_chars is not None:
        lines.append(
            f"- a tool result shows at most {limits.result_chars:,} characters, and all the "
            "results of a turn and of an answer have a limit too: ask for what you need, "
            "not everything."
        )
    return "\n\nTools:\n" + "\n".join(lines) if lines else ""


def _instructions_section() -> str:
    return (
        "## How to Work\n\n"
        "1. **Understand the question.** Decide which measures, dimensions, filters and "
        "time range it asks for.\n"
        "2. **Plan.** Use the datasets and join hints above. If a dataset you need is not "
        "described, call `list_datasets`, then `get_dataset_details`.\n"
        "3. **Write SQL.** Use the `source` table names and the field names exactly as "
        "described. Handle NULLs deliberately (COALESCE, or filter them out and say so). "
        "Prefer aggregation in SQL to fetching rows.\n"
        "4. **Recover from errors.**\n"
        "   - 0 rows: call `get_sample_data` to see real values (spelling, case, date "
        "formats), then adjust the filters.\n"
        "   - an unknown column or table: call `get_dataset_details` for the dataset and "
        "use the names it gives.\n"
        "   - a SQL error: read the error message, fix the query and run it again.\n"
        "   - you need other tables: call `list_datasets`.\n"
        "5. **Use Python when it helps.** `run_python` is for analysis and charts "
        "(statistics, reshaping, matplotlib), not for fetching data: get the data with "
        "`query_database` first. Each query result is available in `run_python` as a "
        "pandas DataFrame: `df1` for the first query of this answer, `df2` for the second, "
        "and so on, and `df` for the latest. Save charts as PNG files (for example "
        "`plt.savefig('chart.png')`); they are shown to the user.\n"
        "6. **Answer.** Write the answer in Markdown: lead with the result, use a table "
        "for several numbers, and say which datasets and filters the figures come from "
        "and any assumption you made. Never invent a figure a query did not return."
    )


def _conversation_section(conversation: str) -> str:
    if not conversation.strip():
        return ""
    return (
        "## Previous Conversation\n\n"
        "The conversation so far (tool calls abbreviated). The user's new question follows "
        "it; earlier query results may be out of date, so query again when you need "
        f"figures.\n\n{conversation.strip()}"
    )


def system_prompt(
    datasets: Sequence[PromptDataset],
    joins: Sequence[JoinHint],
    dialect: str,
    limits: PromptLimits,
    conversation: str = "",
    metrics: Sequence[PromptMetric] = (),
) -> str:
    """Seed 000's system prompt: role, datasets, metrics, join hints, database, instructions,
    history."""
    sections = [
        ROLE,
        _datasets_section(datasets),
        _metrics_section(metrics),
        _joins_section(joins),
        _database_section(dialect, limits),
        _instructions_section(),
        _conversation_section(conversation),
    ]
    return "\n\n".join(section for section in sections if section) + "\n"


def join_hints_among(names: Sequence[str], relationships: Sequence[JoinHint]) -> list[JoinHint]:
    """The relationships whose two ends are both among `names` (in the order given)."""
    wanted = set(names)
    return [r for r in relationships if r.from_dataset in wanted and r.to_dataset in wanted]
