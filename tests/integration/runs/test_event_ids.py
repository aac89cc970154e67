"""Where a stream resumes (`Last-Event-ID`, `after`) is checked against the event ids' range
before the stream starts: a value outside 0..2**63-1 is a 400, never a 200 that aborts."""

from __future__ import annotations

import pytest
from tests.integration.api.conftest import World
from tests.integration.runs.conftest import Live, Scripted, new_chat, parse, run_of

from dataagent.api.deps import MAX_EVENT_ID

OUT_OF_RANGE = [str(MAX_EVENT_ID + 1), "99999999999999999999999", "-1", "1.5", "abc", ""]


def _refused(response) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 400, response.text
    assert response.headers["content-type"] == "application/json"
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


@pytest.mark.parametrize("value", OUT_OF_RANGE)
async def test_resume_points_out_of_range_are_refused_before_streaming(
    world: World, live: Live, scripted: Scripted, value: str
) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    client = live.clients["contributor"]
    header = {"Last-Event-ID": value}
    _refused(await client.get(chat.url(message_id, "events"), headers=header))
    _refused(await client.get(chat.url(message_id, "events"), params={"after": value}))
    _refused(await client.post(chat.url(message_id, "stream"), headers=header))
    ontology = (await world.contributor.client.get("/api/ontologies")).json()["data"][0]["id"]
    build = f"/api/ontologies/{ontology}/build/events"
    _refused(await client.get(build, headers=header))
    _refused(await client.get(build, params={"after": value}))

    # The refused claim claimed nothing: the message is still there to be answered.
    scripted.gate.set()
    answered = await client.post(chat.url(message_id, "stream"))
    assert answered.status_code == 200
    assert parse(answered.content)[-1][1] == "message_complete"


async def test_the_largest_event_id_is_accepted(
    world: World, live: Live, scripted: Scripted
) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    scripted.gate.set()
    client = live.clients["contributor"]
    answered = await client.post(chat.url(message_id, "stream"))
    assert parse(answered.content)[-1][1] == "message_complete"
    assert (await run_of(world, message_id)).status == "succeeded"
    largest = {"Last-Event-ID": str(MAX_EVENT_ID)}
    replay = await client.get(chat.url(message_id, "events"), headers=largest)
    assert (replay.status_code, parse(replay.content)) == (200, [])
    after = await client.get(chat.url(message_id, "events"), params={"after": MAX_EVENT_ID})
    assert (after.status_code, parse(after.content)) == (200, [])


async def test_the_openapi_document_states_the_bounds(world: World) -> None:
    paths = (await world.anon.get("/openapi.json")).json()["paths"]
    operations = [
        paths["/api/data-agent/chats/{chat_id}/messages/{message_id}/events"]["get"],
        paths["/api/data-agent/chats/{chat_id}/messages/{message_id}/stream"]["post"],
        paths["/api/data-agent/stream/{message_id}"]["post"],
        paths["/api/ontologies/{ontology_id}/build/events"]["get"],
    ]
    for operation in operations:
        bounded = {
            p["name"]: (p["in"], p["schema"]["minimum"], p["schema"]["maximum"])
            for p in operation["parameters"]
            if p["name"] in ("Last-Event-ID", "after")
        }
        assert bounded["Last-Event-ID"] == ("header", 0, MAX_EVENT_ID)
        if operation["operationId"] not in ("streamMessage", "streamMessageById"):
            assert bounded["after"] == ("query", 0, MAX_EVENT_ID)
