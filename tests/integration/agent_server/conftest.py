"""Seed 004's agent server over HTTP: the app of `world` with the curated demo retailer as a
ready ontology of the contributor's; no model (the offline planner answers) unless a test
asks for the scripted OpenAI-compatible server (`use_model`)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.api.conftest import World, database_url, world
from tests.integration.api.conftest import settings as api_settings
from tests.integration.pipeline_routes.conftest import demo_ontology

from dataagent.config import Settings
from dataagent.demo import DemoData

__all__ = ["api_settings", "database_url", "world"]


@pytest.fixture
def use_model() -> bool:
    """Whether the server has a model (parametrize `use_model` with True to give it one)."""
    return False


@pytest.fixture
def fast_path() -> bool:
    """Whether a server with a model answers offline first when the planner is sure
    (`DATAAGENT_OFFLINE_FAST_PATH`; parametrize `fast_path` with True to turn it on)."""
    return False


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    """The scripted model server (push steps onto it)."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def settings(
    api_settings: Settings, use_model: bool, fast_path: bool, request: pytest.FixtureRequest
) -> Settings:
    """The API tests' settings without a model, or with the scripted server as the model."""
    if not use_model:
        return api_settings.model_copy(update={"openai_api_key": None})
    server: FakeOpenAIServer = request.getfixturevalue("openai_server")
    return api_settings.model_copy(
        update={
            "openai_api_key": None,
            "openai_base_url": server.url,
            "llm_max_retries": 0,
            "offline_fast_path": fast_path,
        }
    )


@pytest.fixture
async def demo_id(world: World, demo_data: DemoData, tmp_path: Path) -> str:
    """The curated demo retailer, a ready ontology of the contributor's."""
    return str(await demo_ontology(world, demo_data, tmp_path / "retail.duckdb"))


def sse_events(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The (event, data) pairs of an SSE body (heartbeat comments skipped)."""
    found = []
    for block in text.strip().split("\n\n"):
        event, data = "", ""
        for line in block.splitlines():
            if line.startswith("event: "):
                event = line[len("event: ") :]
            elif line.startswith("data: "):
                data = line[len("data: ") :]
        if event:
            found.append((event, json.loads(data)))
    return found


async def upload_csv(client: httpx.AsyncClient, name: str, content: bytes) -> str:
    """Upload one CSV file as a dataset; its id."""
    uploaded = await client.post(
        "/api/datasets",
        data={"name": name},
        files={"files": ("sales.csv", content, "text/csv")},
    )
    assert uploaded.status_code == 201, uploaded.text
    return str(uploaded.json()["data"]["id"])


def new_id() -> str:
    """An id nobody has."""
    return str(uuid.uuid4())
