"""ChatClient through the real provider path: ChatOpenAI, the OpenAI SDK and HTTP, against
the scripted OpenAI-compatible server (streaming, tool-call deltas, usage, retries,
time-outs, malformed arguments, traces)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.tools import tool as lc_tool
from tests.fakes.openai_server import FakeOpenAIServer, FakeToolCall, Step, tool

from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.calls import ChatClient, LlmCall, describe_failure, is_retryable
from dataagent.llm.providers import build_chat_model, close_chat_model, model_info

QUESTION = [SystemMessage("You answer questions."), HumanMessage("How many customers?")]


@lc_tool
def query_database(sql: str) -> str:
    """Run a read-only SQL query."""
    return sql


class Observer:
    def __init__(self) -> None:
        self.started: list[dict[str, Any]] = []
        self.ended: list[LlmCall] = []

    async def call_started(self, call: LlmCall) -> None:
        self.started.append(call.start_event())

    async def call_ended(self, call: LlmCall) -> None:
        self.ended.append(call)


MakeClient = Callable[..., tuple[ChatClient, Observer]]


@pytest.fixture
async def make_client(openai_server: FakeOpenAIServer) -> AsyncIterator[MakeClient]:
    """ChatClients on the real ChatOpenAI pointed at the fake server; closed afterwards."""
    made: list[Any] = []

    def make(*, retries: int = 2, read_timeout_s: float = 30.0) -> tuple[ChatClient, Observer]:
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            openai_base_url=openai_server.url,
            openai_model="llama3.1",
            llm_read_timeout_s=read_timeout_s,
        )
        observer = Observer()
        model = build_chat_model(settings, "openai")
        info = model_info(settings, "openai")
        # No backoff: the waits are not what these tests are about.
        client = ChatClient(
            model,
            info,
            observer=observer,
            max_retries=retries,
            backoff_s=0,
        )
        made.append(model)
        return client, observer

    yield make
    for model in made:
        await close_chat_model(model)


class Pieces:
    def __init__(self) -> None:
        self.items: list[str] = []

    async def __call__(self, piece: str) -> None:
        self.items.append(piece)


async def test_streamed_text_reaches_on_text_piece_by_piece(
    openai_server: FakeOpenAIServer,
    make_client: MakeClient,
) -> None:
    openai_server.push(Step(text="There are 42 customers.", piece=5, prompt_tokens=30))
    client, observer = make_client()
    pieces = Pieces()
    answer = await client.stream(QUESTION, on_text=pieces)
    assert answer.content == "There are 42 customers."
    assert pieces.items == ["There", " are ", "42 cu", "stome", "rs."]
    assert client.usage.to_json() == {"prompt": 30, "completion": 7, "total": 37}
    # What the server was sent: the messages, the model, streaming with usage asked for.
    body = openai_server.requests[0]
    assert body["model"] == "llama3.1" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "temperature" not in body
    [call] = observer.ended
    assert call.error is None and call.attempts == 1
    assert call.response_content == "There are 42 customers."
    assert observer.started[0]["model"] == "llama3.1"


async def test_tool_call_deltas_merge_into_whole_tool_calls(
    openai_server: FakeOpenAIServer,
    make_client: MakeClient,
) -> None:
    openai_server.push(
        Step(
            text="Let me look.",
            tool_calls=[
                tool("query_database", "call_a", sql="SELECT count(*) FROM customers"),
                FakeToolCall("query_database", {"sql": "SELECT 1"}, "call_b", piece=3),
            ],
        )
    )
    client, observer = make_client()
    answer = await client.stream(QUESTION, tools=[query_database])
    assert [(c["id"], c["name"], c["args"]) for c in answer.tool_calls] == [
        ("call_a", "query_database", {"sql": "SELECT count(*) FROM customers"}),
        ("call_b", "query_database", {"sql": "SELECT 1"}),
    ]
    assert answer.invalid_tool_calls == []
    # The tool reached the server in OpenAI's function format.
    [sent] = openai_server.requests[0]["tools"]
    assert sent["function"]["name"] == "query_database"
    assert "sql" in sent["function"]["parameters"]["properties"]
    assert observer.ended[0].tool_calls == [
        {
            "id": "call_a",
            "name": "query_database",
            "args": {"sql": "SELECT count(*) FROM customers"},
        },
        {"id": "call_b", "name": "query_database", "args": {"sql": "SELECT 1"}},
    ]


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        # LangChain's lenient stream parsing would make these {"sql": "SEL"} and {}.
        ('{"sql": "SEL', "not valid JSON"),
        ("{bad", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
    ],
)
async def test_malformed_tool_arguments_become_invalid_tool_calls(
    openai_server: FakeOpenAIServer, make_client: MakeClient, raw: str, error: str
) -> None:
    openai_server.push(Step(tool_calls=[FakeToolCall("query_database", raw, "call_x", piece=2)]))
    client, observer = make_client()
    answer = await client.stream(QUESTION, tools=[query_database])
    assert answer.tool_calls == []
    [invalid] = answer.invalid_tool_calls
    assert (invalid["id"], invalid["name"], invalid["args"]) == ("call_x", "query_database", raw)
    assert error in (invalid["error"] or "")
    assert observer.ended[0].tool_calls == [
        {"id": "call_x", "name": "query_database", "args": raw, "invalid": True}
    ]


async def test_empty_arguments_are_no_arguments(
    openai_server: FakeOpenAIServer, make_client: MakeClient
) -> None:
    openai_server.push(Step(tool_calls=[FakeToolCall("list_datasets", "", "call_l")]))
    client, _ = make_client()
    answer = await client.stream(QUESTION, tools=[query_database])
    assert [(c["name"], c["args"]) for c in answer.tool_calls] == [("list_datasets", {})]


async def test_429_then_success_is_retried(
    openai_server: FakeOpenAIServer, make_client: MakeClient
) -> None:
    openai_server.push(Step(status=429, retry_after=0), Step(text="Fine now."))
    client, observer = make_client()
    pieces = Pieces()
    answer = await client.stream(QUESTION, on_text=pieces)
    assert answer.content == "Fine now."
    assert "".join(pieces.items) == "Fine now."
    assert len(openai_server.requests) == 2
    [call] = observer.ended
    assert (call.attempts, call.error) == (2, None)


async def test_500_before_any_text_is_retried_until_the_limit(
    openai_server: FakeOpenAIServer,
    make_client: MakeClient,
) -> None:
    openai_server.default = Step(status=500)
    client, observer = make_client(retries=2)
    with pytest.raises(DataAgentError) as caught:
        await client.stream(QUESTION)
    assert caught.value.code == ErrorCode.LLM_ERROR
    assert "server error (500)" in caught.value.message
    assert len(openai_server.requests) == 3
    assert observer.ended[0].attempts == 3
    assert observer.ended[0].error == caught.value.message


async def test_a_client_error_is_not_retried(
    openai_server: FakeOpenAIServer, make_client: MakeClient
) -> None:
    openai_server.push(Step(status=400, error_message="bad request"))
    client, _ = make_client()
    with pytest.raises(DataAgentError) as caught:
        await client.stream(QUESTION)
    assert caught.value.code == ErrorCode.LLM_ERROR
    assert "(400)" in caught.value.message
    assert len(openai_server.requests) == 1


@pytest.mark.parametrize("break_with", ["error_event", "disconnect"])
async def test_a_failure_after_text_was_shown_is_not_retried(
    openai_server: FakeOpenAIServer, make_client: MakeClient, break_with: Any
) -> None:
    openai_server.push(
        Step(text="The answer is forty-two.", break_after=2, break_with=break_with),
        Step(text="A second try nobody should see."),
    )
    client, observer = make_client()
    pieces = Pieces()
    with pytest.raises(DataAgentError) as caught:
        await client.stream(QUESTION, on_text=pieces)
    assert caught.value.code == ErrorCode.LLM_ERROR
    assert pieces.items == ["The ", "answ"]
    assert len(openai_server.requests) == 1
    assert observer.ended[0].attempts == 1


async def test_a_dropped_stream_before_any_text_is_retried(
    openai_server: FakeOpenAIServer,
    make_client: MakeClient,
) -> None:
    openai_server.push(Step(text="lost", break_after=0, break_with="disconnect"), Step(text="ok"))
    client, observer = make_client()
    answer = await client.stream(QUESTION, on_text=Pieces())
    assert answer.content == "ok"
    assert observer.ended[0].attempts == 2


async def test_a_read_timeout_fails_with_llm_error(
    openai_server: FakeOpenAIServer, make_client: MakeClient
) -> None:
    openai_server.default = Step(text="too late", delay_s=30)
    client, observer = make_client(retries=1, read_timeout_s=0.3)
    with pytest.raises(DataAgentError) as caught:
        await client.stream(QUESTION)
    assert caught.value.code == ErrorCode.LLM_ERROR
    assert caught.value.message == "The openai model did not answer in time."
    assert len(openai_server.requests) == 2
    assert observer.ended[0].attempts == 2


async def test_a_stream_that_goes_quiet_times_out(
    openai_server: FakeOpenAIServer, make_client: MakeClient
) -> None:
    # The first chunk (the role, no text) arrives at once; the first text never does.
    openai_server.push(Step(text="slow answer", chunk_delay_s=30))
    client, observer = make_client(retries=0, read_timeout_s=0.3)
    pieces = Pieces()
    with pytest.raises(DataAgentError) as caught:
        await client.stream(QUESTION, on_text=pieces)
    assert caught.value.code == ErrorCode.LLM_ERROR
    assert caught.value.message == "The openai model did not answer in time."
    assert pieces.items == []
    assert observer.ended[0].error == caught.value.message


async def test_invoke_answers_without_streaming_to_anyone(
    openai_server: FakeOpenAIServer,
    make_client: MakeClient,
) -> None:
    openai_server.push(Step(text="A short title", prompt_tokens=5, completion_tokens=3))
    client, observer = make_client()
    answer = await client.invoke(QUESTION, phase="naming", purpose="chat name")
    assert answer.content == "A short title"
    assert observer.ended[0].phase == "naming"
    assert observer.ended[0].end_event()["totalTokens"] == 8


async def test_calls_add_up_over_one_answer(
    openai_server: FakeOpenAIServer, make_client: MakeClient
) -> None:
    openai_server.push(
        Step(tool_calls=[tool("query_database", sql="SELECT 1")], prompt_tokens=100),
        Step(text="Done.", prompt_tokens=150, completion_tokens=2),
    )
    client, observer = make_client()
    await client.stream(QUESTION, tools=[query_database])
    await client.stream(QUESTION, tools=[query_database])
    assert [c.call_index for c in observer.ended] == [0, 1]
    assert client.usage.to_json() == {"prompt": 250, "completion": 9, "total": 259}


async def test_models_endpoint_lists_the_model(
    openai_server: FakeOpenAIServer, make_client: MakeClient
) -> None:
    client, _ = make_client()
    model = client.model
    page = await model.root_async_client.models.list()  # type: ignore[attr-defined]
    assert [m.id for m in page.data] == ["fake-model"]


async def test_an_error_event_before_any_text_is_retried(
    openai_server: FakeOpenAIServer, make_client: MakeClient
) -> None:
    # OpenAI reports a server error inside a stream that began 200 as an SSE error event.
    openai_server.push(Step(text="lost", break_after=0), Step(text="ok"))
    client, observer = make_client()
    answer = await client.stream(QUESTION, on_text=Pieces())
    assert answer.content == "ok"
    assert observer.ended[0].attempts == 2


def _anthropic_stream_error(kind: str) -> Exception:
    """What the Anthropic SDK raises for an SSE `error` event: a status error on the 200."""
    import anthropic
    import httpx2

    request = httpx2.Request("POST", "https://api.anthropic.com/v1/messages")
    body = {"type": "error", "error": {"type": kind, "message": "Overloaded"}}
    return anthropic.APIStatusError(
        "stream error", response=httpx2.Response(200, request=request), body=body
    )


@pytest.mark.parametrize(
    ("kind", "retryable", "message"),
    [
        ("overloaded_error", True, "The anthropic model failed with a server error (529)."),
        ("api_error", True, "The anthropic model failed with a server error (500)."),
        ("rate_limit_error", True, "The anthropic model is rate-limited (429); try again shortly."),
        ("invalid_request_error", False, "The anthropic model call failed (APIStatusError)."),
    ],
)
def test_anthropic_stream_errors_are_read_from_their_type(
    kind: str, retryable: bool, message: str
) -> None:
    exc = _anthropic_stream_error(kind)
    assert is_retryable(exc) is retryable
    assert describe_failure(exc, "anthropic") == message


def test_an_answer_cut_at_the_length_limit_is_said_so() -> None:
    # The OpenAI SDK raises this when a structured answer stops at max tokens (a small
    # model rambling): the person reads why, not the exception's name.
    from openai import LengthFinishReasonError
    from openai.types.chat import ChatCompletion

    completion = ChatCompletion.model_construct(id="c", choices=[], usage=None)
    exc = LengthFinishReasonError(completion=completion)
    assert describe_failure(exc, "openai") == (
        "The openai model's answer was cut off at its length limit before it was complete."
    )
