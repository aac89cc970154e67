"""Seed 001's preferences: the API (CRUD, upsert, scopes, 404s, validation, permissions), the
database's one-value-per-scope rule, cascades, and what the pipeline reads (`effective`,
`auto_capture_mode`, `capture`), on SQLite and PostgreSQL app databases."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from tests.integration.api.conftest import Account, World

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.services import preferences
from dataagent.store.models import AuditEvent, DataAgentPreference

URL = "/api/data-agent/preferences"


async def _save(account: Account, key: str, value: str, **extra: Any) -> dict[str, Any]:
    response = await account.client.post(URL, json={"key": key, "value": value, **extra})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


async def _list(account: Account, **params: str) -> list[dict[str, Any]]:
    response = await account.client.get(URL, params=params)
    assert response.status_code == 200, response.text
    data: list[dict[str, Any]] = response.json()["data"]
    return data


def _keys(rows: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    return [(row["key"], row["ontologyId"]) for row in rows]


async def _rows(world: World) -> list[DataAgentPreference]:
    async with world.database.session() as session:
        return list(await session.scalars(select(DataAgentPreference)))


# --- saving and listing -------------------------------------------------------------------


async def test_save_and_list_by_scope(world: World) -> None:
    me = world.contributor
    ontology = str(await world.make_ontology(me))
    other_ontology = str(await world.make_ontology(me, name="Other"))
    saved = await _save(me, "default_time_window", "last 12 months")
    assert saved["userId"] == str(me.id)
    assert saved["ontologyId"] is None
    assert (saved["key"], saved["value"], saved["source"]) == (
        "default_time_window",
        "last 12 months",
        "manual",
    )
    assert saved["createdAt"] and saved["updatedAt"]
    await _save(me, "preferred_grain", "monthly", ontologyId=ontology, source="auto_captured")
    await _save(me, "currency", "EUR", ontologyId=other_ontology)
    await _save(world.other, "default_time_window", "this year")

    everything = await _list(me)
    assert _keys(everything) == [
        ("default_time_window", None),  # global first
        *sorted([("preferred_grain", ontology), ("currency", other_ontology)], key=lambda k: k[1]),
    ]
    assert _keys(await _list(me, scope="global")) == [("default_time_window", None)]
    assert _keys(await _list(me, scope="ontology", ontologyId=ontology)) == [
        ("preferred_grain", ontology)
    ]
    # `all` with an ontology: what applies in it, the global ones and its own.
    assert _keys(await _list(me, ontologyId=ontology)) == [
        ("default_time_window", None),
        ("preferred_grain", ontology),
    ]
    assert (await _list(me, ontologyId=ontology))[1]["source"] == "auto_captured"
    assert _keys(await _list(world.other)) == [("default_time_window", None)]

    refused = await me.client.get(URL, params={"scope": "ontology"})
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "VALIDATION_ERROR"
    assert "ontologyId" in refused.json()["error"]["message"]
    bad_scope = await me.client.get(URL, params={"scope": "everything"})
    assert bad_scope.status_code == 400


async def test_saving_a_key_again_replaces_its_value_in_that_scope_only(world: World) -> None:
    me = world.contributor
    ontology = str(await world.make_ontology(me))
    first = await _save(me, "default_time_window", "last 12 months")
    again = await _save(me, "default_time_window", "last 6 months", source="auto_captured")
    assert again["id"] == first["id"]
    assert again["value"] == "last 6 months"
    assert again["source"] == "auto_captured"
    assert again["createdAt"] == first["createdAt"]
    assert again["updatedAt"] >= first["updatedAt"]
    scoped = await _save(me, "default_time_window", "this quarter", ontologyId=ontology)
    assert scoped["id"] != first["id"]
    scoped_again = await _save(me, "default_time_window", "this year", ontologyId=ontology)
    assert scoped_again["id"] == scoped["id"]
    theirs = await _save(world.other, "default_time_window", "all time")
    assert theirs["id"] != first["id"]
    rows = await _rows(world)
    assert sorted((r.user_id == me.id, r.ontology_id is None, r.value) for r in rows) == [
        (False, True, "all time"),
        (True, False, "this year"),
        (True, True, "last 6 months"),
    ]


async def test_text_is_stored_as_sent(world: World) -> None:
    saved = await _save(world.contributor, "style", "  bullet points\n  with a table ")
    assert saved["value"] == "  bullet points\n  with a table "
    longest = await _save(world.contributor, "k" * 255, "v" * 2000)
    assert len(longest["key"]) == 255 and len(longest["value"]) == 2000


async def test_saves_of_one_key_at_once_leave_one_row(world: World) -> None:
    """The upsert is one statement: ten saves racing for one key in one scope all succeed
    and leave one row (no unique violation, no duplicate), holding one of their values."""
    me = world.contributor
    ontology = str(await world.make_ontology(me))
    for scope in ({}, {"ontologyId": ontology}):
        values = [f"value {n}" for n in range(10)]
        responses = await asyncio.gather(
            *(me.client.post(URL, json={"key": "race", "value": v, **scope}) for v in values)
        )
        assert [r.status_code for r in responses] == [201] * 10, [r.text for r in responses]
        assert len({r.json()["data"]["id"] for r in responses}) == 1
    rows = [r for r in await _rows(world) if r.key == "race"]
    assert len(rows) == 2
    assert all(r.value.startswith("value ") for r in rows)


async def test_one_value_per_key_per_scope_is_the_databases_rule(world: World) -> None:
    """Not only the code's: a second global row of a key (NULL ontology) is refused by the
    database as a second row of one ontology's is; a global and a scoped row may share it."""
    me = world.contributor.id
    ontology = await world.make_ontology(world.contributor)

    async def insert(*rows: tuple[uuid.UUID | None, str]) -> None:
        async with world.database.session() as session:
            session.add_all(
                DataAgentPreference(user_id=me, ontology_id=o, key="k", value=v) for o, v in rows
            )
            await session.commit()

    for scope in (None, ontology):
        with pytest.raises(IntegrityError):
            await insert((scope, "a"), (scope, "b"))
    await insert((None, "global"), (ontology, "scoped"))
    assert len(await _rows(world)) == 2


# --- changing and deleting ----------------------------------------------------------------


async def test_patch_changes_the_value_only(world: World) -> None:
    me = world.contributor
    saved = await _save(me, "default_time_window", "last 12 months", source="auto_captured")
    response = await me.client.patch(f"{URL}/{saved['id']}", json={"value": "last 6 months"})
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["value"] == "last 6 months"
    assert (data["id"], data["key"], data["source"]) == (
        saved["id"],
        "default_time_window",
        "auto_captured",
    )
    for body in ({"value": ""}, {"value": "   "}, {"value": "x" * 2001}, {"key": "other"}, {}):
        refused = await me.client.patch(f"{URL}/{saved['id']}", json=body)
        assert refused.status_code == 400, body
        assert refused.json()["error"]["code"] == "VALIDATION_ERROR"


async def test_another_users_preference_is_not_found(world: World) -> None:
    mine = await _save(world.contributor, "default_time_window", "last 12 months")
    intruder = world.other.client
    for response in (
        await intruder.patch(f"{URL}/{mine['id']}", json={"value": "stolen"}),
        await intruder.delete(f"{URL}/{mine['id']}"),
        await world.contributor.client.patch(f"{URL}/{uuid.uuid4()}", json={"value": "x"}),
        await world.contributor.client.delete(f"{URL}/{uuid.uuid4()}"),
    ):
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "NOT_FOUND"
    assert [r.value for r in await _rows(world)] == ["last 12 months"]


async def test_delete_one(world: World) -> None:
    me = world.contributor
    gone = await _save(me, "a", "1")
    kept = await _save(me, "b", "2")
    response = await me.client.delete(f"{URL}/{gone['id']}")
    assert response.status_code == 204 and response.content == b""
    assert [row["id"] for row in await _list(me)] == [kept["id"]]
    assert (await me.client.delete(f"{URL}/{gone['id']}")).status_code == 404


async def test_clear_one_ontologys_or_all(world: World) -> None:
    me = world.contributor
    ontology = str(await world.make_ontology(me))
    other_ontology = str(await world.make_ontology(me, name="Other"))
    await _save(me, "a", "global")
    await _save(me, "a", "scoped", ontologyId=ontology)
    await _save(me, "b", "other scope", ontologyId=other_ontology)
    await _save(world.other, "a", "theirs")

    response = await me.client.delete(URL, params={"ontologyId": ontology})
    assert response.status_code == 204
    assert _keys(await _list(me)) == [("a", None), ("b", other_ontology)]
    assert (await me.client.delete(URL)).status_code == 204
    assert await _list(me) == []
    assert _keys(await _list(world.other)) == [("a", None)]


async def test_an_ontology_not_yours_is_not_found(world: World) -> None:
    me = world.contributor
    theirs = str(await world.make_ontology(world.other))
    await _save(world.other, "a", "theirs", ontologyId=theirs)
    for response in (
        await me.client.get(URL, params={"ontologyId": theirs}),
        await me.client.get(URL, params={"scope": "ontology", "ontologyId": theirs}),
        await me.client.post(URL, json={"key": "a", "value": "x", "ontologyId": theirs}),
        await me.client.post(URL, json={"key": "a", "value": "x", "ontologyId": str(uuid.uuid4())}),
        await me.client.delete(URL, params={"ontologyId": theirs}),
    ):
        assert response.status_code == 404, response.text
        assert response.json()["error"]["code"] == "NOT_FOUND"
    assert [(r.user_id, r.value) for r in await _rows(world)] == [(world.other.id, "theirs")]


# --- validation and permissions -------------------------------------------------------------


async def test_keys_values_and_auto_capture_mode_are_validated(world: World) -> None:
    me = world.contributor
    ontology = str(await world.make_ontology(me))
    for body in (
        {"key": "", "value": "x"},
        {"key": "k" * 256, "value": "x"},
        {"key": "has space", "value": "x"},
        {"key": "ключ", "value": "x"},
        {"key": "semi;colon", "value": "x"},
        {"key": "k", "value": ""},
        {"key": "k", "value": " \n\t "},
        {"key": "k", "value": "x" * 2001},
        {"key": "k", "value": "nul \x00 here"},
        {"key": "k"},
        {"value": "x"},
        {"key": "k", "value": 5},
        {"key": "k", "value": "x", "source": "robot"},
        {"key": "k", "value": "x", "owner": "me"},
        {"key": "k", "value": "x", "ontologyId": "not-a-uuid"},
        {"key": "auto_capture_mode", "value": "sometimes"},
        {"key": "auto_capture_mode", "value": "AUTO"},
        {"key": "auto_capture_mode", "value": "ask", "ontologyId": ontology},
    ):
        response = await me.client.post(URL, json=body)
        assert response.status_code == 400, (body, response.text)
        error = response.json()["error"]
        assert error["code"] == "VALIDATION_ERROR" and error["message"], body
    assert await _list(me) == []

    mode = await _save(me, "auto_capture_mode", "ask")
    refused = await me.client.patch(f"{URL}/{mode['id']}", json={"value": "always"})
    assert refused.status_code == 400
    assert "auto_capture_mode" in refused.json()["error"]["message"]
    assert (await _list(me))[0]["value"] == "ask"
    for value in ("off", "auto"):
        changed = await me.client.patch(f"{URL}/{mode['id']}", json={"value": value})
        assert changed.json()["data"]["value"] == value


async def test_the_schema_states_the_rules(world: World) -> None:
    schema = (await world.anon.get("/openapi.json")).json()
    create = schema["components"]["schemas"]["PreferenceCreate"]
    assert create["properties"]["key"]["pattern"] == preferences.KEY_PATTERN
    assert create["properties"]["value"]["maxLength"] == preferences.MAX_VALUE_CHARS
    assert create["properties"]["source"]["enum"] == ["manual", "auto_captured"]
    rule = create["allOf"][0]
    assert rule["if"]["properties"]["key"]["const"] == "auto_capture_mode"
    assert rule["then"]["properties"]["value"]["enum"] == ["off", "auto", "ask"]
    listing = schema["paths"][URL]["get"]
    scope = next(p for p in listing["parameters"] if p["name"] == "scope")
    assert scope["schema"]["enum"] == ["global", "ontology", "all"]
    assert set(schema["paths"][URL]) == {"get", "post", "delete"}
    assert set(schema["paths"][URL + "/{preference_id}"]) == {"patch", "delete"}


async def test_readers_read_and_writers_write(world: World) -> None:
    assert (await world.anon.get(URL)).status_code == 401
    assert (await world.anon.post(URL, json={"key": "a", "value": "b"})).status_code == 401
    assert (await world.viewer.client.get(URL)).status_code == 200
    mine = await _save(world.contributor, "a", "b")
    viewer = world.viewer.client
    for response in (
        await viewer.post(URL, json={"key": "a", "value": "b"}),
        await viewer.patch(f"{URL}/{mine['id']}", json={"value": "c"}),
        await viewer.delete(f"{URL}/{mine['id']}"),
        await viewer.delete(URL),
    ):
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "FORBIDDEN"


# --- cascades and audit ---------------------------------------------------------------------


async def test_deleting_an_ontology_deletes_its_preferences_only(world: World) -> None:
    me = world.contributor
    ontology = str(await world.make_ontology(me))
    await _save(me, "a", "global")
    await _save(me, "a", "scoped", ontologyId=ontology)
    assert (await me.client.delete(f"/api/ontologies/{ontology}")).status_code == 204
    assert [(r.ontology_id, r.value) for r in await _rows(world)] == [(None, "global")]


async def test_deleting_a_user_deletes_their_preferences(world: World) -> None:
    ontology = str(await world.make_ontology(world.other))
    await _save(world.other, "a", "global")
    await _save(world.other, "a", "scoped", ontologyId=ontology)
    await _save(world.contributor, "a", "mine")
    assert (await world.admin.client.delete(f"/api/users/{world.other.id}")).status_code == 204
    assert [(r.user_id, r.value) for r in await _rows(world)] == [(world.contributor.id, "mine")]


async def test_changes_are_audited_without_their_values(world: World) -> None:
    me = world.contributor
    saved = await _save(me, "secretish", "my private value")
    await me.client.patch(f"{URL}/{saved['id']}", json={"value": "another"})
    await me.client.delete(f"{URL}/{saved['id']}")
    await me.client.delete(URL)
    async with world.database.session() as session:
        events = list(
            await session.scalars(
                select(AuditEvent)
                .where(AuditEvent.object_type == "data_agent_preference")
                .order_by(AuditEvent.created_at)
            )
        )
    assert [e.action for e in events] == [
        "preference.save",
        "preference.update",
        "preference.delete",
        "preference.clear",
    ]
    assert all(e.actor_id == me.id for e in events)
    assert events[0].details == {"key": "secretish", "ontologyId": None, "source": "manual"}
    assert "value" not in str([e.details for e in events])


# --- what the pipeline reads ----------------------------------------------------------------


async def test_effective_preferences_put_the_ontologys_over_the_global(world: World) -> None:
    me = world.contributor
    ontology = await world.make_ontology(me)
    other_ontology = await world.make_ontology(me, name="Other")
    await _save(me, "default_time_window", "last 12 months")
    await _save(me, "currency", "USD")
    await _save(me, "auto_capture_mode", "ask")
    await _save(me, "default_time_window", "this year", ontologyId=str(ontology))
    await _save(me, "grain", "weekly", ontologyId=str(other_ontology))
    await _save(world.other, "currency", "JPY")
    async with world.database.session() as session:
        scoped = await preferences.effective(session, me.id, ontology)
        global_only = await preferences.effective(session, me.id, None)
    assert scoped == {"default_time_window": "this year", "currency": "USD"}
    assert global_only == {"default_time_window": "last 12 months", "currency": "USD"}


async def test_auto_capture_mode_defaults_to_auto(world: World) -> None:
    me = world.contributor
    async with world.database.session() as session:
        assert await preferences.auto_capture_mode(session, me.id) == "auto"
    saved = await _save(me, "auto_capture_mode", "ask")
    async with world.database.session() as session:
        assert await preferences.auto_capture_mode(session, me.id) == "ask"
        assert await preferences.auto_capture_mode(session, world.other.id) == "auto"
    await me.client.patch(f"{URL}/{saved['id']}", json={"value": "off"})
    async with world.database.session() as session:
        assert await preferences.auto_capture_mode(session, me.id) == "off"


async def test_capture_saves_the_ontologys_auto_captured_preferences(world: World) -> None:
    """Answers to clarifying questions become the ontology's preferences; what the model
    wrote that no person could have saved is skipped, and it never sets the capture mode."""
    me = world.contributor
    ontology = await world.make_ontology(me)
    manual = await _save(me, "default_time_window", "last 12 months", ontologyId=str(ontology))
    async with world.database.session() as session:
        saved = await preferences.capture(
            session,
            me.id,
            ontology,
            [
                ("default_time_window", "this year"),
                ("preferred_grain", "monthly"),
                ("preferred_grain", "weekly"),
                ("auto_capture_mode", "off"),
                ("bad key!", "x"),
                ("blank", "   "),
                ("long", "x" * 2001),
            ],
        )
    assert [(p.key, p.value, p.source, p.ontology_id) for p in saved] == [
        ("default_time_window", "this year", "auto_captured", ontology),
        ("preferred_grain", "weekly", "auto_captured", ontology),
    ]
    assert saved[0].id == uuid.UUID(manual["id"])
    rows = await _list(me)
    assert _keys(rows) == [
        ("default_time_window", str(ontology)),
        ("preferred_grain", str(ontology)),
    ]
    async with world.database.session() as session:
        assert await preferences.auto_capture_mode(session, me.id) == "auto"
        assert await preferences.capture(session, me.id, ontology, [("x y", "z")]) == []
        count = await session.scalar(select(func.count()).select_from(DataAgentPreference))
    assert count == 2


async def test_capture_into_an_ontology_not_yours_is_not_found(world: World) -> None:
    theirs = await world.make_ontology(world.other)
    async with world.database.session() as session:
        with pytest.raises(DataAgentError) as raised:
            await preferences.capture(session, world.contributor.id, theirs, [("a", "b")])
    assert raised.value.code is ErrorCode.NOT_FOUND
    assert await _rows(world) == []
