"""The pipeline end to end over the demo retailer: the real curated semantic model on the demo
DuckDB file, the real compiler, executor, verifier and sandbox, the model scripted (the only
fake)."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.fakes.scripted_model import ScriptedChatModel
from tests.integration.agent.conftest import Asked, Recorder, scripted_client, start_answer
from tests.integration.api.conftest import (  # noqa: F401 - fixtures used by these tests
    World,
    database_url,
    settings,
    world,
)

from dataagent.agent.pipeline.answer import answer_message
from dataagent.demo import DemoData
from dataagent.demo.loaders import write_duckdb
from dataagent.demo.semantic_model import curated_model_yaml
from dataagent.services import chats, connections, ontologies, semantic_models


@dataclass
class Demo:
    """A contributor's pipeline chat over the curated demo retailer, and a way to ask in it."""

    world: World
    owner_id: uuid.UUID
    ontology_id: uuid.UUID
    chat_id: uuid.UUID
    ask: Callable[..., Awaitable[Asked]]


async def demo_ontology(world: World, demo_data: DemoData, path: Path) -> uuid.UUID:  # noqa: F811
    """The demo retailer as `make demo` makes it: the DuckDB file, the generated model
    replaced by the curated one, a ready ontology of the contributor's."""
    ctx, owner = world.context, world.contributor
    write_duckdb(demo_data, path)
    async with world.database.session() as session:
        connection = await connections.create_connection(
            ctx, session, owner.id, "Retail", {"dialect": "duckdb", "database": str(path)}
        )
        model = await semantic_models.create_from_connection(
            ctx, session, owner.id, connection.id, "retail", None
        )
        await semantic_models.update_semantic_model(
            session, owner.id, model.id, None, None, curated_model_yaml()
        )
        ontology = await ontologies.create_ontology(
            ctx, session, owner.id, model.id, "Retail", None
        )
        await ctx.builds.wait(ontology.id)
        await session.refresh(ontology)
        assert ontology.status == "ready", ontology.error
        return ontology.id


@pytest.fixture
async def demo(world: World, demo_data: DemoData, tmp_path: Path) -> Demo:  # noqa: F811
    """A pipeline chat on the curated demo retailer. The fast path is off: these tests are
    of the model's pipeline, and the offline planner would answer some of their questions
    (the offline answers have tests of their own, tests/integration/offline_answers)."""
    world.context.settings = world.context.settings.model_copy(update={"offline_fast_path": False})
    ctx, owner = world.context, world.contributor
    ontology_id = await demo_ontology(world, demo_data, tmp_path / "retail.duckdb")
    async with world.database.session() as session:
        chat = await chats.create_chat(ctx, session, owner.id, chats.DEFAULT_CHAT_NAME, ontology_id)

    async def ask(question: str, script: list[Any], *, default: Any = None) -> Asked:
        started = await start_answer(world, owner.id, chat.id, question)
        model = ScriptedChatModel(script=script, default=default)
        client = scripted_client(model)
        events = Recorder()
        answer = await answer_message(ctx, started.request, events, client)
        async with world.database.session() as session:
            await chats.complete_message(
                session, started.message_id, answer.content, answer.metadata, answer.status
            )
            await session.commit()
        return Asked(answer, events, model, client, started.message_id, started.run_id)

    return Demo(world, owner.id, ontology_id, chat.id, ask)
