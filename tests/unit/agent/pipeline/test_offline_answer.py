"""The offline answer's pure parts: the planner's plan as the pipeline's artifact, the
templated narrative, and the client that makes no call."""

from __future__ import annotations

import datetime as dt

import pytest
from langchain_core.messages import HumanMessage

from dataagent.agent.offline import OfflinePlan
from dataagent.agent.pipeline.offline import (
    format_value,
    narrative,
    plan_artifact,
    read_as_words,
    refers_back,
)
from dataagent.agent.pipeline.planner import today
from dataagent.agent.pipeline.state import PlanArtifact, SqlResult, StepResult
from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.plan import Dimension, Filter, MetricRef, QueryPlan, TimeWindow
from dataagent.services.llm import NoModelClient

REVENUE_BY_REGION = QueryPlan(
    metrics=[MetricRef(name="revenue")],
    dimensions=[Dimension(field="stores.region")],
    filters=[Filter(field="stores.region", op="!=", value="North")],
    time_window=TimeWindow(field="orders.order_date", period="previous", grain="quarter"),
)


def offline(plan: QueryPlan | None, confidence: float = 1.0) -> OfflinePlan:
    return OfflinePlan(
        plan=plan,
        confidence=confidence,
        understood=["net revenue", "by region"] if plan else [],
        not_understood=[] if plan else ["poem"],
        suggestions=["Show net revenue per region."],
        notes=[],
    )


def result(columns: list[str], rows: list[list[object]], error: str | None = None) -> StepResult:
    sql = (
        None
        if error
        else SqlResult(sql="SELECT 1", columns=columns, rows=rows, row_count=len(rows))
    )
    return StepResult(step_id=1, description="q", sql_result=sql, error=error)


def test_an_answered_plan_is_one_sql_step_carrying_its_query_plan() -> None:
    artifact = plan_artifact("Revenue by region last quarter?", offline(REVENUE_BY_REGION))
    # It passes the artifact's own validators, as a model's plan must.
    PlanArtifact.model_validate(artifact.to_json())
    assert artifact.complexity == "simple" and not artifact.should_clarify
    [step] = artifact.steps
    assert step.strategy == "sql" and step.query_plan == REVENUE_BY_REGION
    assert artifact.metrics == ["revenue"]
    assert artifact.dimensions == ["stores.region"]
    assert artifact.filters == ["stores.region != North"]
    assert artifact.time_window == "previous quarter on orders.order_date"


def test_an_abstention_is_a_plan_with_no_step() -> None:
    for abstained in (offline(None, 0.0), offline(REVENUE_BY_REGION, 0.1)):
        artifact = plan_artifact("Write me a poem", abstained)
        assert artifact.steps == [] and artifact.complexity == "conversational"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (1234567, "1,234,567"),
        (1234.5678, "1,234.57"),
        (3.0, "3"),
        (None, "—"),
        (True, "yes"),
        (dt.date(2025, 10, 1), "2025-10-01"),
        (dt.datetime(2025, 10, 1), "2025-10-01"),
        ("West", "West"),
    ],
)
def test_values_are_formatted_for_reading(value: object, shown: str) -> None:
    assert format_value(value) == shown


def test_a_single_figure_is_stated_with_what_it_was_read_as() -> None:
    text = narrative(offline(REVENUE_BY_REGION), [result(["revenue"], [[12345.678]])])
    assert text.startswith("**Revenue**: 12,345.68")
    assert "_Read as: net revenue by region._" in text


def test_ranked_rows_name_the_leaders_and_show_a_table() -> None:
    rows = [["West", 300.0], ["South", 200.5], ["East", 100.0], ["North", 50.0]]
    text = narrative(offline(REVENUE_BY_REGION), [result(["region", "revenue"], rows)])
    assert text.startswith("**Net revenue by region**: 4 rows.")
    assert "Highest revenue: West (300); South (200.50); East (100)." in text
    assert "| Region | Revenue |" in text and "| North | 50 |" in text


def test_unranked_rows_are_shown_without_naming_leaders() -> None:
    rows = [["2025-10", 1.0], ["2025-11", 2.0]]
    text = narrative(offline(REVENUE_BY_REGION), [result(["month", "revenue"], rows)])
    assert "Highest" not in text and "| 2025-11 | 2 |" in text


@pytest.mark.parametrize(
    ("question", "leans"),
    [
        ("now show it per store", True),
        ("same for 2024", True),
        ("What about Texas?", True),
        ("and by month?", True),
        ("revenue by region this year", False),
        ("top 5 products by revenue", False),
        ("revenue and orders by region", False),
    ],
)
def test_a_follow_up_is_told_from_a_question_that_stands_alone(question: str, leans: bool) -> None:
    assert refers_back(question) is leans


def test_what_was_understood_reads_as_one_phrase() -> None:
    assert read_as_words(["by product", "net revenue", "top 5"]) == "net revenue by product, top 5"
    assert read_as_words(["orders", "by month", "2025"]) == "orders by month, 2025"
    assert read_as_words([]) == "the plan shown in the details"


def test_no_rows_and_a_failed_step_are_said_plainly() -> None:
    assert narrative(offline(REVENUE_BY_REGION), [result(["revenue"], [])]).startswith(
        "No rows match"
    )
    failed = narrative(offline(REVENUE_BY_REGION), [result([], [], error="Step 1 has no SQL.")])
    assert "did not run: Step 1 has no SQL." in failed


async def test_the_offline_client_refuses_every_call_and_records_none() -> None:
    client = NoModelClient()
    for call in (
        client.stream([HumanMessage("hi")], phase="planner"),
        client.invoke([HumanMessage("hi")]),
        client.structured([HumanMessage("hi")], PlanArtifact, phase="planner", purpose="plan"),
    ):
        with pytest.raises(DataAgentError) as caught:
            await call
        assert caught.value.code == ErrorCode.LLM_UNAVAILABLE
    assert client.calls == [] and client.usage.total == 0


def test_the_reference_date_and_the_fast_path_are_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATAAGENT_REFERENCE_DATE", "2025-12-31")
    monkeypatch.setenv("DATAAGENT_OFFLINE_FAST_PATH", "false")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.reference_date == dt.date(2025, 12, 31)
    assert settings.offline_fast_path is False
    # The pipeline's "today" is the reference date when set (else today's UTC date).
    assert today(settings) == dt.date(2025, 12, 31)
