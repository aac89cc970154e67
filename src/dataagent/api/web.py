"""The web page: the built files of `web/` (`DATAAGENT_WEB_DIR`) served at every page path.

`/assets/*` are content-hashed by the build, so they are cached for a year; every other path
outside the server's own (`/api`, `/docs`, `/redoc`, `/openapi.json`, `/healthz`) is a
client-side route of the page and gets its `index.html`, never cached without revalidation,
so a new build shows at the next load. Until the page is built, `/` says how to build it.
None of this is in the OpenAPI document.
"""

from __future__ import annotations

import mimetypes
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from starlette.datastructures import Headers, URLPath
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Match, NoMatchFound, get_route_path
from starlette.types import Receive, Scope, Send

# Paths the server answers itself: an unknown one stays a JSON 404, never the page.
SERVER_PATHS = ("/api", "/docs", "/redoc", "/openapi.json", "/healthz")
PAGE_METHODS = ("GET", "HEAD")
ASSETS = "assets"

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"

# Fixed here rather than read from the system's mime.types, which differ between machines
# (and a script served with the wrong type is refused under `X-Content-Type-Options: nosniff`).
MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".ico": "image/x-icon",
    ".woff": "font/woff",
    ".woff2": "font/woff2",
    ".ttf": "font/ttf",
    ".txt": "text/plain; charset=utf-8",
    ".webmanifest": "application/manifest+json",
}

NOT_BUILT_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Data Agent</title>
</head>
<body>
<h1>Data Agent</h1>
<p>The server is running, but the web page has not been built yet.
Run <code>make web</code> (it needs Node 20) and reload this page.</p>
<ul>
<li><a href="/docs">API documentation</a> (<a href="/openapi.json">OpenAPI document</a>)</li>
<li><a href="/api/health">Health check</a></li>
</ul>
</body>
</html>
"""


def is_under(path: str, prefixes: Iterable[str]) -> bool:
    """True when `path` is one of `prefixes` or lies below one (`/docs/x`, not `/docsx`)."""
    return any(path == prefix or path.startswith(prefix + "/") for prefix in prefixes)


def is_server_path(path: str) -> bool:
    """True for the paths the server answers itself (the API, its docs, health)."""
    return is_under(path, SERVER_PATHS)


def media_type(path: Path) -> str:
    """The media type a built file is served with."""
    suffix = path.suffix.lower()
    if suffix in MEDIA_TYPES:
        return MEDIA_TYPES[suffix]
    return mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def built_file(root: Path, url_path: str) -> Path | None:
    """The file under `root` a URL path names, or None: never a file outside `root`."""
    parts = [part for part in url_path.split("/") if part]
    # No dot segments or hidden files, no NUL: `..` cannot climb, `.vite/` is not served.
    if not parts or any(part.startswith(".") or "\x00" in part for part in parts):
        return None
    try:
        base = root.resolve()
        candidate = base.joinpath(*parts).resolve()
    except (OSError, ValueError):
        return None
    # After resolving symlinks too: a link pointing out of the build is not followed.
    if not candidate.is_relative_to(base) or not candidate.is_file():
        return None
    return candidate


def _file_response(path: Path, cache_control: str, request: Headers) -> Response:
    try:
        stat = os.stat(path)
    except OSError:
        raise HTTPException(status_code=404) from None
    response = FileResponse(
        path,
        media_type=media_type(path),
        headers={"Cache-Control": cache_control},
        stat_result=stat,
    )
    etag = response.headers["etag"]
    wanted = [tag.strip() for tag in request.get("if-none-match", "").split(",")]
    if etag in wanted or "*" in wanted:
        return Response(status_code=304, headers={"ETag": etag, "Cache-Control": cache_control})
    return response


def page_response(root: Path, url_path: str, request: Headers) -> Response:
    """What a GET of a page path answers: a built file, `index.html`, or the not-built page."""
    index = root / "index.html"
    if not index.is_file():
        if url_path == "/":
            return HTMLResponse(NOT_BUILT_PAGE, headers={"Cache-Control": REVALIDATE})
        raise HTTPException(status_code=404)
    found = built_file(root, url_path)
    if found is not None:
        hashed = found.is_relative_to(root.resolve() / ASSETS)
        return _file_response(found, IMMUTABLE if hashed else REVALIDATE, request)
    if url_path == f"/{ASSETS}" or url_path.startswith(f"/{ASSETS}/"):
        # A missing script is a 404, not the page: HTML served as JavaScript only confuses.
        raise HTTPException(status_code=404)
    return _file_response(index, REVALIDATE, request)


class WebPageRoute(BaseRoute):
    """The last route: every GET/HEAD path outside the server's own answered by the page.

    Other methods on those paths get 405 with `Allow: GET, HEAD`; the server's own paths
    never match here, so an unknown `/api/...` stays the JSON 404.
    """

    def __init__(self, web_dir: Path) -> None:
        self.web_dir = web_dir
        # FastAPI documents only its own APIRoutes; this is said for readers and tools.
        self.include_in_schema = False

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        """FULL for a page path read with GET/HEAD, PARTIAL (405) with another method."""
        if scope["type"] != "http" or is_server_path(get_route_path(scope)):
            return Match.NONE, {}
        if scope["method"] not in PAGE_METHODS:
            return Match.PARTIAL, {}
        return Match.FULL, {}

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer with the page, or 405 for a method the page does not take."""
        if scope["method"] not in PAGE_METHODS:
            raise HTTPException(status_code=405, headers={"Allow": ", ".join(PAGE_METHODS)})
        response = page_response(self.web_dir, get_route_path(scope), Headers(scope=scope))
        await response(scope, receive, send)

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        """Not reversible by name (a catch-all has no URL of its own)."""
        raise NoMatchFound(name, path_params)
