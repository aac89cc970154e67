"""Offline answers through the real routes: the curated demo retailer, the real run, the
pipeline and its phases over a real socket; no model provider configured (or, for the fast
path, the scripted in-process model standing in for one, counting its calls)."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.fakes.scripted_model import ScriptedChatModel
from tests.integration.api.conftest import World, database_url, settings, world
from tests.integration.pipeline_routes.conftest import demo_ontology
from tests.integration.runs.conftest import Live, live, parse, read_frames

from dataagent.demo import DemoData

__all__ = ["database_url", "live", "settings", "world"]


@dataclass
class Answered:
    """A question's answer as the stream gave it."""

    message_id: str
    frames: list[tuple[int, str, str]]

    def names(self) -> list[str]:
        """The events, in order."""
        return [event for _, event, _ in self.frames]

    def of(self, name: str) -> list[dict[str, Any]]:
        """The payloads of one event."""
        return [json.loads(data) for _, event, data in self.frames if event == name]

    @property
    def complete(self) -> dict[str, Any]:
        """`message_complete`'s payload."""
        [done] = self.of("message_complete")
        return done


@dataclass
class Offline:
    """The demo retailer's ontology of the contributor, served live."""

    world: World
    live: Live
    ontology_id: uuid.UUID

    async def chat(self, mode: str | None = None) -> str:
        """A new chat on the ontology (in `mode`, else the server's default)."""
        body: dict[str, Any] = {"name": "Offline", "ontologyId": str(self.ontology_id)}
        if mode is not None:
            body["agentMode"] = mode
        created = await self.live.clients["contributor"].post("/api/data-agent/chats", json=body)
        assert created.status_code == 201, created.text
        chat_id: str = created.json()["data"]["id"]
        return chat_id

    async def ask(self, chat_id: str, question: str) -> Answered:
        """Send the question and stream its answer to the end."""
        client = self.live.clients["contributor"]
        sent = await client.post(
            f"/api/data-agent/chats/{chat_id}/messages", json={"content": question}
        )
        assert sent.status_code == 201, sent.text
        message_id: str = sent.json()["data"]["assistantMessage"]["id"]
        url = f"/api/data-agent/chats/{chat_id}/messages/{message_id}/stream"
        async with client.stream("POST", url) as response:
            assert response.status_code == 200, await response.aread()
            frames = parse(await read_frames(response))
        return Answered(message_id, frames)

    def no_provider(self) -> None:
        """A server with no model provider configured at all."""
        ctx = self.world.context
        ctx.settings = ctx.settings.model_copy(update={"openai_api_key": None})
        ctx.chat_model_factory = None

    def scripted(self, model: ScriptedChatModel, *, fast_path: bool = True) -> None:
        """A server whose one provider is the scripted model."""
        ctx = self.world.context
        ctx.settings = ctx.settings.model_copy(update={"offline_fast_path": fast_path})
        ctx.chat_model_factory = lambda info: model


@pytest.fixture
async def offline(world: World, live: Live, demo_data: DemoData, tmp_path: Path) -> Offline:
    """The curated demo retailer, ready, on a live server."""
    ontology_id = await demo_ontology(world, demo_data, tmp_path / "retail.duckdb")
    return Offline(world, live, ontology_id)
