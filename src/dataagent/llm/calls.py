"""One way to call a chat model: streamed, retried while nothing was shown, and traced.

`ChatClient.stream` sends messages (and tools) to a LangChain chat model, passes each piece
of text to `on_text` as it arrives, and returns the whole `AIMessage`. A 429, a 5xx or a
failed connection is retried with backoff, but only while no text of this call has reached
`on_text`: a person never sees an answer restart. Every call, answered or failed, becomes an
`LlmCall` record handed to the `CallObserver` (which emits `llm_call_start`/`llm_call_end`
and keeps the trace). A failure the caller sees is a `DataAgentError` with `LLM_ERROR`, its
message free of keys and addresses.

`ChatClient.structured` asks for an answer in the form of a Pydantic model, in the
provider's structured-output mode (`llm/structured.py`), validates it, and re-asks once with
the validation error before failing with LLM_ERROR; its calls are traced as
`structured_output`.

A trace keeps what is new in each call's prompt, not the whole prompt again: when a call's
messages begin with every message of the client's previous call, its `prompt_messages` start
with a reference to that call (`{"role": "earlier", "callIndex": k, "messageCount": n}`) and
hold only the messages after them, cut to `trace_chars` characters in all. An answer's traces
so grow with what was said, not with the number of calls times the prompt.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.messages.tool import InvalidToolCall, ToolCall, invalid_tool_call, tool_call
from pydantic import BaseModel

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.structured import (
    StructuredMode,
    StructuredOutputError,
    parse_structured,
    reask,
    structured_answer,
    structured_runnable,
    with_format,
)
from dataagent.llm.usage import TokenUsage, usage_of

log = logging.getLogger(__name__)

TextSink = Callable[[str], Awaitable[None]]

_PREVIEW_CHARS = 200
TRACE_CHARS = 100_000
# Room kept for a key of an object that `bounded_json` cuts down.
_KEY_CHARS = 100
ELLIPSIS = "…"


def _utcnow() -> datetime:
    return datetime.now(UTC)


T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class ModelInfo:
    """Which model answers: provider, model name, the temperature it runs at, and how a
    structured answer is asked of it (`prompt` suits any model, so it is the default)."""

    provider: str
    model: str
    temperature: float | None = None
    structured_mode: StructuredMode = "prompt"


@dataclass
class LlmCall:
    """One model call as seed 001's `llm_traces` keeps it."""

    call_index: int
    phase: str
    purpose: str
    provider: str
    model: str
    temperature: float | None
    structured_output: bool
    prompt_messages: list[dict[str, Any]]
    started_at: datetime
    step_id: int | None = None
    response_content: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    usage: TokenUsage = field(default_factory=TokenUsage)
    completed_at: datetime | None = None
    duration_ms: int = 0
    error: str | None = None
    attempts: int = 1
    # The whole prompt sent (`prompt_messages` may hold only its new part) and the reply's calls.
    prompt_message_count: int = 0
    prompt_chars: int = 0
    tool_call_count: int = 0

    def start_event(self) -> dict[str, Any]:
        """The payload of `llm_call_start`."""
        payload: dict[str, Any] = {
            "phase": self.phase,
            "callIndex": self.call_index,
            "purpose": self.purpose,
            "provider": self.provider,
            "model": self.model,
            "structuredOutput": self.structured_output,
            "promptSummary": {
                "messageCount": self.prompt_message_count,
                "totalChars": self.prompt_chars,
            },
        }
        if self.step_id is not None:
            payload["stepId"] = self.step_id
        return payload

    def end_event(self) -> dict[str, Any]:
        """The payload of `llm_call_end`."""
        payload: dict[str, Any] = {
            "phase": self.phase,
            "callIndex": self.call_index,
            "purpose": self.purpose,
            "durationMs": self.duration_ms,
            "promptTokens": self.usage.prompt,
            "completionTokens": self.usage.completion,
            "totalTokens": self.usage.total,
            "responsePreview": (self.response_content or "")[:_PREVIEW_CHARS],
            "toolCallCount": self.tool_call_count,
        }
        if self.step_id is not None:
            payload["stepId"] = self.step_id
        if self.error is not None:
            payload["error"] = self.error
        return payload


class CallObserver(Protocol):
    """Told when each call starts and ends (events, traces)."""

    async def call_started(self, call: LlmCall) -> None:
        """A call is about to be sent."""

    async def call_ended(self, call: LlmCall) -> None:
        """A call answered or failed for good (`call.error` set)."""


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or the text blocks of a list (Anthropic)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
        return "".join(parts)
    return ""


def clip_text(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, the cut marked with an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: max(limit - len(ELLIPSIS), 0)] + ELLIPSIS


def bounded_json(value: Any, chars: int) -> Any:
    """A JSON-like value cut down to about `chars` characters of JSON.

    Long strings are shortened with an ellipsis; a list or object that runs out of room ends
    with a note of how many items were left out. The work done is about `chars`, whatever the
    size of `value`, so it is safe on anything a model sends.
    """
    shrunk, _ = _shrink(value, chars)
    return shrunk


def _shrink(value: Any, room: int) -> tuple[Any, int]:
    """`value` cut to about `room` characters of JSON, and the characters it takes."""
    if isinstance(value, str):
        text = clip_text(value, max(room, 1))
        return text, len(text) + 2
    if value is None or isinstance(value, bool | int | float):
        return value, len(json.dumps(value, default=str))
    if isinstance(value, dict):
        shrunk: dict[str, Any] = {}
        used = 2
        for n, (key, item) in enumerate(value.items()):
            if used >= room:
                shrunk[ELLIPSIS] = f"{len(value) - n} more keys left out"
                break
            name = clip_text(str(key), _KEY_CHARS)
            shrunk[name], size = _shrink(item, room - used - len(name) - 4)
            used += size + len(name) + 4
        return shrunk, used
    if isinstance(value, list | tuple):
        items: list[Any] = []
        used = 2
        for n, item in enumerate(value):
            if used >= room:
                items.append(f"{ELLIPSIS} {len(value) - n} more items left out")
                break
            kept, size = _shrink(item, room - used - 1)
            items.append(kept)
            used += size + 1
        return items, used
    return _shrink(str(value), room)


def message_record(message: BaseMessage, chars: int = TRACE_CHARS) -> dict[str, Any]:
    """A message as a trace keeps it: role, content, tool calls, tool call id, cut to about
    `chars` characters."""
    content = message.content
    kept = clip_text(content, chars) if isinstance(content, str) else bounded_json(content, chars)
    record: dict[str, Any] = {"role": message.type, "content": kept}
    tool_calls = getattr(message, "tool_calls", None)
    if tool_calls:
        room = max(chars - len(kept) if isinstance(kept, str) else chars // 2, _KEY_CHARS)
        record["tool_calls"] = bounded_json(
            [{"id": c.get("id"), "name": c.get("name"), "args": c.get("args")} for c in tool_calls],
            room,
        )
    tool_call_id = getattr(message, "tool_call_id", None)
    if tool_call_id:
        record["tool_call_id"] = tool_call_id
    return record


def trace_messages(
    messages: Sequence[BaseMessage], chars: int, earlier: tuple[int, int] | None = None
) -> list[dict[str, Any]]:
    """The records a trace keeps of a prompt's messages, about `chars` characters in all.

    `earlier` (call index, message count) says the prompt began with that many messages of
    that call's prompt, which `messages` leaves out. Messages past the room are counted, not
    kept: `{"role": "omitted", "messageCount": n}`.
    """
    records: list[dict[str, Any]] = []
    if earlier is not None:
        records.append({"role": "earlier", "callIndex": earlier[0], "messageCount": earlier[1]})
    room = chars
    for n, message in enumerate(messages):
        if room <= 0:
            records.append({"role": "omitted", "messageCount": len(messages) - n})
            break
        record = message_record(message, room)
        records.append(record)
        room -= len(json.dumps(record, ensure_ascii=False, default=str))
    return records


def _same_message(a: BaseMessage, b: BaseMessage) -> bool:
    if a is b:
        return True
    return (
        a.type == b.type
        and a.content == b.content
        and getattr(a, "tool_call_id", None) == getattr(b, "tool_call_id", None)
        and getattr(a, "tool_calls", None) == getattr(b, "tool_calls", None)
    )


def shared_prefix(earlier: Sequence[BaseMessage], messages: Sequence[BaseMessage]) -> int:
    """How many messages `messages` begins with that are those `earlier` began with."""
    count = 0
    for a, b in zip(earlier, messages, strict=False):
        if not _same_message(a, b):
            break
        count += 1
    return count


# Error types a provider sends inside a stream that had already answered 200 (an SSE error
# event): OpenAI's and Anthropic's names, read as the status they stand for.
_STREAM_ERROR_STATUS = {
    "rate_limit_error": 429,
    "server_error": 500,
    "api_error": 500,
    "internal_server_error": 500,
    "overloaded_error": 529,
}


def _stream_error_status(exc: BaseException) -> int | None:
    body = getattr(exc, "body", None)
    if not isinstance(body, dict):
        return None
    error = body.get("error", body)
    kind = error.get("type") if isinstance(error, dict) else None
    return _STREAM_ERROR_STATUS.get(kind) if isinstance(kind, str) else None


def _status_of(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int):
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", None)
    if isinstance(status, int) and not 200 <= status < 300:
        return status
    # No status, or the stream's own 200: an error event inside the stream says what it was.
    return _stream_error_status(exc)


def _refuses_format(exc: BaseException | None) -> bool:
    """A server's refusal of the request as made (400, 422): one without the response format.
    A prompt longer than the model's context window is refused with 400 too; that is not
    about the format, and the schema in the prompt would only make it longer."""
    return exc is not None and _status_of(exc) in (400, 422) and not exceeds_context(exc)


# How providers say a prompt is longer than the model's context window: OpenAI's error code,
# llama.cpp's error type, and the words of vLLM, Ollama and others.
_CONTEXT_WORDS = (
    "context_length_exceeded",
    "exceed_context_size",
    "maximum context length",
    "context window",
    "exceeds the available context",
    "context length",
)


def exceeds_context(exc: BaseException) -> bool:
    """A refusal because the prompt does not fit the model's context window."""
    parts = [str(exc), str(getattr(exc, "body", "") or ""), str(getattr(exc, "message", ""))]
    text = " ".join(parts).lower()
    return any(words in text for words in _CONTEXT_WORDS)


def is_retryable(exc: BaseException) -> bool:
    """A 429, a 5xx, a timeout or a failed connection: worth another try."""
    status = _status_of(exc)
    if status is not None:
        return status == 429 or status >= 500
    name = type(exc).__name__
    return any(word in name for word in ("Connection", "Timeout", "Connect", "RemoteProtocol"))


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    try:
        value = float(headers.get("retry-after", ""))
    except (TypeError, ValueError):
        return None
    return value if value >= 0 else None


def describe_failure(exc: BaseException, provider: str) -> str:
    """A sentence about a failed call, safe to show (no keys, hosts or bodies)."""
    status = _status_of(exc)
    if status == 429:
        return f"The {provider} model is rate-limited (429); try again shortly."
    if type(exc).__name__ == "LengthFinishReasonError":
        return (
            f"The {provider} model's answer was cut off at its length limit before it was complete."
        )
    if status == 400 and exceeds_context(exc):
        return (
            f"The {provider} model's context window is too small for this request (400); "
            "use a model with a larger context, or ask a narrower question."
        )
    if status in (401, 403):
        return f"The {provider} model refused the credentials ({status}); check the API key."
    if status is not None and status >= 500:
        return f"The {provider} model failed with a server error ({status})."
    if status is not None:
        return f"The {provider} model refused the request ({status})."
    if "Timeout" in type(exc).__name__:
        return f"The {provider} model did not answer in time."
    if is_retryable(exc):
        return f"The {provider} model could not be reached."
    return f"The {provider} model call failed ({type(exc).__name__})."


class ChatClient:
    """A chat model with its identity, retries, usage totals and an observer.

    One client per answer: `calls` and `usage` add up that answer's calls. The model (and
    its HTTP connections) belongs to whoever made it: `services.llm` shares one per process
    and closes it with the app's context.
    """

    def __init__(
        self,
        model: BaseChatModel,
        info: ModelInfo,
        *,
        observer: CallObserver | None = None,
        max_retries: int = 2,
        backoff_s: float = 0.5,
        max_backoff_s: float = 8.0,
        trace_chars: int = TRACE_CHARS,
    ) -> None:
        self.model = model
        self.info = info
        self.observer = observer
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.trace_chars = trace_chars
        self.calls: list[LlmCall] = []
        # The previous call's messages: a prompt that begins with them is traced as new ones.
        self._sent: list[BaseMessage] = []

    @property
    def usage(self) -> TokenUsage:
        """Tokens of every call so far."""
        total = TokenUsage()
        for item in self.calls:
            total = total + item.usage
        return total

    async def stream(
        self,
        messages: Sequence[BaseMessage],
        *,
        tools: Sequence[Any] | None = None,
        phase: str = "agent",
        purpose: str = "answer",
        step_id: int | None = None,
        on_text: TextSink | None = None,
    ) -> AIMessage:
        """Send `messages`, stream text to `on_text`, and return the whole answer."""
        runnable: Any = self.model.bind_tools(list(tools)) if tools else self.model
        record = self._start(messages, phase, purpose, step_id, structured=False)
        message, started = await self._send(runnable, messages, record, on_text)
        await self._end(record, started)
        return message

    async def structured(
        self,
        messages: Sequence[BaseMessage],
        schema: type[T],
        *,
        phase: str,
        purpose: str,
        step_id: int | None = None,
    ) -> T:
        """Ask for an answer in the form of `schema` (a Pydantic model) and return it.

        The provider's structured-output mode is used (`ModelInfo.structured_mode`): OpenAI's
        JSON-schema response format, Anthropic's forced tool, or the schema in the prompt; a
        server that refuses the response format is asked again with the schema in the prompt.
        The answer is validated against `schema` (by alias); an answer that does not fit is
        re-asked once with the error, then LLM_ERROR. Each call is traced with
        `structured_output` set and the answer's text kept.
        """
        mode = self.info.structured_mode
        sent = with_format(messages, schema) if mode == "prompt" else list(messages)
        reasked = False
        while True:
            runnable = structured_runnable(self.model, schema, mode)
            record = self._start(sent, phase, purpose, step_id, structured=True)
            try:
                message, started = await self._send(runnable, sent, record, None)
            except DataAgentError as exc:
                if mode == "json_schema" and _refuses_format(exc.__cause__):
                    # An OpenAI-compatible server without the response format: the schema
                    # goes into the prompt instead.
                    log.info("%s: no JSON-schema response format; schema in the prompt", purpose)
                    mode = "prompt"
                    sent = with_format(messages, schema)
                    continue
                raise
            answer = structured_answer(message, schema, mode)
            text = answer if isinstance(answer, str) else tool_arguments_json(answer)
            record.response_content = clip_text(text, self.trace_chars)
            try:
                value = parse_structured(answer, schema)
            except StructuredOutputError as exc:
                record.error = f"The answer did not match the expected form: {exc}"
                await self._end(record, started)
                if reasked:
                    what = purpose.replace("_", " ")
                    raise DataAgentError(
                        ErrorCode.LLM_ERROR,
                        f"The model's {what} did not match the expected form: {exc}",
                    ) from None
                reasked = True
                sent = [*sent, AIMessage(content=text), HumanMessage(reask(exc, schema, mode))]
                continue
            await self._end(record, started)
            return value

    async def _send(
        self,
        runnable: Any,
        messages: Sequence[BaseMessage],
        record: LlmCall,
        on_text: TextSink | None,
    ) -> tuple[AIMessage, float]:
        """One call with its retries, told to the observer; the answer is kept in `record`
        (the caller ends it). A failure for good ends the record and raises LLM_ERROR."""
        if self.observer is not None:
            await self.observer.call_started(record)
        started = time.perf_counter()
        attempt = 0
        while True:
            shown = _Shown()
            try:
                message = await self._stream_once(runnable, messages, on_text, shown)
                break
            except asyncio.CancelledError:
                record.error = "cancelled"
                await self._end(record, started)
                raise
            except Exception as exc:
                if not shown.value and attempt < self.max_retries and is_retryable(exc):
                    delay = min(self.max_backoff_s, self.backoff_s * (2**attempt))
                    wait = _retry_after(exc)
                    attempt += 1
                    record.attempts = attempt + 1
                    log.info("%s: retry %d after %s", self.info.provider, attempt, exc)
                    await asyncio.sleep(min(self.max_backoff_s, wait) if wait else delay)
                    continue
                record.error = describe_failure(exc, self.info.provider)
                await self._end(record, started)
                raise DataAgentError(ErrorCode.LLM_ERROR, record.error) from exc
        record.response_content = clip_text(text_of(message.content), self.trace_chars)
        calls = [
            {"id": c.get("id"), "name": c.get("name"), "args": c.get("args")}
            for c in message.tool_calls
        ] + [
            {"id": c.get("id"), "name": c.get("name"), "args": c.get("args"), "invalid": True}
            for c in message.invalid_tool_calls
        ]
        record.tool_call_count = len(calls)
        record.tool_calls = bounded_json(calls, self.trace_chars) if calls else None
        record.usage = usage_of(message)
        return message, started

    async def invoke(
        self,
        messages: Sequence[BaseMessage],
        *,
        phase: str = "agent",
        purpose: str = "answer",
        step_id: int | None = None,
    ) -> AIMessage:
        """Send `messages` without tools and return the answer (streamed, shown to no one)."""
        return await self.stream(messages, phase=phase, purpose=purpose, step_id=step_id)

    async def _stream_once(
        self,
        runnable: Any,
        messages: Sequence[BaseMessage],
        on_text: TextSink | None,
        shown: _Shown,
    ) -> AIMessage:
        chunks: list[AIMessageChunk] = []
        async for chunk in runnable.astream(list(messages)):
            if not isinstance(chunk, AIMessageChunk):
                continue
            chunks.append(chunk)
            piece = text_of(chunk.content)
            if piece and on_text is not None:
                shown.value = True
                await on_text(piece)
        if not chunks:
            return AIMessage(content="")
        # Merged once at the end: adding each chunk to the sum so far rebuilt the message
        # every time, which took over a minute for a turn of 3,000 tool calls.
        merged = chunks[0] + chunks[1:]
        valid, invalid = strict_tool_calls(merged)
        return AIMessage(
            content=merged.content,
            tool_calls=valid,
            invalid_tool_calls=invalid,
            usage_metadata=merged.usage_metadata,
            response_metadata=merged.response_metadata,
            id=merged.id,
        )

    def _start(
        self,
        messages: Sequence[BaseMessage],
        phase: str,
        purpose: str,
        step_id: int | None,
        *,
        structured: bool,
    ) -> LlmCall:
        shared = shared_prefix(self._sent, messages) if self.calls else 0
        earlier = (self.calls[-1].call_index, shared) if shared else None
        self._sent = list(messages)
        record = LlmCall(
            call_index=len(self.calls),
            phase=phase,
            purpose=purpose,
            provider=self.info.provider,
            model=self.info.model,
            temperature=self.info.temperature,
            structured_output=structured,
            prompt_messages=trace_messages(messages[shared:], self.trace_chars, earlier),
            started_at=_utcnow(),
            step_id=step_id,
            prompt_message_count=len(messages),
            prompt_chars=sum(_chars(m.content) for m in messages),
        )
        self.calls.append(record)
        return record

    async def _end(self, record: LlmCall, started: float) -> None:
        record.completed_at = _utcnow()
        record.duration_ms = round((time.perf_counter() - started) * 1000)
        if self.observer is not None:
            await self.observer.call_ended(record)


def _chars(content: Any) -> int:
    if isinstance(content, str):
        return len(content)
    return len(json.dumps(content, ensure_ascii=False, default=str))


def strict_tool_calls(merged: AIMessageChunk) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """The tool calls of a finished stream, their arguments parsed as strict JSON.

    While a stream is under way LangChain parses arguments leniently (`parse_partial_json`:
    `{"sql": "SEL` becomes `{"sql": "SEL"}` and `{bad` becomes `{}`), which is right for
    showing progress and wrong once the stream is over: a truncated or malformed argument
    string must go back to the model as an error, not run the tool with what was guessed.
    An empty string is no arguments (`{}`); anything but a JSON object is invalid.
    """
    if not merged.tool_call_chunks:
        return list(merged.tool_calls), list(merged.invalid_tool_calls)
    valid: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for chunk in merged.tool_call_chunks:
        name, raw, call_id = chunk.get("name"), chunk.get("args") or "", chunk.get("id")
        error: str | None = None
        try:
            args = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            error = f"The tool arguments are not valid JSON: {exc.msg} at character {exc.pos}."
        else:
            if not isinstance(args, dict):
                error = "The tool arguments are not a JSON object."
        if not name:
            error = "The tool call names no tool."
        if error is None:
            valid.append(tool_call(name=str(name), args=args, id=call_id))
        else:
            invalid.append(invalid_tool_call(name=name, args=raw, id=call_id, error=error))
    return valid, invalid


@dataclass
class _Shown:
    value: bool = False


def tool_arguments_json(args: Any) -> str:
    """Tool arguments as compact JSON (for summaries and traces)."""
    return json.dumps(args, ensure_ascii=False, default=str, separators=(",", ":"))
