"""The agent against the demo retailer in SQLite, on the app database of `world` (SQLite or
PostgreSQL), with the scripted chat model as the only fake."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.fakes.scripted_model import ScriptedChatModel
from tests.integration.api.conftest import (  # noqa: F401 - fixtures used by these tests
    World,
    database_url,
    settings,
    world,
)

from dataagent.agent.react import Answer, AnswerRequest, answer_message
from dataagent.demo import DemoData
from dataagent.demo.loaders import write_sqlite
from dataagent.llm.calls import ChatClient, ModelInfo
from dataagent.services import chats, connections, ontologies, semantic_models
from dataagent.store.models import AgentRun


@dataclass
class Recorder:
    """An `Emit` that keeps every event in order."""

    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    async def __call__(self, event: str, data: dict[str, Any]) -> None:
        self.events.append((event, data))

    def names(self) -> list[str]:
        """The event types in order."""
        return [name for name, _ in self.events]

    def of(self, name: str) -> list[dict[str, Any]]:
        """The payloads of one event type, in order."""
        return [data for event, data in self.events if event == name]


@dataclass
class Asked:
    """One answered question: the answer, its events, the model and the ids involved."""

    answer: Answer
    events: Recorder
    model: ScriptedChatModel
    client: ChatClient
    message_id: uuid.UUID
    run_id: uuid.UUID


@dataclass
class Retail:
    """A contributor's chat over the demo retailer, and a way to ask in it."""

    world: World
    owner_id: uuid.UUID
    ontology_id: uuid.UUID
    chat_id: uuid.UUID
    ask: Callable[..., Awaitable[Asked]]


def scripted_client(model: ScriptedChatModel) -> ChatClient:
    """A chat client over the scripted model (no retries: nothing here is transient)."""
    return ChatClient(model, ModelInfo("openai", "scripted"), max_retries=0)


@dataclass(frozen=True)
class Started:
    """A question sent in a chat: its answer's message, the run answering it (claimed, as a
    worker claims it) and the request an agent answers."""

    message_id: uuid.UUID
    run_id: uuid.UUID
    request: AnswerRequest


async def start_answer(
    world: World,  # noqa: F811 - the world of the test, not the fixture
    owner_id: uuid.UUID,
    chat_id: uuid.UUID,
    question: str,
) -> Started:
    """Send `question` in the chat and start its answer's run, as the API and a worker do."""
    ctx = world.context
    async with world.database.session() as session:
        _, reply = await chats.send_message(ctx, session, owner_id, chat_id, question)
        run = AgentRun(
            kind="chat_message",
            owner_id=owner_id,
            chat_id=chat_id,
            message_id=reply.id,
            status="running",
        )
        session.add(run)
        await session.commit()
        message_id, run_id = reply.id, run.id
    async with world.database.session() as session:
        conversation = await chats.load_conversation(ctx, session, owner_id, chat_id, message_id)
    return Started(message_id, run_id, AnswerRequest(owner_id, conversation, run_id))


async def retail_ontology(
    world: World,  # noqa: F811 - the world of the test, not the fixture
    demo_data: DemoData,
    path: Path,
    name: str = "Retail",
) -> uuid.UUID:
    """The demo retailer written as SQLite at `path`, a ready ontology of the contributor's
    (its generated semantic model), built the production way."""
    ctx, owner = world.context, world.contributor
    write_sqlite(demo_data, path)
    async with world.database.session() as session:
        connection = await connections.create_connection(
            ctx, session, owner.id, "Retail", {"dialect": "sqlite", "database": str(path)}
        )
        model = await semantic_models.create_from_connection(
            ctx, session, owner.id, connection.id, "retail", None
        )
        ontology = await ontologies.create_ontology(ctx, session, owner.id, model.id, name, None)
        await ctx.builds.wait(ontology.id)
        await session.refresh(ontology)
        assert ontology.status == "ready", ontology.error
        return ontology.id


@pytest.fixture
async def retail(world: World, demo_data: DemoData, tmp_path: Path) -> Retail:  # noqa: F811
    """The demo retailer as a ready ontology of the contributor's, and a chat on it."""
    ctx = world.context
    owner = world.contributor
    ontology_id = await retail_ontology(world, demo_data, tmp_path / "retail.db")
    async with world.database.session() as session:
        chat = await chats.create_chat(ctx, session, owner.id, chats.DEFAULT_CHAT_NAME, ontology_id)

    async def ask(
        question: str, script: list[Any], *, default: Any = None, chat_id: uuid.UUID | None = None
    ) -> Asked:
        target_chat = chat_id or chat.id
        started = await start_answer(world, owner.id, target_chat, question)
        model = ScriptedChatModel(script=script, default=default)
        client = scripted_client(model)
        events = Recorder()
        answer = await answer_message(ctx, started.request, events, client)
        async with world.database.session() as session:
            await chats.complete_message(
                session, started.message_id, answer.content, answer.metadata
            )
            await session.commit()
        return Asked(answer, events, model, client, started.message_id, started.run_id)

    return Retail(world, owner.id, ontology_id, chat.id, ask)
