"""Sign-in, the session cookie, sign-out and `me`."""

from __future__ import annotations

import httpx
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
