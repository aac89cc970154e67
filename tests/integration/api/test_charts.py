"""Charts end to end: made through the service or the agent's tool, kept in the app database,
served to their owner only (bearer token or session cookie), on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from tests.integration.api.conftest import World

from dataagent.agent.chart_tool import make_chart_tool
from dataagent.auth.tokens import COOKIE_NAME, issue_token
from dataagent.charts import ChartRequest
from dataagent.charts.render import PNG_SIGNATURE, render_png
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.services import charts
from dataagent.store.models import Chart

REQUEST = ChartRequest(
    chart_type="bar",
    title="Revenue by region",
    data=[{"region": "North", "revenue": 1200}, {"region": "South", "revenue": 900}],
    x="region",
    y=["revenue"],
)
# The smallest JPEG header a check by signature accepts; it is not drawn, only served.
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 64


async def a_chart(world: World, owner_id: uuid.UUID, message_id: uuid.UUID | None = None) -> Chart:
    return await charts.create_chart(world.context, owner_id, message_id, REQUEST)


def cookie_client(world: World, user_id: uuid.UUID) -> httpx.AsyncClient:
    """A client that signs in the way a browser's <img> does: with the cookie only."""
    token, _ = issue_token(user_id, 0, world.context.secret_key, 60)
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=world.app),
        base_url="http://test",
        cookies={COOKIE_NAME: token},
    )


async def test_the_owner_reads_the_image_and_its_description(world: World) -> None:
    chart = await a_chart(world, world.contributor.id)
    image = await world.contributor.client.get(f"/api/charts/{chart.id}.png")
    assert image.status_code == 200
    assert image.headers["content-type"] == "image/png"
    assert image.headers["cache-control"] == "private, max-age=86400"
    assert image.headers["x-content-type-options"] == "nosniff"
    assert image.content.startswith(PNG_SIGNATURE)
    assert image.content == chart.content

    described = await world.contributor.client.get(f"/api/charts/{chart.id}")
    assert described.status_code == 200
    body = described.json()["data"]
    assert body["id"] == str(chart.id)
    assert body["title"] == "Revenue by region"
    assert body["url"] == f"/api/charts/{chart.id}.png"
    assert body["mediaType"] == "image/png"
    assert body["messageId"] is None
    assert body["createdAt"]
    assert body["spec"]["mark"]["type"] == "bar"
    assert body["spec"]["data"]["values"] == [
        {"region": "North", "revenue": 1200},
        {"region": "South", "revenue": 900},
    ]


async def test_the_session_cookie_is_enough_and_nothing_is_not(world: World) -> None:
    chart = await a_chart(world, world.contributor.id)
    async with cookie_client(world, world.contributor.id) as browser:
        image = await browser.get(f"/api/charts/{chart.id}.png")
        assert image.status_code == 200
        assert image.content == chart.content
        assert (await browser.get(f"/api/charts/{chart.id}")).status_code == 200
    anonymous = await world.anon.get(f"/api/charts/{chart.id}.png")
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["code"] == "UNAUTHORIZED"


async def test_another_users_chart_is_not_found_exactly_like_a_missing_one(world: World) -> None:
    chart = await a_chart(world, world.contributor.id)
    missing = uuid.uuid4()
    for suffix in (".png", ""):
        theirs = await world.other.client.get(f"/api/charts/{chart.id}{suffix}")
        absent = await world.other.client.get(f"/api/charts/{missing}{suffix}")
        assert theirs.status_code == absent.status_code == 404
        assert (
            theirs.json()
            == absent.json()
            == {"error": {"code": "NOT_FOUND", "message": "Chart not found."}}
        )
    async with cookie_client(world, world.other.id) as browser:
        assert (await browser.get(f"/api/charts/{chart.id}.png")).status_code == 404
    # An admin has every permission but is not the owner either.
    assert (await world.admin.client.get(f"/api/charts/{chart.id}.png")).status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        "/api/charts/not-a-uuid.png",
        "/api/charts/not-a-uuid",
        "/api/charts/123",
        "/api/charts/%27%20OR%201=1--.png",
    ],
)
async def test_bad_ids_are_validation_errors(world: World, path: str) -> None:
    response = await world.contributor.client.get(path)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


async def test_a_chart_id_with_another_suffix_is_not_an_image_route(world: World) -> None:
    chart = await a_chart(world, world.contributor.id)
    response = await world.contributor.client.get(f"/api/charts/{chart.id}.svg")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"


async def test_a_viewer_reads_its_own_charts(world: World) -> None:
    chart = await a_chart(world, world.viewer.id)
    image = await world.viewer.client.get(f"/api/charts/{chart.id}.png")
    assert image.status_code == 200
    assert (await world.viewer.client.get(f"/api/charts/{chart.id}")).status_code == 200


async def test_images_drawn_elsewhere_keep_their_type_and_refusals(world: World) -> None:
    async with world.database.session() as session:
        jpeg = await charts.save_image(
            session, world.contributor.id, None, JPEG, "A photo", media_type="IMAGE/JPEG"
        )
        await session.commit()
        refused = [
            (b"<svg onload=alert(1)>", "image/svg+xml", ErrorCode.VALIDATION_ERROR),
            (b"<html>", "text/html", ErrorCode.VALIDATION_ERROR),
            (b"<html>", "image/png", ErrorCode.VALIDATION_ERROR),
            (JPEG, "image/png", ErrorCode.VALIDATION_ERROR),
            (b"RIFF\x00\x00\x00\x00WAVE", "image/webp", ErrorCode.VALIDATION_ERROR),
            (
                PNG_SIGNATURE + b"\x00" * (10 * 1024 * 1024),
                "image/png",
                ErrorCode.PAYLOAD_TOO_LARGE,
            ),
        ]
        for content, media_type, code in refused:
            with pytest.raises(DataAgentError) as caught:
                await charts.save_image(
                    session, world.contributor.id, None, content, "x", media_type
                )
            assert caught.value.code == code, media_type
        long_title = await charts.save_image(
            session, world.contributor.id, None, JPEG, "t" * 300, "image/jpeg"
        )
        assert long_title.title is not None and len(long_title.title) == 255
    image = await world.contributor.client.get(f"/api/charts/{jpeg.id}.png")
    assert image.status_code == 200
    assert image.headers["content-type"] == "image/jpeg"
    assert image.content == JPEG
    described = (await world.contributor.client.get(f"/api/charts/{jpeg.id}")).json()["data"]
    assert (described["mediaType"], described["spec"]) == ("image/jpeg", None)


async def test_charts_belong_to_their_message_and_go_with_it(world: World) -> None:
    client = world.contributor.client
    ontology_id = str(await world.make_ontology(world.contributor))
    chat = (
        await client.post("/api/data-agent/chats", json={"name": "c", "ontologyId": ontology_id})
    ).json()["data"]
    pair = await client.post(
        f"/api/data-agent/chats/{chat['id']}/messages", json={"content": "Revenue by region?"}
    )
    message_id = uuid.UUID(pair.json()["data"]["assistantMessage"]["id"])
    chart = await a_chart(world, world.contributor.id, message_id)
    body = (await client.get(f"/api/charts/{chart.id}")).json()["data"]
    assert body["messageId"] == str(message_id)
    async with world.database.session() as session:
        mine = await charts.charts_of_message(session, world.contributor.id, message_id)
        theirs = await charts.charts_of_message(session, world.other.id, message_id)
    assert [c.id for c in mine] == [chart.id]
    assert theirs == []

    assert (await client.delete(f"/api/data-agent/chats/{chat['id']}")).status_code == 204
    assert (await client.get(f"/api/charts/{chart.id}.png")).status_code == 404


async def test_the_png_is_the_stored_spec_drawn(world: World) -> None:
    """One chart, one source: the kept image is the kept Vega-Lite spec, drawn."""
    chart = await a_chart(world, world.contributor.id)
    assert chart.spec is not None
    assert chart.content == render_png(chart.spec)


async def test_a_chart_not_drawn_in_time_is_an_error_and_kept_nowhere(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(charts, "RENDER_TIMEOUT_S", 1e-9)
    with pytest.raises(DataAgentError) as caught:
        await a_chart(world, world.contributor.id)
    assert caught.value.code is ErrorCode.INTERNAL_ERROR
    assert "was not drawn within" in caught.value.message
    async with world.database.session() as session:
        kept = await session.scalars(select(Chart).where(Chart.owner_id == world.contributor.id))
        assert kept.all() == []


# --- the agent's tool ------------------------------------------------------------------


async def test_the_tool_makes_a_chart_and_reports_it(world: World) -> None:
    reported: list[dict[str, Any]] = []

    async def on_chart(payload: dict[str, Any]) -> None:
        reported.append(payload)

    tool = make_chart_tool(world.context, world.contributor.id, None, on_chart)
    assert tool.name == "create_chart"
    rows = [{"region": f"r{i:02}", "revenue": i} for i in range(20)]
    answer = await tool.ainvoke(
        {
            "chart_type": "bar",
            "title": "Revenue [2024]",
            "data": rows,
            "x": "region",
            "y": "revenue",
        }
    )
    assert len(reported) == 1
    payload = reported[0]
    assert set(payload) == {"id", "url", "title", "chartType", "spec"}
    assert payload["url"] == f"/api/charts/{payload['id']}.png"
    assert (payload["title"], payload["chartType"]) == ("Revenue [2024]", "bar")
    assert payload["spec"]["data"]["values"][-1] == {"region": "Other", "revenue": sum(range(6))}
    assert answer == (
        f"![Revenue \\[2024\\]]({payload['url']})\n"
        "Bar chart of 15 categories (revenue by region); the 6 smallest categories are summed "
        'into "Other".'
    )
    image = await world.contributor.client.get(payload["url"])
    assert image.status_code == 200
    assert image.content.startswith(PNG_SIGNATURE)


async def test_the_tool_makes_a_scatter_chart_of_every_point(world: World) -> None:
    reported: list[dict[str, Any]] = []

    async def on_chart(payload: dict[str, Any]) -> None:
        reported.append(payload)

    tool = make_chart_tool(world.context, world.contributor.id, None, on_chart)
    rows = [{"store": f"s{i:02}", "sqft": 30_000 + 500 * i, "orders": 2_000 + i} for i in range(20)]
    answer = await tool.ainvoke(
        {
            "chart_type": "scatter",
            "title": "Orders against floor area",
            "data": rows,
            "x": "sqft",
            "y": "orders",
            "label": "store",
        }
    )
    (payload,) = reported
    assert payload["chartType"] == "scatter"
    assert payload["spec"]["data"]["values"] == [
        {"sqft": r["sqft"], "orders": r["orders"], "store": r["store"]} for r in rows
    ]
    assert answer == (
        f"![Orders against floor area]({payload['url']})\n"
        "Scatter chart of 20 points (orders against sqft, each a store)."
    )
    image = await world.contributor.client.get(payload["url"])
    assert image.content.startswith(PNG_SIGNATURE)
    assert image.content == render_png(payload["spec"])


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            {
                "chart_type": "scatter",
                "title": "t",
                "data": [{"a": "x", "b": 1}],
                "x": "a",
                "y": ["b"],
            },
            "A scatter chart's x column 'a' must hold numbers, but row 1 has 'x'",
        ),
        (
            {"chart_type": "bar", "title": "t", "data": [{"a": "x", "b": 1}], "x": "a", "y": ["c"]},
            "Unknown column 'c' in y: the data has the columns 'a', 'b'.",
        ),
        (
            {
                "chart_type": "bar",
                "title": "t",
                "data": [{"a": "x", "b": "n/a"}],
                "x": "a",
                "y": ["b"],
            },
            "The y column 'b' must hold numbers, but row 1 has 'n/a'",
        ),
        (
            {
                "chart_type": "donut",
                "title": "t",
                "data": [{"a": "x", "b": 1}],
                "x": "a",
                "y": ["b"],
            },
            "chart_type: Input should be 'bar', 'line', 'pie', 'stacked_bar' or 'scatter'.",
        ),
        ({"chart_type": "bar", "title": "t"}, "data: Field required."),
    ],
)
async def test_invalid_arguments_come_back_to_the_model_as_text(
    world: World, args: dict[str, Any], expected: str
) -> None:
    reported: list[dict[str, Any]] = []

    async def on_chart(payload: dict[str, Any]) -> None:
        reported.append(payload)

    tool = make_chart_tool(world.context, world.contributor.id, None, on_chart)
    answer = await tool.ainvoke(args)
    assert isinstance(answer, str)
    assert answer.startswith("Error (VALIDATION_ERROR): the chart was not made. ")
    assert expected in answer
    assert reported == []
    async with world.database.session() as session:
        kept = await session.scalars(select(Chart).where(Chart.owner_id == world.contributor.id))
        assert kept.all() == []


async def test_a_tool_call_with_bad_arguments_is_an_error_message_not_an_exception(
    world: World,
) -> None:
    async def on_chart(payload: dict[str, Any]) -> None:
        raise AssertionError("no chart was made")

    tool = make_chart_tool(world.context, world.contributor.id, None, on_chart)
    call = {
        "type": "tool_call",
        "id": "call_1",
        "name": "create_chart",
        "args": {
            "chart_type": "pie",
            "title": "t",
            "data": [{"k": "a", "v": -1}],
            "x": "k",
            "y": ["v"],
        },
    }
    message = await tool.ainvoke(call)
    assert message.status == "error"
    assert message.tool_call_id == "call_1"
    assert "negative values" in message.content
