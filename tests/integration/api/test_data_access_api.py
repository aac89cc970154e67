"""Access over HTTP: other users' uploads, privileged accounts, NUL paths, the query pool."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from tests.integration.api.conftest import World

from dataagent.config import Settings

SLOW_SQL = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000000) "
    "SELECT count(*) FROM n"
)


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The conftest's settings with a short time limit and two queries per user."""
    return settings.model_copy(update={"query_timeout_s": 1.5, "query_max_per_user": 2})


def _sqlite(path: Path, rows: int = 10) -> Path:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER)")
        db.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(rows)])
    return path


async def _upload(world: World) -> dict[str, str]:
    uploaded = await world.contributor.client.post(
        "/api/datasets",
        data={"name": "Private sales"},
        files={"files": ("sales.csv", b"region,amount\nNorth,10\nSouth,20\n", "text/csv")},
    )
    assert uploaded.status_code == 201, uploaded.text
    data: dict[str, str] = uploaded.json()["data"]
    return data


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_another_users_upload_cannot_be_opened(world: World, settings: Settings) -> None:
    dataset = await _upload(world)
    files = list((settings.data_dir / "datasets").glob("*/data.duckdb"))
    assert len(files) == 1
    stolen = {"name": "steal", "dialect": "duckdb", "database": str(files[0])}
    # Another contributor (who could read the id from nowhere but guesses the layout), and
    # the owner too: the file is reached only through the dataset's own connection.
    for client in (world.other.client, world.contributor.client):
        response = await client.post("/api/connections", json=stolen)
        assert response.status_code == 403, response.text
        assert response.json()["error"]["code"] == "FORBIDDEN"
    app_db = {"name": "x", "dialect": "sqlite", "database": str(settings.data_dir / "dataagent.db")}
    assert (await world.other.client.post("/api/connections", json=app_db)).status_code == 403

    # The owner cannot re-point the dataset's connection either.
    moved = await world.contributor.client.patch(
        f"/api/connections/{dataset['connectionId']}", json={"database": "/etc/passwd"}
    )
    assert moved.status_code == 409 and "dataset" in moved.json()["error"]["message"]
    renamed = await world.contributor.client.patch(
        f"/api/connections/{dataset['connectionId']}", json={"name": "Sales files"}
    )
    assert renamed.status_code == 200
    query = await world.contributor.client.post(
        "/api/query", json={"connectionId": dataset["connectionId"], "sql": "SELECT 1 AS one"}
    )
    assert query.status_code == 200, query.text


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_nul_in_a_path_is_a_validation_error(world: World) -> None:
    for body in (
        {"name": "x", "dialect": "sqlite", "database": "/tmp/a\u0000x"},
        {"name": "x", "dialect": "duckdb", "url": "duckdb:////tmp/a\u0000x"},
        {"name": "x", "dialect": "postgresql", "host": "db\u0000", "database": "d"},
    ):
        response = await world.contributor.client.post("/api/connections", json=body)
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] == "VALIDATION_ERROR"
        assert "NUL" in response.json()["error"]["message"]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_superuser_connection_is_refused_at_creation(
    world: World, postgres_db: str
) -> None:
    body = {"name": "pg", "dialect": "postgresql", "url": postgres_db}
    response = await world.contributor.client.post("/api/connections", json=body)
    assert response.status_code == 403, response.text
    message = response.json()["error"]["message"]
    assert "superuser" in message and "Recommended database accounts" in message
    assert "127.0.0.1" not in message


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_one_user_cannot_starve_another(world: World, tmp_path: Path) -> None:
    ana, bob = world.contributor.client, world.other.client
    connections = []
    for client in (ana, bob):
        created = await client.post(
            "/api/connections",
            json={"name": "db", "dialect": "sqlite", "database": str(_sqlite(tmp_path / "q.db"))},
        )
        connections.append(created.json()["data"]["id"])
    pool = world.context.query_pool

    async def slow() -> int:
        body = {"connectionId": connections[0], "sql": SLOW_SQL}
        return (await ana.post("/api/query", json=body)).status_code

    # Two run, four wait (two per slot), the seventh is refused.
    heavy = [asyncio.create_task(slow()) for _ in range(6)]
    for _ in range(2000):
        if pool.running(world.contributor.id) == 2:
            break
        await asyncio.sleep(0.005)
    await asyncio.sleep(0.05)
    refused = await ana.post("/api/query", json={"connectionId": connections[0], "sql": "SELECT 1"})
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"]["code"] == "RATE_LIMITED"

    # Bob's trivial query runs while all of ana's are still busy or waiting.
    quick = await bob.post("/api/query", json={"connectionId": connections[1], "sql": "SELECT 1"})
    assert quick.status_code == 200, quick.text
    assert pool.running(world.contributor.id) == 2
    assert sorted(await asyncio.gather(*heavy)) == [408] * 6  # each ran to its time limit
    assert pool.running(world.contributor.id) == 0


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_settings_supply_the_query_limits(world: World, tmp_path: Path) -> None:
    world.context.settings.query_max_rows = 3
    created = await world.contributor.client.post(
        "/api/connections",
        json={"name": "db", "dialect": "sqlite", "database": str(_sqlite(tmp_path / "l.db"))},
    )
    response = await world.contributor.client.post(
        "/api/query",
        json={"connectionId": created.json()["data"]["id"], "sql": "SELECT id FROM t"},
    )
    data = response.json()["data"]
    assert data["rowCount"] == 3 and data["truncated"] is True
