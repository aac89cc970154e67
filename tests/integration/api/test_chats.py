"""Seed 000's chat API cases: auth, roles, ownership, validation, paging, search, sort, cascade."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from pydantic import SecretStr
from sqlalchemy import func, select
from sqlalchemy.exc import DBAPIError
from tests.integration.api.conftest import Account, World, refuse_inserts

from dataagent.services import charts, chats
from dataagent.store import runs
from dataagent.store.models import AuditEvent, Chart, DataChatMessage

# The start of a PNG file: what a kept image is checked for.
PNG = b"\x89PNG\r\n\x1a\n" + bytes(16)


async def _chat(world: World, owner: Account, name: str = "Sales", **extra: object) -> dict:
    ontology_id = await world.make_ontology(owner)
    response = await owner.client.post(
        "/api/data-agent/chats", json={"name": name, "ontologyId": str(ontology_id), **extra}
    )
    assert response.status_code == 201, response.text
    data: dict = response.json()["data"]
    return data


# --- GET /chats -------------------------------------------------------------------------


async def test_list_requires_auth(world: World) -> None:
    response = await world.anon.get("/api/data-agent/chats")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHORIZED"


async def test_viewer_may_list_but_sees_only_own_chats(world: World) -> None:
    # The permission matrix grants viewers data_agent:read.
    await _chat(world, world.contributor)
    response = await world.viewer.client.get("/api/data-agent/chats")
    assert response.status_code == 200
    assert response.json()["data"]["items"] == []


async def test_empty_list_shape(world: World) -> None:
    response = await world.contributor.client.get("/api/data-agent/chats")
    assert response.json() == {
        "data": {"items": [], "total": 0, "page": 1, "pageSize": 20, "totalPages": 0}
    }


async def test_pagination(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    for i in range(5):
        await world.contributor.client.post(
            "/api/data-agent/chats", json={"name": f"chat {i}", "ontologyId": str(ontology_id)}
        )
    page = await world.contributor.client.get(
        "/api/data-agent/chats",
        params={"page": 2, "pageSize": 2, "sortBy": "name", "sortOrder": "asc"},
    )
    data = page.json()["data"]
    assert (data["total"], data["page"], data["pageSize"], data["totalPages"]) == (5, 2, 2, 3)
    assert [c["name"] for c in data["items"]] == ["chat 2", "chat 3"]
    last = await world.contributor.client.get(
        "/api/data-agent/chats", params={"page": 3, "pageSize": 2}
    )
    assert len(last.json()["data"]["items"]) == 1


async def test_owner_isolation(world: World) -> None:
    await _chat(world, world.contributor, "mine")
    await _chat(world, world.other, "theirs")
    names = [
        c["name"]
        for c in (await world.contributor.client.get("/api/data-agent/chats")).json()["data"][
            "items"
        ]
    ]
    assert names == ["mine"]


async def test_search_is_case_insensitive_and_literal(world: World) -> None:
    for name in ("Revenue by City", "Houston deep-dive", "100% of margin"):
        await _chat(world, world.contributor, name)
    client = world.contributor.client
    found = await client.get("/api/data-agent/chats", params={"search": "houston"})
    assert [c["name"] for c in found.json()["data"]["items"]] == ["Houston deep-dive"]
    percent = await client.get("/api/data-agent/chats", params={"search": "%"})
    assert [c["name"] for c in percent.json()["data"]["items"]] == ["100% of margin"]


async def test_filter_by_ontology(world: World) -> None:
    first = await _chat(world, world.contributor, "a")
    await _chat(world, world.contributor, "b")
    response = await world.contributor.client.get(
        "/api/data-agent/chats", params={"ontologyId": first["ontologyId"]}
    )
    assert [c["name"] for c in response.json()["data"]["items"]] == ["a"]


async def test_sorting(world: World) -> None:
    client = world.contributor.client
    ids = {}
    for name in ("bravo", "alpha", "charlie"):
        ids[name] = (await _chat(world, world.contributor, name))["id"]
        await asyncio.sleep(0.01)
    # Touch "alpha" so it becomes the most recently updated.
    await client.post(f"/api/data-agent/chats/{ids['alpha']}/messages", json={"content": "hi"})

    async def order(**params: str) -> list[str]:
        response = await client.get("/api/data-agent/chats", params=params)
        return [c["name"] for c in response.json()["data"]["items"]]

    assert await order(sortBy="name", sortOrder="asc") == ["alpha", "bravo", "charlie"]
    assert await order(sortBy="name", sortOrder="desc") == ["charlie", "bravo", "alpha"]
    assert await order(sortBy="createdAt", sortOrder="asc") == ["bravo", "alpha", "charlie"]
    assert await order(sortBy="createdAt") == ["charlie", "alpha", "bravo"]
    assert await order() == ["alpha", "charlie", "bravo"]  # updatedAt desc by default


async def test_sorting_by_name_ignores_case(world: World) -> None:
    """On every app database (this test runs on SQLite and PostgreSQL): "alpha" before
    "Sales", as a person reads them, not as their code points compare."""
    for name in ("Sales", "alpha", "Zeta", "beta"):
        await _chat(world, world.contributor, name)

    async def order(direction: str) -> list[str]:
        response = await world.contributor.client.get(
            "/api/data-agent/chats", params={"sortBy": "name", "sortOrder": direction}
        )
        return [c["name"] for c in response.json()["data"]["items"]]

    assert await order("asc") == ["alpha", "beta", "Sales", "Zeta"]
    assert await order("desc") == ["Zeta", "Sales", "beta", "alpha"]


async def test_message_count_in_listing(world: World) -> None:
    chat = await _chat(world, world.contributor)
    await world.contributor.client.post(
        f"/api/data-agent/chats/{chat['id']}/messages", json={"content": "q"}
    )
    items = (await world.contributor.client.get("/api/data-agent/chats")).json()["data"]["items"]
    assert items[0]["messageCount"] == 2


# --- GET /chats/:id ------------------------------------------------------------------------


async def test_get_chat_with_messages(world: World) -> None:
    chat = await _chat(world, world.contributor, "Q4", llmProvider="openai")
    await world.contributor.client.post(
        f"/api/data-agent/chats/{chat['id']}/messages", json={"content": "top customers?"}
    )
    response = await world.contributor.client.get(f"/api/data-agent/chats/{chat['id']}")
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["name"] == "Q4"
    assert data["llmProvider"] == "openai"
    assert [(m["role"], m["status"]) for m in data["messages"]] == [
        ("user", "complete"),
        ("assistant", "generating"),
    ]
    assert data["messages"][0]["content"] == "top customers?"


async def test_get_chat_errors(world: World) -> None:
    chat = await _chat(world, world.contributor)
    assert (await world.anon.get(f"/api/data-agent/chats/{chat['id']}")).status_code == 401
    missing = await world.contributor.client.get(f"/api/data-agent/chats/{uuid.uuid4()}")
    assert missing.status_code == 404
    foreign = await world.other.client.get(f"/api/data-agent/chats/{chat['id']}")
    assert foreign.status_code == 404
    assert foreign.json() == missing.json()  # never reveal that it exists


# --- POST /chats ---------------------------------------------------------------------------


async def test_create_chat(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    response = await world.contributor.client.post(
        "/api/data-agent/chats", json={"name": " Sales Q4 ", "ontologyId": str(ontology_id)}
    )
    assert response.status_code == 201
    data = response.json()["data"]
    assert data["name"] == " Sales Q4 "  # kept as sent: text is never trimmed
    assert data["ownerId"] == str(world.contributor.id)
    assert data["messages"] == []
    assert data["llmProvider"] is None


async def test_create_chat_auth_and_role(world: World) -> None:
    ontology_id = await world.make_ontology(world.viewer)
    body = {"name": "x", "ontologyId": str(ontology_id)}
    assert (await world.anon.post("/api/data-agent/chats", json=body)).status_code == 401
    forbidden = await world.viewer.client.post("/api/data-agent/chats", json=body)
    assert forbidden.status_code == 403
    assert forbidden.json()["error"]["code"] == "FORBIDDEN"


async def test_a_chat_created_without_a_name_is_a_new_chat(world: World) -> None:
    ontology_id = str(await world.make_ontology(world.contributor))
    response = await world.contributor.client.post(
        "/api/data-agent/chats", json={"ontologyId": ontology_id}
    )
    assert response.status_code == 201, response.text
    assert response.json()["data"]["name"] == "New chat"


async def test_create_chat_validation(world: World) -> None:
    ontology_id = str(await world.make_ontology(world.contributor))
    client = world.contributor.client
    for body in (
        {"name": "", "ontologyId": ontology_id},
        {"name": "   ", "ontologyId": ontology_id},
        {"name": "x" * 256, "ontologyId": ontology_id},
        {"name": "x"},
        {"name": "x", "ontologyId": "not-a-uuid"},
        {"name": "x", "ontologyId": ontology_id, "llmProvider": "skynet"},
        {"name": 5, "ontologyId": ontology_id},
    ):
        response = await client.post("/api/data-agent/chats", json=body)
        assert response.status_code == 400, body
        assert response.json()["error"]["code"] == "VALIDATION_ERROR"
        assert response.json()["error"]["message"]


async def test_names_are_checked_as_sent(world: World) -> None:
    """No text is trimmed before its length is checked: a name of 300 spaces is refused (it is
    blank, and too long), not stored as a short one; spaces around a name are kept."""
    ontology_id = str(await world.make_ontology(world.contributor))
    client = world.contributor.client
    for name in (" " * 300, " " * 3, "a" * 254 + "  "):
        response = await client.post(
            "/api/data-agent/chats", json={"name": name, "ontologyId": ontology_id}
        )
        assert response.status_code == 400, (name, response.text)
        assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    kept = await client.post(
        "/api/data-agent/chats", json={"name": "  Q4  ", "ontologyId": ontology_id}
    )
    assert kept.status_code == 201 and kept.json()["data"]["name"] == "  Q4  "
    chat_id = kept.json()["data"]["id"]
    blank = await client.patch(f"/api/data-agent/chats/{chat_id}", json={"name": "   "})
    assert blank.status_code == 400


async def test_create_chat_ontology_checks(world: World) -> None:
    client = world.contributor.client
    unknown = await client.post(
        "/api/data-agent/chats", json={"name": "x", "ontologyId": str(uuid.uuid4())}
    )
    assert unknown.status_code == 404
    theirs = await world.make_ontology(world.other)
    foreign = await client.post(
        "/api/data-agent/chats", json={"name": "x", "ontologyId": str(theirs)}
    )
    assert foreign.status_code == 404
    building = await world.make_ontology(world.contributor, status="building")
    not_ready = await client.post(
        "/api/data-agent/chats", json={"name": "x", "ontologyId": str(building)}
    )
    assert not_ready.status_code == 400
    assert "ready" in not_ready.json()["error"]["message"]


# --- PATCH /chats/:id ----------------------------------------------------------------------


async def test_update_chat(world: World) -> None:
    chat = await _chat(world, world.contributor, llmProvider="openai")
    client = world.contributor.client
    renamed = await client.patch(f"/api/data-agent/chats/{chat['id']}", json={"name": "Renamed"})
    assert renamed.status_code == 200
    assert renamed.json()["data"]["name"] == "Renamed"
    assert renamed.json()["data"]["llmProvider"] == "openai"
    cleared = await client.patch(f"/api/data-agent/chats/{chat['id']}", json={"llmProvider": None})
    assert cleared.json()["data"]["llmProvider"] is None
    assert cleared.json()["data"]["name"] == "Renamed"


async def test_update_chat_errors(world: World) -> None:
    chat = await _chat(world, world.contributor)
    url = f"/api/data-agent/chats/{chat['id']}"
    assert (await world.anon.patch(url, json={"name": "x"})).status_code == 401
    assert (await world.viewer.client.patch(url, json={"name": "x"})).status_code == 403
    assert (await world.other.client.patch(url, json={"name": "x"})).status_code == 404
    missing = await world.contributor.client.patch(
        f"/api/data-agent/chats/{uuid.uuid4()}", json={"name": "x"}
    )
    assert missing.status_code == 404
    for body in ({"name": ""}, {"name": "y" * 256}, {"name": None}, {"owner": "me"}):
        response = await world.contributor.client.patch(url, json=body)
        assert response.status_code == 400, body


# --- DELETE /chats/:id ---------------------------------------------------------------------


async def test_delete_chat_cascades_and_audits(world: World) -> None:
    chat = await _chat(world, world.contributor)
    client = world.contributor.client
    await client.post(f"/api/data-agent/chats/{chat['id']}/messages", json={"content": "q"})
    assert (await client.delete(f"/api/data-agent/chats/{chat['id']}")).status_code == 204
    assert (await client.get(f"/api/data-agent/chats/{chat['id']}")).status_code == 404
    async with world.database.session() as session:
        left = await session.scalar(
            select(func.count())
            .select_from(DataChatMessage)
            .where(DataChatMessage.chat_id == uuid.UUID(chat["id"]))
        )
        audits = await session.scalars(select(AuditEvent).where(AuditEvent.object_id == chat["id"]))
        actions = sorted(a.action for a in audits)
    assert left == 0
    assert actions == ["chat.create", "chat.delete"]


async def test_delete_chat_errors(world: World) -> None:
    chat = await _chat(world, world.contributor)
    url = f"/api/data-agent/chats/{chat['id']}"
    assert (await world.anon.delete(url)).status_code == 401
    assert (await world.viewer.client.delete(url)).status_code == 403
    assert (await world.other.client.delete(url)).status_code == 404
    assert (
        await world.contributor.client.delete(f"/api/data-agent/chats/{uuid.uuid4()}")
    ).status_code == 404
    assert (await world.contributor.client.get(url)).status_code == 200


# --- messages ----------------------------------------------------------------------------


async def test_send_message_creates_pair(world: World) -> None:
    chat = await _chat(world, world.contributor)
    response = await world.contributor.client.post(
        f"/api/data-agent/chats/{chat['id']}/messages", json={"content": "Revenue by city?"}
    )
    assert response.status_code == 201
    pair = response.json()["data"]
    assert pair["userMessage"]["role"] == "user"
    assert pair["userMessage"]["status"] == "complete"
    assert pair["userMessage"]["content"] == "Revenue by city?"
    assert pair["assistantMessage"]["role"] == "assistant"
    assert pair["assistantMessage"]["status"] == "generating"
    assert pair["assistantMessage"]["content"] == ""
    assert pair["assistantMessage"]["metadata"] == {}


async def test_send_message_errors(world: World) -> None:
    chat = await _chat(world, world.contributor)
    url = f"/api/data-agent/chats/{chat['id']}/messages"
    assert (await world.anon.post(url, json={"content": "q"})).status_code == 401
    assert (await world.viewer.client.post(url, json={"content": "q"})).status_code == 403
    assert (await world.other.client.post(url, json={"content": "q"})).status_code == 404
    missing = await world.contributor.client.post(
        f"/api/data-agent/chats/{uuid.uuid4()}/messages", json={"content": "q"}
    )
    assert missing.status_code == 404
    for body in ({}, {"content": ""}, {"content": "x" * 10_001}, {"content": ["q"]}):
        response = await world.contributor.client.post(url, json=body)
        assert response.status_code == 400, body
    ok = await world.contributor.client.post(url, json={"content": "x" * 10_000})
    assert ok.status_code == 201


async def test_message_pair_is_one_transaction(world: World) -> None:
    """If the placeholder cannot be stored, the question is not stored either: the database
    refuses the second insert, and nothing of the pair is left."""
    chat = await _chat(world, world.contributor)
    await refuse_inserts(world.database, "data_chat_messages", "role", "assistant")
    async with world.database.session() as session:
        with pytest.raises(DBAPIError):
            await chats.send_message(
                world.context, session, world.contributor.id, uuid.UUID(chat["id"]), "q"
            )
    assert await _stored(world, chat["id"]) == []


async def _stored(world: World, chat_id: str) -> list[tuple[str, str]]:
    """The (role, status) of a chat's messages as the database holds them, in order."""
    async with world.database.session() as session:
        rows = await session.execute(
            select(DataChatMessage.role, DataChatMessage.status)
            .where(DataChatMessage.chat_id == uuid.UUID(chat_id))
            .order_by(DataChatMessage.seq)
        )
    return [(role, status) for role, status in rows.all()]


async def test_without_a_model_a_question_is_stored_for_the_offline_planner(
    world: World,
) -> None:
    chat = await _chat(world, world.contributor)
    world.context.settings = world.context.settings.model_copy(update={"openai_api_key": None})
    response = await world.contributor.client.post(
        f"/api/data-agent/chats/{chat['id']}/messages", json={"content": "How many customers?"}
    )
    # No provider at all: the built-in planner answers (docs/agent.md, "Offline answers").
    assert response.status_code == 201, response.text
    assert await _stored(world, chat["id"]) == [("user", "complete"), ("assistant", "generating")]


async def test_a_chat_whose_provider_is_not_enabled_cannot_be_asked(world: World) -> None:
    chat = await _chat(world, world.contributor, llmProvider="openai")
    # The server's models change: its chat's provider is gone, another is there.
    world.context.settings = world.context.settings.model_copy(
        update={"openai_api_key": None, "anthropic_api_key": SecretStr("sk-ant-test")}
    )
    response = await world.contributor.client.post(
        f"/api/data-agent/chats/{chat['id']}/messages", json={"content": "How many customers?"}
    )
    assert response.status_code == 503, response.text
    assert response.json()["error"]["code"] == "LLM_UNAVAILABLE"
    assert "openai" in response.json()["error"]["message"]
    assert await _stored(world, chat["id"]) == []


async def test_list_messages_paginated(world: World) -> None:
    chat = await _chat(world, world.contributor)
    url = f"/api/data-agent/chats/{chat['id']}/messages"
    for i in range(3):
        await world.contributor.client.post(url, json={"content": f"q{i}"})
    response = await world.contributor.client.get(url, params={"page": 1, "pageSize": 4})
    data = response.json()["data"]
    assert (data["total"], data["totalPages"]) == (6, 2)
    assert [(m["role"], m["content"]) for m in data["items"]] == [
        ("user", "q0"),
        ("assistant", ""),
        ("user", "q1"),
        ("assistant", ""),
    ]
    assert (await world.viewer.client.get(url)).status_code == 404  # viewer may read, not theirs
    assert (await world.anon.get(url)).status_code == 401


async def test_get_one_message(world: World) -> None:
    chat = await _chat(world, world.contributor)
    client = world.contributor.client
    sent = await client.post(
        f"/api/data-agent/chats/{chat['id']}/messages", json={"content": "top customers?"}
    )
    pair = sent.json()["data"]
    for message in (pair["userMessage"], pair["assistantMessage"]):
        url = f"/api/data-agent/chats/{chat['id']}/messages/{message['id']}"
        response = await client.get(url)
        assert response.status_code == 200, response.text
        assert response.json()["data"] == message
        assert (await world.viewer.client.get(url)).status_code == 404  # not theirs
        assert (await world.anon.get(url)).status_code == 401

    # One not yours, one of another chat of yours, one that does not exist: the same 404.
    other_chat = await _chat(world, world.contributor, "Other")
    question = pair["userMessage"]["id"]
    missing = await client.get(f"/api/data-agent/chats/{chat['id']}/messages/{uuid.uuid4()}")
    elsewhere = await client.get(f"/api/data-agent/chats/{other_chat['id']}/messages/{question}")
    foreign = await world.other.client.get(
        f"/api/data-agent/chats/{chat['id']}/messages/{question}"
    )
    no_chat = await world.other.client.get(
        f"/api/data-agent/chats/{uuid.uuid4()}/messages/{question}"
    )
    assert missing.status_code == elsewhere.status_code == foreign.status_code == 404
    assert missing.json() == elsewhere.json()
    assert foreign.json() == no_chat.json()  # never reveal that the chat exists
    bad = await client.get(f"/api/data-agent/chats/{chat['id']}/messages/not-a-uuid")
    assert bad.status_code == 400

    paths = (await world.anon.get("/openapi.json")).json()["paths"]
    operation = paths["/api/data-agent/chats/{chat_id}/messages/{message_id}"]["get"]
    assert operation["operationId"] == "getMessage"


# --- regenerate ----------------------------------------------------------------------------


async def _finish(world: World, message_id: str, status: str = "failed") -> None:
    """End an answer as its run would have (failed, or complete)."""
    async with world.database.session() as session:
        if status == "failed":
            error = {"code": "LLM_ERROR", "message": "The model failed."}
            assert await runs.fail_generating_message(session, uuid.UUID(message_id), "", error)
        else:
            await chats.complete_message(session, uuid.UUID(message_id), "Two.", {})
        await session.commit()


async def test_regenerate_asks_the_same_question_again(world: World) -> None:
    chat = await _chat(world, world.contributor)
    client = world.contributor.client
    messages = f"/api/data-agent/chats/{chat['id']}/messages"
    first = (await client.post(messages, json={"content": "How many customers?"})).json()["data"]
    answer = first["assistantMessage"]["id"]
    url = f"{messages}/{answer}/regenerate"

    busy = await client.post(url)
    assert busy.status_code == 409, busy.text
    assert busy.json()["error"]["code"] == "CONFLICT"
    assert "still being generated" in busy.json()["error"]["message"]

    await _finish(world, answer, "failed")
    second = (await client.post(messages, json={"content": "And by city?"})).json()["data"]
    await _finish(world, second["assistantMessage"]["id"], "complete")
    response = await client.post(url)  # the older, failed answer: Retry
    assert response.status_code == 201, response.text
    pair = response.json()["data"]
    assert pair["userMessage"] == first["userMessage"]  # the same question, not a copy
    placeholder = pair["assistantMessage"]
    assert (placeholder["role"], placeholder["status"], placeholder["content"]) == (
        "assistant",
        "generating",
        "",
    )
    assert placeholder["metadata"] == {
        "questionId": first["userMessage"]["id"],
        "regeneratedFrom": answer,
    }
    # The old answers stay; the new placeholder comes last.
    assert await _stored(world, chat["id"]) == [
        ("user", "complete"),
        ("assistant", "failed"),
        ("user", "complete"),
        ("assistant", "complete"),
        ("assistant", "generating"),
    ]
    # The last answer (finished): Regenerate.
    last = await client.post(f"{messages}/{second['assistantMessage']['id']}/regenerate")
    assert last.status_code == 201, last.text
    assert last.json()["data"]["userMessage"]["id"] == second["userMessage"]["id"]
    # A retry that fails too still names its question: retried again, it asks the same.
    await _finish(world, placeholder["id"], "failed")
    again = await client.post(f"{messages}/{placeholder['id']}/regenerate")
    assert again.json()["data"]["userMessage"]["id"] == first["userMessage"]["id"]


async def test_regenerate_refusals(world: World) -> None:
    chat = await _chat(world, world.contributor)
    client = world.contributor.client
    messages = f"/api/data-agent/chats/{chat['id']}/messages"
    pair = (await client.post(messages, json={"content": "q"})).json()["data"]
    answer = pair["assistantMessage"]["id"]
    await _finish(world, answer)
    url = f"{messages}/{answer}/regenerate"

    question = await client.post(f"{messages}/{pair['userMessage']['id']}/regenerate")
    assert question.status_code == 409 and question.json()["error"]["code"] == "CONFLICT"
    theirs = await world.other.client.post(url)
    missing = await world.other.client.post(f"{messages}/{uuid.uuid4()}/regenerate")
    assert theirs.status_code == missing.status_code == 404
    assert theirs.content == missing.content
    assert (await world.viewer.client.post(url)).status_code == 403
    assert (await world.anon.post(url)).status_code == 401
    # The chat's provider is gone while another is there: it cannot answer, nothing stored.
    await client.patch(f"/api/data-agent/chats/{chat['id']}", json={"llmProvider": "openai"})
    world.context.settings = world.context.settings.model_copy(
        update={"openai_api_key": None, "anthropic_api_key": SecretStr("sk-ant-test")}
    )
    unanswerable = await client.post(url)
    assert unanswerable.status_code == 503
    assert unanswerable.json()["error"]["code"] == "LLM_UNAVAILABLE"
    assert await _stored(world, chat["id"]) == [("user", "complete"), ("assistant", "failed")]
    # With no provider at all, the built-in planner answers it again.
    world.context.settings = world.context.settings.model_copy(update={"anthropic_api_key": None})
    offline = await client.post(url)
    assert offline.status_code == 201, offline.text


async def test_the_openapi_document_describes_regenerate(world: World) -> None:
    paths = (await world.anon.get("/openapi.json")).json()["paths"]
    base = "/api/data-agent/chats/{chat_id}/messages"
    regenerate = paths[f"{base}/{{message_id}}/regenerate"]["post"]
    send = paths[base]["post"]
    assert regenerate["operationId"] == "regenerateMessage"
    assert regenerate["responses"]["201"] == send["responses"]["201"]  # sendMessage's shape
    assert {"404", "409", "503"} <= set(regenerate["responses"])
    assert "503" in send["responses"]


# --- charts go with their chat ------------------------------------------------------------


async def test_deleting_a_chat_deletes_its_answers_charts(world: World) -> None:
    """On every app database, SQLite's foreign keys included: the charts of a chat's
    messages go when the chat is deleted (ON DELETE CASCADE, chats -> messages -> charts)."""
    chat = await _chat(world, world.contributor)
    client = world.contributor.client
    pair = await client.post(
        f"/api/data-agent/chats/{chat['id']}/messages", json={"content": "Chart it"}
    )
    message_id = uuid.UUID(pair.json()["data"]["assistantMessage"]["id"])
    async with world.database.session() as session:
        chart = await charts.save_image(session, world.contributor.id, message_id, PNG, "c")
        kept = await charts.save_image(session, world.contributor.id, None, PNG, "stateless")
        await session.commit()
    assert (await client.get(f"/api/charts/{chart.id}")).status_code == 200
    assert (await client.delete(f"/api/data-agent/chats/{chat['id']}")).status_code == 204
    async with world.database.session() as session:
        left = set(await session.scalars(select(Chart.id)))
    assert left == {kept.id}
    assert (await client.get(f"/api/charts/{chart.id}")).status_code == 404
