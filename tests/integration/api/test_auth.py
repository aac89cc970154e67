"""Sign-in, the session cookie, sign-out and `me`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import jwt
from tests.integration.api.conftest import PASSWORD, World


async def test_login_returns_token_and_sets_httponly_cookie(world: World) -> None:
    response = await world.anon.post(
        "/api/auth/login", json={"email": "ADMIN@example.com ", "password": PASSWORD}
    )
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["tokenType"] == "bearer"
    assert data["user"]["email"] == "admin@example.com"
    assert "users:manage" in data["user"]["permissions"]
    cookie = response.headers["set-cookie"]
    assert "dataagent_session=" in cookie
    assert "HttpOnly" in cookie
    assert "samesite=lax" in cookie.lower()


async def test_wrong_password_and_unknown_email_are_the_same_401(world: World) -> None:
    wrong = await world.anon.post(
        "/api/auth/login", json={"email": "admin@example.com", "password": "nope-nope"}
    )
    unknown = await world.anon.post(
        "/api/auth/login", json={"email": "ghost@example.com", "password": "nope-nope"}
    )
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    assert wrong.json()["error"]["code"] == "UNAUTHORIZED"


async def test_me_with_bearer_token(world: World) -> None:
    response = await world.viewer.client.get("/api/auth/me")
    assert response.status_code == 200
    me = response.json()["data"]
    assert me["role"] == "viewer"
    assert me["permissions"] == sorted(
        ["connections:read", "data_agent:read", "ontologies:read", "semantic_models:read"]
    )
    assert "passwordHash" not in me


async def test_cookie_session_then_logout(world: World) -> None:
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=world.app), base_url="http://test")
    async with client:
        login = await client.post(
            "/api/auth/login", json={"email": "viewer@example.com", "password": PASSWORD}
        )
        assert login.status_code == 200
        assert (await client.get("/api/auth/me")).status_code == 200
        logout = await client.post("/api/auth/logout")
        assert logout.status_code == 204
        assert (await client.get("/api/auth/me")).status_code == 401


async def test_me_without_or_with_bad_token_is_401(world: World) -> None:
    assert (await world.anon.get("/api/auth/me")).status_code == 401
    bad = await world.anon.get("/api/auth/me", headers={"Authorization": "Bearer abc.def.ghi"})
    assert bad.status_code == 401
    assert bad.json()["error"]["code"] == "UNAUTHORIZED"


async def test_session_says_who_is_signed_in_without_a_401(world: World) -> None:
    nobody = await world.anon.get("/api/auth/session")
    assert nobody.status_code == 200
    assert nobody.json() == {"data": {"user": None}}
    stale = await world.anon.get(
        "/api/auth/session", headers={"Authorization": "Bearer abc.def.ghi"}
    )
    assert stale.json() == {"data": {"user": None}}
    viewer = await world.viewer.client.get("/api/auth/session")
    assert viewer.status_code == 200
    assert viewer.json()["data"]["user"]["role"] == "viewer"
    assert (
        viewer.json()["data"]["user"]
        == (await world.viewer.client.get("/api/auth/me")).json()["data"]
    )


async def test_deactivated_user_is_locked_out(world: World) -> None:
    response = await world.admin.client.patch(
        f"/api/users/{world.viewer.id}", json={"isActive": False}
    )
    assert response.status_code == 200
    assert (await world.viewer.client.get("/api/auth/me")).status_code == 401
    login = await world.anon.post(
        "/api/auth/login", json={"email": "viewer@example.com", "password": PASSWORD}
    )
    assert login.status_code == 401


# --- token versions: what signs a user out --------------------------------------------


async def _sign_in(world: World, email: str, password: str = PASSWORD) -> str:
    response = await world.anon.post("/api/auth/login", json={"email": email, "password": password})
    assert response.status_code == 200, response.text
    token: str = response.json()["data"]["accessToken"]
    return token


async def _me(world: World, token: str) -> httpx.Response:
    return await world.anon.get("/api/auth/me", headers={"Authorization": f"Bearer {token}"})


async def test_logout_signs_the_user_out_everywhere(world: World) -> None:
    laptop = world.viewer.client  # signed in before
    phone = await _sign_in(world, "viewer@example.com")
    assert (await laptop.get("/api/auth/me")).status_code == 200

    logout = await world.anon.post("/api/auth/logout", headers={"Authorization": f"Bearer {phone}"})
    assert logout.status_code == 204

    # A copied token is worth nothing after its owner signs out, on any device.
    assert (await _me(world, phone)).status_code == 401
    refused = await laptop.get("/api/auth/me")
    assert refused.status_code == 401
    assert refused.json()["error"] == {
        "code": "UNAUTHORIZED",
        "message": "Sign in to continue: the token is missing, invalid or expired.",
    }
    assert (await _me(world, await _sign_in(world, "viewer@example.com"))).status_code == 200
    assert (await world.contributor.client.get("/api/auth/me")).status_code == 200


async def test_logout_without_a_valid_token_only_clears_the_cookie(world: World) -> None:
    anonymous = await world.anon.post("/api/auth/logout")
    assert anonymous.status_code == 204
    assert 'dataagent_session=""' in anonymous.headers["set-cookie"]
    garbage = await world.anon.post(
        "/api/auth/logout", headers={"Authorization": "Bearer abc.def.ghi"}
    )
    assert garbage.status_code == 204
    assert (await world.viewer.client.get("/api/auth/me")).status_code == 200


async def test_password_change_revokes_existing_tokens(world: World) -> None:
    changed = await world.admin.client.patch(
        f"/api/users/{world.viewer.id}", json={"password": "a-brand-new-password"}
    )
    assert changed.status_code == 200
    assert (await world.viewer.client.get("/api/auth/me")).status_code == 401
    fresh = await _sign_in(world, "viewer@example.com", "a-brand-new-password")
    assert (await _me(world, fresh)).status_code == 200


async def test_deactivate_then_reactivate_leaves_old_tokens_dead(world: World) -> None:
    admin = world.admin.client
    url = f"/api/users/{world.viewer.id}"
    assert (await admin.patch(url, json={"isActive": False})).status_code == 200
    assert (await admin.patch(url, json={"isActive": True})).status_code == 200
    assert (await world.viewer.client.get("/api/auth/me")).status_code == 401
    assert (await _me(world, await _sign_in(world, "viewer@example.com"))).status_code == 200


async def test_token_without_a_version_claim_is_refused(world: World) -> None:
    # Tokens issued before token versions existed carry no `ver` claim.
    now = datetime.now(UTC)
    claims = {
        "sub": str(world.viewer.id),
        "iat": now,
        "exp": now + timedelta(hours=1),
        "iss": "dataagent",
    }
    legacy = jwt.encode(claims, world.context.secret_key, algorithm="HS256")
    response = await _me(world, legacy)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "UNAUTHORIZED"


async def test_token_with_another_version_is_refused(world: World) -> None:
    now = datetime.now(UTC)
    claims = {
        "sub": str(world.viewer.id),
        "ver": 1,
        "iat": now,
        "exp": now + timedelta(hours=1),
        "iss": "dataagent",
    }
    ahead = jwt.encode(claims, world.context.secret_key, algorithm="HS256")
    assert (await _me(world, ahead)).status_code == 401
