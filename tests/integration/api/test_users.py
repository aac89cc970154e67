"""User administration: admins only."""

from __future__ import annotations

import asyncio
import uuid

from sqlalchemy import select
from tests.integration.api.conftest import World

from dataagent.store.models import AuditEvent, User


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


async def test_openapi_names_the_new_operation_and_its_errors(world: World) -> None:
    paths = (await world.anon.get("/openapi.json")).json()["paths"]
    sign_out = paths["/api/users/{user_id}/sign-out"]["post"]
    assert sign_out["operationId"] == "signOutUser"
    assert "409" in paths["/api/users/{user_id}"]["patch"]["responses"]
    assert "409" in paths["/api/users/{user_id}"]["delete"]["responses"]
    assert "429" in paths["/api/auth/login"]["post"]["responses"]


# --- the last active admin ------------------------------------------------------------


async def _is_active_admin(world: World, user_id: uuid.UUID) -> bool:
    async with world.database.session() as session:
        user = await session.get(User, user_id)
        return user is not None and user.role == "admin" and user.is_active


async def test_the_last_active_admin_cannot_be_demoted_or_deactivated(world: World) -> None:
    admin = world.admin.client
    url = f"/api/users/{world.admin.id}"
    for change in ({"role": "viewer"}, {"role": "contributor"}, {"isActive": False}):
        response = await admin.patch(url, json=change)
        assert response.status_code == 409, change
        error = response.json()["error"]
        assert error["code"] == "CONFLICT"
        assert "last active admin" in error["message"]
        assert await _is_active_admin(world, world.admin.id)
    # A change that keeps them an active admin is still fine.
    assert (await admin.patch(url, json={"role": "admin", "isActive": True})).status_code == 200


async def test_another_active_admin_makes_demotion_allowed(world: World) -> None:
    admin = world.admin.client
    promoted = await admin.patch(f"/api/users/{world.contributor.id}", json={"role": "admin"})
    assert promoted.status_code == 200
    demoted = await admin.patch(f"/api/users/{world.admin.id}", json={"role": "viewer"})
    assert demoted.status_code == 200
    assert demoted.json()["data"]["role"] == "viewer"
    # Now the former contributor is the last active admin.
    last = await world.contributor.client.patch(
        f"/api/users/{world.contributor.id}", json={"isActive": False}
    )
    assert last.status_code == 409
    assert await _is_active_admin(world, world.contributor.id)


async def test_an_inactive_admin_does_not_count(world: World) -> None:
    admin = world.admin.client
    second = await admin.post(
        "/api/users",
        json={"email": "second@example.com", "password": "long-enough-pw", "role": "admin"},
    )
    second_id = second.json()["data"]["id"]
    assert (
        await admin.patch(f"/api/users/{second_id}", json={"isActive": False})
    ).status_code == 200
    refused = await admin.patch(f"/api/users/{world.admin.id}", json={"isActive": False})
    assert refused.status_code == 409
    # Once the other admin is active again, the first may be deactivated.
    assert (
        await admin.patch(f"/api/users/{second_id}", json={"isActive": True})
    ).status_code == 200
    assert (
        await admin.patch(f"/api/users/{world.admin.id}", json={"isActive": False})
    ).status_code == 200


async def test_two_admins_demoting_each_other_at_once_leave_one_admin(world: World) -> None:
    admin = world.admin.client
    assert (
        await admin.patch(f"/api/users/{world.contributor.id}", json={"role": "admin"})
    ).status_code == 200
    first, second = await asyncio.gather(
        admin.patch(f"/api/users/{world.contributor.id}", json={"role": "viewer"}),
        world.contributor.client.patch(f"/api/users/{world.admin.id}", json={"role": "viewer"}),
    )
    statuses = sorted((first.status_code, second.status_code))
    # One wins; the other is refused as the last admin (409) or, if it started after the
    # first had finished, no longer has the permission (403).
    assert statuses in ([200, 403], [200, 409]), (first.text, second.text)
    remaining = [await _is_active_admin(world, a.id) for a in (world.admin, world.contributor)]
    assert remaining.count(True) == 1


async def test_passwords_are_kept_as_sent_never_trimmed(world: World) -> None:
    """`minLength: 8` counts the text as sent: seven spaces and an `a` are eight characters,
    and every one of them is the password."""
    admin = world.admin.client
    for password in ("       a", "  spaced out  "):
        email = f"u{uuid.uuid4().hex[:8]}@example.com"
        created = await admin.post("/api/users", json={"email": email, "password": password})
        assert created.status_code == 201, created.text
        login = await world.anon.post(
            "/api/auth/login", json={"email": email, "password": password}
        )
        assert login.status_code == 200, login.text
        trimmed = await world.anon.post(
            "/api/auth/login", json={"email": email, "password": password.strip()}
        )
        assert trimmed.status_code == 401
    # Seven characters around spaces are still seven: too short, as the schema says.
    short = await admin.post("/api/users", json={"email": "s@example.com", "password": " abcde "})
    assert short.status_code == 400
    schema = (await world.anon.get("/openapi.json")).json()["components"]["schemas"]
    assert schema["UserCreate"]["properties"]["password"]["minLength"] == 8
