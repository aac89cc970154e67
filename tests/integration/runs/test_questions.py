"""A question asked in process (`runs.questions.ask`, behind `dataagent ask`, `dataagent
eval` and the MCP server's `ask`): a chat started or continued, the answer's run on the
runner, its events read from the log, and the terminal event's answer."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, HumanMessage
from tests.fakes.scripted_model import Reply, ScriptedChatModel
from tests.integration.api.conftest import World
from tests.integration.runs.conftest import Scripted, message_of

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.runs.questions import ask
from dataagent.runs.system import RunSystem


def _echo(messages: list[BaseMessage]) -> Reply:
    question = next(m for m in reversed(messages) if isinstance(m, HumanMessage))
    return Reply(text=f"You asked: {question.content}")


async def test_a_question_is_answered_in_a_new_chat_then_continued(
    world: World, system: RunSystem
) -> None:
    model = ScriptedChatModel(default=_echo)
    world.context.chat_model_factory = lambda info: model
    owner = world.contributor
    ontology_id = await world.make_ontology(owner)
    seen: list[str] = []

    async def on_event(event: str, data: dict[str, Any]) -> None:
        seen.append(event)

    first = await ask(
        system, owner.id, ontology_id, "How many stores?", mode="react", on_event=on_event
    )
    assert (first.status, first.content) == ("complete", "You asked: How many stores?")
    assert first.metadata["agentMode"] == "react"
    assert seen[0] == "message_start" and seen[-1] == "message_complete"
    assert (await message_of(world, str(first.message_id))).status == "complete"

    again = await ask(system, owner.id, ontology_id, "And customers?", chat_id=first.chat_id)
    assert again.chat_id == first.chat_id and again.message_id != first.message_id
    assert again.content == "You asked: And customers?"
    chat = await owner.client.get(f"/api/data-agent/chats/{first.chat_id}")
    assert [m["role"] for m in chat.json()["data"]["messages"]] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]


async def test_a_failed_answer_carries_its_code(world: World, system: RunSystem) -> None:
    handler = Scripted()
    handler.raise_after_gate = DataAgentError(ErrorCode.QUERY_FAILED, "The query failed.")
    handler.gate.set()
    system.register("chat_message", handler)
    owner = world.contributor
    ontology_id = await world.make_ontology(owner)
    answer = await ask(system, owner.id, ontology_id, "Anything?")
    assert answer.status == "failed"
    assert (answer.error_code, answer.error_message) == ("QUERY_FAILED", "The query failed.")
    assert answer.content == "Hello"  # the partial text the run had streamed


async def test_another_users_ontology_or_chat_is_not_found(world: World, system: RunSystem) -> None:
    model = ScriptedChatModel(default=_echo)
    world.context.chat_model_factory = lambda info: model
    ontology_id = await world.make_ontology(world.contributor)
    with pytest.raises(DataAgentError) as refused:
        await ask(system, world.other.id, ontology_id, "Mine?")
    assert refused.value.code is ErrorCode.NOT_FOUND
    mine = await ask(system, world.contributor.id, ontology_id, "Mine?", mode="react")
    with pytest.raises(DataAgentError) as refused:
        await ask(system, world.other.id, uuid.uuid4(), "Yours?", chat_id=mine.chat_id)
    assert refused.value.code is ErrorCode.NOT_FOUND
    assert model.calls  # only the owner's question reached the model
