"""The data directory `dataagent ask` and `dataagent eval` run on in these tests."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from dataagent.config import Settings
from dataagent.demo.setup import seed_demo
from dataagent.store.migrations import upgrade


@pytest.fixture(scope="session")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory seeded as `dataagent demo` seeds it (the admin, the demo ontology
    on its DuckDB file), shared by the command tests; each makes chats of its own."""
    data = tmp_path_factory.mktemp("eval_home") / "data"
    data.mkdir(parents=True)
    settings = Settings(data_dir=data)
    upgrade(settings.resolved_database_url)
    asyncio.run(seed_demo(settings, "a-long-demo-password"))
    return data
