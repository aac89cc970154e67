"""What a trace keeps of each model call: the prompt's new messages (with a reference to the
call it continues), cut to a bound, so an answer's traces grow linearly with its calls."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from tests.fakes.scripted_model import Reply, ScriptedChatModel, call

from dataagent.llm.calls import ChatClient, ModelInfo, bounded_json, tool_arguments_json


def _client(*replies: Reply, trace_chars: int = 100_000) -> ChatClient:
    model = ScriptedChatModel(script=list(replies), default=Reply(text="ok"))
    return ChatClient(
        model, ModelInfo("openai", "scripted"), max_retries=0, trace_chars=trace_chars
    )


def _stored(client: ChatClient) -> int:
    return sum(
        len(json.dumps([c.prompt_messages, c.response_content, c.tool_calls])) for c in client.calls
    )


async def test_a_call_that_continues_the_previous_one_keeps_only_its_new_messages() -> None:
    client = _client()
    system, question = "You are a data analyst.", HumanMessage("How many orders?")
    first = await client.stream([SystemMessage(system), question])
    second_prompt: list[BaseMessage] = [
        SystemMessage(system),
        question,
        first,
        HumanMessage("And stores?"),
    ]
    await client.stream(second_prompt)
    await client.stream([SystemMessage("Summarise."), HumanMessage("text")])

    one, two, three = client.calls
    assert one.prompt_messages == [
        {"role": "system", "content": system},
        {"role": "human", "content": "How many orders?"},
    ]
    assert two.prompt_messages == [
        {"role": "earlier", "callIndex": 0, "messageCount": 2},
        {"role": "ai", "content": "ok"},
        {"role": "human", "content": "And stores?"},
    ]
    # Another prompt altogether is kept whole.
    assert three.prompt_messages[0] == {"role": "system", "content": "Summarise."}
    # The event still describes the whole prompt that was sent.
    assert two.start_event()["promptSummary"] == {
        "messageCount": 4,
        "totalChars": len(system) + len("How many orders?") + len("ok") + len("And stores?"),
    }


async def test_an_answers_traces_grow_linearly_with_its_calls() -> None:
    client = _client()
    messages: list[BaseMessage] = [SystemMessage("s" * 20_000), HumanMessage("Go")]
    for turn in range(20):
        reply = await client.stream(messages)
        messages += [reply, ToolMessage("r" * 10_000, tool_call_id=f"t{turn}")]
    said = sum(len(str(m.content)) for m in messages)
    # Whole prompts each time would store about 20 x 120,000 characters.
    assert _stored(client) < said * 1.2


async def test_long_text_many_messages_and_huge_tool_arguments_are_cut() -> None:
    blob = "z" * 5_000_000
    client = _client(
        Reply(tool_calls=[call("create_chart", "big", data=[{"label": blob}] * 3)]),
        trace_chars=10_000,
    )
    many = [SystemMessage("x" * 50_000)] + [HumanMessage(f"m{i}") for i in range(100)]
    reply = await client.stream(many)
    (record,) = client.calls
    assert record.prompt_messages[0]["content"].startswith("x" * 9_000)
    assert record.prompt_messages[-1] == {"role": "omitted", "messageCount": 100}
    assert record.tool_call_count == 1
    assert len(json.dumps(record.tool_calls)) < 11_000
    # The next call carries that reply in its prompt: cut the same way.
    await client.stream([*many, reply, ToolMessage("no", tool_call_id="big")])
    assert client.calls[1].prompt_messages[0]["role"] == "earlier"
    assert _stored(client) < 4 * 10_000
    assert client.calls[1].end_event()["toolCallCount"] == 0


def test_bounded_json_keeps_small_values_and_cuts_big_ones() -> None:
    small = {"sql": "SELECT 1", "rows": [1, 2, 3], "nested": {"a": None, "b": True}}
    assert bounded_json(small, 1000) == small
    cut = bounded_json({"text": "t" * 10_000}, 100)
    assert len(cut["text"]) <= 100 and cut["text"].endswith("…")
    rows = bounded_json(list(range(1_000_000)), 200)
    assert len(tool_arguments_json(rows)) < 300
    assert rows[-1].endswith("more items left out")
    wide = bounded_json({f"k{i}": i for i in range(10_000)}, 200)
    assert "more keys left out" in wide["…"] and len(tool_arguments_json(wide)) < 300
    assert bounded_json(AIMessage("x").content, 10) == "x"
