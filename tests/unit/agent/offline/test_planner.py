"""The offline planner over the demo retailer's model: questions to plans, and abstentions."""

from __future__ import annotations

import datetime as dt
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from dataagent.agent.offline import CONFIDENCE_THRESHOLD, describe, plan_question
from dataagent.ontology.values import IndexedValue, ValueIndex
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.yaml_io import load_yaml

TODAY = dt.date(2025, 12, 31)
DEMO_YAML = Path(__file__).parents[4] / "src" / "dataagent" / "demo" / "semantic_model.yaml"


@cache
def demo_model() -> SemanticModel:
    return load_yaml(DEMO_YAML.read_text())


@cache
def demo_values() -> ValueIndex:
    """The model's sample values plus the customers' cities and the orders' dates, as the
    build would read them."""
    cities = ["Houston", "Katy", "Dallas", "Austin", "Seattle"]
    index = ValueIndex.from_model(demo_model()).merged(
        ValueIndex(IndexedValue("customers", "city", c) for c in cities)
    )
    index.set_extent("orders", "order_date", "2024-01-01", "2025-12-31")
    return index


def plan(question: str, values: ValueIndex | None = None) -> dict[str, Any]:
    result = plan_question(question, demo_model(), values or demo_values(), today=TODAY)
    assert result.answered, (question, result)
    assert result.plan is not None
    compile_plan(result.plan, demo_model(), "sqlite", today=TODAY)
    return result.plan.model_dump(mode="json", exclude_defaults=True)


# (question, expected parts of the plan, compared key by key)
CASES: list[tuple[str, dict[str, Any]]] = [
    (
        "revenue by month",
        {
            "metrics": [{"name": "revenue"}],
            "dimensions": [{"field": "orders.order_date", "time_grain": "month", "alias": "month"}],
        },
    ),
    (
        "Monthly revenue",
        {"dimensions": [{"field": "orders.order_date", "time_grain": "month", "alias": "month"}]},
    ),
    (
        "net sales per region",
        {"metrics": [{"name": "revenue"}], "dimensions": [{"field": "stores.region"}]},
    ),
    ("AOV by customer segment", {"metrics": [{"name": "average_order_value"}]}),
    (
        "gross margin by region and channel",
        {"dimensions": [{"field": "stores.region"}, {"field": "orders.channel"}]},
    ),
    (
        "total quantity by category",
        {
            "measures": [
                {"field": "order_items.quantity", "aggregation": "sum", "alias": "total_quantity"}
            ],
            "dimensions": [{"field": "categories.name"}],
        },
    ),
    (
        "average list price by department",
        {
            "measures": [
                {
                    "field": "products.unit_price",
                    "aggregation": "avg",
                    "alias": "average_unit_price",
                }
            ]
        },
    ),
    (
        "how many orders per channel",
        {"metrics": [{"name": "orders"}], "dimensions": [{"field": "orders.channel"}]},
    ),
    (
        "number of products",
        {
            "measures": [
                {"field": "products.*", "aggregation": "count", "alias": "number_of_products"}
            ]
        },
    ),
    (
        "how many customers are there per segment",
        {
            "measures": [
                {"field": "customers.*", "aggregation": "count", "alias": "number_of_customers"}
            ]
        },
    ),
    (
        "revenue in Electronics by month",
        {"filters": [{"field": "categories.department", "op": "=", "value": "Electronics"}]},
    ),
    (
        "revenue of online orders in 2025",
        {
            "metrics": [{"name": "revenue"}],
            "filters": [
                {"field": "orders.channel", "op": "=", "value": "online"},
                {"field": "orders.order_date", "op": ">=", "value": "2025-01-01"},
                {"field": "orders.order_date", "op": "<", "value": "2026-01-01"},
            ],
        },
    ),
    (
        "revenue from online and phone orders",
        {"filters": [{"field": "orders.channel", "op": "in", "value": ["online", "phone"]}]},
    ),
    (
        "gross margin in Q4 2025",
        {
            "filters": [
                {"field": "orders.order_date", "op": ">=", "value": "2025-10-01"},
                {"field": "orders.order_date", "op": "<", "value": "2026-01-01"},
            ]
        },
    ),
    (
        "revenue in January 2025",
        {
            "filters": [
                {"field": "orders.order_date", "op": ">=", "value": "2025-01-01"},
                {"field": "orders.order_date", "op": "<", "value": "2025-02-01"},
            ]
        },
    ),
    (
        "revenue since March 2025",
        {"filters": [{"field": "orders.order_date", "op": ">=", "value": "2025-03-01"}]},
    ),
    (
        "revenue by month in the last 6 months",
        {
            "time_window": {
                "field": "orders.order_date",
                "period": "last",
                "grain": "month",
                "count": 6,
            },
            "reference_date": "2025-12-31",
        },
    ),
    (
        "revenue year to date",
        {"time_window": {"field": "orders.order_date", "period": "to_date", "grain": "year"}},
    ),
    (
        "orders last quarter",
        {"time_window": {"field": "orders.order_date", "period": "previous", "grain": "quarter"}},
    ),
    (
        "units sold this year",
        {"time_window": {"field": "orders.order_date", "period": "last", "grain": "year"}},
    ),
    (
        "revenue this quarter vs last quarter",
        {
            "time_window": {"field": "orders.order_date", "period": "last", "grain": "quarter"},
            "compare": "previous_period",
        },
    ),
    ("revenue year to date compared with last year", {"compare": "previous_year"}),
    (
        "top 5 products by revenue",
        {"dimensions": [{"field": "products.name"}], "top": {"n": 5, "by": "revenue"}},
    ),
    ("bottom 3 stores by revenue", {"top": {"n": 3, "by": "revenue", "direction": "asc"}}),
    (
        "best 2 categories in each region by revenue",
        {
            "dimensions": [{"field": "categories.name"}, {"field": "stores.region"}],
            "top": {"n": 2, "by": "revenue", "within": ["stores.region"]},
        },
    ),
    (
        "which store has the highest revenue",
        {"dimensions": [{"field": "stores.name"}], "top": {"n": 1, "by": "revenue"}},
    ),
    ("share of revenue by channel", {"metrics": [{"name": "revenue", "share_of_total": True}]}),
    # A list keeps one row per record: the key is listed too (stores could share a name).
    (
        "list the stores",
        {
            "dimensions": [{"field": "stores.name"}, {"field": "stores.id"}],
            "order": [{"by": "stores.name"}],
        },
    ),
    (
        "which categories are there",
        {"dimensions": [{"field": "categories.name"}, {"field": "categories.id"}]},
    ),
    ("which regions are there", {"dimensions": [{"field": "stores.region"}]}),  # a category
    (
        "stores in the West region",
        {
            "dimensions": [{"field": "stores.name"}, {"field": "stores.id"}],
            "filters": [{"field": "stores.region", "op": "=", "value": "West"}],
        },
    ),
    (
        "products with a list price over $100",
        {"filters": [{"field": "products.unit_price", "op": ">", "value": 100.0}]},
    ),
    (
        "customers with more than 20 orders",
        {"having": [{"by": "orders", "op": ">", "value": 20.0}]},
    ),
    (
        "revenue for stores in Houston",
        {"filters": [{"field": "stores.city", "op": "=", "value": "Houston"}]},
    ),
    ("customers in Katy", {"filters": [{"field": "customers.city", "op": "=", "value": "Katy"}]}),
    ("stores in Texas", {"filters": [{"field": "stores.state", "op": "=", "value": "TX"}]}),
    (
        "number of active products",
        {"filters": [{"field": "products.is_active", "op": "=", "value": True}]},
    ),
    (
        "inactive products by category",
        {"filters": [{"field": "products.is_active", "op": "=", "value": False}]},
    ),
    (
        "the average, minimum and maximum list price",
        {
            "measures": [
                {
                    "field": "products.unit_price",
                    "aggregation": "avg",
                    "alias": "average_unit_price",
                },
                {
                    "field": "products.unit_price",
                    "aggregation": "min",
                    "alias": "minimum_unit_price",
                },
                {
                    "field": "products.unit_price",
                    "aggregation": "max",
                    "alias": "maximum_unit_price",
                },
            ]
        },
    ),
    (
        "the highest list price",
        {
            "measures": [
                {
                    "field": "products.unit_price",
                    "aggregation": "max",
                    "alias": "maximum_unit_price",
                }
            ]
        },
    ),
    ("which 3 categories sold the most units", {"top": {"n": 3, "by": "units"}}),
    (
        "How many customers signed up in 2024?",
        {
            "filters": [
                {"field": "customers.signup_date", "op": ">=", "value": "2024-01-01"},
                {"field": "customers.signup_date", "op": "<", "value": "2025-01-01"},
            ]
        },
    ),
    ("customers who placed an order in 2025", {"metrics": [{"name": "customers"}]}),
    (
        "when did each store open",
        {
            "dimensions": [
                {"field": "stores.name"},
                {"field": "stores.opened_on"},
                {"field": "stores.id"},
            ]
        },
    ),
    (
        "list the stores in descending order of square footage",
        {"order": [{"by": "stores.square_feet", "direction": "desc"}, {"by": "stores.id"}]},
    ),
    ("show all distinct customer segments", {"dimensions": [{"field": "customers.segment"}]}),
    (
        "revenue in 2024 and 2025",
        {"dimensions": [{"field": "orders.order_date", "time_grain": "year", "alias": "year"}]},
    ),
    (
        "revenue in November 2025 compared with November 2024",
        {
            "time_window": {"field": "orders.order_date", "period": "last", "grain": "month"},
            "reference_date": "2025-11-30",
            "compare": "previous_year",
        },
    ),
    ("orders in the last 6 months versus the 6 months before", {"compare": "previous_period"}),
    (
        "average discount on order lines",
        {
            "measures": [
                {"field": "order_items.discount", "aggregation": "avg", "alias": "average_discount"}
            ]
        },
    ),
    (
        "Which products have a negative unit margin?",
        {"filters": [{"field": "products.unit_margin", "op": "<", "value": 0.0}]},
    ),
    ("show a few orders", {"limit": 10, "order": []}),
    ("gross margin by product category", {"dimensions": [{"field": "categories.name"}]}),
    # Customers counted as rows, unless the question names what only the metric reaches.
    (
        "customers by segment",
        {
            "measures": [
                {"field": "customers.*", "aggregation": "count", "alias": "number_of_customers"}
            ]
        },
    ),
    ("customers by store region", {"metrics": [{"name": "customers"}]}),
    (
        "Which store opened first?",
        {"top": {"n": 1, "by": "minimum_opened_on", "direction": "asc"}},
    ),
    (
        "list products in the Audio category with their list price",
        {
            "dimensions": [
                {"field": "products.name"},
                {"field": "products.unit_price"},
                {"field": "products.id"},
            ]
        },
    ),
]


@pytest.mark.parametrize(("question", "expected"), CASES, ids=[c[0] for c in CASES])
def test_plans(question: str, expected: dict[str, Any]) -> None:
    got = plan(question)
    for key, value in expected.items():
        assert got.get(key, []) == value, (key, got)


@pytest.mark.parametrize(
    "question",
    [
        "what is the weather in Paris",
        "revenue per employee",  # no employees in the model
        "average revenue per customer by median basket",  # medians are not in QueryPlan
        "revenue in Houston",  # a store's city or a customer's: ambiguous
        "average unit price",  # a product's list price or the price paid: ambiguous
        "bottom 3 stores",  # ranked by what?
        "stores without any returned orders",  # NOT EXISTS: no plan says it
        "what percentage of orders were placed online",  # a share of the whole
        "revenue in 2023",  # the orders start in 2024
        "how much did corporate customers spend in 2025",  # an amount of what?
        "what is the average number of items per order",  # an average of counts
        "",
    ],
)
def test_abstains(question: str) -> None:
    result = plan_question(question, demo_model(), demo_values(), today=TODAY)
    assert not result.answered
    assert result.confidence < CONFIDENCE_THRESHOLD
    assert len(result.suggestions) <= 3
    for suggestion in result.suggestions:
        assert plan_question(suggestion, demo_model(), demo_values(), today=TODAY).answered
    text = describe(result)
    assert "OPENAI_API_KEY" in text and "docs/llm.md" in text


def test_abstention_says_what_it_did_not_understand() -> None:
    result = plan_question("revenue per employee", demo_model(), demo_values(), today=TODAY)
    assert result.not_understood == ["employee"]
    assert "revenue" in " ".join(result.understood).lower()
    assert result.suggestions
    assert "'employee'" in describe(result)


@pytest.mark.parametrize(
    ("question", "field", "kept"),
    [
        ("compare the West region with the others by revenue", "stores.region", ["West"]),
        ("compare Houston with the other stores on revenue", "stores.city", ["Houston"]),
        ("compare online with the other channels on return rate", "orders.channel", ["online"]),
        ("return rate of online vs the rest", "orders.channel", ["online"]),
        (
            "Electronics versus the other departments: gross margin % in 2025",
            "categories.department",
            ["Electronics"],
        ),
    ],
)
def test_a_value_against_the_others_is_one_group_beside_it(
    question: str, field: str, kept: list[str]
) -> None:
    # The value named keeps its row; every other value is one row, "Others".
    planned = plan(question)
    assert planned["dimensions"] == [{"field": field, "group": {"values": kept}}]


def test_the_others_with_nothing_to_compare_are_not_answered() -> None:
    result = plan_question(
        "compare the West region with the others", demo_model(), demo_values(), today=TODAY
    )
    assert not result.answered


def test_month_without_a_year_is_the_latest_one() -> None:
    result = plan_question(
        "revenue in March", demo_model(), demo_values(), today=dt.date(2025, 2, 10)
    )
    assert result.plan is not None
    assert result.plan.filters[0].value == "2024-03-01"  # type: ignore[union-attr]
    assert any("March 2024" in note for note in result.notes)
