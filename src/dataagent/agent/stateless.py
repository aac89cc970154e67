"""Seed 002's stateless chat (`POST /api/agent/chat`): the conversation comes with the request.

Nothing is stored but the query records and charts the tools make. The loop streams each
model turn's text as `chunk`; a turn that calls tools is followed by `clear_streaming`,
the tools run, and each one is reported as a `tool_call` event with its input, the text
the model thought aloud, a result summary and its duration. At most
`agent_max_tool_rounds` tool rounds; then `error`. Each round runs under the answer's
`ToolBudget`, as the ReAct loop's do (`agent.budget`). The end is `done` or `error`.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.tools import BaseTool

from dataagent.agent.budget import prompt_limits
from dataagent.agent.chart_tool import make_chart_tool
from dataagent.agent.events import Emit
from dataagent.agent.grounding import ground
from dataagent.agent.history import SUMMARY_CHARS
from dataagent.agent.prompts import system_prompt
from dataagent.agent.tool_calls import ToolOutcome, run_turn
from dataagent.agent.tools import ToolScope, make_tools
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.calls import ChatClient, bounded_json, clip_text, text_of, tool_arguments_json
from dataagent.services import ontologies
from dataagent.services.connections import ontology_target
from dataagent.services.context import AppContext

log = logging.getLogger(__name__)

ROLES = ("user", "assistant")
# What a one-line summary is made from: enough to fill it once whitespace is collapsed.
_ROOM = 2 * SUMMARY_CHARS


def check_messages(messages: Sequence[dict[str, Any]]) -> list[BaseMessage]:
    """The request's messages as chat messages; VALIDATION_ERROR unless the last is the user's."""
    if not messages:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, "Send at least one message.")
    converted: list[BaseMessage] = []
    for item in messages:
        role, content = item.get("role"), item.get("content")
        if role not in ROLES or not isinstance(content, str):
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR,
                "Each message needs a role (user or assistant) and text content.",
            )
        converted.append(HumanMessage(content) if role == "user" else AIMessage(content))
    if messages[-1].get("role") != "user" or not str(messages[-1].get("content")).strip():
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, "The last message must be the user's.")
    return converted


def input_summary(args: Any) -> str:
    """A tool call's input in one short line."""
    # Cut before anything else: the arguments are the model's and may be megabytes.
    if isinstance(args, dict) and len(args) == 1:
        (value,) = args.values()
        text = value if isinstance(value, str) else tool_arguments_json(bounded_json(value, _ROOM))
    else:
        text = tool_arguments_json(bounded_json(args, _ROOM))
    return clip_text(" ".join(clip_text(str(text), _ROOM).split()), SUMMARY_CHARS)


def result_summary(outcome: ToolOutcome) -> str:
    """A tool result in one short line."""
    return clip_text(" ".join(clip_text(outcome.text, _ROOM).split()), SUMMARY_CHARS)


async def _tools(
    ctx: AppContext, owner_id: uuid.UUID, scope: ToolScope, charts: list[dict[str, Any]]
) -> list[BaseTool]:
    tools = make_tools(scope)

    async def on_chart(chart: dict[str, Any]) -> None:
        charts.append(chart)

    return [*tools, make_chart_tool(ctx, owner_id, None, on_chart)]


async def chat_stream(
    ctx: AppContext,
    owner_id: uuid.UUID,
    ontology_id: uuid.UUID,
    messages: Sequence[dict[str, Any]],
    client: ChatClient,
    emit: Emit,
) -> None:
    """Answer the conversation's last question about the ontology, streaming seed 002's events.

    Failures are reported as an `error` event (never raised), cancellation excepted.
    """
    try:
        await _chat(ctx, owner_id, ontology_id, messages, client, emit)
    except DataAgentError as exc:
        await emit("error", {"message": exc.message, "code": exc.code.value})
    except Exception:
        log.exception("stateless chat failed")
        await emit(
            "error",
            {"message": "The agent failed unexpectedly.", "code": ErrorCode.INTERNAL_ERROR.value},
        )


async def _chat(
    ctx: AppContext,
    owner_id: uuid.UUID,
    ontology_id: uuid.UUID,
    messages: Sequence[dict[str, Any]],
    client: ChatClient,
    emit: Emit,
) -> None:
    conversation = check_messages(messages)
    question = str(messages[-1]["content"])
    settings = ctx.settings
    async with ctx.database.session() as session:
        ontology = await ontologies.get_ontology(session, owner_id, ontology_id)
        model = ontologies.ready_model(ontology)
        target = await ontology_target(ctx, session, owner_id, ontology)
    grounding = await ground(ctx, ontology, model, question)
    scope = ToolScope(
        ctx=ctx,
        owner_id=owner_id,
        ontology=ontology,
        model=model,
        target=target,
        emit=emit,
        question=question,
    )
    made: list[dict[str, Any]] = []
    tools = await _tools(ctx, owner_id, scope, made)
    by_name = {tool.name: tool for tool in tools}
    prompt = system_prompt(
        grounding.datasets,
        grounding.joins,
        model.dialect,
        prompt_limits(settings),
        metrics=grounding.metrics,
    )

    async def on_text(piece: str) -> None:
        await emit("chunk", {"content": piece})

    history: list[BaseMessage] = [SystemMessage(prompt), *conversation]
    rounds = settings.agent_max_tool_rounds
    iteration = 0
    while True:
        reply = await client.stream(history, tools=tools, on_text=on_text)
        if not (reply.tool_calls or reply.invalid_tool_calls):
            await emit("done", {"status": "completed"})
            return
        if iteration >= rounds:
            raise DataAgentError(
                ErrorCode.LLM_ERROR, f"The agent reached its limit of {rounds} tool rounds."
            )
        iteration += 1
        await emit("clear_streaming", {})
        thinking = text_of(reply.content)
        turn = await run_turn(scope.budget, by_name, reply)
        history.append(turn.reply)
        history.extend(turn.messages)
        for outcome in turn.outcomes:
            await emit(
                "tool_call",
                {
                    "tool": outcome.name,
                    "input_summary": input_summary(outcome.args),
                    "input_raw": bounded_json(outcome.args, settings.agent_tool_result_chars),
                    "thinking": clip_text(thinking, settings.agent_tool_result_chars),
                    "result_summary": result_summary(outcome),
                    "duration_ms": outcome.duration_ms,
                    "iteration": iteration,
                },
            )
        while made:
            await emit("chart", made.pop(0))
