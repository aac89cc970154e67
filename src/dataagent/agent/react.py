"""The agent's one loop: a LangGraph graph of model turns and tool calls, compiled once.

The graph `agent -> tools -> agent -> ...` runs until the model answers without calling a
tool. It is compiled once per process (`loop_graph`); what belongs to one answer (the model
client, the tools, the prompt, the budget, what its stream says) travels in the run's
config as a `LoopAnswer`, and the conversation in the graph's state. Both answers run it:

- a chat answer (`answer_message`): the chat's context, the question and its history,
  seed 000's system prompt; its events are the run's `message_chunk`, `text`,
  `clear_streaming`, `tool_call`, `tool_result`, `chart`, `llm_call_start`, `llm_call_end`
  and `token_update` (`ChatAnswerHooks`); the run that hosts it emits the message's start,
  completion or failure and stores the answer;
- seed 002's stateless chat (`agent.stateless_answer`), through its own `LoopHooks`.

Tools: seed 000's five and `create_chart` (`loop_tools`). Limits, the same for both: at most
`agent_max_tool_rounds` tool rounds (the graph's recursion limit, two steps a round, derives
from it). A model that wants more gets, in a chat answer, one more turn asking it to answer
with what it has (`stepLimitReached`; LLM_ERROR if it still gives no text); in the stateless
chat, LLM_ERROR (seed 002). Three turns in a row with malformed tool calls end the answer
with LLM_ERROR. Each tool round runs under the answer's `ToolBudget` (calls per turn, calls
at once, tool time, characters the model reads: `agent.budget`).
"""

from __future__ import annotations

import functools
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any, Protocol, TypedDict

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
from langgraph.graph.state import CompiledStateGraph

from dataagent.agent import history
from dataagent.agent.budget import ToolBudget, prompt_limits
from dataagent.agent.chart_tool import OnChart, make_chart_tool
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
from dataagent.agent.tool_calls import ToolOutcome, Turn, run_turn
from dataagent.agent.tools import ToolScope, make_tools
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.calls import ChatClient, bounded_json, clip_text, text_of
from dataagent.services import chats
from dataagent.services.context import AppContext
from dataagent.vocabulary import MessageStatus

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
    """The answer's text, its metadata (tool calls, tokens, datasets, charts, timing) and the
    message's status (`clarification_needed` when the pipeline asks before answering)."""

    content: str
    metadata: dict[str, Any]
    status: MessageStatus = "complete"


class AgentState(TypedDict):
    """The graph's state: the conversation of this answer, and malformed turns in a row."""

    messages: Annotated[list[AnyMessage], add_messages]
    malformed_turns: int


class LoopHooks(Protocol):
    """What an answer's stream says at each point of the loop (its events)."""

    async def on_text(self, piece: str) -> None:
        """A piece of the model's text, as it streams."""

    async def before_tools(self, reply: AIMessage) -> None:
        """The model's turn called tools (its text was thinking aloud): they run next, or,
        past the round limit, are dropped before the model's last word."""

    async def on_call(self, call: dict[str, Any]) -> None:
        """A tool call about to run (with its id)."""

    async def on_outcome(self, outcome: ToolOutcome) -> None:
        """A tool call's outcome, as it finishes."""

    async def after_tools(self, turn: Turn, reply: AIMessage, round_: int) -> None:
        """The round `round_` (1, 2, ...) of the model's turn `reply` has run."""


@dataclass
class LoopAnswer:
    """One answer's run of the loop: everything the compiled graph works with but the
    conversation (which is its state)."""

    client: ChatClient
    tools: list[BaseTool]
    prompt: str
    budget: ToolBudget
    hooks: LoopHooks
    max_rounds: int
    # At the round limit: ask once more for an answer without tools (True), or fail.
    last_word: bool
    rounds: int = 0
    step_limit_reached: bool = False
    by_name: dict[str, BaseTool] = field(init=False)

    def __post_init__(self) -> None:
        self.by_name = {tool.name: tool for tool in self.tools}

    async def turn(self, messages: Sequence[BaseMessage]) -> AIMessage:
        """One model turn over the conversation, its text streamed to the hooks."""
        return await self.client.stream(
            [SystemMessage(self.prompt), *messages], tools=self.tools, on_text=self.hooks.on_text
        )

    async def run(self, messages: Sequence[AnyMessage]) -> str:
        """Run the loop over the conversation (the last message the question): the answer's
        text ("" when the model gave none)."""
        start = AgentState(messages=list(messages), malformed_turns=0)
        state: dict[str, Any] = dict(start)
        # Two graph steps a round (the model's turn, its tools), and the turn after the last.
        config: RunnableConfig = {
            "recursion_limit": 2 * self.max_rounds + 1,
            "configurable": {"answer": self},
        }
        try:
            async for values in loop_graph().astream(start, config, stream_mode="values"):
                state = values
        except GraphRecursionError:
            return await self._at_the_limit(state["messages"])
        last = state["messages"][-1]
        return text_of(last.content) if isinstance(last, AIMessage) else ""

    async def _at_the_limit(self, messages: list[BaseMessage]) -> str:
        """The model wants another round past the limit: fail, or (`last_word`) one more turn
        asking for an answer from what was found."""
        if not self.last_word:
            raise DataAgentError(
                ErrorCode.LLM_ERROR,
                f"The agent reached its limit of {_rounds(self.max_rounds)}.",
            )
        self.step_limit_reached = True
        kept = list(messages)
        last = kept[-1] if kept else None
        if isinstance(last, AIMessage) and _wants_tools(last):
            await self.hooks.before_tools(last)
            kept.pop()  # its tool calls will not run; a call without its results is invalid
        reply = await self.turn([*kept, HumanMessage(STEP_LIMIT_NOTICE)])
        text = text_of(reply.content)
        if not text.strip():
            raise DataAgentError(
                ErrorCode.LLM_ERROR,
                f"The agent stopped after {_rounds(self.max_rounds)} without an answer; "
                "try a narrower question.",
            )
        return text


def _rounds(count: int) -> str:
    return "1 tool round" if count == 1 else f"{count} tool rounds"


def _wants_tools(reply: AIMessage) -> bool:
    return bool(reply.tool_calls or reply.invalid_tool_calls)


def _answer_of(config: RunnableConfig) -> LoopAnswer:
    answer = config.get("configurable", {}).get("answer")
    assert isinstance(answer, LoopAnswer), "the loop runs with its answer in the config"
    return answer


async def _agent(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
    """One model turn."""
    reply = await _answer_of(config).turn(state["messages"])
    return {"messages": [reply]}


def _route(state: AgentState) -> str:
    """To the tools while the model calls any; else the answer is done."""
    last = state["messages"][-1]
    return "tools" if isinstance(last, AIMessage) and _wants_tools(last) else END


async def _tools(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
    """Run the turn's tool calls under the answer's budget; each result matched to its call
    by id."""
    answer = _answer_of(config)
    reply = state["messages"][-1]
    assert isinstance(reply, AIMessage)
    hooks = answer.hooks
    await hooks.before_tools(reply)
    answer.rounds += 1
    turn = await run_turn(
        answer.budget, answer.by_name, reply, on_call=hooks.on_call, on_outcome=hooks.on_outcome
    )
    malformed = (
        state.get("malformed_turns", 0) + 1 if any(o.malformed for o in turn.outcomes) else 0
    )
    if malformed >= MAX_MALFORMED_TURNS:
        raise DataAgentError(ErrorCode.LLM_ERROR, MALFORMED)
    await hooks.after_tools(turn, reply, answer.rounds)
    # The kept turn replaces the model's (same id): calls past the limit are not kept.
    return {"messages": [turn.reply, *turn.messages], "malformed_turns": malformed}


@functools.cache
def loop_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    """The loop's graph, compiled once per process (per-answer things are in the config)."""
    builder = StateGraph(AgentState)
    builder.add_node("agent", _agent)
    builder.add_node("tools", _tools)
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", _route, ["tools", END])
    builder.add_edge("tools", "agent")
    return builder.compile()


def loop_tools(scope: ToolScope, on_chart: OnChart) -> list[BaseTool]:
    """An answer's tools: seed 000's five, and `create_chart` (its charts told `on_chart`)."""
    chart = make_chart_tool(scope.ctx, scope.owner_id, scope.message_id, on_chart)
    return [*make_tools(scope), chart]


class ChatAnswerHooks:
    """A chat answer's events (`docs/events.md`), and the tool calls its metadata keeps."""

    def __init__(self, emit: Emit, result_chars: int) -> None:
        self.emit = emit
        self.result_chars = result_chars
        self.tool_calls: list[dict[str, Any]] = []

    async def on_text(self, piece: str) -> None:
        """`message_chunk`."""
        await self.emit("message_chunk", {"chunk": piece})

    async def before_tools(self, reply: AIMessage) -> None:
        """`text` (when the turn said anything), then `clear_streaming`."""
        text = text_of(reply.content)
        if text.strip():
            await self.emit("text", {"content": text})
        await self.emit("clear_streaming", {})

    async def on_call(self, call: dict[str, Any]) -> None:
        """`tool_call`."""
        args = bounded_json(call.get("args"), self.result_chars)
        await self.emit("tool_call", {"id": call["id"], "name": call.get("name"), "args": args})

    async def on_outcome(self, outcome: ToolOutcome) -> None:
        """`tool_result`, and the call kept for the metadata."""
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

    async def after_tools(self, turn: Turn, reply: AIMessage, round_: int) -> None:
        """Nothing more: each call was reported as it ran."""


@dataclass(frozen=True)
class PreparedAnswer:
    """What both answer modes start from: the question, the messages before it, the saved
    history summary, the answer's tool scope and what retrieval found."""

    question: str
    earlier: list[HistoryMessage]
    saved: SavedSummary
    scope: ToolScope
    grounding: Grounding


async def prepare_answer(ctx: AppContext, request: AnswerRequest, emit: Emit) -> PreparedAnswer:
    """Name an unnamed chat after its first question, ground the question, and make the
    answer's tool scope (shared by the ReAct agent and the pipeline)."""
    conversation = request.conversation
    context, chat = conversation.context, conversation.chat
    question = conversation.question.content
    async with ctx.database.session() as session:
        if chats.is_unnamed(chat.name):
            first = next(m for m in conversation.messages if m.role == "user")
            await chats.name_unnamed_chat(session, chat.id, name_from_question(first.content))
    grounding = await ground(ctx, context.access, context.model, question)
    earlier = [HistoryMessage.of(m) for m in conversation.earlier]
    saved = SavedSummary(chat.history_summary, chat.summary_through_seq)
    scope = ToolScope(
        ctx=ctx,
        owner_id=request.owner_id,
        access=context.access,
        model=context.model,
        target=context.target,
        emit=emit,
        question=question,
        run_id=request.run_id,
        message_id=request.message_id,
    )
    return PreparedAnswer(question, earlier, saved, scope, grounding)


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
    prepared = await prepare_answer(ctx, request, emit)
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
    hooks = ChatAnswerHooks(emit, settings.agent_tool_result_chars)

    async def on_chart(chart: dict[str, Any]) -> None:
        # The message keeps its charts (the spec is at GET /api/charts/{id}).
        scope.charts.append({key: chart[key] for key in ("id", "url", "title", "chartType")})
        await emit("chart", chart)

    loop = LoopAnswer(
        client=client,
        tools=loop_tools(scope, on_chart),
        prompt=prompt,
        budget=scope.budget,
        hooks=hooks,
        max_rounds=settings.agent_max_tool_rounds,
        last_word=True,
    )
    content = await loop.run([HumanMessage(prepared.question)])
    if not content.strip():
        content = default_answer(scope.queries_run)
        await emit("message_chunk", {"chunk": content})
    metadata: dict[str, Any] = {
        "toolCalls": hooks.tool_calls,
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
