"""The connection schemas state per dialect what a URL must hold, on POST as on PATCH: what
the document accepts, the server accepts, and what it refuses, the server refuses."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from pydantic import ValidationError
from tests.integration.api.conftest import World

from dataagent.api.app import openapi_document
from dataagent.sources.engines import ConnectionSpec

URLS = [
    "duckdb://",
    "duckdb:///",
    "duckdb:///x.db",
    "duckdb:////abs/x.db",
    "duckdb://x.db",
    "duckdb:///x.db?mode=ro",
    "sqlite:///a.db",
    "postgresql://",
    "postgresql://h",
    "postgresql://h/",
    "postgresql://h/db",
    "postgresql:///db",
    "postgresql://u@/db",
    "postgresql://@h/db",
    "postgresql://u:p@h:5432/db?sslmode=require",
    "postgresql://[::1]:5432/db",
    "postgresql://u:p@[::1]/db",
    "postgresql://[::1/db",
    "postgresql://h:99999/db",
    "postgresql://h:65535/db",
    "postgresql://h:0/db",
    "postgresql://h:/db",
    "postgresql://h:abc/db",
    "postgresql://h?x=1",
    "postgresql://h/db#f",
    "postgresql://h/%2F",
    "postgres://h/db",
    "mysql://h/db",
    "mysql+pymysql://h/d",
]
EXTRAS = [{}, {"database": "x.db"}, {"host": "h"}, {"host": "h", "database": "d"}]
DIALECTS = ["duckdb", "sqlite", "postgresql", "mysql"]


def _fits(value: Any, rule: dict[str, Any]) -> bool:
    """One property's value against the few keywords the URL rules use."""
    if "type" in rule:
        kind = {"string": str, "null": type(None)}[rule["type"]]
        if not isinstance(value, kind):
            return False
    if "enum" in rule and value not in rule["enum"]:
        return False
    if "const" in rule and value != rule["const"]:
        return False
    pattern = rule.get("pattern")
    return not (pattern and isinstance(value, str) and not re.search(pattern, value))


def _satisfies(body: dict[str, Any], schema: dict[str, Any]) -> bool:
    """JSON Schema's `required`, `properties`, `if`/`then` and `allOf`, as far as used here."""
    if any(name not in body for name in schema.get("required", [])):
        return False
    for name, rule in schema.get("properties", {}).items():
        if name in body and not _fits(body[name], rule):
            return False
    if "if" in schema and _satisfies(body, schema["if"]) and not _satisfies(body, schema["then"]):
        return False
    return all(_satisfies(body, part) for part in schema.get("allOf", []))


def _spec_accepts(body: dict[str, Any]) -> bool:
    fields = {k: v for k, v in body.items() if k != "name"}
    try:
        ConnectionSpec(**fields)
    except (ValidationError, ValueError):
        return False
    return True


@pytest.mark.parametrize("schema_name", ["ConnectionCreate", "ConnectionUpdate"])
def test_the_schema_and_the_spec_agree_on_every_url(schema_name: str) -> None:
    schema = openapi_document()["components"]["schemas"][schema_name]
    disagree = []
    for dialect, url, extra in itertools.product(DIALECTS, URLS, EXTRAS):
        body = {"name": "n", "dialect": dialect, "url": url, **extra}
        if _satisfies(body, schema) != _spec_accepts(body):
            disagree.append((body, _satisfies(body, schema)))
    assert disagree == []


async def test_a_url_without_a_path_is_refused_as_the_schema_says(world: World) -> None:
    body = {"name": "n", "dialect": "duckdb", "url": "duckdb://"}
    schemas = (await world.anon.get("/openapi.json")).json()["components"]["schemas"]
    assert not _satisfies(body, schemas["ConnectionCreate"])
    response = await world.contributor.client.post("/api/connections", json=body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    update = {"dialect": "duckdb", "url": "duckdb://"}
    assert not _satisfies(update, schemas["ConnectionUpdate"])


HOSTS = [
    "db.example.com",
    "db.example.com.",
    "127.0.0.1",
    "::1",
    "[::1]",
    "fe80::1%eth0",
    "h_1",
    "xn--bcher-kva.de",
    "a" * 63,
    "a" * 64,
    "a..b",
    ".",
    ".a",
    "\u00f8\u0087",
    "b\u00fccher.de",
    "h 1",
]


def test_a_host_the_schema_accepts_the_spec_accepts() -> None:
    """schemathesis found hosts the document allowed and the server refused (IDNA): the
    document now states the host's form, and whatever fits it the server takes."""
    document = openapi_document()
    for schema_name in ("ConnectionCreate", "ConnectionUpdate"):
        rule = document["components"]["schemas"][schema_name]["properties"]["host"]
        pattern = next(part["pattern"] for part in rule["anyOf"] if "pattern" in part)
        accepted = [host for host in HOSTS if re.search(pattern, host)]
        assert accepted == HOSTS[:9], schema_name
        for host in accepted:
            ConnectionSpec(dialect="postgresql", host=host, database="d")


async def test_a_host_outside_the_schema_is_refused_by_the_api(world: World) -> None:
    client = world.admin.client
    body = {"name": "h", "dialect": "postgresql", "host": "\u00f8\u0087", "database": "d"}
    response = await client.post("/api/connections", json=body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and "host" in str(error), error
