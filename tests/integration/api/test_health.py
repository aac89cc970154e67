"""Health checks at `/api/health` and the seeds' `/healthz`, and the page at `/`."""

from __future__ import annotations

from pathlib import Path

import httpx
from tests.integration.api.conftest import World

from dataagent.api.app import create_app
from dataagent.config import Settings


async def test_healthz_answers_exactly_like_api_health(world: World) -> None:
    api = await world.anon.get("/api/health")
    seed = await world.anon.get("/healthz")
    assert api.status_code == seed.status_code == 200
    assert api.json() == seed.json()
    assert seed.json()["checks"] == {"database": "ok"}


async def test_both_health_paths_report_an_unreachable_database(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        database_url="postgresql://nobody@127.0.0.1:9/nothing",  # discard port: nothing listens
        secret_key="test-secret-key-that-is-long-enough-for-hs256",
        _env_file=None,  # type: ignore[call-arg]
    )
    app = create_app(settings)
    transport = httpx.ASGITransport(app=app)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            api = await client.get("/api/health")
            seed = await client.get("/healthz")
    finally:
        await app.state.context.aclose()
    assert api.status_code == seed.status_code == 503
    assert api.json() == seed.json()
    assert seed.json()["checks"] == {"database": "unreachable"}


async def test_health_operations_keep_their_ids(world: World) -> None:
    paths = (await world.anon.get("/openapi.json")).json()["paths"]
    assert paths["/api/health"]["get"]["operationId"] == "health"
    assert paths["/healthz"]["get"]["operationId"] == "healthz"


async def test_root_is_a_small_page_outside_the_schema(world: World) -> None:
    page = await world.anon.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "<title>Data Agent</title>" in page.text
    assert 'href="/docs"' in page.text and 'href="/api/health"' in page.text
    assert "make web" in page.text  # the settings' web dir holds no build
    assert "/" not in (await world.anon.get("/openapi.json")).json()["paths"]
