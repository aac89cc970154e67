"""A chat's answer mode picks the agent that answers it (`runs.chat.answerer_for`), through the
real run; the message is stored with the status the answer carries (`complete`, or
`clarification_needed` when the agent asks first), and `message_complete` says which.

The pipeline's entry point is stood in for by a recording answerer here (the pipeline has
tests of its own); the ReAct agent runs for real over the scripted model.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, HumanMessage
from tests.fakes.scripted_model import Reply, ScriptedChatModel
from tests.integration.api.conftest import World
from tests.integration.runs.conftest import Chat, message_of, new_chat, stored_events

from dataagent.agent import react
from dataagent.agent.events import Emit
from dataagent.agent.pipeline import answer as pipeline
from dataagent.llm.calls import ChatClient
from dataagent.runs import answers
from dataagent.runs.chat import ANSWERERS, answerer_for
from dataagent.runs.system import RunSystem
from dataagent.services.context import AppContext
from dataagent.vocabulary import AGENT_MODES

QUESTION = "Revenue by region?"
CLARIFYING = "Which year do you mean: 2025 or 2026?"


def test_each_mode_has_its_agent() -> None:
    assert set(ANSWERERS) == set(AGENT_MODES)
    assert answerer_for("react") is react.answer_message
    assert answerer_for("pipeline") is pipeline.answer_message
    assert answerer_for("offline") is pipeline.answer_offline


class RecordingPipeline:
    """Stands in for the pipeline's entry point: asks a clarifying question, and keeps the
    requests it was given."""

    def __init__(self) -> None:
        self.requests: list[react.AnswerRequest] = []

    async def __call__(
        self, ctx: AppContext, request: react.AnswerRequest, emit: Emit, client: ChatClient
    ) -> react.Answer:
        self.requests.append(request)
        await emit("message_chunk", {"chunk": CLARIFYING})
        return react.Answer(CLARIFYING, {"agentMode": "pipeline"}, "clarification_needed")


def _echo(messages: list[BaseMessage]) -> Reply:
    question = next(m for m in reversed(messages) if isinstance(m, HumanMessage))
    return Reply(text=f"You asked: {question.content}")


async def _answer(world: World, system: RunSystem, chat: Chat, message_id: str) -> dict[str, Any]:
    """Claim the message and run its answer to the end: its last event's payload."""
    async with world.database.session() as session:
        run_id, _ = await answers.start_answer(
            system, session, chat.account.id, uuid.UUID(chat.id), uuid.UUID(message_id)
        )
    await system.runner.wait(run_id)
    events = await stored_events(world, run_id)
    assert events[-1][1] == "message_complete", events[-1]
    payload: dict[str, Any] = json.loads(events[-1][2])
    return payload


async def _chat_in(world: World, mode: str) -> Chat:
    chat = await new_chat(world, world.contributor)
    changed = await chat.account.client.patch(
        f"/api/data-agent/chats/{chat.id}", json={"agentMode": mode}
    )
    assert changed.json()["data"]["agentMode"] == mode
    return chat


async def test_the_chats_mode_picks_its_agent(
    world: World, system: RunSystem, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = RecordingPipeline()
    monkeypatch.setitem(ANSWERERS, "pipeline", recorder)
    model = ScriptedChatModel(default=_echo)
    world.context.chat_model_factory = lambda info: model

    asking = await _chat_in(world, "pipeline")
    message_id = await asking.ask(QUESTION)
    ended = await _answer(world, system, asking, message_id)
    assert [str(r.message_id) for r in recorder.requests] == [message_id]
    assert recorder.requests[0].conversation.question.content == QUESTION
    assert model.calls == []  # the ReAct agent did not run
    assert (ended["status"], ended["content"]) == ("clarification_needed", CLARIFYING)
    message = await message_of(world, message_id)
    assert (message.status, message.content) == ("clarification_needed", CLARIFYING)
    assert (message.metadata_ or {})["agentMode"] == "pipeline"

    looping = await _chat_in(world, "react")
    message_id = await looping.ask(QUESTION)
    ended = await _answer(world, system, looping, message_id)
    assert len(model.calls) >= 1 and len(recorder.requests) == 1
    assert (ended["status"], ended["content"]) == ("complete", f"You asked: {QUESTION}")
    assert (await message_of(world, message_id)).status == "complete"

    # A chat's mode changed between two questions: the next answer uses the new one.
    await looping.account.client.patch(
        f"/api/data-agent/chats/{looping.id}", json={"agentMode": "pipeline"}
    )
    message_id = await looping.ask("And by year?")
    ended = await _answer(world, system, looping, message_id)
    assert ended["status"] == "clarification_needed"
    assert [str(r.message_id) for r in recorder.requests][-1] == message_id


async def test_a_clarification_is_read_back_with_its_status(
    world: World, system: RunSystem, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(ANSWERERS, "pipeline", RecordingPipeline())
    chat = await _chat_in(world, "pipeline")
    message_id = await chat.ask(QUESTION)
    await _answer(world, system, chat, message_id)
    read = await chat.account.client.get(f"/api/data-agent/chats/{chat.id}")
    messages = read.json()["data"]["messages"]
    assert [(m["role"], m["status"]) for m in messages] == [
        ("user", "complete"),
        ("assistant", "clarification_needed"),
    ]
    # The reply continues the conversation: a new question may be asked and answered.
    reply_id = await chat.ask("2026")
    ended = await _answer(world, system, chat, reply_id)
    assert ended["status"] == "clarification_needed"
