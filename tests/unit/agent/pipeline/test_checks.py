"""The verifier's deterministic checks over the demo retailer's curated model: each check
flags its fault, and none flags SQL that is right (compiled QueryPlans included)."""

from __future__ import annotations

import pytest

from dataagent.agent.pipeline import checks
from dataagent.agent.pipeline.expectations import Expectations, from_resolved, from_sql
from dataagent.agent.pipeline.sql_facts import ColumnUse
from dataagent.agent.pipeline.sql_reader import read_sql
from dataagent.agent.pipeline.state import SqlResult
from dataagent.demo.semantic_model import curated_model_yaml
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.plan import QueryPlan
from dataagent.semantic.resolver import validate_plan
from dataagent.semantic.yaml_io import load_yaml

MODEL: SemanticModel = load_yaml(curated_model_yaml())
REVENUE = "SUM(oi.quantity * oi.unit_price * (1 - oi.discount))"
BY_SEGMENT = (
    "SELECT c.segment, COUNT(*) FROM orders o JOIN customers c ON o.customer_id = c.id GROUP BY 1"
)


def failing(sql: str, expect: Expectations) -> dict[str, list[str]]:
    """The failing checks of a query, by name, with their messages."""
    found, _ = checks.run_checks(sql, expect, MODEL)
    out: dict[str, list[str]] = {}
    for check in found:
        if not check.passed:
            out.setdefault(check.name, []).append(check.message)
    return out


def gold(sql: str) -> Expectations:
    return from_sql(sql, MODEL)


def test_every_check_passes_the_gold_query_itself() -> None:
    sql = (
        f"SELECT s.region, {REVENUE} FROM order_items oi JOIN orders o ON oi.order_id = o.id "
        "JOIN stores s ON o.store_id = s.id WHERE o.status = 'completed' GROUP BY s.region"
    )
    found, caveats = checks.run_checks(sql, gold(sql), MODEL)
    assert caveats == []
    assert [c.name for c in found] == list(checks.SQL_CHECKS_NAMES)
    assert all(c.passed for c in found)


def test_fan_out_of_a_count_through_a_one_to_many_join() -> None:
    right = BY_SEGMENT
    wrong = right.replace(" GROUP BY", " JOIN order_items oi ON oi.order_id = o.id GROUP BY")
    problems = failing(wrong, gold(right))
    assert list(problems) == ["fan_out"]
    assert (
        "COUNT(*) over orders is inflated: joining order_items (one_to_many)"
        in problems["fan_out"][0]
    )


def test_fan_out_of_a_sum_and_not_of_max_or_count_distinct() -> None:
    right = "SELECT region, SUM(square_feet) FROM stores GROUP BY region"
    joined = "FROM stores s JOIN orders o ON o.store_id = s.id GROUP BY s.region"
    assert "fan_out" in failing(f"SELECT s.region, SUM(s.square_feet) {joined}", gold(right))
    for immune in ("MAX(s.square_feet)", "COUNT(DISTINCT s.id)"):
        assert "fan_out" not in failing(f"SELECT s.region, {immune} {joined}", gold(right))


def test_pre_aggregated_measures_do_not_fan_out() -> None:
    sql = (
        "SELECT s.region, SUM(t.n) FROM stores s JOIN (SELECT store_id, COUNT(*) AS n FROM orders "
        "GROUP BY store_id) t ON t.store_id = s.id GROUP BY s.region"
    )
    expect = Expectations(source="plan", counted=frozenset({"orders"}))
    assert "fan_out" not in failing(sql, expect)


def test_join_key_other_than_the_relationship() -> None:
    right = BY_SEGMENT
    problems = failing(right.replace("o.customer_id = c.id", "o.store_id = c.id"), gold(right))
    assert problems["join_key"] == [
        "The join orders.store_id = customers.id is not the relationship's key "
        "(orders.customer_id = customers.id)."
    ]


def test_join_of_two_unrelated_primary_keys() -> None:
    sql = "SELECT COUNT(*) FROM orders o JOIN products p ON o.id = p.id"
    assert "join_key" in failing(sql, Expectations(source="datasets"))


def test_dropped_filter_and_a_filter_with_other_values() -> None:
    right = "SELECT COUNT(*) FROM orders WHERE channel = 'online' AND status = 'returned'"
    assert failing("SELECT COUNT(*) FROM orders WHERE status = 'returned'", gold(right)) == {
        "dropped_filter": [
            "The plan filters orders.channel = 'online', but the SQL has no condition on "
            "orders.channel."
        ]
    }
    other = "SELECT COUNT(*) FROM orders WHERE channel = 'phone' AND status = 'returned'"
    assert "keeps other values" in failing(other, gold(right))["dropped_filter"][0]


def test_a_metric_filter_inside_case_counts_as_applied() -> None:
    right = "SELECT COUNT(*) FROM orders WHERE status = 'completed'"
    sql = "SELECT COUNT(CASE WHEN status = 'completed' THEN 1 END) FROM orders"
    assert "dropped_filter" not in failing(sql, gold(right))


def test_grain_other_than_the_plan() -> None:
    right = BY_SEGMENT
    wrong = (
        "SELECT c.state, COUNT(*) FROM orders o JOIN customers c ON o.customer_id = c.id GROUP BY 1"
    )
    assert failing(wrong, gold(right))["grain"] == [
        "The SQL groups by customers.state, but the plan's grain is customers.segment."
    ]


def test_grain_by_a_key_and_its_names_is_the_key_grain() -> None:
    right = "SELECT s.id, COUNT(*) FROM orders o JOIN stores s ON o.store_id = s.id GROUP BY s.id"
    named = (
        "SELECT s.id, s.name, COUNT(*) FROM orders o JOIN stores s ON o.store_id = s.id "
        "GROUP BY s.id, s.name"
    )
    by_foreign_key = "SELECT o.store_id, COUNT(*) FROM orders o GROUP BY o.store_id"
    assert "grain" not in failing(named, gold(right))
    assert "grain" not in failing(by_foreign_key, gold(right))
    assert "grain" in failing(
        "SELECT s.name, COUNT(*) FROM orders o JOIN stores s ON o.store_id = s.id GROUP BY s.name",
        gold(right),
    )


def test_wrong_aggregate() -> None:
    right = "SELECT COUNT(DISTINCT customer_id) FROM orders"
    assert failing("SELECT COUNT(customer_id) FROM orders", gold(right)) == {
        "wrong_aggregate": [
            "orders.customer_id is defined as COUNT_DISTINCT, but the SQL uses COUNT."
        ]
    }
    right = "SELECT AVG(unit_price) FROM products"
    assert "wrong_aggregate" in failing("SELECT SUM(unit_price) FROM products", gold(right))


def test_unknown_columns_and_tables() -> None:
    expect = Expectations(source="datasets")
    assert failing("SELECT SUM(oi.discount_pct) FROM order_items oi", expect)["unknown_column"]
    assert failing("SELECT floor_area FROM stores", expect)["unknown_column"]
    assert failing("SELECT * FROM suppliers", expect)["unknown_column"] == [
        "The SQL uses something the semantic model lacks: "
        "table suppliers is not in the semantic model."
    ]


def test_null_key_loss_through_an_inner_join_on_a_nullable_key() -> None:
    # The demo's keys are NOT NULL; make orders.customer_id nullable (guest checkouts).
    model = MODEL.model_copy(deep=True)
    orders = model.dataset("orders")
    assert orders is not None
    key = orders.field("customer_id")
    assert key is not None
    key.nullable = True
    right = "SELECT channel, COUNT(*) FROM orders GROUP BY channel"
    wrong = (
        "SELECT o.channel, COUNT(*) FROM orders o JOIN customers c ON o.customer_id = c.id "
        "GROUP BY o.channel"
    )
    expect = from_sql(right, model)
    found, _ = checks.run_checks(wrong, expect, model)
    assert [c.name for c in found if not c.passed] == ["null_key_loss"]
    left = wrong.replace("JOIN customers", "LEFT JOIN customers")
    found, _ = checks.run_checks(left, expect, model)
    assert all(c.passed for c in found)
    filtered = "SELECT channel, COUNT(*) FROM orders WHERE customer_id IS NOT NULL GROUP BY channel"
    found, _ = checks.run_checks(filtered, expect, model)
    assert [c.name for c in found if not c.passed] == ["null_key_loss"]
    # Against the real (NOT NULL) model the same join loses nothing.
    assert "null_key_loss" not in failing(wrong, from_sql(right, MODEL))


def test_sql_that_does_not_parse_is_a_caveat_not_a_failure() -> None:
    found, caveats = checks.run_checks(
        "SELECT (1 FROM orders", Expectations(source="datasets"), MODEL
    )
    assert found == []
    assert caveats and "does not parse" in caveats[0]


PLANS = [
    {"metrics": [{"name": "revenue"}], "dimensions": [{"field": "stores.region"}]},
    {
        "metrics": [{"name": "orders"}, {"name": "completed_orders"}],
        "dimensions": [{"field": "customers.segment"}],
        "filters": [{"field": "orders.channel", "op": "=", "value": "online"}],
    },
    {
        "metrics": [{"name": "average_order_value"}],
        "dimensions": [{"field": "orders.order_date", "time_grain": "month"}],
        "time_window": {
            "field": "orders.order_date",
            "period": "last",
            "grain": "month",
            "count": 3,
        },
        "reference_date": "2025-06-15",
    },
    {
        "measures": [{"field": "stores.square_feet", "aggregation": "sum"}],
        "dimensions": [{"field": "categories.name"}],
    },
    {
        "metrics": [{"name": "revenue"}],
        "dimensions": [{"field": "customers.full_name"}],
        "top": {"n": 3, "by": "revenue"},
    },
    {
        "metrics": [{"name": "customers"}, {"name": "margin_pct"}],
        "dimensions": [{"field": "stores.state"}],
    },
    {
        "measures": [{"field": "orders.*", "aggregation": "count"}],
        "dimensions": [{"field": "categories.department"}],
    },
    {
        "metrics": [{"name": "units", "share_of_total": True}],
        "dimensions": [{"field": "products.name"}],
        "filters": [{"field": "categories.department", "op": "in", "value": ["Home", "Apparel"]}],
        "compare": "previous_year",
        "time_window": {"field": "orders.order_date", "period": "to_date", "grain": "year"},
        "reference_date": "2025-03-01",
    },
]


@pytest.mark.parametrize("dialect", ["duckdb", "sqlite", "postgresql", "mysql"])
@pytest.mark.parametrize("index", range(len(PLANS)))
def test_no_check_flags_a_compiled_query_plan(dialect: str, index: int) -> None:
    plan = QueryPlan.model_validate(PLANS[index])
    model = MODEL.model_copy(update={"dialect": dialect})
    compiled = compile_plan(plan, model, dialect)
    expect = from_resolved(model, validate_plan(plan, model), 1)
    found, caveats = checks.run_checks(compiled.sql, expect, model)
    assert caveats == []
    assert [c.message for c in found if not c.passed] == []


def test_a_compiled_plan_is_held_to_its_plan() -> None:
    plan = QueryPlan.model_validate(PLANS[1])
    expect = from_resolved(MODEL, validate_plan(plan, MODEL), 1)
    sql = compile_plan(plan, MODEL, "duckdb").sql
    assert "dropped_filter" in failing(sql.replace("= 'online'", "= 'phone'"), expect)
    regrouped = sql.replace('"customers"."segment"', '"customers"."state"')
    assert "grain" in failing(regrouped, expect)


def rows(columns: list[str], values: list[list[object]], truncated: bool = False) -> SqlResult:
    return SqlResult(
        sql="", columns=columns, rows=values, row_count=len(values), truncated=truncated
    )


def test_empty_result() -> None:
    assert checks.empty_result(rows(["a"], [])) != []
    assert checks.empty_result(rows(["a"], [[1]])) == []


def test_duplicate_rows_at_the_grain() -> None:
    sql = (
        "SELECT s.region, COUNT(*) AS n FROM orders o JOIN stores s ON o.store_id = s.id "
        "GROUP BY s.region"
    )
    facts = read_sql(sql, MODEL)
    expect = from_sql(sql, MODEL)
    twice = rows(["region", "n"], [["West", 1], ["West", 2], ["South", 3]])
    assert checks.duplicate_rows(facts, expect, twice) == [
        "1 value(s) of the grain (region) appear on more than one row."
    ]
    assert checks.duplicate_rows(facts, expect, rows(["region", "n"], [["West", 1]])) == []


def test_totals_disagree_between_steps_with_the_same_measure() -> None:
    by_region = QueryPlan.model_validate(
        {"metrics": [{"name": "orders"}], "dimensions": [{"field": "stores.region"}]}
    )
    by_channel = QueryPlan.model_validate(
        {"metrics": [{"name": "orders"}], "dimensions": [{"field": "orders.channel"}]}
    )
    first = from_resolved(MODEL, validate_plan(by_region, MODEL), 1)
    second = from_resolved(MODEL, validate_plan(by_channel, MODEL), 2)
    a = rows(["region", "orders"], [["West", 10], ["South", 5]])
    agree = rows(["channel", "orders"], [["online", 7], ["phone", 8]])
    disagree = rows(["channel", "orders"], [["online", 7], ["phone", 9]])
    assert checks.totals_disagree([(first, a), (second, agree)]) == []
    assert checks.totals_disagree([(first, a), (second, disagree)]) == [
        (2, "The total of metric orders is 16 in step 2 but 15 in step 1 (orders).")
    ]
    # A truncated result's total is not the whole total: nothing to compare.
    cut = rows(["channel", "orders"], [["online", 7]], truncated=True)
    assert checks.totals_disagree([(first, a), (second, cut)]) == []


def test_column_use_labels() -> None:
    assert ColumnUse("orders", "id").label == "orders.id"


def test_group_by_all_groups_by_the_other_columns() -> None:
    model = MODEL.model_copy(update={"dialect": "duckdb"})
    facts = read_sql("SELECT region, state, SUM(square_feet) FROM stores GROUP BY ALL", model)
    assert facts.grain == {ColumnUse("stores", "region"), ColumnUse("stores", "state")}
