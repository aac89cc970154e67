"""A scripted OpenAI-compatible HTTP server: the model boundary, faked over a real socket.

Tests point `OPENAI_BASE_URL` at `server.url` and the production path runs for real —
`ChatOpenAI`, the OpenAI SDK, httpx, server-sent events. Each `POST /v1/chat/completions`
takes the next step of the script: text (streamed in pieces), tool calls (arguments split
over several deltas; malformed JSON allowed), an HTTP error status (429 with Retry-After,
500, ...), a delay before the first byte or between chunks, or a break in the stream after
some pieces (an SSE error event or a dropped connection). A step may also be a function of
the request body returning one. Every request body is kept in `requests`.

    with FakeOpenAIServer([Step(text="Hello"), Step(status=429, retry_after=0)]) as server:
        settings = Settings(openai_base_url=server.url, ...)

`GET /v1/models` lists `server.model`. The server runs in a background thread on a free
port of 127.0.0.1; `close()` (or leaving the `with`) stops it and wakes sleeping steps.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal


@dataclass
class FakeToolCall:
    """A tool call the model makes; `arguments` is sent verbatim when it is a string."""

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str = field(default_factory=lambda: f"call_{uuid.uuid4().hex[:12]}")
    # Characters of the argument string per delta chunk.
    piece: int = 7

    @property
    def argument_text(self) -> str:
        """The arguments as the wire carries them."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)


def tool(name: str, _id: str | None = None, **arguments: Any) -> FakeToolCall:
    """A tool call with these (JSON) arguments."""
    return FakeToolCall(name, arguments, _id) if _id else FakeToolCall(name, arguments)


@dataclass
class Step:
    """One answer of the server to one chat-completions request."""

    text: str = ""
    tool_calls: list[FakeToolCall] = field(default_factory=list)
    # An HTTP error instead of an answer (429, 500, ...), with Retry-After when set.
    status: int | None = None
    retry_after: float | None = None
    error_message: str = "scripted failure"
    # Seconds before the first byte, and between streamed chunks.
    delay_s: float = 0.0
    chunk_delay_s: float = 0.0
    # Break a stream after this many text pieces: an SSE error event, or a dropped socket.
    break_after: int | None = None
    break_with: Literal["error_event", "disconnect"] = "error_event"
    # Characters per streamed text piece.
    piece: int = 4
    prompt_tokens: int = 11
    completion_tokens: int = 7


StepLike = Step | Callable[[dict[str, Any]], Step]


def question_and_tool_results(body: dict[str, Any]) -> tuple[str, list[str]]:
    """The last user message of a request, and the tool results that follow it."""
    messages = body.get("messages", [])
    last_user = max(i for i, m in enumerate(messages) if m.get("role") == "user")
    question = _text(messages[last_user].get("content"))
    results = [_text(m.get("content")) for m in messages[last_user:] if m.get("role") == "tool"]
    return question, results


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content or "")


class FakeOpenAIServer:
    """The server; `script` is consumed in order, then `default` answers (if set)."""

    def __init__(
        self,
        script: Iterable[StepLike] = (),
        *,
        default: StepLike | None = None,
        model: str = "fake-model",
    ) -> None:
        self.script: list[StepLike] = list(script)
        self.default = default
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _handler_for(self))
        # A short poll, so that closing (which waits for the loop to notice) is quick.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.02,), name="fake-openai", daemon=True
        )
        self._thread.start()

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The base URL, as `OPENAI_BASE_URL` takes it (`.../v1`)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def push(self, *steps: StepLike) -> None:
        """Append steps to the script."""
        with self._lock:
            self.script.extend(steps)

    def next_step(self, body: dict[str, Any]) -> Step | None:
        """Record a request and take the step that answers it (None: the script ran out)."""
        with self._lock:
            self.requests.append(body)
            if self.script:
                step: StepLike | None = self.script.pop(0)
            else:
                step = self.default
        if step is None:
            return None
        return step(body) if callable(step) else step

    def sleep(self, seconds: float) -> bool:
        """Wait, unless the server is closing; False when it is."""
        if seconds <= 0:
            return not self._stopping.is_set()
        return not self._stopping.wait(seconds)

    def close(self) -> None:
        """Stop serving and wake every step that is waiting."""
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver listens with a backlog of 5: a burst of clients connecting at once (the
    # agent benchmark's 200 answers) would see SYNs dropped and retried a second later.
    request_queue_size = 1024


def _handler_for(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        fake = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeOpenAIServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: tests read `requests`, not a log

    # --- routes -------------------------------------------------------------------------

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            model = {"id": self.fake.model, "object": "model", "created": 0, "owned_by": "fake"}
            self._json(200, {"object": "list", "data": [model]})
        else:
            self._json(404, _error_body("not found", "invalid_request_error"))

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._json(404, _error_body("not found", "invalid_request_error"))
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._json(400, _error_body("the body is not JSON", "invalid_request_error"))
            return
        step = self.fake.next_step(body)
        if step is None:
            self._json(500, _error_body("the fake server's script ran out", "server_error"))
            return
        if not self.fake.sleep(step.delay_s):
            self.close_connection = True
            return
        try:
            if step.status is not None:
                self._status(step)
            elif body.get("stream"):
                self._stream(step, body)
            else:
                self._complete(step)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (a time-out): nothing to do

    # --- answers ------------------------------------------------------------------------

    def _json(
        self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _status(self, step: Step) -> None:
        kind = "rate_limit_error" if step.status == 429 else "server_error"
        headers = {"retry-after": f"{step.retry_after:g}"} if step.retry_after is not None else {}
        assert step.status is not None
        self._json(step.status, _error_body(step.error_message, kind), headers)

    def _complete(self, step: Step) -> None:
        message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
        if step.tool_calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.argument_text},
                }
                for c in step.tool_calls
            ]
        payload = {
            "id": _completion_id(),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.fake.model,
            "choices": [{"index": 0, "message": message, "finish_reason": _finish(step)}],
            "usage": _usage(step),
        }
        self._json(200, payload)

    def _stream(self, step: Step, body: dict[str, Any]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        completion = _completion_id()

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {
                "id": completion,
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": self.fake.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        events: list[dict[str, Any]] = [chunk({"role": "assistant", "content": ""})]
        pieces = [step.text[i : i + step.piece] for i in range(0, len(step.text), step.piece)]
        for sent, piece in enumerate(pieces):
            if step.break_after is not None and sent >= step.break_after:
                break
            events.append(chunk({"content": piece}))
        broken = step.break_after is not None
        if not broken:
            for index, call in enumerate(step.tool_calls):
                events.extend(chunk({"tool_calls": [d]}) for d in _tool_deltas(index, call))
            events.append(chunk({}, _finish(step)))
            if (body.get("stream_options") or {}).get("include_usage"):
                usage = chunk({})
                usage["choices"] = []
                usage["usage"] = _usage(step)
                events.append(usage)

        for number, event in enumerate(events):
            if number and not self.fake.sleep(step.chunk_delay_s):
                self.close_connection = True
                return
            self._send_chunk(f"data: {json.dumps(event)}\n\n".encode())
        if broken:
            if step.break_with == "disconnect":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            error = {"error": _error_body(step.error_message, "server_error")["error"]}
            self._send_chunk(f"data: {json.dumps(error)}\n\n".encode())
        else:
            self._send_chunk(b"data: [DONE]\n\n")
        self._send_chunk(b"")

    def _send_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _tool_deltas(index: int, call: FakeToolCall) -> list[dict[str, Any]]:
    """A tool call as OpenAI streams it: id and name first, then the arguments in pieces."""
    text = call.argument_text
    first = {
        "index": index,
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": ""},
    }
    rest = [
        {"index": index, "function": {"arguments": text[i : i + call.piece]}}
        for i in range(0, len(text), max(1, call.piece))
    ]
    return [first, *rest]


def _finish(step: Step) -> str:
    return "tool_calls" if step.tool_calls else "stop"


def _usage(step: Step) -> dict[str, int]:
    return {
        "prompt_tokens": step.prompt_tokens,
        "completion_tokens": step.completion_tokens,
        "total_tokens": step.prompt_tokens + step.completion_tokens,
    }


def _completion_id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex[:16]}"


def _error_body(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}
