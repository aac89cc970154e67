"""A chat's answer mode (`agentMode`): the server's default for a new chat, chosen on create,
changed with PATCH, shown on read, refused when it is not one of the modes."""

from __future__ import annotations

import pytest
from tests.integration.api.conftest import World

from dataagent.vocabulary import AGENT_MODES

CHATS = "/api/data-agent/chats"


async def _create(world: World, **extra: object) -> dict:
    ontology_id = await world.make_ontology(world.contributor)
    response = await world.contributor.client.post(
        CHATS, json={"ontologyId": str(ontology_id), **extra}
    )
    assert response.status_code == 201, response.text
    data: dict = response.json()["data"]
    return data


async def test_a_new_chat_answers_in_the_default_mode(world: World) -> None:
    assert world.context.settings.agent_default_mode == "pipeline"  # the shipped default
    chat = await _create(world)
    assert chat["agentMode"] == "pipeline"
    read = await world.contributor.client.get(f"{CHATS}/{chat['id']}")
    assert read.json()["data"]["agentMode"] == "pipeline"
    listed = await world.contributor.client.get(CHATS)
    assert [c["agentMode"] for c in listed.json()["data"]["items"]] == ["pipeline"]


async def test_the_default_mode_is_the_setting(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(world.context.settings, "agent_default_mode", "react")
    assert (await _create(world))["agentMode"] == "react"
    assert (await _create(world, agentMode="pipeline"))["agentMode"] == "pipeline"


async def test_a_chat_is_created_in_the_mode_asked_for(world: World) -> None:
    for mode in AGENT_MODES:
        chat = await _create(world, agentMode=mode)
        assert chat["agentMode"] == mode
        read = await world.contributor.client.get(f"{CHATS}/{chat['id']}")
        assert read.json()["data"]["agentMode"] == mode


async def test_patch_changes_the_mode_and_nothing_else(world: World) -> None:
    chat = await _create(world, name="Sales", agentMode="react")
    client = world.contributor.client
    changed = await client.patch(f"{CHATS}/{chat['id']}", json={"agentMode": "pipeline"})
    assert changed.status_code == 200, changed.text
    assert changed.json()["data"]["agentMode"] == "pipeline"
    assert changed.json()["data"]["name"] == "Sales"
    renamed = await client.patch(f"{CHATS}/{chat['id']}", json={"name": "Renamed"})
    assert renamed.json()["data"]["agentMode"] == "pipeline"  # left as it was
    back = await client.patch(f"{CHATS}/{chat['id']}", json={"agentMode": "react"})
    assert back.json()["data"]["agentMode"] == "react"
    other = await world.other.client.patch(f"{CHATS}/{chat['id']}", json={"agentMode": "react"})
    assert other.status_code == 404


async def test_a_mode_that_is_not_one_is_refused(world: World) -> None:
    ontology_id = str(await world.make_ontology(world.contributor))
    chat = await _create(world, agentMode="react")
    client = world.contributor.client
    for mode in ("fast", "PIPELINE", "", None, 1, ["react"]):
        created = await client.post(CHATS, json={"ontologyId": ontology_id, "agentMode": mode})
        assert created.status_code == 400, (mode, created.text)
        assert created.json()["error"]["code"] == "VALIDATION_ERROR"
        patched = await client.patch(f"{CHATS}/{chat['id']}", json={"agentMode": mode})
        assert patched.status_code == 400, (mode, patched.text)
        assert patched.json()["error"]["code"] == "VALIDATION_ERROR"
    read = await client.get(f"{CHATS}/{chat['id']}")
    assert read.json()["data"]["agentMode"] == "react"


async def test_the_schema_states_the_modes(world: World) -> None:
    schemas = (await world.anon.get("/openapi.json")).json()["components"]["schemas"]
    for name in ("ChatCreate", "ChatUpdate", "ChatPublic", "ChatWithMessages"):
        field = schemas[name]["properties"]["agentMode"]
        assert field["enum"] == list(AGENT_MODES), (name, field)
    assert "agentMode" in schemas["ChatPublic"]["required"]
    assert "agentMode" not in schemas["ChatCreate"].get("required", [])
    statuses = schemas["MessagePublic"]["properties"]["status"]["enum"]
    assert "clarification_needed" in statuses
