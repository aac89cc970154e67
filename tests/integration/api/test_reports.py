"""Reports of answers (seed 003): built from a ReAct answer's and a pipeline answer's
metadata, served as JSON and as one inert HTML file, to the owner of a complete answer only;
on SQLite and PostgreSQL."""

from __future__ import annotations

import base64
import re
import uuid
from datetime import datetime
from html.parser import HTMLParser
from typing import Any

import pytest
from tests.integration.api.conftest import Account, World

from dataagent.agent.pipeline.state import (
    Check,
    DataLineage,
    ExplainerOutput,
    LineageJoin,
    SqlResult,
    StepResult,
    VerificationReport,
)
from dataagent.api.schemas.reports import report_public
from dataagent.charts import ChartRequest
from dataagent.services import charts, chats
from dataagent.services.report_html import render_html
from dataagent.services.reports import MarkdownBlock, build_report, parse_markdown_table
from dataagent.sources.results import QueryResult, to_markdown
from dataagent.store import runs
from dataagent.store.models import DataChatMessage

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
# What an attacker could plant in the data or the model's text.
SCRIPT = "<script>alert('x')</script>"
ONERROR = '<img src=x onerror="alert(1)">'
JS_LINK = "[click](javascript:alert(1))"

REQUEST = ChartRequest(
    chart_type="bar",
    title="Revenue by region",
    data=[{"region": "North", "revenue": 1200}, {"region": "South", "revenue": 900}],
    x="region",
    y=["revenue"],
)


async def _answer(world: World, owner: Account, content: str) -> tuple[str, str, str]:
    """A chat with one question and its answer, still generating: (chat id, question id,
    answer id)."""
    ontology_id = await world.make_ontology(owner)
    created = await owner.client.post(
        "/api/data-agent/chats", json={"name": "Sales", "ontologyId": str(ontology_id)}
    )
    chat_id = created.json()["data"]["id"]
    sent = await owner.client.post(
        f"/api/data-agent/chats/{chat_id}/messages", json={"content": content}
    )
    pair = sent.json()["data"]
    answer_id = pair["assistantMessage"]["id"]
    return chat_id, pair["userMessage"]["id"], answer_id


async def _complete(world: World, answer_id: str, content: str, metadata: dict[str, Any]) -> None:
    async with world.database.session() as session:
        await chats.complete_message(session, uuid.UUID(answer_id), content, metadata)
        await session.commit()


def _url(chat_id: str, message_id: str) -> str:
    return f"/api/data-agent/chats/{chat_id}/messages/{message_id}/report"


def _react_metadata(chart: dict[str, Any]) -> dict[str, Any]:
    result = QueryResult(
        dialect="sqlite",
        sql="SELECT region, SUM(revenue) AS revenue FROM orders GROUP BY region",
        columns=["region", "revenue", "note"],
        rows=[["North", 1200, SCRIPT], ["South|East", 900.5, None]],
        row_count=2,
        execution_ms=3,
    )
    return {
        "toolCalls": [
            {
                "id": "c1",
                "name": "get_dataset_details",
                "args": {"datasetNames": ["orders"]},
                "result": "name: orders",
                "isError": False,
                "durationMs": 1,
            },
            {
                "id": "c2",
                "name": "query_database",
                "args": {"sql": result.sql},
                "result": to_markdown(result) + "\n\n(In run_python this result is `df1`.)",
                "isError": False,
                "durationMs": 4,
            },
            {
                "id": "c3",
                "name": "query_database",
                "args": {"sql": "SELECT nope FROM orders"},
                "result": "Error (QUERY_FAILED): no such column: nope",
                "isError": True,
                "durationMs": 1,
            },
        ],
        "charts": [chart],
        "datasetsUsed": ["orders"],
        "agentMode": "react",
    }


async def test_a_react_answer_as_a_json_report(world: World) -> None:
    owner = world.contributor
    chat_id, _, answer_id = await _answer(world, owner, "Revenue by region?")
    chart = await charts.create_chart(world.context, owner.id, uuid.UUID(answer_id), REQUEST)
    payload = charts.chart_event(chart, "bar")
    content = f"North leads with 1,200.\n\n![Revenue by region]({payload['url']})\n\nSouth: 900.5."
    await _complete(world, answer_id, content, _react_metadata(payload))

    response = await owner.client.get(_url(chat_id, answer_id))
    assert response.status_code == 200, response.text
    report = response.json()["data"]
    assert report["title"] == report["question"] == "Revenue by region?"
    assert report["status"] == "complete"
    assert report["createdAt"]
    kinds = [block["type"] for block in report["blocks"]]
    assert kinds == ["markdown", "chart", "table", "lineage", "sql"]
    markdown, chart_block, table, lineage, sql = report["blocks"]
    # The chart is a block of its own, so the text no longer links to it.
    assert markdown["text"] == "North leads with 1,200.\n\nSouth: 900.5."
    assert chart_block == {
        "type": "chart",
        "chartId": str(chart.id),
        "title": "Revenue by region",
        "chartType": "bar",
        "spec": chart.spec,
        "imageUrl": f"/api/charts/{chart.id}.png",
    }
    assert table == {
        "type": "table",
        "title": "Query 1",
        "columns": ["region", "revenue", "note"],
        "rows": [["North", "1200", SCRIPT], ["South|East", "900.5", None]],
        "rowCount": 2,
        "truncated": False,
    }
    assert lineage == {
        "type": "lineage",
        "datasets": ["orders"],
        "joins": [],
        "filters": [],
        "timeWindow": None,
        "grain": "",
        "rowCount": None,
    }
    assert sql == {
        "type": "sql",
        "sql": "SELECT region, SUM(revenue) AS revenue FROM orders GROUP BY region",
        "stepId": None,
    }


def _pipeline_metadata() -> dict[str, Any]:
    """Metadata as the pipeline keeps it: its artifacts, dumped by alias (camelCase)."""
    steps = [
        StepResult(
            step_id=1,
            description="Revenue per region in 2024",
            sql_result=SqlResult(
                sql="SELECT r.name, SUM(o.amount) FROM orders o JOIN regions r ON "
                "o.region_id = r.id WHERE o.year = 2024 GROUP BY r.name",
                columns=["name", "revenue"],
                rows=[["North", 1200], [ONERROR, 900.5]],
                row_count=40,
                truncated=True,
            ),
        ),
        StepResult(step_id=2, description="A python step", strategy="python"),
    ]
    lineage = DataLineage(
        datasets=["orders", "regions"],
        joins=[LineageJoin.model_validate({"from": "orders", "to": "regions", "on": "region_id"})],
        time_window="2024",
        filters=["o.year = 2024"],
        grain="region",
        row_count=40,
        step_id=1,
    )
    verification = VerificationReport(
        passed=False,
        checks=[
            Check(name="fan_out", passed=True),
            Check(name="empty_result", passed=False, message=f"No rows {SCRIPT}"),
        ],
        caveats=["Maximum revision attempts reached"],
    )
    explained = ExplainerOutput(
        narrative=f"North leads. {JS_LINK} {SCRIPT}",
        data_lineage=lineage,
        caveats=["Maximum revision attempts reached"],
        assumptions=["2024 means the calendar year"],
    )
    return {
        "agentMode": "pipeline",
        "stepResults": [step.to_json() for step in steps],
        "verificationReport": verification.to_json(),
        "dataLineage": lineage.to_json(),
        "caveats": explained.caveats,
        "assumptions": explained.assumptions,
        "revisionsUsed": 3,
    }


async def test_a_pipeline_answer_as_a_json_report(world: World) -> None:
    owner = world.contributor
    chat_id, _, answer_id = await _answer(world, owner, "Revenue by region in 2024?")
    content = (
        f"North leads. {JS_LINK} {SCRIPT}\n\n## Assumptions\n\n- 2024 means the calendar year\n"
    )
    await _complete(world, answer_id, content, _pipeline_metadata())

    response = await owner.client.get(_url(chat_id, answer_id))
    assert response.status_code == 200, response.text
    blocks = response.json()["data"]["blocks"]
    kinds = [block["type"] for block in blocks]
    assert kinds == [
        "markdown",
        "table",
        "assumptions",
        "caveats",
        "lineage",
        "verification",
        "sql",
    ]
    by_type = {block["type"]: block for block in blocks}
    # The assumptions are a block; the text's own section is not repeated.
    assert by_type["markdown"]["text"] == f"North leads. {JS_LINK} {SCRIPT}"
    assert by_type["table"] == {
        "type": "table",
        "title": "Revenue per region in 2024",
        "columns": ["name", "revenue"],
        "rows": [["North", 1200], [ONERROR, 900.5]],
        "rowCount": 40,
        "truncated": True,
    }
    assert by_type["assumptions"]["items"] == ["2024 means the calendar year"]
    assert by_type["caveats"]["items"] == ["Maximum revision attempts reached"]
    assert by_type["lineage"] == {
        "type": "lineage",
        "datasets": ["orders", "regions"],
        "joins": [{"from": "orders", "to": "regions", "on": "region_id"}],
        "filters": ["o.year = 2024"],
        "timeWindow": "2024",
        "grain": "region",
        "rowCount": 40,
    }
    assert by_type["verification"] == {
        "type": "verification",
        "passed": False,
        "checks": [
            {"name": "fan_out", "passed": True, "message": ""},
            {"name": "empty_result", "passed": False, "message": f"No rows {SCRIPT}"},
        ],
    }
    assert by_type["sql"]["stepId"] == 1
    assert by_type["sql"]["sql"].startswith("SELECT r.name")


async def test_the_explainer_output_is_read_when_the_metadata_nests_it(world: World) -> None:
    owner = world.contributor
    chat_id, _, answer_id = await _answer(world, owner, "Why?")
    explained = ExplainerOutput(
        narrative="Because.", caveats=["Small sample"], assumptions=["All stores"]
    )
    metadata = {"explainerOutput": explained.to_json(), "stepResults": "not a list"}
    await _complete(world, answer_id, "Because.\n\n## Assumptions\n\n- All stores", metadata)
    blocks = (await owner.client.get(_url(chat_id, answer_id))).json()["data"]["blocks"]
    assert blocks == [
        {"type": "markdown", "text": "Because."},
        {"type": "assumptions", "items": ["All stores"]},
        {"type": "caveats", "items": ["Small sample"]},
    ]


class _Elements(HTMLParser):
    """Every start tag with its attributes, and the text, of an HTML document."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parsed(html: str) -> _Elements:
    parser = _Elements()
    parser.feed(html)
    parser.close()
    return parser


async def test_the_html_report_is_one_inert_self_contained_file(world: World) -> None:
    owner = world.contributor
    chat_id, _, answer_id = await _answer(world, owner, f"Revenue? {SCRIPT}")
    chart = await charts.create_chart(world.context, owner.id, uuid.UUID(answer_id), REQUEST)
    metadata = _pipeline_metadata() | {"charts": [charts.chart_event(chart, "bar")]}
    content = (
        f"North leads. {JS_LINK} {SCRIPT} {ONERROR} [ok](https://example.com/a?b=1) "
        "![far](https://tracker.example/p.png)\n\n<iframe src=https://evil.example>"
    )
    await _complete(world, answer_id, content, metadata | {"assumptions": []})

    response = await owner.client.get(_url(chat_id, answer_id), params={"format": "html"})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["content-security-policy"] == CSP
    disposition = response.headers["content-disposition"]
    assert re.fullmatch(
        r'attachment; filename="report-revenue-script-alert-x-script-\d{8}-\d{4}\.html"',
        disposition,
    ), disposition
    html = response.text
    parsed = _parsed(html)
    tags = {tag for tag, _ in parsed.tags}
    # Nothing that runs or loads: no script, frame, object, link, form; no event handler.
    assert tags.isdisjoint({"script", "iframe", "object", "embed", "link", "form", "a", "base"})
    for tag, attrs in parsed.tags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        for name in ("src", "href", "action", "srcset"):
            value = attrs.get(name)
            assert value is None or value.startswith("data:image/png;base64,"), (tag, attrs)
    metas = [attrs for tag, attrs in parsed.tags if tag == "meta"]
    assert {"http-equiv": "Content-Security-Policy", "content": CSP} in metas
    # The attacker's text is there, as text.
    text = "".join(parsed.text)
    assert SCRIPT in text and ONERROR in text and JS_LINK in text
    assert "<iframe src=https://evil.example>" in text
    assert "ok (https://example.com/a?b=1)" in text  # a link shows its address, no href
    assert "[image: far]" in text  # an image elsewhere is its alt text, never fetched
    assert "javascript:" not in "".join(str(attrs) for _, attrs in parsed.tags)
    # The chart is the stored PNG, inline.
    images = [attrs for tag, attrs in parsed.tags if tag == "img"]
    assert len(images) == 1
    source = images[0]["src"] or ""
    assert base64.b64decode(source.removeprefix("data:image/png;base64,")) == chart.content
    assert images[0]["alt"] == "Revenue by region"
    # Tables, lineage, verification and SQL are there, escaped.
    assert "Revenue per region in 2024" in text and "orders → regions on region_id" in text
    assert "empty_result: No rows <script>" in text
    assert "40 rows; the first 2 shown" in text
    assert "SELECT r.name, SUM(o.amount)" in text


async def test_only_the_owner_of_a_complete_answer_gets_its_report(world: World) -> None:
    owner = world.contributor
    chat_id, question_id, answer_id = await _answer(world, owner, "How many?")
    url = _url(chat_id, answer_id)

    generating = await owner.client.get(url)
    assert generating.status_code == 409, generating.text
    assert generating.json()["error"]["code"] == "CONFLICT"
    assert generating.json()["error"]["message"] == (
        "Only a complete answer can be turned into a report; this one is generating."
    )
    question = await owner.client.get(_url(chat_id, question_id))
    assert question.status_code == 409
    assert "not of a question" in question.json()["error"]["message"]

    await _complete(world, answer_id, "Two.", {})
    assert (await owner.client.get(url)).status_code == 200
    html = await owner.client.get(url, params={"format": "html"})
    assert html.status_code == 200

    # Another user, no user, a missing message, a bad format.
    for other in (world.other.client, world.viewer.client):
        for params in ({}, {"format": "html"}):
            assert (await other.get(url, params=params)).status_code == 404
    assert (await world.anon.get(url)).status_code == 401
    missing = await owner.client.get(_url(chat_id, str(uuid.uuid4())))
    assert missing.status_code == 404
    assert (await owner.client.get(url, params={"format": "pdf"})).status_code == 400


async def test_a_failed_answer_has_no_report(world: World) -> None:
    owner = world.contributor
    chat_id, _, answer_id = await _answer(world, owner, "How many?")
    async with world.database.session() as session:
        error = {"code": "LLM_ERROR", "message": "The model failed."}
        assert await runs.fail_generating_message(session, uuid.UUID(answer_id), "", error)
        await session.commit()
    response = await owner.client.get(_url(chat_id, answer_id), params={"format": "html"})
    assert response.status_code == 409
    assert response.json()["error"]["message"].endswith("this one is failed.")


async def test_the_openapi_document_describes_both_forms(world: World) -> None:
    paths = (await world.anon.get("/openapi.json")).json()["paths"]
    operation = paths["/api/data-agent/chats/{chat_id}/messages/{message_id}/report"]["get"]
    assert operation["operationId"] == "getMessageReport"
    content = operation["responses"]["200"]["content"]
    assert set(content) == {"application/json", "text/html"}
    assert content["text/html"]["schema"] == {"type": "string"}
    assert "409" in operation["responses"] and "404" in operation["responses"]
    (param,) = [p for p in operation["parameters"] if p["name"] == "format"]
    assert param["schema"]["enum"] == ["json", "html"]


# --- the markdown tables of ReAct answers ----------------------------------------------------


def test_a_result_table_is_read_back_from_its_markdown() -> None:
    result = QueryResult(
        dialect="sqlite",
        sql="SELECT 1",
        columns=["a|b", "c\\d"],
        rows=[["x|y", None], ["back\\slash", True]],
        row_count=2,
    )
    assert parse_markdown_table(to_markdown(result)) == (
        ["a|b", "c\\d"],
        [["x|y", None], ["back\\slash", "true"]],
        2,
        False,
    )


@pytest.mark.parametrize("cut_at", [40, 55, 70])
def test_a_result_cut_short_keeps_its_whole_rows_and_says_so(cut_at: int) -> None:
    result = QueryResult(
        dialect="sqlite",
        sql="SELECT 1",
        columns=["name", "n"],
        rows=[[f"row {i}", i] for i in range(10)],
        row_count=10,
    )
    text = to_markdown(result)[:cut_at] + "…"
    parsed = parse_markdown_table(text)
    assert parsed is not None
    columns, rows, _, truncated = parsed
    assert columns == ["name", "n"]
    assert truncated
    assert rows == [[f"row {i}", str(i)] for i in range(len(rows))]


def test_a_capped_result_is_truncated_and_text_that_is_no_table_is_none() -> None:
    capped = QueryResult(
        dialect="sqlite",
        sql="SELECT 1",
        columns=["n"],
        rows=[[1]],
        row_count=1,
        truncated=True,
        truncated_by="rows",
    )
    assert parse_markdown_table(to_markdown(capped)) == (["n"], [["1"]], 1, True)
    assert parse_markdown_table("Error (QUERY_FAILED): no such table") is None
    assert parse_markdown_table("(0 rows, 1ms)") is None


@pytest.mark.parametrize(
    "metadata",
    [
        None,
        {"toolCalls": "x", "charts": 3, "stepResults": [1, None, {"sqlResult": "x"}]},
        {"stepResults": [{"stepId": True, "sqlResult": {"sql": 5, "columns": ["a"]}}]},
        {"stepResults": [{"stepId": 2, "sqlResult": {"sql": "SELECT 1", "columns": "a"}}]},
        {"toolCalls": [{"name": "query_database", "args": "SELECT 1", "result": None}]},
        {"toolCalls": [{"name": "query_database", "args": {"sql": "SELECT 1"}, "result": 7}]},
        {"verificationReport": {"passed": "yes", "checks": []}, "dataLineage": [1]},
        {"verificationReport": {"passed": True, "checks": [{"name": 1}, "x"]}},
        {"dataLineage": {"joins": [{"from": "a"}, 3], "rowCount": "many"}},
        {"caveats": [1, "", "real"], "assumptions": "x", "explainerOutput": []},
    ],
)
def test_metadata_of_any_shape_makes_a_report_never_an_error(metadata: Any) -> None:
    message = DataChatMessage(
        id=uuid.uuid4(),
        role="assistant",
        status="complete",
        content="Text.",
        metadata_=metadata,
        created_at=datetime(2026, 11, 26, 17, 0),
    )
    report = build_report(message, "Q?", [])
    assert report.blocks[0] == MarkdownBlock("Text.")
    public = report_public(report).model_dump(mode="json", by_alias=True)
    assert public["blocks"][0] == {"type": "markdown", "text": "Text."}
    assert "<html" in render_html(report)
