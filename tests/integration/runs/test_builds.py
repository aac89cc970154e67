"""Ontology builds: one path (a durable run, whether the API, the command line or the demo
set-up started it) and a stream a client watches (`GET /api/ontologies/{id}/build/events`)."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
from tests.integration.api.conftest import World, built
from tests.integration.runs.conftest import (
    Live,
    Scripted,
    new_chat,
    parse,
    read_frames,
    run_of,
    stored_events,
    until,
)

from dataagent.cli import _backfill
from dataagent.demo import DemoData, write_duckdb
from dataagent.demo.setup import DEMO_ONTOLOGY_NAME, demo_database_path, seed_demo
from dataagent.store import runs
from dataagent.store.models import AgentRun


def _events_url(ontology_id: uuid.UUID | str) -> str:
    return f"/api/ontologies/{ontology_id}/build/events"


async def _build_runs(world: World, ontology_id: uuid.UUID) -> list[AgentRun]:
    async with world.database.session() as session:
        return await runs.runs_of_ontology(session, ontology_id)


async def test_a_build_is_replayed_and_resumed(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    client = world.contributor.client
    assert (await client.post(f"/api/ontologies/{ontology_id}/rebuild")).status_code == 202
    assert (await built(client, str(ontology_id)))["status"] == "ready"
    await world.context.builds.wait(ontology_id)  # type: ignore[union-attr]

    response = await client.get(_events_url(ontology_id))
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    frames = parse(response.content)
    assert [(seq, event) for seq, event, _ in frames] == [(1, "build_start"), (2, "build_complete")]
    latest = (await _build_runs(world, ontology_id))[-1]  # the rebuild's, not the first build's
    assert json.loads(frames[0][2]) == {"ontologyId": str(ontology_id), "runId": str(latest.id)}
    complete = json.loads(frames[1][2])
    assert (complete["status"], complete["datasetCount"]) == ("ready", 1)
    # Byte for byte what the log holds; resumed after an id, from the header or the query.
    assert parse(response.content) == await stored_events(world, latest.id)
    resumed = await client.get(_events_url(ontology_id), headers={"Last-Event-ID": "1"})
    assert [event for _, event, _ in parse(resumed.content)] == ["build_complete"]
    after = await client.get(_events_url(ontology_id), params={"after": 2})
    assert after.status_code == 200 and parse(after.content) == []


@pytest.mark.parametrize("run_overrides", [{"run_max_concurrency": 1}])
async def test_a_build_is_watched_live_until_it_ends(
    world: World, live: Live, scripted: Scripted
) -> None:
    """The build waits for the one run slot (an answer holds it); its stream, opened before
    it started, follows it to its end."""
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    client = live.clients["contributor"]
    async with client.stream("POST", chat.url(message_id, "stream")) as answer:
        await scripted.at_gate((await run_of(world, message_id)).id).wait()
        ontology_id = await _rebuild(world)
        async with client.stream("GET", _events_url(ontology_id)) as watched:
            assert watched.status_code == 200
            scripted.gate.set()  # the answer ends; the build takes its slot
            frames = parse(await read_frames(watched))
        assert parse(await read_frames(answer))[-1][1] == "message_complete"
    assert [event for _, event, _ in frames] == ["build_start", "build_complete"]


async def test_one_build_of_an_ontology_at_a_time(world: World) -> None:
    """Two rebuilds of one ontology at the same moment: one starts, the other is 409 (it
    was a 500 and a build left queued, the two sharing one slot by ontology id)."""
    ontology_id = await world.make_ontology(world.contributor)
    client = world.contributor.client
    url = f"/api/ontologies/{ontology_id}/rebuild"
    before = len(await _build_runs(world, ontology_id))
    answers = await asyncio.gather(client.post(url), client.post(url))
    assert sorted(r.status_code for r in answers) == [202, 409], [r.text for r in answers]
    refused = next(r for r in answers if r.status_code == 409).json()["error"]
    assert refused["code"] == "CONFLICT" and "already building" in refused["message"]
    assert (await built(client, str(ontology_id)))["status"] == "ready"
    await world.context.builds.wait(ontology_id)  # type: ignore[union-attr]
    started = (await _build_runs(world, ontology_id))[before:]
    assert [run.status for run in started] == ["succeeded"]
    # Once it has ended, the ontology builds again.
    assert (await client.post(url)).status_code == 202
    assert (await built(client, str(ontology_id)))["status"] == "ready"


async def _rebuild(world: World) -> uuid.UUID:
    """Rebuild the contributor's first ontology; its id (the build waits for a slot)."""
    response = await world.contributor.client.get("/api/ontologies")
    ontology_id = uuid.UUID(response.json()["data"][0]["id"])
    rebuilt = await world.contributor.client.post(f"/api/ontologies/{ontology_id}/rebuild")
    assert rebuilt.status_code == 202

    async def queued() -> bool:
        return (await _build_runs(world, ontology_id))[-1].status == "queued"

    await until(queued, "the rebuild waits for a slot")
    return ontology_id


async def test_only_the_owner_watches_a_build(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    theirs = await world.other.client.get(_events_url(ontology_id))
    missing = await world.other.client.get(_events_url(uuid.uuid4()))
    assert theirs.status_code == missing.status_code == 404
    assert theirs.content == missing.content
    assert (await world.anon.get(_events_url(ontology_id))).status_code == 401
    # An ontology with no build run (made before builds were runs) has nothing to show.
    old = await world.make_ontology(world.contributor, status="failed", name="Old")
    none = await world.contributor.client.get(_events_url(old))
    assert none.status_code == 404
    assert none.json()["error"]["message"] == "This ontology has no build to show."
    negative = await world.contributor.client.get(_events_url(ontology_id), params={"after": -1})
    assert negative.status_code == 400


async def test_the_openapi_document_describes_the_build_stream(world: World) -> None:
    paths = (await world.anon.get("/openapi.json")).json()["paths"]
    operation = paths["/api/ontologies/{ontology_id}/build/events"]["get"]
    assert operation["operationId"] == "streamOntologyBuildEvents"
    assert list(operation["responses"]["200"]["content"]) == ["text/event-stream"]
    assert list(operation["responses"]["404"]["content"]) == ["application/json"]
    names = {p["name"] for p in operation["parameters"]}
    assert {"Last-Event-ID", "after"} <= names


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_command_lines_backfill_builds_as_runs(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    assert len(await _build_runs(world, ontology_id)) == 1
    assert await _backfill(world.context.settings, force=True) == 1
    build_runs = await _build_runs(world, ontology_id)
    assert [(r.kind, r.status) for r in build_runs] == [("ontology_build", "succeeded")] * 2
    events = await stored_events(world, build_runs[-1].id)
    assert [e for _, e, _ in events] == ["build_start", "build_complete"]
    # The admin's backfill of one ontology too.
    url = f"/api/admin/ontologies/{ontology_id}/backfill-embeddings"
    assert (await world.admin.client.post(url)).status_code == 200
    assert len(await _build_runs(world, ontology_id)) == 3


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_demo_builds_its_ontology_as_a_run(world: World, demo_data: DemoData) -> None:
    settings = world.context.settings
    path = demo_database_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_duckdb(demo_data, path)  # the demo's database, as `dataagent demo` writes it
    await seed_demo(settings, "demo-password-not-used")  # the admin exists: it is theirs
    client = world.admin.client
    listed = (await client.get("/api/ontologies")).json()["data"]
    (demo,) = [o for o in listed if o["name"] == DEMO_ONTOLOGY_NAME]
    assert demo["status"] == "ready"
    (run,) = await _build_runs(world, uuid.UUID(demo["id"]))
    assert (run.kind, run.status, run.owner_id) == ("ontology_build", "succeeded", world.admin.id)
    # A client watches it like any other build.
    watched = await client.get(_events_url(demo["id"]))
    assert [e for _, e, _ in parse(watched.content)] == ["build_start", "build_complete"]
