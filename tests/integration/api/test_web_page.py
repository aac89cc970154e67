"""The built web page at `/`: its files, client-side routes, caching, and no way out of it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from tests.integration.api.raw_asgi import get_scope, receive_once

from dataagent.api.app import create_app
from dataagent.config import Settings

INDEX = "<!doctype html><title>Data Agent</title><div id=root></div>"
SCRIPT = "console.log('x');\n"
ICON = '<svg xmlns="http://www.w3.org/2000/svg"/>'
SECRET = "not for the browser"
IMMUTABLE = "public, max-age=31536000, immutable"


def _settings(tmp_path: Path, web_dir: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        database_url=f"sqlite:///{tmp_path / 'app.db'}",  # never opened: pages need no database
        secret_key="test-secret-key-that-is-long-enough-for-hs256",
        web_dir=web_dir,
        _env_file=None,  # type: ignore[call-arg]
    )


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    """A small build like Vite's: index.html, a hashed asset, a favicon; a secret beside it."""
    root = tmp_path / "web" / "dist"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text(INDEX)
    (root / "assets" / "x.js").write_text(SCRIPT)
    (root / "favicon.svg").write_text(ICON)
    (root / ".vite").mkdir()
    (root / ".vite" / "manifest.json").write_text("{}")
    (tmp_path / "web" / "secret.txt").write_text(SECRET)
    (tmp_path / "secret.txt").write_text(SECRET)
    (root / "assets" / "link.js").symlink_to(tmp_path / "secret.txt")
    return root


async def _app(tmp_path: Path, web_dir: Path) -> AsyncIterator[FastAPI]:
    app = create_app(_settings(tmp_path, web_dir))
    try:
        yield app
    finally:
        await app.state.context.aclose()


@pytest.fixture
async def app(tmp_path: Path, dist: Path) -> AsyncIterator[FastAPI]:
    """The app serving the fake build."""
    async for app in _app(tmp_path, dist):
        yield app


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """An anonymous client: the page needs no sign-in (its API calls do)."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


async def _raw_get(app: FastAPI, raw_path: str) -> tuple[int, dict[str, str], bytes]:
    """GET a path exactly as a server hands it over (no client-side `..` normalisation):
    `path` percent-decoded, as Uvicorn does."""
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(get_scope(raw_path), receive_once(), send)
    start = sent[0]
    headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], headers, body


@pytest.mark.parametrize("path", ["/", "/agent", "/agent/abc", "/signin?next=/agent", "/x/y/z"])
async def test_page_paths_get_index_html_revalidated(client: httpx.AsyncClient, path: str) -> None:
    page = await client.get(path)
    assert page.status_code == 200
    assert page.text == INDEX
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert page.headers["cache-control"] == "no-cache"
    assert page.headers["etag"]


async def test_hashed_assets_are_immutable_scripts(client: httpx.AsyncClient) -> None:
    script = await client.get("/assets/x.js")
    assert script.status_code == 200 and script.text == SCRIPT
    assert script.headers["content-type"] == "text/javascript; charset=utf-8"
    assert script.headers["cache-control"] == IMMUTABLE


async def test_other_built_files_are_served_and_revalidated(client: httpx.AsyncClient) -> None:
    icon = await client.get("/favicon.svg")
    assert icon.status_code == 200 and icon.text == ICON
    assert icon.headers["content-type"] == "image/svg+xml"
    assert icon.headers["cache-control"] == "no-cache"
    index = await client.get("/index.html")
    assert index.text == INDEX and index.headers["cache-control"] == "no-cache"


async def test_a_missing_asset_is_a_404_not_the_page(client: httpx.AsyncClient) -> None:
    missing = await client.get("/assets/gone-1234.js")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "NOT_FOUND"


async def test_an_unchanged_file_answers_304(client: httpx.AsyncClient) -> None:
    first = await client.get("/agent/abc")
    again = await client.get("/agent/abc", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == first.headers["etag"]
    assert again.headers["cache-control"] == "no-cache"


async def test_head_answers_like_get_without_a_body(client: httpx.AsyncClient) -> None:
    head = await client.head("/agent/abc")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == str(len(INDEX))
    assert head.headers["cache-control"] == "no-cache"


@pytest.mark.parametrize(
    "path", ["/api/nope", "/api", "/api/", "/api/data-agent/nothing/here", "/docs/nope"]
)
async def test_server_paths_never_fall_back_to_the_page(
    client: httpx.AsyncClient, path: str
) -> None:
    response = await client.get(path)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


async def test_the_servers_own_pages_still_answer(client: httpx.AsyncClient) -> None:
    assert (await client.get("/openapi.json")).json()["info"]["title"] == "Data Agent"
    assert (await client.get("/docs")).headers["content-type"].startswith("text/html")
    assert "status" in (await client.get("/healthz")).json()


@pytest.mark.parametrize("path", ["/", "/agent/abc", "/assets/x.js", "/favicon.svg"])
async def test_other_methods_on_page_paths_are_405(client: httpx.AsyncClient, path: str) -> None:
    response = await client.post(path, json={})
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD"
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"


async def test_other_methods_on_unknown_api_paths_stay_404(client: httpx.AsyncClient) -> None:
    for method in ("POST", "PUT", "DELETE"):
        response = await client.request(method, "/api/nope")
        assert response.status_code == 404, method
        assert response.json()["error"]["code"] == "NOT_FOUND"
    # A known API path keeps its own 405 and Allow (not the page's).
    wrong = await client.put("/api/data-agent/chats")
    assert wrong.status_code == 405 and wrong.headers["allow"] == "GET, POST"


async def test_the_page_is_not_in_the_openapi_document(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert all(p.startswith("/api/") or p == "/healthz" for p in paths), sorted(paths)


@pytest.mark.parametrize(
    "raw_path",
    [
        "/assets/../../secret.txt",
        "/assets/../../../secret.txt",
        "/../secret.txt",
        "/../../secret.txt",
        "/assets/%2e%2e/%2e%2e/secret.txt",
        "/assets/..%2f..%2fsecret.txt",
        "/%2e%2e/%2e%2e/secret.txt",
        "/assets/..%2F..%2F..%2Fsecret.txt",
        "/assets/....//....//secret.txt",
        "//secret.txt",
        "/assets/../../../../../../etc/passwd",
        "/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/assets/link.js",
        "/assets/%00.js",
        "/.vite/manifest.json",
    ],
)
async def test_paths_cannot_escape_the_build(app: FastAPI, raw_path: str) -> None:
    status, headers, body = await _raw_get(app, raw_path)
    assert SECRET.encode() not in body and b"root:" not in body
    # Either the page (a client-side route) or a JSON 404: never a file from elsewhere.
    if status == 200:
        assert body == INDEX.encode()
        assert headers["cache-control"] == "no-cache"
    else:
        assert status == 404 and b"NOT_FOUND" in body


async def test_before_the_page_is_built_root_says_how(tmp_path: Path) -> None:
    async for app in _app(tmp_path, tmp_path / "no-such-dist"):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            root = await client.get("/")
            assert root.status_code == 200
            assert root.headers["content-type"].startswith("text/html")
            assert "<title>Data Agent</title>" in root.text and "make web" in root.text
            assert 'href="/docs"' in root.text and 'href="/api/health"' in root.text
            route = await client.get("/agent/abc")
            assert route.status_code == 404
            assert route.json()["error"]["code"] == "NOT_FOUND"
            assert (await client.post("/")).headers["allow"] == "GET, HEAD"


async def test_a_build_made_while_the_server_runs_is_served(tmp_path: Path) -> None:
    web_dir = tmp_path / "later"
    async for app in _app(tmp_path, web_dir):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            assert "make web" in (await client.get("/")).text
            web_dir.mkdir()
            (web_dir / "index.html").write_text(INDEX)
            assert (await client.get("/agent/1")).text == INDEX
