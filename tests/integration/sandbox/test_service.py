"""The sandbox as an HTTP service, and RemoteSandbox talking to it."""

from __future__ import annotations

import base64

import httpx
import pandas as pd
import pyarrow as pa
import pytest

from dataagent.api.sandbox_service import create_app
from dataagent.config import Settings
from dataagent.errors import ErrorCode
from dataagent.sandbox import LocalSandbox, RemoteSandbox
from dataagent.sandbox.tables import encode_frame

pytestmark = [pytest.mark.sandbox, pytest.mark.asyncio(loop_scope="module")]


async def test_execute_and_health_over_http(sandbox: LocalSandbox) -> None:
    app = create_app(Settings(), sandbox=sandbox)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://sandbox") as client:
        health = await client.get("/health")
        assert health.status_code == 200 and health.json()["mode"] == "bwrap"
        arrow = base64.b64encode(encode_frame(pd.DataFrame({"n": [1, 2, 3]}))).decode()
        body = {"code": "print(df['n'].sum())", "timeout": 5, "data": {"df": {"arrow": arrow}}}
        response = await client.post("/execute", json=body)
        assert response.status_code == 200
        payload = response.json()
        assert payload["stdout"] == "6\n" and payload["returnCode"] == 0
        assert {"stdout", "stderr", "returnCode", "files", "executionTimeMs"} <= set(payload)
        records = {"code": "print(len(rows))", "data": {"rows": {"records": [{"a": 1}, {"a": 2}]}}}
        assert (await client.post("/execute", json=records)).json()["stdout"] == "2\n"
        slow = await client.post("/execute", json={"code": "while True: pass", "timeout": 1})
        assert slow.status_code == 408 and slow.json()["error"]["code"] == "RUNNER_TIMEOUT"
        bad = await client.post("/execute", json={"code": "1", "data": {"import": {"records": []}}})
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "VALIDATION_ERROR"


async def test_seed_shape_a_list_of_records_per_table(sandbox: LocalSandbox) -> None:
    app = create_app(Settings(), sandbox=sandbox)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://sandbox") as client:
        body = {
            "code": "out = df.assign(total=df.col1 + df.col2)\nset_result(out)",
            "data": {"df": [{"col1": 1, "col2": 2}, {"col1": 3, "col2": 4}]},
        }
        response = await client.post("/execute", json=body)
    assert response.status_code == 200, response.text
    value = response.json()["value"]
    assert value["columns"] == ["col1", "col2", "total"]
    assert value["data"] == [[1, 2, 3], [3, 4, 7]]


def _duplicate_columns() -> str:
    table = pa.table([pa.array([1]), pa.array([2])], names=["a", "a"])
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return base64.b64encode(sink.getvalue().to_pybytes()).decode()


@pytest.mark.parametrize(
    "data",
    [
        [{"col1": 1}],  # a list where the tables go
        {"df": 5},
        {"df": "col1,col2\n1,2"},
        {"df": [1, 2]},
        {"df": [{"col1": 1}, None]},
        {"df": {}},
        {"df": {"rows": [{"col1": 1}]}},
        {"df": {"records": [{"col1": 1}], "arrow": ""}},
        {"df": {"records": {"col1": 1}}},
        {"df": {"arrow": 5}},
        {"df": {"arrow": "not base64!"}},
        {"df": {"arrow": base64.b64encode(b"not arrow").decode()}},
        {"df": {"arrow": _duplicate_columns()}},
        {"import": [{"col1": 1}]},
        {"pd": {"records": []}},
    ],
    ids=[
        "tables-not-an-object", "a-number", "a-string", "rows-not-objects", "a-null-row",
        "empty-object", "unknown-key", "two-shapes", "records-not-a-list", "arrow-not-a-string",
        "bad-base64", "not-arrow", "duplicate-columns", "keyword-name", "reserved-name",
    ],
)  # fmt: skip
async def test_malformed_data_is_refused_with_400(sandbox: LocalSandbox, data: object) -> None:
    app = create_app(Settings(), sandbox=sandbox)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://sandbox") as client:
        response = await client.post("/execute", json={"code": "print(1)", "data": data})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and error["message"]


async def test_body_that_is_not_json_is_refused_with_400(sandbox: LocalSandbox) -> None:
    app = create_app(Settings(), sandbox=sandbox)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://sandbox") as client:
        headers = {"content-type": "application/json"}
        response = await client.post("/execute", content=b'{"code": ', headers=headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


async def test_openapi_declares_the_three_table_shapes() -> None:
    schema = create_app(Settings(), sandbox=LocalSandbox(pool_size=0)).openapi()
    data = schema["components"]["schemas"]["ExecuteRequest"]["properties"]["data"]
    table = next(form for form in data["anyOf"] if form.get("type") == "object")
    shapes = table["additionalProperties"]["oneOf"]
    assert shapes[0]["type"] == "array" and shapes[0]["items"]["type"] == "object"
    assert [shape.get("$ref") for shape in shapes[1:]] == [
        "#/components/schemas/RecordsTable",
        "#/components/schemas/ArrowTable",
    ]
    components = schema["components"]["schemas"]
    assert components["RecordsTable"]["required"] == ["records"]
    assert components["ArrowTable"]["required"] == ["arrow"]


async def test_token_is_required_when_set(sandbox: LocalSandbox) -> None:
    app = create_app(Settings(), sandbox=sandbox, token="t0ken")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://sandbox") as client:
        assert (await client.post("/execute", json={"code": "1"})).status_code == 401
    remote = RemoteSandbox("http://sandbox", token="t0ken", transport=transport)
    try:
        assert (await remote.execute("print('ok')")).stdout == "ok\n"
    finally:
        await remote.aclose()


async def test_remote_sandbox_round_trip(sandbox: LocalSandbox) -> None:
    transport = httpx.ASGITransport(app=create_app(Settings(), sandbox=sandbox))
    remote = RemoteSandbox("http://sandbox", transport=transport)
    try:
        frame = pd.DataFrame({"x": [1.5, 2.5], "label": ["a", None]})
        code = (
            "import matplotlib.pyplot as plt\nplt.plot(df['x'])\nset_result(df.label.isna().sum())"
        )
        result = await remote.execute(code, {"current_data": frame})
        assert result.ok and result.value == 1
        assert [chart.filename for chart in result.charts] == ["figure_1.png"]
        timeout = await remote.execute("import time\ntime.sleep(30)", timeout_s=1)
        assert timeout.error is not None and timeout.error.code == ErrorCode.RUNNER_TIMEOUT
        assert await remote.health()
    finally:
        await remote.aclose()


async def test_unreachable_service_is_an_internal_error() -> None:
    remote = RemoteSandbox("http://127.0.0.1:9")  # discard port: nothing listens
    try:
        result = await remote.execute("print(1)", timeout_s=1)
        assert result.error is not None and result.error.code == ErrorCode.RUNNER_INTERNAL_ERROR
    finally:
        await remote.aclose()
