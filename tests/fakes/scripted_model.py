"""An in-process scripted chat model: the model boundary, faked, and nothing else.

A LangChain `BaseChatModel` whose answers come from a script: text (streamed in pieces),
tool calls (with arguments that may be malformed JSON), usage counts, delays and errors.
Each step of the script is a `Reply`, or a function of the messages the model was given
that returns one (so a step can read a tool result or the system prompt). The model records
every call it received, so tests and benchmarks can count calls and prompt sizes.

    model = ScriptedChatModel(script=[
        Reply(tool_calls=[call("query_database", sql="SELECT 1")]),
        Reply(text="The answer is 1."),
    ])
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field, PrivateAttr


@dataclass
class ToolCall:
    """A tool call the model makes; `raw_args` (if set) is sent verbatim, even if not JSON."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=lambda: f"call_{uuid.uuid4().hex[:12]}")
    raw_args: str | None = None

    @property
    def arguments(self) -> str:
        """The arguments as the provider would send them."""
        return self.raw_args if self.raw_args is not None else json.dumps(self.args)


def call(name: str, _id: str | None = None, **args: Any) -> ToolCall:
    """A tool call with these arguments."""
    return ToolCall(name, args, _id) if _id else ToolCall(name, args)


@dataclass
class Reply:
    """One answer of the model: text, tool calls, usage, a delay or an error."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    # Seconds before the first piece, and between pieces when streaming.
    delay_s: float = 0.0
    chunk_delay_s: float = 0.0
    # Raised instead of answering (before any piece), or after `error_after` pieces.
    error: BaseException | None = None
    error_after: int = 0
    # Characters per streamed piece of text.
    piece: int = 4


Step = Reply | Callable[[list[BaseMessage]], Reply]


def _estimate_tokens(messages: Sequence[BaseMessage]) -> int:
    # About four characters a token: the scripted model's stand-in for a tokenizer.
    chars = sum(len(str(m.content)) for m in messages)
    return max(1, chars // 4)


class ScriptedChatModel(BaseChatModel):
    """Answers from `script`, in order; when the script runs out, `default` (if any)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: list[Any] = Field(default_factory=list)
    default: Any = None
    model_name: str = "scripted"

    _position: int = PrivateAttr(default=0)
    _calls: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _tools: list[list[dict[str, Any]]] = PrivateAttr(default_factory=list)
    _lock: Any = PrivateAttr(default=None)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def calls(self) -> list[list[BaseMessage]]:
        """The messages of every call, in order."""
        return self._calls

    @property
    def tools_seen(self) -> list[list[dict[str, Any]]]:
        """The tools bound at each call (OpenAI function format)."""
        return self._tools

    @property
    def prompt_tokens(self) -> int:
        """Estimated prompt tokens over every call (about four characters a token)."""
        return sum(_estimate_tokens(messages) for messages in self._calls)

    def bind_tools(  # type: ignore[override]
        self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any
    ) -> Runnable[Any, AIMessage]:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, **kwargs)

    def _next(self, messages: list[BaseMessage], tools: list[dict[str, Any]]) -> Reply:
        self._calls.append(list(messages))
        self._tools.append(tools)
        if self._position < len(self.script):
            step = self.script[self._position]
            self._position += 1
        elif self.default is not None:
            step = self.default
        else:
            raise AssertionError(f"the script has no step {self._position + 1}")
        reply = step(messages) if callable(step) else step
        assert isinstance(reply, Reply), reply
        return reply

    def _usage(self, reply: Reply, messages: list[BaseMessage]) -> dict[str, int]:
        prompt = (
            reply.prompt_tokens if reply.prompt_tokens is not None else _estimate_tokens(messages)
        )
        completion = (
            reply.completion_tokens
            if reply.completion_tokens is not None
            else max(1, len(reply.text) // 4) + 10 * len(reply.tool_calls)
        )
        return {
            "input_tokens": prompt,
            "output_tokens": completion,
            "total_tokens": prompt + completion,
        }

    def _message(self, reply: Reply, messages: list[BaseMessage]) -> AIMessage:
        valid, invalid = [], []
        for item in reply.tool_calls:
            try:
                valid.append({"name": item.name, "args": json.loads(item.arguments), "id": item.id})
            except json.JSONDecodeError as exc:
                invalid.append(
                    {"name": item.name, "args": item.arguments, "id": item.id, "error": str(exc)}
                )
        return AIMessage(
            content=reply.text,
            tool_calls=valid,
            invalid_tool_calls=invalid,
            usage_metadata=self._usage(reply, messages),  # type: ignore[arg-type]
            response_metadata={"model_name": self.model_name, "finish_reason": "stop"},
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = self._next(messages, kwargs.get("tools", []))
        if reply.delay_s:
            time.sleep(reply.delay_s)
        if reply.error is not None:
            raise reply.error
        return ChatResult(generations=[ChatGeneration(message=self._message(reply, messages))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        result = self._generate(messages, stop, run_manager, **kwargs)
        message = result.generations[0].message
        yield ChatGenerationChunk(message=AIMessageChunk(**message.model_dump(exclude={"type"})))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = self._next(messages, kwargs.get("tools", []))
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.error is not None:
            raise reply.error
        return ChatResult(generations=[ChatGeneration(message=self._message(reply, messages))])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        reply = self._next(messages, kwargs.get("tools", []))
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.error is not None and reply.error_after == 0:
            raise reply.error
        pieces = [reply.text[i : i + reply.piece] for i in range(0, len(reply.text), reply.piece)]
        for sent, piece in enumerate(pieces):
            if reply.error is not None and sent >= reply.error_after:
                raise reply.error
            if sent and reply.chunk_delay_s:
                await asyncio.sleep(reply.chunk_delay_s)
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager is not None:
                await run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
        if reply.error is not None:
            raise reply.error
        for index, item in zip(itertools.count(), reply.tool_calls, strict=False):
            yield ChatGenerationChunk(
                message=AIMessageChunk(
                    content="",
                    tool_call_chunks=[
                        tool_call_chunk(
                            name=item.name, args=item.arguments, id=item.id, index=index
                        )
                    ],
                )
            )
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content="",
                usage_metadata=self._usage(reply, messages),  # type: ignore[arg-type]
                response_metadata={"model_name": self.model_name, "finish_reason": "stop"},
                chunk_position="last",
            )
        )
