"""Every route's validation errors name the fields as the request wrote them, in plain
sentences: never a validator's Python repr (`function-after[functools.partial(<function ...
at 0x7f...>)]`, `constrained-str`) nor a union's branch or tag."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from tests.integration.api.conftest import World

FORBIDDEN = ("<function", "0x", "functools", "constrained-", "function-after", "function-before")
# Values no field of any schema accepts: a list where a string, number or object is wanted,
# and (inside it) a list again where a list of strings is wanted.
WRONG = [[]]


def _names(document: dict[str, Any]) -> set[str]:
    """Every name the document gives a request's parts: parameters and schema properties."""
    names: set[str] = {"body"}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                names.update(node["properties"])
            if node.get("in") in ("query", "path", "header", "cookie") and "name" in node:
                names.add(node["name"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(document)
    return names


def _wrong_body(schema: dict[str, Any], components: dict[str, Any]) -> Any:
    """A body with every property of the schema (and of each of its branches) wrong."""
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    body: dict[str, Any] = {}
    for branch in [schema, *schema.get("oneOf", []), *schema.get("anyOf", [])]:
        if "$ref" in branch:
            branch = components[branch["$ref"].rsplit("/", 1)[1]]
        for name in branch.get("properties", {}):
            body[name] = WRONG
    return body


def _bad_details(response: Any, names: set[str]) -> list[str]:
    body = response.json()
    text = response.text
    problems = [f"repr {word!r} in {text}" for word in FORBIDDEN if word in text]
    for detail in body["error"].get("details") or []:
        if not isinstance(detail, dict) or "field" not in detail:
            continue
        for part in detail["field"].split("."):
            if not (part.isdigit() or part in names):
                problems.append(f"field {detail['field']!r} is not the request's own")
    return problems


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_every_routes_validation_errors_name_the_requests_own_fields(world: World) -> None:
    document = (await world.anon.get("/openapi.json")).json()
    components = document["components"]["schemas"]
    names = _names(document)
    client = world.admin.client  # every permission: what fails is the input
    problems: list[str] = []
    checked = 0
    for template, operations in document["paths"].items():
        for method, operation in operations.items():
            if operation["operationId"] == "logout":  # it would sign the admin out
                continue
            params = operation.get("parameters", [])
            path = re.sub(r"\{[^}]+\}", "not-a-uuid", template)
            query = {p["name"]: "[[]]" for p in params if p["in"] == "query"}
            headers = {p["name"]: "-1" for p in params if p["in"] == "header"}
            content = operation.get("requestBody", {}).get("content", {})
            body = None
            if "application/json" in content:
                body = _wrong_body(content["application/json"]["schema"], components)
            for variant in (
                {"params": query, "headers": headers, "json": body},
                # The same body with valid ids in the path: the body's own errors.
                {
                    "json": body,
                    "url": re.sub(r"\{[^}]+\}", str(uuid.uuid4()), template),
                },
            ):
                url = variant.pop("url", path)
                if variant.get("json") is None:
                    variant.pop("json", None)
                response = await client.request(method.upper(), url, **variant)  # type: ignore[arg-type]
                if response.status_code != 400:
                    continue
                checked += 1
                assert response.json()["error"]["code"] == "VALIDATION_ERROR"
                problems += [
                    f"{method.upper()} {template}: {p}" for p in _bad_details(response, names)
                ]
    assert checked > 50
    assert problems == []


async def test_llm_settings_error_names_the_field_in_plain_words(world: World) -> None:
    response = await world.admin.client.put(
        "/api/settings/llm", json={"provider": "anthropic", "reasoningLevel": 0}
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == [
        {
            "field": "reasoningLevel",
            "message": "Input should be 'adaptive'; or Input should be greater than or equal "
            "to 1024",
        }
    ]
    # The schema says the same: a discriminated oneOf, anthropic's budget at least 1024.
    schemas = (await world.anon.get("/openapi.json")).json()["components"]["schemas"]
    anthropic = schemas["AnthropicSettingsUpdate"]["properties"]["reasoningLevel"]
    assert {"type": "integer", "minimum": 1024, "maximum": 128000} in [
        {k: v for k, v in branch.items() if k in ("type", "minimum", "maximum")}
        for branch in anthropic["anyOf"]
    ]
