"""The OpenAPI document describes each event of every event stream, and the events sent match
it: a client (or schemathesis, which validates each event against the `text/event-stream`
schema) reads `event`, `data` (a JSON object) and, on resumable streams, `id`."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from tests.integration.api.conftest import World, built
from tests.integration.runs.conftest import (
    GatedModel,
    Live,
    Scripted,
    new_chat,
    read_frames,
    stateless_body,
)

ANSWER = "/api/data-agent/chats/{chat_id}/messages/{message_id}"


async def _event_schema(world: World, path: str, method: str) -> dict[str, Any]:
    document = (await world.anon.get("/openapi.json")).json()
    content = document["paths"][path][method]["responses"]["200"]["content"]
    schema: dict[str, Any] = content["text/event-stream"]["schema"]
    return schema


def _events(data: bytes) -> list[dict[str, str]]:
    """Each event as an SSE parser reads it (field -> value; comments skipped)."""
    events = []
    for block in data.decode().split("\n\n"):
        lines = [line for line in block.split("\n") if line and not line.startswith(":")]
        if lines:
            events.append(dict(line.split(": ", 1) for line in lines))
    return events


def _assert_match(schema: dict[str, Any], events: list[dict[str, str]]) -> None:
    """Each event is valid against the documented event schema (the keywords it uses)."""
    assert events
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    properties = schema["properties"]
    for event in events:
        assert set(event) == set(schema["required"]) == set(properties), event
        assert event["event"] in properties["event"]["enum"], event
        assert properties["data"]["contentMediaType"] == "application/json"
        assert isinstance(json.loads(event["data"]), dict), event
        if "id" in properties:
            assert re.fullmatch(properties["id"]["pattern"], event["id"]), event


async def test_an_answers_events_match_the_document(
    world: World, live: Live, scripted: Scripted
) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    scripted.gate.set()
    async with live.clients["contributor"].stream("POST", chat.url(message_id, "stream")) as sent:
        body = await read_frames(sent)
    replayed = (await world.contributor.client.get(chat.url(message_id, "events"))).content
    for path, method, data in (
        (f"{ANSWER}/stream", "post", body),
        ("/api/data-agent/stream/{message_id}", "post", body),
        (f"{ANSWER}/events", "get", replayed),
    ):
        schema = await _event_schema(world, path, method)
        assert "id" in schema["required"]
        _assert_match(schema, _events(data))


async def test_a_builds_events_match_the_document(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    client = world.contributor.client
    assert (await built(client, str(ontology_id)))["status"] == "ready"
    await world.context.builds.wait(ontology_id)  # type: ignore[union-attr]
    response = await client.get(f"/api/ontologies/{ontology_id}/build/events")
    assert response.status_code == 200, response.text
    schema = await _event_schema(world, "/api/ontologies/{ontology_id}/build/events", "get")
    _assert_match(schema, _events(response.content))


async def test_a_stateless_chats_events_match_the_document(
    world: World, live: Live, gated: GatedModel
) -> None:
    gated.gate.set()
    body = stateless_body(await world.make_ontology(world.contributor))
    client: httpx.AsyncClient = live.clients["contributor"]
    async with client.stream("POST", "/api/agent/chat", json=body) as response:
        assert response.status_code == 200
        data = await read_frames(response)
    schema = await _event_schema(world, "/api/agent/chat", "post")
    assert "id" not in schema["properties"]  # a stateless stream cannot be resumed
    events = _events(data)
    assert [e["event"] for e in events][-1] == "done"
    _assert_match(schema, events)
