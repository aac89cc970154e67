"""A request body's booleans and integers are JSON's, as the OpenAPI document states them:
`0`, `"no"` or `"5"` where it says boolean or integer is a 400, not read as false or 5
(schemathesis found `PATCH /api/users/{id}` with `{"isActive": 0}` deactivating the user)."""

from __future__ import annotations

import pytest
from tests.integration.api.conftest import World


@pytest.mark.parametrize("value", [0, 1, "no", "false", "true", None])
async def test_a_flag_that_is_not_a_boolean_is_refused(world: World, value: object) -> None:
    url = f"/api/users/{world.viewer.id}"
    refused = await world.admin.client.patch(url, json={"isActive": value})
    if value is None:  # the schema allows null: the user stays as they are
        assert refused.status_code == 200 and refused.json()["data"]["isActive"] is True
        return
    assert refused.status_code == 400, refused.text
    error = refused.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert error["details"] == [{"field": "isActive", "message": "Input should be a valid boolean"}]
    user = await world.admin.client.get(url)
    assert user.json()["data"]["isActive"] is True


async def test_numbers_and_flags_of_queries_are_json_types(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    client = world.contributor.client
    query = {"ontologyId": str(ontology_id), "sql": "SELECT name FROM customers"}
    for bad in ("1", True, 1.5):
        refused = await client.post("/api/query", json={**query, "maxRows": bad})
        assert refused.status_code == 400, (bad, refused.text)
        assert refused.json()["error"]["details"][0]["field"] == "maxRows"
    # A whole number is an integer in JSON, whichever way it is written.
    for good in (1, 1.0):
        answered = await client.post("/api/query", json={**query, "maxRows": good})
        assert answered.status_code == 200, answered.text
        assert answered.json()["data"]["rowCount"] == 1

    plan = {"measures": [{"field": "customers.id", "aggregation": "count"}]}
    compile_url = f"/api/ontologies/{ontology_id}/compile"
    for body in ({"plan": plan, "execute": 1}, {"plan": plan, "maxRows": "5"}):
        refused = await client.post(compile_url, json=body)
        assert refused.status_code == 400, (body, refused.text)
    compiled = await client.post(compile_url, json={"plan": plan, "execute": True, "maxRows": 5})
    assert compiled.status_code == 200, compiled.text


async def test_the_document_states_the_json_types(world: World) -> None:
    schemas = (await world.anon.get("/openapi.json")).json()["components"]["schemas"]
    assert schemas["UserUpdate"]["properties"]["isActive"]["anyOf"][0] == {"type": "boolean"}
    integer = {"type": "integer", "minimum": 1, "maximum": 10_000}
    assert schemas["QueryInput"]["properties"]["maxRows"]["anyOf"][0] == integer
    assert schemas["CompileInput"]["properties"]["maxRows"]["anyOf"][0] == integer
