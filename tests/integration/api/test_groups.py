"""Groups of users: admins only, unique names, the whole member list at once, audited."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from sqlalchemy import select
from tests.integration.api.conftest import World

from dataagent.store.models import AuditEvent, Group, GroupMember, OntologyShare


async def _audit(world: World, action: str) -> list[AuditEvent]:
    async with world.database.session() as session:
        rows = await session.scalars(
            select(AuditEvent).where(AuditEvent.action == action).order_by(AuditEvent.created_at)
        )
        return list(rows)


async def _group(world: World, name: str = "Analysts", **extra: Any) -> dict[str, Any]:
    response = await world.admin.client.post("/api/groups", json={"name": name, **extra})
    assert response.status_code == 201, response.text
    group: dict[str, Any] = response.json()["data"]
    return group


async def test_admin_creates_reads_lists_renames_and_deletes_a_group(world: World) -> None:
    admin = world.admin.client
    group = await _group(world, "Analysts", description="The analysts of the west")
    assert group["name"] == "Analysts"
    assert group["description"] == "The analysts of the west"
    assert group["memberCount"] == 0
    assert group["createdBy"] == str(world.admin.id)
    assert set(group) == {
        "id",
        "name",
        "description",
        "memberCount",
        "createdAt",
        "updatedAt",
        "createdBy",
    }
    await _group(world, "buyers")

    listing = (await admin.get("/api/groups")).json()["data"]
    assert [g["name"] for g in listing] == ["Analysts", "buyers"]

    one = await admin.get(f"/api/groups/{group['id']}")
    assert one.status_code == 200
    assert one.json()["data"]["id"] == group["id"]

    renamed = await admin.patch(f"/api/groups/{group['id']}", json={"name": "Sales analysts"})
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["data"]["name"] == "Sales analysts"
    assert renamed.json()["data"]["description"] == "The analysts of the west"
    cleared = await admin.patch(f"/api/groups/{group['id']}", json={"description": None})
    assert cleared.json()["data"]["description"] is None
    assert cleared.json()["data"]["name"] == "Sales analysts"

    assert (await admin.delete(f"/api/groups/{group['id']}")).status_code == 204
    assert (await admin.get(f"/api/groups/{group['id']}")).status_code == 404
    assert (await admin.delete(f"/api/groups/{group['id']}")).status_code == 404

    created = await _audit(world, "group.create")
    assert [e.details["name"] for e in created if e.details] == ["Analysts", "buyers"]
    assert all(e.actor_id == world.admin.id and e.object_type == "group" for e in created)
    updates = await _audit(world, "group.update")
    assert [e.details for e in updates] == [{"name": "Sales analysts"}, {"description": None}]
    deleted = await _audit(world, "group.delete")
    assert [e.object_id for e in deleted] == [group["id"]]


async def test_group_names_are_unique_ignoring_case(world: World) -> None:
    admin = world.admin.client
    await _group(world, "Analysts")
    other = await _group(world, "Buyers")
    for name in ("Analysts", "ANALYSTS"):
        taken = await admin.post("/api/groups", json={"name": name})
        assert taken.status_code == 409
        assert taken.json()["error"]["code"] == "CONFLICT"
        assert "already exists" in taken.json()["error"]["message"]
    renamed = await admin.patch(f"/api/groups/{other['id']}", json={"name": "analysts"})
    assert renamed.status_code == 409
    # Its own name in another case is not a clash.
    recased = await admin.patch(f"/api/groups/{other['id']}", json={"name": "BUYERS"})
    assert recased.status_code == 200


async def test_a_race_for_one_name_is_one_201_and_one_409(world: World) -> None:
    answers = await asyncio.gather(
        *(world.admin.client.post("/api/groups", json={"name": "Same"}) for _ in range(4))
    )
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [201, 409, 409, 409], [a.text for a in answers]
    async with world.database.session() as session:
        assert len(list(await session.scalars(select(Group)))) == 1


async def test_bad_group_bodies_are_400(world: World) -> None:
    admin = world.admin.client
    for body in (
        {},
        {"name": ""},
        {"name": "   "},
        {"name": "x" * 256},
        {"name": "ok", "colour": "red"},
        {"name": "ok", "description": "x" * 10_001},
    ):
        response = await admin.post("/api/groups", json=body)
        assert response.status_code == 400, body
        assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    group = await _group(world)
    for body in ({"name": " "}, {"name": None}, {"description": "", "name": None}):
        bad = await admin.patch(f"/api/groups/{group['id']}", json=body)
        assert bad.status_code == 400, body
        assert bad.json()["error"]["code"] == "VALIDATION_ERROR"
    assert (await admin.get("/api/groups/not-a-uuid")).status_code == 400
    missing = await admin.patch(f"/api/groups/{uuid.uuid4()}", json={"name": "x"})
    assert missing.status_code == 404


async def test_only_admins_manage_groups(world: World) -> None:
    group = await _group(world)
    path = f"/api/groups/{group['id']}"
    for account in (world.contributor, world.viewer):
        client = account.client
        for response in (
            await client.get("/api/groups"),
            await client.post("/api/groups", json={"name": "Mine"}),
            await client.get(path),
            await client.patch(path, json={"name": "Mine"}),
            await client.delete(path),
            await client.get(f"{path}/members"),
            await client.put(f"{path}/members", json={"userIds": [str(account.id)]}),
        ):
            assert response.status_code == 403, response.text
            assert response.json()["error"]["code"] == "FORBIDDEN"
    assert (await world.anon.get("/api/groups")).status_code == 401
    assert (await world.admin.client.get(path)).json()["data"]["name"] == "Analysts"


async def test_members_are_set_as_a_whole_list_and_audited(world: World) -> None:
    admin = world.admin.client
    group = await _group(world)
    path = f"/api/groups/{group['id']}/members"
    assert (await admin.get(path)).json()["data"] == []

    first = await admin.put(
        path,
        json={"userIds": [str(world.viewer.id), str(world.other.id), str(world.viewer.id)]},
    )
    assert first.status_code == 200, first.text
    members = first.json()["data"]
    assert [m["email"] for m in members] == ["other@example.com", "viewer@example.com"]
    assert members[1] == {
        "id": str(world.viewer.id),
        "email": "viewer@example.com",
        "role": "viewer",
        "isActive": True,
    }
    assert (await admin.get(path)).json()["data"] == members
    assert (await admin.get(f"/api/groups/{group['id']}")).json()["data"]["memberCount"] == 2
    assert (await admin.get("/api/groups")).json()["data"][0]["memberCount"] == 2

    second = await admin.put(path, json={"userIds": [str(world.other.id), str(world.admin.id)]})
    assert [m["email"] for m in second.json()["data"]] == [
        "admin@example.com",
        "other@example.com",
    ]
    assert (await admin.put(path, json={"userIds": []})).json()["data"] == []

    events = await _audit(world, "group.members")
    assert [e.details for e in events] == [
        {"added": sorted([str(world.viewer.id), str(world.other.id)]), "removed": []},
        {"added": [str(world.admin.id)], "removed": [str(world.viewer.id)]},
        {"added": [], "removed": sorted([str(world.admin.id), str(world.other.id)])},
    ]
    assert all(e.object_id == group["id"] and e.actor_id == world.admin.id for e in events)


async def test_unknown_members_are_404_naming_them_and_nothing_changes(world: World) -> None:
    admin = world.admin.client
    group = await _group(world)
    path = f"/api/groups/{group['id']}/members"
    await admin.put(path, json={"userIds": [str(world.viewer.id)]})
    ghost = uuid.uuid4()
    response = await admin.put(path, json={"userIds": [str(world.other.id), str(ghost)]})
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "NOT_FOUND"
    assert str(ghost) in error["message"]
    assert error["details"] == {"userIds": [str(ghost)]}
    assert [m["email"] for m in (await admin.get(path)).json()["data"]] == ["viewer@example.com"]

    missing = f"/api/groups/{uuid.uuid4()}/members"
    assert (await admin.get(missing)).status_code == 404
    assert (await admin.put(missing, json={"userIds": []})).status_code == 404
    for body in ({}, {"userIds": ["nope"]}, {"userIds": str(world.viewer.id)}):
        assert (await admin.put(path, json=body)).status_code == 400, body


async def test_a_deleted_user_leaves_every_group(world: World) -> None:
    admin = world.admin.client
    first, second = await _group(world, "One"), await _group(world, "Two")
    for group in (first, second):
        members = [str(world.viewer.id), str(world.other.id)]
        await admin.put(f"/api/groups/{group['id']}/members", json={"userIds": members})

    assert (await admin.delete(f"/api/users/{world.viewer.id}")).status_code == 204

    for group in (first, second):
        members = (await admin.get(f"/api/groups/{group['id']}/members")).json()["data"]
        assert [m["email"] for m in members] == ["other@example.com"]
        assert (await admin.get(f"/api/groups/{group['id']}")).json()["data"]["memberCount"] == 1
    async with world.database.session() as session:
        left = await session.scalars(
            select(GroupMember).where(GroupMember.user_id == world.viewer.id)
        )
        assert list(left) == []


async def test_deleting_a_group_revokes_its_shares(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    group = await _group(world)
    await world.admin.client.put(
        f"/api/groups/{group['id']}/members", json={"userIds": [str(world.other.id)]}
    )
    shared = await world.contributor.client.post(
        f"/api/ontologies/{ontology_id}/shares", json={"groupId": group["id"]}
    )
    assert shared.status_code == 201, shared.text
    assert (await world.other.client.get(f"/api/ontologies/{ontology_id}")).status_code == 200

    assert (await world.admin.client.delete(f"/api/groups/{group['id']}")).status_code == 204

    assert (await world.other.client.get(f"/api/ontologies/{ontology_id}")).status_code == 404
    listing = await world.contributor.client.get(f"/api/ontologies/{ontology_id}/shares")
    assert listing.json()["data"] == []
    async with world.database.session() as session:
        assert list(await session.scalars(select(OntologyShare))) == []
        assert list(await session.scalars(select(GroupMember))) == []


async def test_group_routes_answer_405_with_allow(world: World) -> None:
    response = await world.admin.client.delete("/api/groups")
    assert response.status_code == 405
    assert set(response.headers["allow"].replace(" ", "").split(",")) == {"GET", "POST"}
    group = await _group(world)
    members = await world.admin.client.post(f"/api/groups/{group['id']}/members", json={})
    assert members.status_code == 405
    assert set(members.headers["allow"].replace(" ", "").split(",")) == {"GET", "PUT"}
