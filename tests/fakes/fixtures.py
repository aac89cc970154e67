"""Pytest fixtures over the fakes; import them into a conftest (`from tests.fakes.fixtures
import openai_server`) or list this module in `pytest_plugins`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    """A scripted OpenAI-compatible server on a free local port (push steps onto it)."""
    with FakeOpenAIServer() as server:
        yield server
