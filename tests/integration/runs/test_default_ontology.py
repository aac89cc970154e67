"""Seed 002's client and the ontology a stateless chat asks about (issue 22, item 9).

The client posts `{messages}` to `/api/v1/agent/chat`, naming no ontology: the person's
default ontology (`PUT /api/me/default-ontology`) is used, else their only ready ontology,
else a 400 that names the ontologies they can choose from.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from tests.fakes.scripted_model import Reply, ScriptedChatModel
from tests.integration.api.conftest import World
from tests.integration.runs.conftest import Live, stateless_frames

SEED_CHAT = "/api/v1/agent/chat"
ME = "/api/auth/me"
DEFAULT = "/api/me/default-ontology"
QUESTION = {"messages": [{"role": "user", "content": "How many customers?"}]}


@pytest.fixture
def model(world: World) -> ScriptedChatModel:
    """Every chat model of the app answers "Two customers."."""
    scripted = ScriptedChatModel(default=Reply(text="Two customers."))
    world.context.chat_model_factory = lambda info: scripted
    return scripted


async def _ask(live: Live, body: dict[str, Any], path: str = SEED_CHAT) -> tuple[int, Any]:
    """POST a stateless chat: (status, the events) or (status, the JSON error)."""
    async with live.clients["contributor"].stream("POST", path, json=body) as response:
        raw = await response.aread()
    if response.status_code == 200:
        return 200, stateless_frames(raw)
    return response.status_code, response.json()["error"]


async def _set_default(world: World, ontology_id: uuid.UUID | None) -> Any:
    value = None if ontology_id is None else str(ontology_id)
    return await world.contributor.client.put(DEFAULT, json={"ontologyId": value})


async def test_the_default_ontology_is_set_shown_and_refused_when_not_yours(
    world: World,
) -> None:
    mine = await world.make_ontology(world.contributor)
    theirs = await world.make_ontology(world.other)
    me = (await world.contributor.client.get(ME)).json()["data"]
    assert me["defaultOntologyId"] is None

    set_ = await _set_default(world, mine)
    assert set_.status_code == 200, set_.text
    assert set_.json()["data"]["defaultOntologyId"] == str(mine)
    assert set_.json()["data"]["email"] == world.contributor.email
    assert (await world.contributor.client.get(ME)).json()["data"]["defaultOntologyId"] == str(mine)
    # Another person's ontology, or one that does not exist: 404, and the default stays.
    for other in (theirs, uuid.uuid4()):
        refused = await _set_default(world, other)
        assert refused.status_code == 404, refused.text
        assert refused.json()["error"]["code"] == "NOT_FOUND"
    assert (await world.contributor.client.get(ME)).json()["data"]["defaultOntologyId"] == str(mine)
    # Malformed: a missing field, a non-uuid.
    for body in ({}, {"ontologyId": "nope"}):
        bad = await world.contributor.client.put(DEFAULT, json=body)
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "VALIDATION_ERROR"

    cleared = await _set_default(world, None)
    assert cleared.status_code == 200 and cleared.json()["data"]["defaultOntologyId"] is None

    # Deleting the default ontology clears it (ON DELETE SET NULL).
    assert (await _set_default(world, mine)).status_code == 200
    deleted = await world.contributor.client.delete(f"/api/ontologies/{mine}")
    assert deleted.status_code == 204, deleted.text
    assert (await world.contributor.client.get(ME)).json()["data"]["defaultOntologyId"] is None


async def test_without_an_ontology_the_default_is_asked(
    world: World, live: Live, model: ScriptedChatModel
) -> None:
    first = await world.make_ontology(world.contributor, name="Shop")
    await world.make_ontology(world.contributor, name="Depot")
    assert (await _set_default(world, first)).status_code == 200
    status, events = await _ask(live, QUESTION)
    assert status == 200, events
    assert events[-1] == ("done", {"status": "completed"})
    assert len(model.calls) == 1

    # A default that is not ready is refused as such (its own check, not the fallback).
    building = await world.make_ontology(world.contributor, status="building", name="Later")
    assert (await _set_default(world, building)).status_code == 200
    status, error = await _ask(live, QUESTION)
    assert (status, error["code"]) == (400, "VALIDATION_ERROR")
    assert error["message"] == "The ontology is building, not ready."


async def test_without_a_default_the_only_ready_ontology_is_asked(
    world: World, live: Live, model: ScriptedChatModel
) -> None:
    await world.make_ontology(world.contributor, status="building", name="Later")
    await world.make_ontology(world.contributor, status="failed", name="Broken")
    await world.make_ontology(world.contributor, name="Shop")
    status, events = await _ask(live, QUESTION)
    assert status == 200, events
    assert events[-1] == ("done", {"status": "completed"})


async def test_without_a_default_several_ready_ontologies_are_named(
    world: World, live: Live, model: ScriptedChatModel
) -> None:
    shop = await world.make_ontology(world.contributor, name="Shop")
    depot = await world.make_ontology(world.contributor, name="Depot")
    await world.make_ontology(world.other, name="Theirs")
    status, error = await _ask(live, QUESTION)
    assert (status, error["code"]) == (400, "VALIDATION_ERROR")
    message = error["message"]
    assert "PUT /api/me/default-ontology" in message
    assert f"'Depot' ({depot})" in message and f"'Shop' ({shop})" in message
    assert "Theirs" not in message
    assert model.calls == []
    # Naming one is enough, on either path.
    for path in (SEED_CHAT, "/api/agent/chat"):
        status, events = await _ask(live, dict(QUESTION, ontologyId=str(depot)), path)
        assert status == 200 and events[-1][0] == "done"


async def test_without_any_ready_ontology_the_person_is_told_to_build_one(
    world: World, live: Live, model: ScriptedChatModel
) -> None:
    await world.make_ontology(world.contributor, status="building", name="Later")
    await world.make_ontology(world.other, name="Theirs")
    status, error = await _ask(live, QUESTION)
    assert (status, error["code"]) == (400, "VALIDATION_ERROR")
    assert error["message"] == (
        "You have no ready ontology to ask about; build one first (POST /api/ontologies)."
    )


async def test_the_seed_path_is_its_own_operation_of_the_same_request(world: World) -> None:
    document = (await world.anon.get("/openapi.json")).json()
    seed = document["paths"]["/api/v1/agent/chat"]["post"]
    ours = document["paths"]["/api/agent/chat"]["post"]
    assert (seed["operationId"], ours["operationId"]) == ("statelessChatV1", "statelessChat")
    assert seed["requestBody"] == ours["requestBody"]
    assert seed["responses"] == ours["responses"]
    body = document["components"]["schemas"]["StatelessChatRequest"]
    assert body["required"] == ["messages"]
    put = document["paths"]["/api/me/default-ontology"]["put"]
    assert put["operationId"] == "setDefaultOntology"
    user = document["components"]["schemas"]["UserPublic"]
    assert "defaultOntologyId" in user["required"]
