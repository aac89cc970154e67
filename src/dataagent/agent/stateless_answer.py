"""Seed 002's stateless chat (`POST /api/agent/chat`): the conversation comes with the request.

Nothing is stored but the query records and charts the tools make. It runs the agent's one
loop (`react.LoopAnswer`: the same tools, budget and `agent_max_tool_rounds` as a chat
answer) with `StatelessHooks`, which write seed 002's events: each model turn's text as
`chunk`; a turn that calls tools is followed by `clear_streaming`, the tools run, and each
is reported as a `tool_call` event with its input, the text the model thought aloud, a
result summary and its duration, then a `chart` per chart the round made. A model that
wants a round past the limit ends the answer with `error` (seed 002). The end is `done` or
`error`.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

from dataagent.agent.budget import prompt_limits
from dataagent.agent.events import Emit
from dataagent.agent.grounding import ground
from dataagent.agent.history import SUMMARY_CHARS
from dataagent.agent.prompts import system_prompt
from dataagent.agent.react import LoopAnswer, loop_tools
from dataagent.agent.tool_calls import ToolOutcome, Turn
from dataagent.agent.tools import ToolScope
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.calls import ChatClient, bounded_json, clip_text, text_of, tool_arguments_json
from dataagent.services import ontologies
from dataagent.services.connections import ontology_target
from dataagent.services.context import AppContext

log = logging.getLogger(__name__)

ROLES = ("user", "assistant")
# What a one-line summary is made from: enough to fill it once whitespace is collapsed.
_ROOM = 2 * SUMMARY_CHARS


def check_messages(messages: Sequence[dict[str, Any]]) -> list[AnyMessage]:
    """The request's messages as chat messages; VALIDATION_ERROR unless the last is the user's."""
    if not messages:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, "Send at least one message.")
    converted: list[AnyMessage] = []
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


class StatelessHooks:
    """Seed 002's events of the loop: `chunk`, `clear_streaming`, a `tool_call` per call once
    its round has run, then that round's `chart`s."""

    def __init__(self, emit: Emit, result_chars: int) -> None:
        self.emit = emit
        self.result_chars = result_chars
        self._charts: list[dict[str, Any]] = []

    async def on_text(self, piece: str) -> None:
        """`chunk`."""
        await self.emit("chunk", {"content": piece})

    async def before_tools(self, reply: AIMessage) -> None:
        """`clear_streaming`: the text streamed so far was the model thinking aloud."""
        await self.emit("clear_streaming", {})

    async def on_call(self, call: dict[str, Any]) -> None:
        """Nothing yet: seed 002 reports a call once it has run."""

    async def on_outcome(self, outcome: ToolOutcome) -> None:
        """Nothing yet: the round's calls are reported together, in call order."""

    async def chart(self, chart: dict[str, Any]) -> None:
        """A chart the round made, sent after the round's `tool_call`s."""
        self._charts.append(chart)

    async def tool_event(self, event: str, data: dict[str, Any]) -> None:
        """What the tools emit (`chart` for an image `run_python` drew), held for the round's
        end like the rest of its charts."""
        if event == "chart":
            await self.chart(data)
        else:
            await self.emit(event, data)

    async def after_tools(self, turn: Turn, reply: AIMessage, round_: int) -> None:
        """A `tool_call` {tool, input_summary, input_raw, thinking, result_summary,
        duration_ms, iteration} per call, then the round's `chart`s."""
        thinking = clip_text(text_of(reply.content), self.result_chars)
        for outcome in turn.outcomes:
            await self.emit(
                "tool_call",
                {
                    "tool": outcome.name,
                    "input_summary": input_summary(outcome.args),
                    "input_raw": bounded_json(outcome.args, self.result_chars),
                    "thinking": thinking,
                    "result_summary": result_summary(outcome),
                    "duration_ms": outcome.duration_ms,
                    "iteration": round_,
                },
            )
        charts, self._charts = self._charts, []
        for chart in charts:
            await self.emit("chart", chart)


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
        access = await ontologies.reach(session, owner_id, ontology_id)
        model = ontologies.access_model(access)
        target = await ontology_target(ctx, session, access)
    grounding = await ground(ctx, access, model, question)
    hooks = StatelessHooks(emit, settings.agent_tool_result_chars)
    scope = ToolScope(
        ctx=ctx,
        owner_id=owner_id,
        access=access,
        model=model,
        target=target,
        emit=hooks.tool_event,
        question=question,
    )
    prompt = system_prompt(
        grounding.datasets,
        grounding.joins,
        model.dialect,
        prompt_limits(settings),
        metrics=grounding.metrics,
    )
    loop = LoopAnswer(
        client=client,
        tools=loop_tools(scope, hooks.chart),
        prompt=prompt,
        budget=scope.budget,
        hooks=hooks,
        max_rounds=settings.agent_max_tool_rounds,
        last_word=False,
    )
    await loop.run(conversation)
    await emit("done", {"status": "completed"})
