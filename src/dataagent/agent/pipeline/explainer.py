"""Phase 6, the explainer: the narrative (streamed), lineage, caveats, assumptions, charts.

Contract: `explain(state, run)` streams the narrative as `message_chunk` events and
returns `{"explainer_output": ExplainerOutput, "status": "complete"}`. It also answers
conversational questions and writes the helpful refusal when the navigator found nothing.

- A data answer: one streamed call grounded in the step results (columns and up to
  `PROMPT_ROWS` rows of each, with row counts), the plan's intent, the verification's
  failures and the plan's ambiguities. Then code adds what the model must not decide: the
  numbers of the text checked against the results, lineage computed from the executed SQL,
  caveats, the "Assumptions" section, and a chart chosen from the main result's shape.
- A conversational question: one streamed call over what the ontology holds and the
  conversation.
- Nothing in the ontology fits (`cannot_answer`): a templated refusal, no model call.
- An offline answer (`run.offline`): the narrative is templated from the main result
  (`offline.narrative`), with the same numbers check, lineage, caveats, assumptions (the
  planner's notes among them) and chart; an abstention is the planner's description of
  what it understood and what not (`offline.abstention_text`). No model call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from dataagent.agent.pipeline import offline
from dataagent.agent.pipeline.lineage import lineage_of, merge_lineage
from dataagent.agent.pipeline.numbers import known_values, ungrounded
from dataagent.agent.pipeline.state import (
    MAX_REVISIONS,
    CannotAnswer,
    DataLineage,
    ExplainerOutput,
    PipelineRun,
    PipelineState,
    PlanArtifact,
    StepResult,
)
from dataagent.agent.prompts import metric_line
from dataagent.charts import infer_chart
from dataagent.errors import DataAgentError
from dataagent.llm.calls import clip_text, text_of
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.suggestions import suggest_questions
from dataagent.services import charts

PHASE = "explainer"
PROMPT_ROWS = 30
CELL_CHARS = 80
STDOUT_CHARS = 2_000
CONVERSATION_CHARS = 4_000
REFUSAL_DATASETS = 12
REFUSAL_EXAMPLES = 3
MAX_NUMBERS_NAMED = 5
REVISIONS_USED_UP = (
    "Maximum revision attempts reached: the checks above still failed after "
    f"{MAX_REVISIONS} revisions, so read the results with care."
)
NO_NARRATIVE = (
    "I ran the steps of the plan but could not write an answer from them; their results are "
    "in the details of this message."
)

NARRATIVE_PROMPT = """\
You are a data analyst writing the answer to a person's question from query results that
have already been computed for you. Answer the question directly, in markdown, in a few
short paragraphs or bullets (a small table when it helps). Every number you state must come
from the results below: copy it, or round it; never estimate or invent one. Name the time
window, the filters and the grain the results use when they matter. If a step failed or a
check did not pass, say plainly what that means for the answer. Do not show SQL or code, do
not add an "Assumptions" section (one is added for you), and do not describe charts (they
are shown beside your answer)."""

CONVERSATION_PROMPT = """\
You are a data analyst assistant for the person's data. This message needs no query: it is
conversational (a greeting, a question about you, about what the data covers, or about the
conversation so far). Answer briefly and helpfully in markdown from what is below; when it
helps, suggest questions the data can answer. Never state figures from the data: none were
computed for this message."""


async def explain(state: PipelineState, run: PipelineRun) -> dict[str, Any]:
    """The answer: a refusal, a conversational reply, or the narrative of the results."""
    refusal = state.get("cannot_answer")
    plan = state.get("plan")
    if refusal is not None:
        output = await _refuse(run, refusal)
    elif run.offline is not None and plan is not None and not plan.steps:
        output = await _abstain(run)
    elif plan is not None and plan.complexity == "conversational":
        output = await _converse(state, run)
    else:
        output = await _narrate(state, run)
    return {"explainer_output": output, "status": "complete"}


async def _emit_text(run: PipelineRun, text: str) -> None:
    await run.emit("message_chunk", {"chunk": text})


# --- the refusal ------------------------------------------------------------------------------


async def _refuse(run: PipelineRun, refusal: CannotAnswer) -> ExplainerOutput:
    text = refusal_text(refusal, run.model)
    await _emit_text(run, text)
    return ExplainerOutput(narrative=text)


def refusal_text(refusal: CannotAnswer, model: SemanticModel) -> str:
    """Why the question cannot be answered, and what the ontology does cover."""
    reason = refusal.reason.strip().rstrip(".") or "none of its datasets hold what it asks"
    parts = [f"I can't answer this from the data in this ontology: {reason}."]
    if refusal.missing_datasets:
        parts.append(f"It would need data on {_listing(refusal.missing_datasets)}.")
    names = refusal.available_datasets or [d.name for d in model.datasets]
    shown = [n for n in names if model.dataset(n) is not None or not model.datasets]
    lines = []
    for name in shown[:REFUSAL_DATASETS]:
        dataset = model.dataset(name)
        about = dataset.description if dataset is not None and dataset.description else ""
        lines.append(f"- **{name}**" + (f": {about.strip()}" if about else ""))
    if len(shown) > REFUSAL_DATASETS:
        lines.append(f"- … and {len(shown) - REFUSAL_DATASETS} more")
    if lines:
        parts.append("What it covers:\n\n" + "\n".join(lines))
    if model.metrics:
        metrics = ", ".join(f"**{m.label or m.name}**" for m in model.metrics[:REFUSAL_DATASETS])
        parts.append(f"Metrics it defines: {metrics}.")
    examples = [s.prompt for s in suggest_questions(model, REFUSAL_EXAMPLES)]
    if examples:
        parts.append("You could ask, for example:\n\n" + "\n".join(f"- {q}" for q in examples))
    return "\n\n".join(parts)


def _listing(names: Sequence[str]) -> str:
    shown = [f"**{n}**" for n in names]
    if len(shown) <= 1:
        return "".join(shown)
    return ", ".join(shown[:-1]) + " and " + shown[-1]


# --- the offline planner's abstention -----------------------------------------------------


async def _abstain(run: PipelineRun) -> ExplainerOutput:
    """What the offline planner understood and what not, and what to ask instead."""
    assert run.offline is not None
    text = offline.abstention_text(run.offline.plan)
    await _emit_text(run, text)
    return ExplainerOutput(narrative=text)


# --- a conversational reply -------------------------------------------------------------------


async def _converse(state: PipelineState, run: PipelineRun) -> ExplainerOutput:
    grounding = run.grounding
    parts = [f"Question: {state['question']}"]
    if state.get("conversation"):
        parts.append(
            "Conversation so far:\n" + clip_text(state["conversation"], CONVERSATION_CHARS)
        )
    covered = [d.name + (f": {d.description}" if d.description else "") for d in run.model.datasets]
    if covered:
        parts.append(
            "Datasets of the ontology:\n"
            + "\n".join(f"- {line}" for line in covered[:REFUSAL_DATASETS])
        )
    if grounding.metrics:
        parts.append("Metrics:\n" + "\n".join(metric_line(m) for m in grounding.metrics))
    prompt = CONVERSATION_PROMPT + preferences_section(state.get("preferences", {}))
    text = await _stream(run, prompt, "\n\n".join(parts), "conversation")
    return ExplainerOutput(narrative=text)


# --- the narrative of the results -------------------------------------------------------------


async def _narrate(state: PipelineState, run: PipelineRun) -> ExplainerOutput:
    plan = state.get("plan")
    results = state.get("step_results", [])
    caveats = _caveats(state, results)
    assumptions = _assumptions(plan)
    if run.offline is not None:
        assumptions = list(dict.fromkeys([*assumptions, *run.offline.plan.notes]))
        narrative = offline.narrative(run.offline.plan, results)
        await _emit_text(run, narrative)
    else:
        material = render_results(state["question"], plan, results, caveats, assumptions)
        prompt = NARRATIVE_PROMPT + preferences_section(state.get("preferences", {}))
        narrative = await _stream(run, prompt, material, "narrative")

    step_lineage = lineage_for(results, run.model)
    backing = [
        *(r.sql_result.row_count for r in results if r.sql_result),
        *(r.python_result.stdout for r in results if r.python_result),
        state["question"],
        *assumptions,
        *(f for lineage in step_lineage for f in lineage.filters),
    ]
    rows = [row for r in results if r.sql_result for row in r.sql_result.rows]
    unbacked = ungrounded(narrative, known_values(rows, extra=backing))
    if unbacked:
        caveats.append(_numbers_caveat(unbacked))
    # What the reader must know is in the answer's text, not only in its metadata.
    closing = (caveats_section(caveats) if caveats else "") + (
        assumptions_section(assumptions) if assumptions else ""
    )
    if closing:
        await _emit_text(run, closing)
        narrative += closing
    made = await _chart(run, results)
    images = [c for r in results if r.python_result for c in r.python_result.charts]
    return ExplainerOutput(
        narrative=narrative,
        data_lineage=merge_lineage(step_lineage),
        step_lineage=step_lineage,
        caveats=caveats,
        assumptions=assumptions,
        charts=[*made, *images],
    )


async def _stream(run: PipelineRun, prompt: str, material: str, purpose: str) -> str:
    """One streamed call; its text is the answer so far (a default when it wrote none)."""

    async def on_text(piece: str) -> None:
        await _emit_text(run, piece)

    reply = await run.client.stream(
        [SystemMessage(prompt), HumanMessage(material)],
        phase=PHASE,
        purpose=purpose,
        on_text=on_text,
    )
    text = text_of(reply.content)
    if not text.strip():
        text = NO_NARRATIVE
        await _emit_text(run, text)
    return text


def _caveats(state: PipelineState, results: Sequence[StepResult]) -> list[str]:
    caveats: list[str] = []
    report = state.get("verification")
    if report is not None and not report.passed:
        caveats += [c.message for c in report.checks if not c.passed and c.message]
    if report is not None:
        caveats += report.caveats
    for result in results:
        if result.error:
            caveats.append(f"Step {result.step_id} ({result.description}) failed: {result.error}")
        elif result.sql_result is not None and result.sql_result.truncated:
            caveats.append(
                f"Step {result.step_id} returned more rows than were kept "
                f"({result.sql_result.row_count:,} read); figures over all rows may differ."
            )
    if report is not None and not report.passed and state.get("revision_count", 0) > MAX_REVISIONS:
        caveats.append(REVISIONS_USED_UP)
    return list(dict.fromkeys(caveats))


def _assumptions(plan: PlanArtifact | None) -> list[str]:
    if plan is None:
        return []
    found = [a.assumption.strip() for a in plan.ambiguities if a.assumption.strip()]
    return list(dict.fromkeys(found))


def _numbers_caveat(numbers: Sequence[str]) -> str:
    named = ", ".join(numbers[:MAX_NUMBERS_NAMED])
    more = len(numbers) - MAX_NUMBERS_NAMED
    if more > 0:
        named += f" and {more} more"
    return f"The answer states numbers the query results do not contain: {named}. Check them."


def assumptions_section(assumptions: Sequence[str]) -> str:
    """Seed 002's section, appended to the answer: `## Assumptions` and a bullet each."""
    return "\n\n## Assumptions\n\n" + "\n".join(f"- {a}" for a in assumptions)


def caveats_section(caveats: Sequence[str]) -> str:
    """What limits the answer (failed checks, failed steps, numbers the results do not hold,
    revisions used up): `## Caveats` and a bullet each, before the assumptions."""
    return "\n\n## Caveats\n\n" + "\n".join(f"- {c}" for c in caveats)


def preferences_section(preferences: dict[str, str]) -> str:
    """Seed 001's explainer injection of the person's preferences ("" when there are none)."""
    if not preferences:
        return ""
    lines = "\n".join(f"- {key}: {value}" for key, value in preferences.items())
    return (
        "\n\n## User Preferences\n\nApply the following user preferences when formatting "
        f"your narrative response:\n{lines}"
    )


def render_results(
    question: str,
    plan: PlanArtifact | None,
    results: Sequence[StepResult],
    caveats: Sequence[str],
    assumptions: Sequence[str],
) -> str:
    """The narrative call's material: the question, the plan's intent, each step's result
    (bounded), what did not pass, and the assumptions made."""
    parts = [f"Question: {question}"]
    if plan is not None and plan.intent:
        parts.append(f"What the analysis set out to do: {plan.intent}")
    for result in results:
        parts.append(_step_block(result))
    if not results:
        parts.append("No step produced a result.")
    if caveats:
        parts.append("Caveats (say what they mean for the answer):\n" + _bullets(caveats))
    if assumptions:
        parts.append("Assumptions made (mention them where they matter):\n" + _bullets(assumptions))
    return "\n\n".join(parts)


def _bullets(items: Sequence[str]) -> str:
    return "\n".join(f"- {item}" for item in items)


def _step_block(result: StepResult) -> str:
    head = f"Step {result.step_id}: {result.description}"
    lines = [head]
    sql = result.sql_result
    if sql is not None:
        shown = sql.rows[:PROMPT_ROWS]
        count = f"{sql.row_count:,} rows" if sql.row_count != 1 else "1 row"
        more = f", the first {len(shown)} shown" if len(shown) < sql.row_count else ""
        lines.append(f"Result ({count}{more}):")
        lines.append(_table(sql.columns, shown))
    python = result.python_result
    if python is not None and python.stdout.strip():
        lines.append(
            "Analysis output:\n```\n" + clip_text(python.stdout.strip(), STDOUT_CHARS) + "\n```"
        )
    if result.error:
        lines.append(f"This step failed: {result.error}")
    return "\n".join(lines)


def _table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    def cell(value: Any) -> str:
        text = "NULL" if value is None else str(value)
        return clip_text(text.replace("|", "\\|").replace("\n", " "), CELL_CHARS)

    lines = ["| " + " | ".join(cell(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


# --- charts -----------------------------------------------------------------------------------


def main_result(results: Sequence[StepResult]) -> StepResult | None:
    """The step whose rows answer the question: the last SQL step that succeeded."""
    for result in reversed(results):
        if result.sql_result is not None and not result.error:
            return result
    return None


async def _chart(run: PipelineRun, results: Sequence[StepResult]) -> list[dict[str, Any]]:
    """A chart of the main result, chosen from its shape (none when no shape fits, or when
    only part of its rows were kept)."""
    main = main_result(results)
    if main is None or main.sql_result is None or main.sql_result.truncated:
        return []
    sql = main.sql_result
    request = infer_chart(sql.columns, sql.rows, title=None)
    if request is None:
        return []
    scope = run.scope
    try:
        chart = await charts.create_chart(run.ctx, scope.owner_id, scope.message_id, request)
    except DataAgentError:
        # Too big to draw, or not drawable: the answer stands without it.
        return []
    payload = charts.chart_event(chart, request.chart_type)
    kept = {key: payload[key] for key in ("id", "url", "title", "chartType")}
    scope.charts.append(kept)
    await run.emit("chart", payload)
    return [kept]


def lineage_for(results: Sequence[StepResult], model: SemanticModel) -> list[DataLineage]:
    """Each SQL step's lineage, from the SQL it ran."""
    return [
        lineage_of(r.sql_result.sql, model, model.dialect, r.sql_result.row_count, r.step_id)
        for r in results
        if r.sql_result is not None
    ]
