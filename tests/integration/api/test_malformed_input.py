"""Malformed input gets a 4xx with an error code and a sentence, never a 500."""

from __future__ import annotations

import json
import random
import uuid

import pytest
from tests.integration.api.conftest import World

from dataagent.api.schemas import HAS_TEXT


def _random_json(rng: random.Random, depth: int = 0) -> object:
    """A random JSON value: scalars of every type, nested lists and objects."""
    kind = rng.randrange(8 if depth < 2 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 2**63, rng.randint(-1000, 1000)])
    if kind == 3:
        return rng.choice([0.5, -1e308, 1e-9])
    if kind == 4:
        return rng.choice(["", " ", "x" * 300, "\u0000", "名前", "' OR 1=1 --", str(uuid.uuid4())])
    if kind == 5:
        return [_random_json(rng, depth + 1) for _ in range(rng.randrange(3))]
    keys = ["name", "ontologyId", "content", "llmProvider", "email", "password", "extra"]
    return {rng.choice(keys): _random_json(rng, depth + 1) for _ in range(rng.randrange(4))}


def _assert_error(response, status: int | tuple[int, ...], code: str | None = None) -> None:  # type: ignore[no-untyped-def]
    statuses = status if isinstance(status, tuple) else (status,)
    assert response.status_code in statuses, (response.status_code, response.text)
    error = response.json()["error"]
    assert error["message"]
    if code:
        assert error["code"] == code


@pytest.mark.parametrize(
    "params",
    [
        {"pageSize": 0},
        {"pageSize": 101},
        {"pageSize": -5},
        {"pageSize": "ten"},
        {"page": 0},
        {"page": "x"},
        {"sortBy": "password"},
        {"sortOrder": "sideways"},
        {"ontologyId": "123"},
        {"search": "x" * 300},
    ],
)
async def test_bad_query_parameters(world: World, params: dict[str, object]) -> None:
    response = await world.contributor.client.get("/api/data-agent/chats", params=params)
    _assert_error(response, 400, "VALIDATION_ERROR")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/api/data-agent/chats/not-a-uuid"),
        ("PATCH", "/api/data-agent/chats/123"),
        ("DELETE", "/api/data-agent/chats/zzz"),
        ("GET", "/api/data-agent/chats/%27%20OR%201=1--/messages"),
        ("GET", "/api/users/1"),
    ],
)
async def test_bad_uuids_in_paths(world: World, method: str, path: str) -> None:
    response = await world.admin.client.request(method, path, json={"name": "x"})
    _assert_error(response, 400, "VALIDATION_ERROR")


async def test_invalid_json_and_wrong_content_type(world: World) -> None:
    client = world.contributor.client
    broken = await client.post(
        "/api/data-agent/chats",
        content=b'{"name": "x", ',
        headers={"content-type": "application/json"},
    )
    _assert_error(broken, 400, "VALIDATION_ERROR")
    text = await client.post(
        "/api/data-agent/chats", content=b"name=x", headers={"content-type": "text/plain"}
    )
    _assert_error(text, 400, "VALIDATION_ERROR")
    array = await client.post("/api/data-agent/chats", json=[1, 2, 3])
    _assert_error(array, 400, "VALIDATION_ERROR")


async def test_unknown_fields_are_refused(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    response = await world.contributor.client.post(
        "/api/data-agent/chats",
        json={"name": "x", "ontologyId": str(ontology_id), "ownerId": str(uuid.uuid4())},
    )
    _assert_error(response, 400, "VALIDATION_ERROR")
    assert "ownerId" in response.text


async def test_huge_bodies_are_413(world: World) -> None:
    client = world.contributor.client
    huge = json.dumps({"content": "x" * 200_000})
    response = await client.post(
        f"/api/data-agent/chats/{uuid.uuid4()}/messages",
        content=huge,
        headers={"content-type": "application/json"},
    )
    _assert_error(response, 413, "PAYLOAD_TOO_LARGE")

    async def chunks():  # type: ignore[no-untyped-def]
        for _ in range(100):
            yield b"x" * 10_000

    streamed = await client.post(
        "/api/data-agent/chats", content=chunks(), headers={"content-type": "application/json"}
    )
    _assert_error(streamed, 413, "PAYLOAD_TOO_LARGE")


async def test_unknown_route_and_wrong_method(world: World) -> None:
    _assert_error(await world.contributor.client.get("/api/nothing-here"), 404, "NOT_FOUND")
    wrong = await world.contributor.client.put("/api/data-agent/chats")
    _assert_error(wrong, 405, "METHOD_NOT_ALLOWED")
    # Every method the path serves, not only the first route's (Starlette's own answer).
    assert wrong.headers["allow"] == "GET, POST"
    assert wrong.json()["error"]["message"] == "PUT is not allowed here; this path takes GET, POST."
    item = await world.contributor.client.put(f"/api/data-agent/chats/{uuid.uuid4()}")
    _assert_error(item, 405, "METHOD_NOT_ALLOWED")
    assert item.headers["allow"] == "DELETE, GET, PATCH"
    page = await world.anon.post("/")  # outside the OpenAPI document: the web page's route
    _assert_error(page, 405, "METHOD_NOT_ALLOWED")
    assert page.headers["allow"] == "GET, HEAD"


async def test_the_schema_states_the_rules_the_routes_enforce(world: World) -> None:
    """What OpenAPI declares valid is accepted: cross-field rules are written into it."""
    schema = (await world.anon.get("/openapi.json")).json()["components"]["schemas"]
    assert schema["QueryInput"]["oneOf"] == [
        {"required": ["connectionId"]},
        {"required": ["ontologyId"]},
    ]
    assert schema["ChatUpdate"]["properties"]["name"]["type"] == "string"  # never null
    plan = schema["CompileInput"]["properties"]["plan"]
    assert plan["allOf"][0] == {"$ref": "#/components/schemas/QueryPlan"}
    compare_rule = plan["allOf"][1]
    assert compare_rule["if"]["required"] == ["compare"]
    assert compare_rule["then"]["required"] == ["time_window"]
    assert [branch["required"] for branch in plan["anyOf"]] == [
        ["metrics"],
        ["measures"],
        ["dimensions"],
    ]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_random_bodies_never_500(world: World) -> None:
    ontology_id = str(await world.make_ontology(world.contributor))
    client = world.contributor.client
    chat = await client.post("/api/data-agent/chats", json={"name": "x", "ontologyId": ontology_id})
    chat_id = chat.json()["data"]["id"]

    rng = random.Random(20261123)
    for _ in range(80):
        body = _random_json(rng)
        for method, path in (
            ("POST", "/api/data-agent/chats"),
            ("PATCH", f"/api/data-agent/chats/{chat_id}"),
            ("POST", f"/api/data-agent/chats/{chat_id}/messages"),
            ("POST", "/api/auth/login"),
        ):
            response = await client.request(method, path, json=body)
            assert response.status_code < 500, (method, path, body, response.text)
            if response.status_code >= 400:
                assert response.json()["error"]["code"]


async def test_nul_in_any_text_is_a_400_not_a_500(world: World) -> None:
    """PostgreSQL refuses NUL in text; every input says so up front, as the schema states.
    Each request is one its sender may make (a user is created by an admin), so the only
    thing wrong with it is the NUL."""
    client = world.contributor.client
    ontology_id = str(await world.make_ontology(world.contributor))
    for response in (
        await world.anon.post("/api/auth/login", json={"email": "a\u0000@b.co", "password": "x"}),
        await client.post(
            "/api/data-agent/chats", json={"name": "a\u0000", "ontologyId": ontology_id}
        ),
        await client.get("/api/data-agent/chats", params={"search": "a\u0000"}),
        await world.admin.client.post(
            "/api/users", json={"email": "x@y.z", "password": "p\u0000ssword"}
        ),
        await world.admin.client.patch(
            f"/api/users/{world.viewer.id}", json={"password": "p\u0000ssword"}
        ),
    ):
        _assert_error(response, 400, "VALIDATION_ERROR")
    # Without the NUL the admin's requests are fine: the NUL is what was refused.
    created = await world.admin.client.post(
        "/api/users", json={"email": "x@y.z", "password": "pa ssword"}
    )
    assert created.status_code == 201, created.text
    schema = (await world.anon.get("/openapi.json")).json()["components"]["schemas"]
    assert schema["ChatCreate"]["properties"]["name"]["pattern"] == HAS_TEXT
    assert schema["QueryInput"]["properties"]["sql"]["pattern"] == HAS_TEXT


def _strings_without_a_pattern(
    schema: dict[str, object], components: dict[str, dict[str, object]], seen: set[str]
) -> list[dict[str, object]]:
    """Every string schema a body may hold (nested models and list items included) that
    states no pattern. `if`/`then` branches only add rules to properties counted already."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        if name in seen:
            return []
        seen.add(name)
        return _strings_without_a_pattern(components[name], components, seen)
    found = [schema] if schema.get("type") == "string" and "pattern" not in schema else []
    properties = schema.get("properties", {})
    assert isinstance(properties, dict)
    parts = [*properties.values(), schema.get("items"), schema.get("additionalProperties")]
    for key in ("anyOf", "oneOf", "allOf"):
        parts.extend(schema.get(key, ()))  # type: ignore[arg-type]
    for part in parts:
        if isinstance(part, dict):
            found += _strings_without_a_pattern(part, components, seen)
    return found


async def test_the_schema_states_the_nul_rule_on_every_string_of_a_json_body(
    world: World,
) -> None:
    document = (await world.anon.get("/openapi.json")).json()
    components = document["components"]["schemas"]
    bodies = [
        operation["requestBody"]["content"]["application/json"]["schema"]
        for operation_by_method in document["paths"].values()
        for operation in operation_by_method.values()
        if "application/json" in operation.get("requestBody", {}).get("content", {})
    ]
    assert len(bodies) > 10
    for body in bodies:
        assert _strings_without_a_pattern(body, components, set()) == [], body
    # Nested strings, as the schema now says: a list item, a plan's field.
    client = world.contributor.client
    ontology_id = await world.make_ontology(world.contributor)
    for path, body in (
        (f"/api/ontologies/{ontology_id}/join-paths", {"datasets": ["customers", "a\u0000"]}),
        (
            f"/api/ontologies/{ontology_id}/compile",
            {"plan": {"datasets": ["customers"], "dimensions": [{"field": "customers.\u0000"}]}},
        ),
    ):
        _assert_error(await client.post(path, json=body), 400, "VALIDATION_ERROR")
