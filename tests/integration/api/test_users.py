"""User administration: admins only."""

from __future__ import annotations

import uuid

from sqlalchemy import select
from tests.integration.api.conftest import World

from dataagent.store.models import AuditEvent


async def test_admin_creates_lists_updates_and_deletes_users(world: World) -> None:
    admin = world.admin.client
    created = await admin.post(
        "/api/users",
        json={"email": "New@Example.com", "password": "long-enough-pw", "role": "contributor"},
    )
    assert created.status_code == 201, created.text
    user = created.json()["data"]
    assert user["email"] == "new@example.com"
    assert user["role"] == "contributor"

    listing = (await admin.get("/api/users", params={"pageSize": 2})).json()["data"]
    assert listing["total"] == 5
    assert listing["totalPages"] == 3
    assert len(listing["items"]) == 2

    updated = await admin.patch(f"/api/users/{user['id']}", json={"role": "viewer"})
    assert updated.json()["data"]["role"] == "viewer"

    assert (await admin.delete(f"/api/users/{user['id']}")).status_code == 204
    assert (await admin.get(f"/api/users/{user['id']}")).status_code == 404


async def test_duplicate_email_is_409(world: World) -> None:
    response = await world.admin.client.post(
        "/api/users", json={"email": "viewer@example.com", "password": "long-enough-pw"}
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "CONFLICT"


async def test_non_admins_cannot_manage_users(world: World) -> None:
    for account in (world.contributor, world.viewer):
        response = await account.client.get("/api/users")
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "FORBIDDEN"
    assert (await world.anon.get("/api/users")).status_code == 401


async def test_bad_role_short_password_and_self_delete_are_400(world: World) -> None:
    admin = world.admin.client
    bad_role = await admin.post(
        "/api/users", json={"email": "x@example.com", "password": "long-enough-pw", "role": "root"}
    )
    assert bad_role.status_code == 400
    short = await admin.post("/api/users", json={"email": "x@example.com", "password": "short"})
    assert short.status_code == 400
    bad_email = await admin.post(
        "/api/users", json={"email": "not-an-email", "password": "long-enough-pw"}
    )
    assert bad_email.status_code == 400
    self_delete = await admin.delete(f"/api/users/{world.admin.id}")
    assert self_delete.status_code == 400
    assert (await admin.get(f"/api/users/{uuid.uuid4()}")).status_code == 404


async def test_admin_signs_a_user_out_everywhere(world: World) -> None:
    assert (await world.viewer.client.get("/api/auth/me")).status_code == 200
    response = await world.admin.client.post(f"/api/users/{world.viewer.id}/sign-out")
    assert response.status_code == 204
    assert (await world.viewer.client.get("/api/auth/me")).status_code == 401
    assert (await world.contributor.client.get("/api/auth/me")).status_code == 200

    async with world.database.session() as session:
        event = await session.scalar(
            select(AuditEvent).where(
                AuditEvent.action == "user.sign_out", AuditEvent.object_id == str(world.viewer.id)
            )
        )
    assert event is not None
    assert event.actor_id == world.admin.id


async def test_sign_out_needs_users_manage_and_an_existing_user(world: World) -> None:
    forbidden = await world.contributor.client.post(f"/api/users/{world.viewer.id}/sign-out")
    assert forbidden.status_code == 403
    assert (await world.viewer.client.get("/api/auth/me")).status_code == 200
    missing = await world.admin.client.post(f"/api/users/{uuid.uuid4()}/sign-out")
    assert missing.status_code == 404
    anonymous = await world.anon.post(f"/api/users/{world.viewer.id}/sign-out")
    assert anonymous.status_code == 401
