"""QueryPlan validation against the semantic model: every mistake named precisely."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError
from tests.fixtures.compiler.compiler_golden import retail_model

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.plan import QueryPlan
from dataagent.semantic.resolver import validate_plan

MODEL = retail_model()


def _plan(**body: Any) -> QueryPlan:
    return QueryPlan.model_validate(body)


def _error(**body: Any) -> str:
    with pytest.raises(DataAgentError) as err:
        validate_plan(_plan(**body), MODEL)
    assert err.value.code == ErrorCode.VALIDATION_ERROR
    return err.value.message


def test_a_valid_plan_resolves_fields_and_aliases() -> None:
    resolved = validate_plan(
        _plan(
            measures=[{"field": "order_items.revenue", "aggregation": "sum"}],
            dimensions=[{"field": "orders.order_date", "time_grain": "month"}],
            filters=[{"field": "orders.status", "op": "in", "value": ["completed"]}],
            order=[{"by": "order_items.revenue", "direction": "desc"}],
            limit=10,
        ),
        MODEL,
    )
    assert [m.alias for m in resolved.measures] == ["sum_revenue"]
    assert [d.alias for d in resolved.dimensions] == ["order_date_month"]
    assert resolved.order[0].alias == "sum_revenue" and resolved.order[0].descending
    assert resolved.referenced_datasets == ["order_items", "orders"]
    assert resolved.filters[0].filters[0].values == ("completed",)


def test_plan_shape_is_strict() -> None:
    with pytest.raises(ValidationError):
        _plan(measures=[{"field": "orders.id", "aggregation": "median"}])
    with pytest.raises(ValidationError):
        _plan(dimensions=[{"field": "orders.id"}], extra=1)
    with pytest.raises(ValidationError):
        _plan(dimensions=[{"field": "orders.id"}], limit=10_001)
    with pytest.raises(ValidationError):
        _plan(dimensions=[{"field": "orders.id"}], limit=0)
    with pytest.raises(ValidationError, match="at least one metric, measure or dimension"):
        _plan(datasets=["orders"])
    with pytest.raises(ValidationError):
        _plan(dimensions=[{"field": "orders.id", "alias": "bad alias; drop"}])


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"datasets": ["invoices"], "dimensions": [{"field": "orders.id"}]}, "'invoices'"),
        ({"dimensions": [{"field": "invoices.id"}]}, "unknown dataset 'invoices'"),
        ({"dimensions": [{"field": "orders.total"}]}, "has no field 'total'"),
        ({"dimensions": [{"field": "nothing"}]}, "no dataset has a field 'nothing'"),
        ({"dimensions": [{"field": "name"}]}, "ambiguous"),
        (
            {"measures": [{"field": "customers.segment", "aggregation": "sum"}]},
            "cannot sum customers.segment: it is varchar",
        ),
        (
            {"measures": [{"field": "orders.order_date", "aggregation": "avg"}]},
            "not numeric",
        ),
        (
            {"measures": [{"field": "products.is_active", "aggregation": "max"}]},
            "boolean has no order",
        ),
        ({"measures": [{"field": "orders.*", "aggregation": "sum"}]}, "only allowed in a count"),
        ({"measures": [{"field": "*", "aggregation": "count"}]}, "needs plan.datasets"),
        ({"dimensions": [{"field": "*"}]}, "only allowed in a count"),
        (
            {"dimensions": [{"field": "stores.square_feet", "time_grain": "month"}]},
            "time_grain needs a date or timestamp",
        ),
        (
            {"dimensions": [{"field": "stores.square_feet", "group": {"values": ["100"]}}]},
            "group needs a text field; stores.square_feet is integer",
        ),
        (
            {
                "dimensions": [{"field": "orders.id"}],
                "filters": [{"field": "orders.id", "op": "=", "value": "7"}],
            },
            "orders.id is numeric",
        ),
        (
            {
                "dimensions": [{"field": "orders.id"}],
                "filters": [{"field": "orders.order_date", "op": ">", "value": "last week"}],
            },
            "is a timestamp",
        ),
        (
            {
                "dimensions": [{"field": "stores.id"}],
                "filters": [{"field": "stores.opened_on", "op": "=", "value": "2020-13-01"}],
            },
            "is a date",
        ),
        (
            {
                "dimensions": [{"field": "products.id"}],
                "filters": [{"field": "products.is_active", "op": "=", "value": 1}],
            },
            "is boolean",
        ),
        (
            {
                "dimensions": [{"field": "orders.id"}],
                "filters": [{"field": "orders.status", "op": "in", "value": "completed"}],
            },
            "needs a list",
        ),
        (
            {
                "dimensions": [{"field": "orders.id"}],
                "filters": [{"field": "orders.id", "op": "between", "value": [1]}],
            },
            "exactly two",
        ),
        (
            {
                "dimensions": [{"field": "orders.id"}],
                "filters": [{"field": "orders.id", "op": "in", "value": []}],
            },
            "1 to 1000",
        ),
        (
            {
                "dimensions": [{"field": "orders.id"}],
                "filters": [{"field": "orders.status", "op": "is_null", "value": "x"}],
            },
            "takes no value",
        ),
        (
            {
                "dimensions": [{"field": "orders.id"}],
                "filters": [{"field": "orders.status", "op": "="}],
            },
            "is_null",
        ),
        (
            {
                "dimensions": [{"field": "orders.id"}],
                "filters": [{"field": "orders.id", "op": "like", "value": 5}],
            },
            "'like' needs a text field",
        ),
        (
            {
                "dimensions": [{"field": "orders.id"}],
                "filters": [{"field": "orders.status", "op": "=", "value": ["a"]}],
            },
            "not a list",
        ),
        (
            {
                "dimensions": [{"field": "products.id"}],
                "filters": [{"field": "products.is_active", "op": ">", "value": True}],
            },
            "does not apply",
        ),
        (
            {"dimensions": [{"field": "orders.id"}], "order": [{"by": "orders.status"}]},
            "not an output column",
        ),
        (
            {
                "dimensions": [{"field": "orders.id", "alias": "x"}],
                "measures": [{"field": "orders.*", "aggregation": "count", "alias": "x"}],
            },
            "used twice",
        ),
    ],
)
def test_invalid_plans_name_the_problem(body: dict[str, Any], expected: str) -> None:
    assert expected in _error(**body)


def test_errors_say_where() -> None:
    message = _error(
        dimensions=[{"field": "orders.id"}],
        filters=[
            {"field": "orders.id", "op": ">", "value": 1},
            {"field": "orders.id", "op": ">", "value": "x"},
        ],
    )
    assert message.startswith("filters[1]:")


def test_bare_fields_resolve_within_plan_datasets() -> None:
    resolved = validate_plan(_plan(datasets=["stores"], dimensions=[{"field": "name"}]), MODEL)
    assert resolved.dimensions[0].ref.label == "stores.name"


def test_star_counts_the_first_plan_dataset() -> None:
    resolved = validate_plan(
        _plan(datasets=["orders", "stores"], measures=[{"field": "*", "aggregation": "count"}]),
        MODEL,
    )
    assert resolved.measures[0].ref.label == "orders.*"
    assert resolved.measures[0].alias == "row_count"
    assert resolved.unused_datasets == ("stores",)


def test_default_aliases_are_made_unique() -> None:
    resolved = validate_plan(
        _plan(
            dimensions=[{"field": "stores.name"}, {"field": "products.name"}],
            measures=[{"field": "order_items.quantity", "aggregation": "sum", "alias": "name"}],
        ),
        MODEL,
    )
    assert [d.alias for d in resolved.dimensions] == ["stores_name", "products_name"]


def test_filter_values_are_normalised() -> None:
    resolved = validate_plan(
        _plan(
            dimensions=[{"field": "orders.id"}],
            filters=[
                {"field": "orders.order_date", "op": ">=", "value": "2024-01-02T03:04:05"},
                {"field": "orders.order_date", "op": "<", "value": "2025-01-01"},
                {"field": "order_items.discount", "op": "<=", "value": 0.25},
            ],
        ),
        MODEL,
    )
    assert [c.filters[0].values for c in resolved.filters] == [
        ("2024-01-02 03:04:05",),
        ("2025-01-01",),
        (0.25,),
    ]


def test_non_finite_numbers_are_refused() -> None:
    assert "finite" in _error(
        dimensions=[{"field": "orders.id"}],
        filters=[{"field": "orders.id", "op": ">", "value": float("inf")}],
    )
