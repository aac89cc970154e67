"""The pipeline's entry point: a chat message answered by the six phases.

Contract: `answer_message(ctx, request, emit, client)` has `agent.react.answer_message`'s
signature and returns an `Answer` (content, metadata as seed 001 lists, and the message's
status).

It prepares the answer as the ReAct agent does (`react.prepare_answer`: the chat named,
the question grounded, the tool scope; the conversation's history), runs the compiled graph
with the answer's `PipelineRun` in its config, and turns the final state into the message:
the questions when the planner asks first (`clarification_requested`, status
`clarification_needed`), else the explainer's narrative with the phases' artifacts in the
metadata.

`answer_offline` (an `offline` chat, or no provider configured) and the fast path of
`answer_message` (`DATAAGENT_OFFLINE_FAST_PATH`, when the offline planner is confident) run
the same graph with the offline planner's plan and no model call (`PipelineRun.offline`);
their metadata adds `offline` (confidence, what was understood and not, suggestions, notes,
`fastPath`). The run that hosts it (part 1's runner) emits the message's start, completion or
failure and stores it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphRecursionError

from dataagent.agent import history
from dataagent.agent.events import Emit
from dataagent.agent.history import HistoryMessage
from dataagent.agent.observer import EventObserver
from dataagent.agent.pipeline.graph import pipeline_graph
from dataagent.agent.pipeline.offline import plan_offline, refers_back
from dataagent.agent.pipeline.planner import today
from dataagent.agent.pipeline.state import (
    MAX_REVISIONS,
    Ambiguity,
    ExplainerOutput,
    OfflineAnswer,
    PipelineRun,
    PipelineState,
    PlanArtifact,
    PreferenceSuggestion,
)
from dataagent.agent.react import Answer, AnswerRequest, PreparedAnswer, prepare_answer
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.calls import ChatClient
from dataagent.llm.usage import TokenUsage
from dataagent.services import preferences
from dataagent.services.context import AppContext
from dataagent.vocabulary import AutoCaptureMode

# Graph steps an answer may take: the five phases to the verifier, four more for each
# revision (navigator, SQL builder, executor, verifier), the explainer, and room to spare.
RECURSION_LIMIT = 5 + 4 * (MAX_REVISIONS + 1) + 2
CLARIFICATION_INTRO = "Before I answer, I need to check a few things:"
READ_ALONE = (
    "The question was read on its own: the built-in planner does not read the conversation "
    "before it, so ask it in full if it refers to an earlier answer."
)
SaveCaptured = Callable[[list[tuple[str, str]]], Awaitable[list[tuple[str, str]]]]


async def answer_message(
    ctx: AppContext, request: AnswerRequest, emit: Emit, client: ChatClient
) -> Answer:
    """Answer the assistant message `request.message_id` with the pipeline (the offline
    planner's plan first, when `DATAAGENT_OFFLINE_FAST_PATH` is on and it is confident)."""
    return await _answer(ctx, request, emit, client, offline_only=False)


async def answer_offline(
    ctx: AppContext, request: AnswerRequest, emit: Emit, client: ChatClient
) -> Answer:
    """Answer with the offline planner and no model call (an `offline` chat, or no provider
    configured): the plan's answer, or what it understood when it abstains."""
    return await _answer(ctx, request, emit, client, offline_only=True)


async def _offline(
    ctx: AppContext, prepared: PreparedAnswer, offline_only: bool, replying: bool
) -> OfflineAnswer | None:
    """The offline planner's plan when it answers this question: always in offline mode;
    in pipeline mode on the fast path, when it is confident (and the question neither
    replies to a clarification nor leans on the conversation before it, which only the
    model reads)."""
    follow_up = bool(prepared.earlier) and refers_back(prepared.question)
    if not offline_only and (not ctx.settings.offline_fast_path or replying or follow_up):
        return None
    found = await plan_offline(ctx, prepared.scope, prepared.question, today(ctx.settings))
    if offline_only:
        if follow_up and found.answered:
            # No model to read the conversation: the reader is told it was not read.
            found = dataclasses.replace(found, notes=[*found.notes, READ_ALONE])
        return OfflineAnswer(found)
    return OfflineAnswer(found, fast_path=True) if found.answered else None


async def _answer(
    ctx: AppContext, request: AnswerRequest, emit: Emit, client: ChatClient, *, offline_only: bool
) -> Answer:
    started_at = datetime.now(UTC)
    started = time.perf_counter()
    client.observer = EventObserver(emit, client.observer)
    prepared = await prepare_answer(ctx, request, emit)
    replied = answered_clarification(prepared.earlier)
    offline = await _offline(ctx, prepared, offline_only, bool(replied))
    # The conversation is the model's context (its summary may call it): none offline.
    conversation = (
        ""
        if offline is not None
        else await history.conversation_context(
            ctx, client, request.chat_id, prepared.saved, prepared.earlier
        )
    )
    preferred, capture_mode = await _preferences(ctx, request, prepared)
    run = PipelineRun(
        ctx=ctx,
        client=client,
        emit=emit,
        scope=prepared.scope,
        grounding=prepared.grounding,
        answer_id=request.message_id,
        offline=offline,
    )
    state = PipelineState(
        question=prepared.question,
        conversation=conversation,
        preferences=preferred,
        answered_clarification=replied,
        offline=offline is not None,
    )
    config: RunnableConfig = {
        "configurable": {"pipeline": run},
        "recursion_limit": RECURSION_LIMIT,
    }
    try:
        values = await pipeline_graph().ainvoke(state, config)
    except GraphRecursionError:
        raise DataAgentError(
            ErrorCode.INTERNAL_ERROR,
            f"The pipeline did not finish within {RECURSION_LIMIT} phases.",
        ) from None
    final = cast(PipelineState, values)
    plan = final.get("plan")
    if plan is not None:
        await _capture(
            run,
            plan.preferences_from_clarification,
            capture_mode,
            _saver(ctx, request, prepared),
        )
    timing = {
        "startedAt": started_at.isoformat(),
        "durationMs": round((time.perf_counter() - started) * 1000),
    }
    if final.get("explainer_output") is None and plan is not None and plan.should_clarify:
        return await _clarification(run, plan, timing)
    output = final.get("explainer_output")
    if output is None:
        raise DataAgentError(ErrorCode.INTERNAL_ERROR, "The pipeline ended without an answer.")
    return Answer(output.narrative, answer_metadata(final, run, output, timing))


def answered_clarification(earlier: Sequence[HistoryMessage]) -> list[dict[str, str]]:
    """The questions the previous answer asked, when it asked (the question replies to them)."""
    if not earlier or earlier[-1].role != "assistant":
        return []
    last = earlier[-1]
    if last.status != "clarification_needed":
        return []
    asked = last.metadata.get("clarificationQuestions")
    if not isinstance(asked, list):
        return []
    return [
        {"question": str(q.get("question", "")), "assumption": str(q.get("assumption", ""))}
        for q in asked
        if isinstance(q, dict)
    ]


async def _preferences(
    ctx: AppContext, request: AnswerRequest, prepared: PreparedAnswer
) -> tuple[dict[str, str], AutoCaptureMode]:
    """The person's effective preferences for the chat's ontology (its own over the global
    ones), and their `auto_capture_mode`."""
    ontology_id = prepared.scope.ontology.id
    async with ctx.database.session() as session:
        effective = await preferences.effective(session, request.owner_id, ontology_id)
        mode = await preferences.auto_capture_mode(session, request.owner_id)
    return effective, mode


def _saver(ctx: AppContext, request: AnswerRequest, prepared: PreparedAnswer) -> SaveCaptured:
    """Saves answers to clarifying questions as the ontology's `auto_captured` preferences;
    returns the pairs saved (a pair the rules refuse is skipped)."""

    async def save(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
        async with ctx.database.session() as session:
            saved = await preferences.capture(
                session, request.owner_id, prepared.scope.ontology.id, pairs
            )
            return [(row.key, row.value) for row in saved]

    return save


async def _capture(
    run: PipelineRun,
    suggestions: Sequence[PreferenceSuggestion],
    mode: AutoCaptureMode,
    save: SaveCaptured,
) -> None:
    """Seed 001's auto-capture of what a reply to a clarification settles: `ask` suggests
    (`preference_suggested`), `auto` saves (`preference_auto_saved`), `off` does nothing."""
    if not suggestions or mode not in ("ask", "auto"):
        return
    if mode == "ask":
        await run.emit(
            "preference_suggested",
            {
                "suggestions": [
                    {"key": s.key, "value": s.value, "question": s.question} for s in suggestions
                ]
            },
        )
        return
    saved = await save([(s.key, s.value) for s in suggestions])
    if saved:
        await run.emit(
            "preference_auto_saved",
            {"preferences": [{"key": key, "value": value} for key, value in saved]},
        )


async def _clarification(run: PipelineRun, plan: PlanArtifact, timing: dict[str, Any]) -> Answer:
    """The planner asks before answering: `clarification_requested`, and the questions as
    the message's content (streamed, so a resumed stream shows them too)."""
    questions = [q.to_json() for q in plan.clarification_questions]
    await run.emit(
        "clarification_requested",
        {
            "questions": [
                {"question": q["question"], "assumption": q["assumption"]} for q in questions
            ]
        },
    )
    content = clarification_text(plan.clarification_questions)
    await run.emit("message_chunk", {"chunk": content})
    metadata = {
        **_base_metadata(run),
        "plan": plan.to_json(),
        "clarificationQuestions": questions,
        **timing,
    }
    return Answer(content, metadata, status="clarification_needed")


def clarification_text(questions: Sequence[Ambiguity]) -> str:
    """The questions as a message: each with the assumption made if it is not answered."""
    lines = [CLARIFICATION_INTRO, ""]
    for number, item in enumerate(questions, start=1):
        lines.append(f"{number}. {item.question}")
        lines.append(f"   - If you'd rather not say, I'll assume: {item.assumption}")
    return "\n".join(lines)


def _base_metadata(run: PipelineRun) -> dict[str, Any]:
    scope = run.scope
    offline = run.offline
    extra = {"offline": offline.to_json()} if offline is not None else {}
    return {
        "agentMode": "offline" if offline is not None and not offline.fast_path else "pipeline",
        **extra,
        "toolCalls": run.tool_calls,
        "tokensUsed": run.client.usage.to_json(),
        "tokensByPhase": {phase: usage.to_json() for phase, usage in _by_phase(run).items()},
        "phaseMs": dict(run.phase_ms),
        "datasetsUsed": scope.datasets_used,
        "charts": scope.charts,
    }


def _by_phase(run: PipelineRun) -> dict[str, TokenUsage]:
    """Tokens per phase of every call of the answer (`history` for summarising the chat)."""
    totals: dict[str, TokenUsage] = {}
    for call in run.client.calls:
        totals[call.phase] = totals.get(call.phase, TokenUsage()) + call.usage
    return totals


def answer_metadata(
    final: PipelineState, run: PipelineRun, output: ExplainerOutput, timing: dict[str, Any]
) -> dict[str, Any]:
    """Seed 001's message metadata: the phases' artifacts, lineage, revisions, tool calls,
    tokens per phase and timings (rows already bounded by the executor)."""
    metadata: dict[str, Any] = {**_base_metadata(run), **timing}
    artifacts = {
        "plan": final.get("plan"),
        "joinPlan": final.get("join_plan"),
        "verificationReport": final.get("verification"),
        "dataLineage": output.data_lineage,
        "cannotAnswer": final.get("cannot_answer"),
    }
    for key, artifact in artifacts.items():
        if artifact is not None:
            metadata[key] = artifact.to_json()
    metadata["stepResults"] = [r.to_json() for r in final.get("step_results", [])]
    metadata["stepLineage"] = [x.to_json() for x in output.step_lineage]
    metadata["revisionsUsed"] = min(final.get("revision_count", 0), MAX_REVISIONS)
    metadata["caveats"] = output.caveats
    metadata["assumptions"] = output.assumptions
    # The whole ExplainerOutput but its narrative, which is the message's content.
    metadata["explainerOutput"] = output.model_dump(
        mode="json", by_alias=True, exclude_none=True, exclude={"narrative"}
    )
    return metadata
