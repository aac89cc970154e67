"""The ReAct answer: a LangGraph loop of model turns and tool calls, streamed as events.

`answer_message` answers the assistant message of a chat: it loads the chat's context,
the question and the history, retrieves the relevant datasets, builds seed 000's system
prompt and runs the graph `agent -> tools -> agent -> ...` until the model answers without
calling a tool. It emits `message_chunk`, `text`, `clear_streaming`, `tool_call`,
`tool_result`, `chart`, `llm_call_start`, `llm_call_end` and `token_update`; the run that
hosts it emits the message's start, completion or failure and stores the answer.

Limits: `agent_recursion_limit` graph steps (a model turn and a tool round are one step
each). At the limit the model is asked once, without running more tools, to answer with
what it has; if it still gives no text the answer fails with LLM_ERROR. Three turns in a
row with malformed tool calls end the answer with LLM_ERROR. Each tool round runs under the
answer's `ToolBudget` (calls per turn, calls at once, tool time, characters the model
reads: `agent.budget`).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, TypedDict

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
)
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from dataagent.agent import history
from dataagent.agent.budget import ToolBudget, prompt_limits
from dataagent.agent.events import Emit
from dataagent.agent.grounding import Grounding, ground
from dataagent.agent.history import HistoryMessage, SavedSummary, name_from_question
from dataagent.agent.observer import EventObserver
from dataagent.agent.prompts import (
    NO_ANSWER,
    NO_ANSWER_AFTER_QUERIES,
    STEP_LIMIT_NOTICE,
    system_prompt,
)
from dataagent.agent.tool_calls import ToolOutcome, run_turn
from dataagent.agent.tools import ToolScope, make_tools
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.calls import ChatClient, bounded_json, clip_text, text_of
from dataagent.services import chats
from dataagent.services.context import AppContext

MAX_MALFORMED_TURNS = 3
MALFORMED = "The model kept sending malformed tool calls."


@dataclass(frozen=True)
class AnswerRequest:
    """Which message to answer (its chat loaded once, by the run), for whom, in which run."""

    owner_id: uuid.UUID
    conversation: chats.Conversation
    run_id: uuid.UUID | None = None

    @property
    def chat_id(self) -> uuid.UUID:
        """The chat's id."""
        return self.conversation.chat.id

    @property
    def message_id(self) -> uuid.UUID:
        """The id of the assistant message being answered."""
        return self.conversation.answer.id


@dataclass(frozen=True)
class Answer:
    """The answer's text and its metadata (tool calls, tokens, datasets, charts, timing)."""

    content: str
    metadata: dict[str, Any]


class AgentState(TypedDict):
    """The graph's state: the conversation of this answer, and malformed turns in a row."""

    messages: Annotated[list[AnyMessage], add_messages]
    malformed_turns: int


class ReactLoop:
    """The graph of one answer, with the events it emits and the tool calls it records."""

    def __init__(
        self,
        client: ChatClient,
        tools: list[BaseTool],
        prompt: str,
        emit: Emit,
        result_chars: int,
        budget: ToolBudget,
    ) -> None:
        self.client = client
        self.tools = tools
        self.by_name = {tool.name: tool for tool in tools}
        self.prompt = prompt
        self.emit = emit
        self.result_chars = result_chars
        self.budget = budget
        self.tool_calls: list[dict[str, Any]] = []
        self.step_limit_reached = False
        builder = StateGraph(AgentState)
        builder.add_node("agent", self.agent)
        builder.add_node("tools", self.run_tools)
        builder.add_edge(START, "agent")
        builder.add_conditional_edges("agent", self.route, ["tools", END])
        builder.add_edge("tools", "agent")
        self.graph = builder.compile()

    async def _on_text(self, piece: str) -> None:
        await self.emit("message_chunk", {"chunk": piece})

    async def _turn(self, messages: Sequence[BaseMessage]) -> AIMessage:
        return await self.client.stream(
            [SystemMessage(self.prompt), *messages], tools=self.tools, on_text=self._on_text
        )

    async def agent(self, state: AgentState) -> dict[str, Any]:
        """One model turn; before tools run, its text is reported and the stream cleared."""
        reply = await self._turn(state["messages"])
        if reply.tool_calls or reply.invalid_tool_calls:
            text = text_of(reply.content)
            if text.strip():
                await self.emit("text", {"content": text})
            await self.emit("clear_streaming", {})
        return {"messages": [reply]}

    @staticmethod
    def route(state: AgentState) -> str:
        """To the tools while the model calls any; else the answer is done."""
        last = state["messages"][-1]
        if isinstance(last, AIMessage) and (last.tool_calls or last.invalid_tool_calls):
            return "tools"
        return END

    async def run_tools(self, state: AgentState) -> dict[str, Any]:
        """Run the turn's tool calls under the answer's budget; each result matched to its
        call by id."""
        reply = state["messages"][-1]
        assert isinstance(reply, AIMessage)
        turn = await run_turn(
            self.budget, self.by_name, reply, on_call=self._announce, on_outcome=self._report
        )
        malformed = (
            state.get("malformed_turns", 0) + 1 if any(o.malformed for o in turn.outcomes) else 0
        )
        if malformed >= MAX_MALFORMED_TURNS:
            raise DataAgentError(ErrorCode.LLM_ERROR, MALFORMED)
        # The kept turn replaces the model's (same id): calls past the limit are not kept.
        return {"messages": [turn.reply, *turn.messages], "malformed_turns": malformed}

    async def _announce(self, call: dict[str, Any]) -> None:
        args = bounded_json(call.get("args"), self.result_chars)
        await self.emit("tool_call", {"id": call["id"], "name": call.get("name"), "args": args})

    async def _report(self, outcome: ToolOutcome) -> None:
        result = clip_text(outcome.text, self.result_chars)
        self.tool_calls.append(
            {
                "id": outcome.id,
                "name": outcome.name,
                "args": bounded_json(outcome.args, self.result_chars),
                "result": result,
                "isError": outcome.is_error,
                "durationMs": outcome.duration_ms,
            }
        )
        await self.emit(
            "tool_result",
            {
                "id": outcome.id,
                "name": outcome.name,
                "result": result,
                "isError": outcome.is_error,
                "durationMs": outcome.duration_ms,
            },
        )

    async def run(self, question: str, recursion_limit: int) -> str:
        """The answer's text ("" when the model gave none)."""
        state: dict[str, Any] = {"messages": [HumanMessage(question)], "malformed_turns": 0}
        config: RunnableConfig = {"recursion_limit": recursion_limit}
        try:
            async for values in self.graph.astream(
                AgentState(messages=[HumanMessage(question)], malformed_turns=0),
                config,
                stream_mode="values",
            ):
                state = values
        except GraphRecursionError:
            return await self._last_word(state["messages"], recursion_limit)
        last = state["messages"][-1]
        return text_of(last.content) if isinstance(last, AIMessage) else ""

    async def _last_word(self, messages: list[BaseMessage], steps: int) -> str:
        """At the step limit: one more turn asking for an answer from what was found."""
        self.step_limit_reached = True
        kept = list(messages)
        last = kept[-1] if kept else None
        if isinstance(last, AIMessage) and (last.tool_calls or last.invalid_tool_calls):
            kept.pop()  # its tool calls will not run; a call without its results is invalid
        reply = await self._turn([*kept, HumanMessage(STEP_LIMIT_NOTICE)])
        text = text_of(reply.content)
        if not text.strip():
            raise DataAgentError(
                ErrorCode.LLM_ERROR,
                f"The agent stopped after {steps} steps without an answer; "
                "try a narrower question.",
            )
        return text


@dataclass(frozen=True)
class _Prepared:
    question: str
    earlier: list[HistoryMessage]
    saved: SavedSummary
    scope: ToolScope
    grounding: Grounding


async def _prepare(ctx: AppContext, request: AnswerRequest, emit: Emit) -> _Prepared:
    conversation = request.conversation
    context, chat = conversation.context, conversation.chat
    question = conversation.question.content
    async with ctx.database.session() as session:
        if chats.is_unnamed(chat.name):
            first = next(m for m in conversation.messages if m.role == "user")
            await chats.name_unnamed_chat(session, chat.id, name_from_question(first.content))
    grounding = await ground(ctx, context.ontology, context.model, question)
    earlier = [HistoryMessage.of(m) for m in conversation.earlier]
    saved = SavedSummary(chat.history_summary, chat.summary_through_seq)
    scope = ToolScope(
        ctx=ctx,
        owner_id=request.owner_id,
        ontology=context.ontology,
        model=context.model,
        target=context.target,
        emit=emit,
        question=question,
        run_id=request.run_id,
        message_id=request.message_id,
    )
    return _Prepared(question, earlier, saved, scope, grounding)


def default_answer(queries_run: int) -> str:
    """What an answer says when the model wrote nothing."""
    return NO_ANSWER_AFTER_QUERIES if queries_run else NO_ANSWER


async def answer_message(
    ctx: AppContext, request: AnswerRequest, emit: Emit, client: ChatClient
) -> Answer:
    """Answer the assistant message `request.message_id` with the ReAct agent."""
    started_at = datetime.now(UTC)
    started = time.perf_counter()
    client.observer = EventObserver(emit, client.observer)
    prepared = await _prepare(ctx, request, emit)
    settings = ctx.settings
    conversation = await history.conversation_context(
        ctx, client, request.chat_id, prepared.saved, prepared.earlier
    )
    grounding, scope = prepared.grounding, prepared.scope
    prompt = system_prompt(
        grounding.datasets,
        grounding.joins,
        scope.dialect,
        prompt_limits(settings),
        conversation,
        grounding.metrics,
    )
    loop = ReactLoop(
        client, make_tools(scope), prompt, emit, settings.agent_tool_result_chars, scope.budget
    )
    content = await loop.run(prepared.question, settings.agent_recursion_limit)
    if not content.strip():
        content = default_answer(scope.queries_run)
        await emit("message_chunk", {"chunk": content})
    metadata: dict[str, Any] = {
        "toolCalls": loop.tool_calls,
        "tokensUsed": client.usage.to_json(),
        "datasetsUsed": scope.datasets_used,
        "charts": scope.charts,
        "startedAt": started_at.isoformat(),
        "durationMs": round((time.perf_counter() - started) * 1000),
        "agentMode": "react",
    }
    if loop.step_limit_reached:
        metadata["stepLimitReached"] = True
    if scope.budget.calls_not_run:
        metadata["toolCallsNotRun"] = scope.budget.calls_not_run
    return Answer(content, metadata)
