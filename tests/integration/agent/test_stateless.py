"""Seed 002's stateless chat: the conversation in the request, events chunk ... done/error."""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from tests.fakes.scripted_model import Reply, ScriptedChatModel, call
from tests.integration.agent.conftest import Recorder, Retail, scripted_client

from dataagent.agent.stateless_answer import chat_stream

SQL = "SELECT region, COUNT(*) AS n FROM stores GROUP BY region ORDER BY region"
CONVERSATION = [
    {"role": "user", "content": "Hello"},
    {"role": "assistant", "content": "Hi, ask me about the shop."},
    {"role": "user", "content": "How many stores per region?"},
]


async def _stream(retail: Retail, model: ScriptedChatModel, messages: list[dict]) -> Recorder:
    events = Recorder()
    await chat_stream(
        retail.world.context,
        retail.owner_id,
        retail.ontology_id,
        messages,
        scripted_client(model),
        events,
    )
    return events


async def test_tool_round_then_answer(retail: Retail) -> None:
    def answer(messages: list[BaseMessage]) -> Reply:
        assert isinstance(messages[-1], ToolMessage) and messages[-1].tool_call_id == "q"
        assert "| West | " in str(messages[-1].content)
        return Reply(text="Four regions.")

    model = ScriptedChatModel(
        script=[
            Reply(text="Counting stores.", tool_calls=[call("query_database", "q", sql=SQL)]),
            answer,
        ]
    )
    events = await _stream(retail, model, CONVERSATION)

    names = events.names()
    first_clear = names.index("clear_streaming")
    assert set(names[:first_clear]) == {"chunk"}
    assert names[first_clear + 1] == "tool_call"
    assert set(names[first_clear + 2 : -1]) == {"chunk"}
    assert names[-1] == "done" and events.of("done") == [{"status": "completed"}]
    streamed = [d["content"] for d in events.of("chunk")]
    assert "".join(streamed) == "Counting stores.Four regions."
    (tool,) = events.of("tool_call")
    assert tool["tool"] == "query_database"
    assert tool["input_summary"] == SQL and tool["input_raw"] == {"sql": SQL}
    assert tool["thinking"] == "Counting stores."
    assert tool["result_summary"].startswith("| region | n |")
    assert tool["iteration"] == 1 and isinstance(tool["duration_ms"], int)
    # The request's conversation reached the model as messages, after the system prompt.
    first = model.calls[0]
    assert [type(m) for m in first[1:]] == [HumanMessage, AIMessage, HumanMessage]
    assert "### stores" in str(first[0].content)


async def test_round_limit_ends_with_an_error(retail: Retail) -> None:
    retail.world.context.settings.agent_max_tool_rounds = 2
    model = ScriptedChatModel(default=Reply(tool_calls=[call("list_datasets")]))
    events = await _stream(retail, model, CONVERSATION)
    assert [t["iteration"] for t in events.of("tool_call")] == [1, 2]
    assert events.names()[-1] == "error"
    assert events.of("error") == [
        {"message": "The agent reached its limit of 2 tool rounds.", "code": "LLM_ERROR"}
    ]
    assert "done" not in events.names()
    assert len(model.calls) == 3


async def test_bad_requests_and_other_owners_are_errors(retail: Retail) -> None:
    model = ScriptedChatModel(script=[])
    events = await _stream(retail, model, [{"role": "assistant", "content": "Hi"}])
    assert events.of("error") == [
        {"message": "The last message must be the user's.", "code": "VALIDATION_ERROR"}
    ]
    events = Recorder()
    await chat_stream(
        retail.world.context,
        retail.world.other.id,
        retail.ontology_id,
        CONVERSATION,
        scripted_client(model),
        events,
    )
    assert events.of("error") == [{"message": "Ontology not found.", "code": "NOT_FOUND"}]
    assert model.calls == []
