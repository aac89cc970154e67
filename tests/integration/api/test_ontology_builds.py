"""Ontology builds run in the background, survive nothing, and are never stuck `building`."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import update
from tests.integration.api.conftest import World, built

from dataagent.services.ontologies import INTERRUPTED
from dataagent.store.models import Ontology


async def test_a_build_a_stopped_server_left_is_failed_at_the_next_start(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor, status="building")
    ready_id = await world.make_ontology(world.contributor, name="Ready")
    starting = world.app.router.lifespan_context(world.app)  # the server starts
    async with starting, world.database.session() as session:
        stuck = await session.get(Ontology, ontology_id)
        ready = await session.get(Ontology, ready_id)
        assert stuck is not None and ready is not None
        assert (stuck.status, stuck.error) == ("failed", INTERRUPTED)
        assert ready.status == "ready"
    # the lifespan closed the app's context; the fixture closing it again is harmless


async def test_rebuild_runs_in_the_background_and_ends_ready(world: World) -> None:
    ontology_id = str(await world.make_ontology(world.contributor))
    client = world.contributor.client
    response = await client.post(f"/api/ontologies/{ontology_id}/rebuild")
    assert response.status_code == 202
    assert response.json()["data"]["status"] == "building"
    assert (await built(client, ontology_id))["status"] == "ready"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_admins_backfill_any_ontologys_embeddings(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    async with world.database.session() as session:  # as if built before embeddings existed
        await session.execute(
            update(Ontology).where(Ontology.id == ontology_id).values(embedding_provider=None)
        )
        await session.commit()
    url = f"/api/admin/ontologies/{ontology_id}/backfill-embeddings"
    assert (await world.contributor.client.post(url)).status_code == 403
    response = await world.admin.client.post(url)
    assert response.status_code == 200, response.text
    ontology = response.json()["data"]["ontology"]
    assert ontology["status"] == "ready" and ontology["embeddingProvider"]
    missing = await world.admin.client.post(
        f"/api/admin/ontologies/{uuid.uuid4()}/backfill-embeddings"
    )
    assert missing.status_code == 404
    hits = await world.contributor.client.get(
        f"/api/ontologies/{ontology_id}/search", params={"q": "customers by city"}
    )
    assert hits.status_code == 200 and hits.json()["data"]["datasets"][0]["name"] == "customers"
