"""ChatClient.structured: a Pydantic model asked of the model, in each provider's mode.

The scripted model (in process) for reading answers and re-asking; the scripted
OpenAI-compatible server for the real ChatOpenAI path (the request carries the JSON-schema
response format); ChatAnthropic's request payload, built without a network, for tool forcing.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel
from tests.fakes.openai_server import FakeOpenAIServer, FakeToolCall, Step
from tests.fakes.scripted_model import Reply, ScriptedChatModel, ToolCall
from tests.unit.llm.test_calls import Observer

from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.calls import ChatClient, ModelInfo
from dataagent.llm.providers import build_chat_model, close_chat_model, model_info
from dataagent.llm.structured import (
    StructuredOutputError,
    extract_json,
    inlined_schema_of,
    json_schema_of,
    parse_structured,
    structured_runnable,
)


class Answer(BaseModel):
    """The count of something, and why."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    row_count: int = Field(ge=0)
    reason_given: str

    @model_validator(mode="after")
    def _reason(self) -> Answer:
        if self.row_count > 0 and not self.reason_given:
            raise ValueError("a count needs a reason")
        return self


GOOD = '{"rowCount": 3, "reasonGiven": "three rows"}'
MESSAGES = [SystemMessage("You count rows."), HumanMessage("How many rows?")]


def scripted(*replies: Reply, mode: str = "prompt") -> tuple[ChatClient, ScriptedChatModel]:
    model = ScriptedChatModel(script=list(replies))
    info = ModelInfo("openai", "scripted", structured_mode=mode)  # type: ignore[arg-type]
    return ChatClient(model, info, observer=Observer(), max_retries=0), model


# --- reading an answer --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        GOOD,
        f"```json\n{GOOD}\n```",
        f"Here is the answer:\n```\n{GOOD}\n```\nHope it helps.",
        f"Sure! {GOOD} That is all.",
        f"I think {{maybe}} the answer is {GOOD}",
    ],
)
def test_json_is_found_in_text_fences_and_words(text: str) -> None:
    assert parse_structured(text, Answer) == Answer(row_count=3, reason_given="three rows")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("no json here", "no JSON object"),
        ("[1, 2]", "expected a JSON object"),
        ('{"rowCount": -1, "reasonGiven": "x"}', "rowCount: Input should be greater than"),
        ('{"rowCount": 2, "reasonGiven": ""}', "a count needs a reason"),
        ('{"rowCount": 2, "reasonGiven": "x", "extra": 1}', "extra: Extra inputs"),
    ],
)
def test_answers_that_do_not_fit_say_why_in_a_line(text: str, message: str) -> None:
    with pytest.raises(StructuredOutputError, match=message) as caught:
        parse_structured(text, Answer)
    assert "\n" not in str(caught.value)


def test_extract_json_prefers_the_whole_text() -> None:
    assert extract_json('  {"a": {"b": 1}}  ') == {"a": {"b": 1}}


# --- the scripted model -------------------------------------------------------------------


async def test_valid_json_is_one_traced_structured_call() -> None:
    client, model = scripted(Reply(text=GOOD))
    answer = await client.structured(MESSAGES, Answer, phase="planner", purpose="plan")
    assert answer.row_count == 3
    assert len(model.calls) == 1
    [call] = client.calls
    assert call.structured_output and call.phase == "planner" and call.purpose == "plan"
    assert call.response_content == GOOD and call.error is None
    observer = client.observer
    assert isinstance(observer, Observer)
    assert observer.started[0]["structuredOutput"] is True
    assert observer.ended == [call]


async def test_prompt_mode_puts_the_schema_in_the_system_prompt() -> None:
    client, model = scripted(Reply(text=f"```json\n{GOOD}\n```"))
    await client.structured(MESSAGES, Answer, phase="planner", purpose="plan", step_id=2)
    system = str(model.calls[0][0].content)
    assert system.startswith("You count rows.")
    assert '"rowCount"' in system and "one JSON object" in system
    assert len(model.calls[0]) == 2  # the schema joined the system prompt, no new message
    assert client.calls[0].step_id == 2


async def test_invalid_then_valid_is_re_asked_once_with_the_error() -> None:
    client, model = scripted(Reply(text='{"rowCount": "many"}'), Reply(text=GOOD))
    answer = await client.structured(MESSAGES, Answer, phase="planner", purpose="plan")
    assert answer.reason_given == "three rows"
    assert len(model.calls) == 2
    reasked = model.calls[1]
    assert reasked[-2].content == '{"rowCount": "many"}'  # the model's own answer
    assert "did not match the expected form" in str(reasked[-1].content)
    assert "rowCount: Input should be a valid integer" in str(reasked[-1].content)
    first, second = client.calls
    assert first.error is not None and "rowCount" in first.error
    assert second.error is None and second.structured_output


async def test_invalid_twice_is_an_llm_error_naming_the_purpose() -> None:
    client, model = scripted(Reply(text="I cannot."), Reply(text='{"rowCount": 1}'))
    with pytest.raises(DataAgentError) as caught:
        await client.structured(MESSAGES, Answer, phase="sql_builder", purpose="step_sql")
    assert caught.value.code == ErrorCode.LLM_ERROR
    assert caught.value.message.startswith("The model's step sql did not match the expected form: ")
    assert "reasonGiven: Field required" in caught.value.message
    assert len(model.calls) == 2 and len(client.calls) == 2


async def test_tool_mode_reads_the_forced_tool_call() -> None:
    reply = Reply(tool_calls=[ToolCall("Answer", {"rowCount": 4, "reasonGiven": "four"})])
    client, model = scripted(reply, mode="tool")
    answer = await client.structured(MESSAGES, Answer, phase="planner", purpose="plan")
    assert answer.row_count == 4
    [tools] = model.tools_seen
    assert [t["function"]["name"] for t in tools] == ["Answer"]
    assert tools[0]["function"]["parameters"]["properties"]["rowCount"]["type"] == "integer"
    assert json.loads(client.calls[0].response_content or "") == {
        "rowCount": 4,
        "reasonGiven": "four",
    }


def test_tool_mode_binds_a_forced_tool_and_json_schema_mode_a_response_format() -> None:
    model = ScriptedChatModel()
    bound = structured_runnable(model, Answer, "tool")
    assert bound.kwargs["tools"][0]["function"]["name"] == "Answer"
    bound = structured_runnable(model, Answer, "json_schema")
    form = bound.kwargs["response_format"]
    assert form["type"] == "json_schema"
    assert form["json_schema"]["name"] == "Answer" and form["json_schema"]["strict"] is False
    assert "reasonGiven" in form["json_schema"]["schema"]["properties"]
    assert structured_runnable(model, Answer, "prompt") is model


# --- Anthropic: tool forcing, checked on the request payload (no network) ------------------


def test_anthropic_is_asked_with_a_forced_tool() -> None:
    settings = Settings(_env_file=None, anthropic_api_key="sk-test")  # type: ignore[call-arg]
    info = model_info(settings, "anthropic")
    assert info.structured_mode == "tool"
    model = build_chat_model(settings, "anthropic")
    bound = structured_runnable(model, Answer, "tool")
    payload = model._get_request_payload(MESSAGES, **bound.kwargs)  # type: ignore[attr-defined]
    assert payload["tool_choice"] == {"type": "tool", "name": "Answer"}
    [tool] = payload["tools"]
    assert tool["name"] == "Answer"
    assert tool["input_schema"]["properties"]["rowCount"]["type"] == "integer"


def test_each_provider_has_its_mode() -> None:
    settings = Settings(_env_file=None, openai_api_key="sk-test")  # type: ignore[call-arg]
    assert model_info(settings, "openai").structured_mode == "json_schema"
    assert model_info(settings, "azure").structured_mode == "json_schema"
    from dataagent.llm.providers import ModelOverride

    thinking = ModelOverride(reasoning_level="adaptive")
    assert model_info(settings, "anthropic", thinking).structured_mode == "prompt"


# --- the real ChatOpenAI path against the scripted server ---------------------------------


@pytest.fixture
async def openai_client(openai_server: FakeOpenAIServer) -> AsyncIterator[ChatClient]:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        openai_base_url=openai_server.url,
        openai_model="llama3.1",
    )
    model = build_chat_model(settings, "openai")
    yield ChatClient(model, model_info(settings, "openai"), max_retries=0, backoff_s=0)
    await close_chat_model(model)


async def test_openai_request_carries_the_json_schema_response_format(
    openai_server: FakeOpenAIServer, openai_client: ChatClient
) -> None:
    openai_server.push(Step(text=GOOD, prompt_tokens=30, completion_tokens=9))
    answer = await openai_client.structured(MESSAGES, Answer, phase="planner", purpose="plan")
    assert answer.row_count == 3
    [body] = openai_server.requests
    form = body["response_format"]
    assert form["type"] == "json_schema"
    assert form["json_schema"]["name"] == "Answer"
    assert form["json_schema"]["strict"] is False
    assert set(form["json_schema"]["schema"]["properties"]) == {"rowCount", "reasonGiven"}
    # The schema travels in the response format, not in the prompt.
    assert "rowCount" not in json.dumps(body["messages"])
    [call] = openai_client.calls
    assert call.structured_output and call.response_content == GOOD
    assert (call.usage.prompt, call.usage.completion) == (30, 9)


async def test_openai_malformed_output_is_re_asked(
    openai_server: FakeOpenAIServer, openai_client: ChatClient
) -> None:
    openai_server.push(Step(text='{"rowCount": 3'), Step(text=f"```json\n{GOOD}\n```"))
    answer = await openai_client.structured(MESSAGES, Answer, phase="planner", purpose="plan")
    assert answer.row_count == 3
    first, second = openai_server.requests
    assert len(second["messages"]) == len(first["messages"]) + 2
    last = second["messages"][-1]["content"]
    assert "did not match the expected form" in last
    assert '"rowCount"' in last  # the schema, for a server that ignored the response format
    assert second["response_format"] == first["response_format"]


async def test_a_server_refusing_the_response_format_gets_the_schema_in_the_prompt(
    openai_server: FakeOpenAIServer, openai_client: ChatClient
) -> None:
    openai_server.push(Step(status=400, error_message="response_format is not supported"))
    openai_server.push(Step(text=GOOD))
    answer = await openai_client.structured(MESSAGES, Answer, phase="planner", purpose="plan")
    assert answer.reason_given == "three rows"
    refused, asked = openai_server.requests
    assert "response_format" in refused and "response_format" not in asked
    assert '"rowCount"' in asked["messages"][0]["content"]
    assert [c.error is not None for c in openai_client.calls] == [True, False]


async def test_openai_tool_call_instead_of_json_is_re_asked_then_fails(
    openai_server: FakeOpenAIServer, openai_client: ChatClient
) -> None:
    openai_server.push(
        Step(tool_calls=[FakeToolCall("whatever", {"a": 1})]), Step(text="Sorry, no.")
    )
    with pytest.raises(DataAgentError) as caught:
        await openai_client.structured(MESSAGES, Answer, phase="planner", purpose="plan")
    assert caught.value.code == ErrorCode.LLM_ERROR
    assert "The model's plan did not match the expected form" in caught.value.message
    assert len(openai_server.requests) == 2


def test_the_schema_sent_has_no_titles_and_no_refs() -> None:
    class Inner(BaseModel):
        title: str

    class Outer(BaseModel):
        items: list[Inner]

    assert "title" not in json_schema_of(Outer)
    assert json_schema_of(Outer)["$defs"]["Inner"]["properties"] == {"title": {"type": "string"}}
    inlined = inlined_schema_of(Outer)
    assert "$defs" not in inlined and "$ref" not in json.dumps(inlined)
    assert inlined["properties"]["items"]["items"]["properties"]["title"] == {"type": "string"}


async def test_json_that_breaks_a_rule_is_re_asked_without_the_schema_again(
    openai_server: FakeOpenAIServer, openai_client: ChatClient
) -> None:
    # The server applied the response format (the answer is JSON): the schema travels in it
    # already, and repeating it in the prompt can overflow a small model's context.
    openai_server.push(Step(text='{"rowCount": -1, "reasonGiven": "x"}'), Step(text=GOOD))
    answer = await openai_client.structured(MESSAGES, Answer, phase="planner", purpose="plan")
    assert answer.row_count == 3
    _, second = openai_server.requests
    last = second["messages"][-1]["content"]
    assert "rowCount" in last  # the error names the field
    assert '"type": "integer"' not in last and "JSON schema" not in last
    assert second["response_format"]["type"] == "json_schema"


async def test_a_prompt_longer_than_the_context_window_is_said_so_not_read_as_a_format_refusal(
    openai_server: FakeOpenAIServer, openai_client: ChatClient
) -> None:
    openai_server.push(
        Step(
            status=400,
            error_message="request (8331 tokens) exceeds the available context size "
            "(8192 tokens), try increasing it",
        )
    )
    with pytest.raises(DataAgentError) as caught:
        await openai_client.structured(MESSAGES, Answer, phase="planner", purpose="plan")
    assert caught.value.code == ErrorCode.LLM_ERROR
    assert "context window is too small" in caught.value.message
    # Not asked again with the schema in the prompt (longer still).
    assert len(openai_server.requests) == 1
