"""Answers end to end: the real run, agent, tools, executor and sandbox behind a real socket,
with the model an OpenAI-compatible server the test scripts (the production provider path:
LangChain, the OpenAI SDK, HTTP streaming)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.api.conftest import database_url, world
from tests.integration.runs.conftest import live, run_overrides, system

from dataagent.config import Settings
from dataagent.store.migrations import upgrade

__all__ = ["database_url", "live", "run_overrides", "system", "world"]


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    """The scripted model server (push steps onto it)."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def settings(
    tmp_path: Path,
    database_url: str,
    run_overrides: dict[str, Any],
    openai_server: FakeOpenAIServer,
) -> Settings:
    """Settings whose one chat model is the scripted server (`run_overrides` may change
    any setting, also the model's, for one test)."""
    upgrade(database_url)
    values: dict[str, Any] = {
        "data_dir": tmp_path / "data",
        "file_roots": [tmp_path],
        "database_url": database_url,
        "secret_key": "test-secret-key-that-is-long-enough-for-hs256",
        "openai_base_url": openai_server.url,
        "llm_max_retries": 1,
        # The scripts here are the ReAct agent's turns (pipeline chats say so when created).
        "agent_default_mode": "react",
    }
    values.update(run_overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]
