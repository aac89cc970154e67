"""Lineage read from executed SQL: the compiler's golden SQL and hand-written SQL, in the
SQLite and PostgreSQL dialects."""

from __future__ import annotations

from typing import Any

import pytest
from tests.fixtures.compiler.compiler_golden import load_cases, retail_model

from dataagent.agent.pipeline.lineage import lineage_of, merge_lineage
from dataagent.agent.pipeline.state import DataLineage

CASES = {case["name"]: case for case in load_cases()}
DIALECTS = ("sqlite", "postgresql")


def _joins(lineage: DataLineage) -> list[tuple[str, str, str]]:
    return [(j.from_, j.to, j.on) for j in lineage.joins]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_every_golden_query_resolves_to_the_models_datasets(name: str, dialect: str) -> None:
    model = retail_model(dialect)
    lineage = lineage_of(CASES[name]["sql"][dialect], model, dialect, 3, step_id=2)
    names = {d.name for d in model.datasets}
    assert lineage.datasets and set(lineage.datasets) <= names, lineage.datasets
    for join in lineage.joins:
        # CTE plumbing (dimension_values joined to the pre-aggregations) is left out.
        assert {join.from_, join.to} <= names, join
    assert lineage.grain
    assert "_agg" not in lineage.grain and "dimension_values" not in lineage.grain
    assert lineage.row_count == 3 and lineage.step_id == 2


@pytest.mark.parametrize("dialect", DIALECTS)
def test_joins_filters_and_grain_of_a_compiled_query(dialect: str) -> None:
    lineage = lineage_of(
        CASES["revenue_by_category"]["sql"][dialect], retail_model(dialect), dialect, 5
    )
    assert lineage.datasets == ["order_items", "orders", "products", "categories"]
    assert _joins(lineage) == [
        ("order_items", "orders", "order_items.order_id = orders.id"),
        ("order_items", "products", "order_items.product_id = products.id"),
        ("products", "categories", "products.category_id = categories.id"),
    ]
    assert lineage.filters == ["orders.status = 'completed'"]
    assert lineage.time_window is None
    assert lineage.grain == "categories.name"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_time_window_is_a_condition_on_a_date_field(dialect: str) -> None:
    lineage = lineage_of(
        CASES["monthly_revenue_2024"]["sql"][dialect], retail_model(dialect), dialect, 12
    )
    window = "orders.order_date BETWEEN '2024-01-01' AND '2024-12-31 23:59:59'"
    assert lineage.time_window == window
    assert lineage.filters == [window, "orders.status = 'completed'"]
    assert "orders.order_date" in lineage.grain


@pytest.mark.parametrize("dialect", DIALECTS)
def test_pre_aggregation_ctes_resolve_to_their_tables(dialect: str) -> None:
    sql = CASES["store_size_and_units_by_region"]["sql"][dialect]
    lineage = lineage_of(sql, retail_model(dialect), dialect, 4)
    assert lineage.datasets == ["stores", "order_items", "orders"]
    assert _joins(lineage) == [
        ("order_items", "orders", "order_items.order_id = orders.id"),
        ("orders", "stores", "orders.store_id = stores.id"),
    ]
    assert lineage.grain == "stores.region"
    assert lineage.filters == []


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_period_comparison_shows_both_windows(dialect: str) -> None:
    sql = CASES["year_to_date_against_previous"]["sql"][dialect]
    lineage = lineage_of(sql, retail_model(dialect), dialect, 4)
    assert lineage.time_window == (
        "orders.order_date >= '2025-01-01' AND orders.order_date < '2025-07-01'; "
        "orders.order_date >= '2024-01-01' AND orders.order_date < '2024-07-01'"
    )
    assert lineage.grain == "stores.region"


HAND_WRITTEN: list[tuple[str, str, dict[str, Any]]] = [
    (
        "sqlite",
        """SELECT c.segment, COUNT(*) AS orders
           FROM orders o JOIN customers c ON c.id = o.customer_id
           WHERE o.status = 'completed' AND o.order_date >= '2024-01-01'
           GROUP BY 1 HAVING COUNT(*) > 10""",
        {
            "datasets": ["orders", "customers"],
            "joins": [("orders", "customers", "customers.id = orders.customer_id")],
            "filters": [
                "orders.status = 'completed'",
                "orders.order_date >= '2024-01-01'",
                "COUNT(*) > 10",
            ],
            "time_window": "orders.order_date >= '2024-01-01'",
            "grain": "customers.segment",
        },
    ),
    (
        "postgresql",
        """SELECT s.region, t.units
           FROM stores AS s
           JOIN (SELECT o.store_id, SUM(oi.quantity) AS units
                 FROM public.order_items oi JOIN public.orders o ON o.id = oi.order_id
                 GROUP BY o.store_id) AS t ON t.store_id = s.id""",
        {
            # The subquery's tables first (its scope is read before the outer query's).
            "datasets": ["order_items", "orders", "stores"],
            "joins": [
                ("order_items", "orders", "orders.id = order_items.order_id"),
                # t.store_id passes orders.store_id on: the join is to orders.
                ("stores", "orders", "orders.store_id = stores.id"),
            ],
            "filters": [],
            "time_window": None,
            "grain": "orders.store_id",
        },
    ),
    (
        "sqlite",
        """SELECT name FROM products
           WHERE category_id IN (SELECT id FROM categories WHERE department = 'Home')""",
        {
            # Scopes are read inner first: the subquery's table and filter come first.
            "datasets": ["categories", "products"],
            "joins": [],
            "filters": [
                "department = 'Home'",
                "category_id IN (SELECT id FROM categories WHERE department = 'Home')",
            ],
            "time_window": None,
            "grain": "row",
        },
    ),
    (
        "postgresql",
        """WITH monthly AS (
             SELECT DATE_TRUNC('month', order_date) AS month, COUNT(*) AS n
             FROM orders GROUP BY DATE_TRUNC('month', order_date))
           SELECT month, n FROM monthly WHERE month >= '2024-06-01' ORDER BY month""",
        {
            "datasets": ["orders"],
            "joins": [],
            "filters": ["month >= '2024-06-01'"],
            # `month` is a derived column of a date field: it is a time window too.
            "time_window": "month >= '2024-06-01'",
            "grain": "DATE_TRUNC('MONTH', order_date)",
        },
    ),
    (
        "sqlite",
        "SELECT * FROM orders JOIN stores USING (id) "
        "LEFT JOIN audit_log a ON a.order_id = orders.id",
        {
            "datasets": ["orders", "stores", "audit_log"],
            "joins": [
                ("orders", "stores", "USING (id)"),
                ("orders", "audit_log", "audit_log.order_id = orders.id"),
            ],
            "filters": [],
            "time_window": None,
            "grain": "row",
        },
    ),
]


@pytest.mark.parametrize(("dialect", "sql", "expected"), HAND_WRITTEN)
def test_hand_written_sql(dialect: str, sql: str, expected: dict[str, Any]) -> None:
    lineage = lineage_of(sql, retail_model(dialect), dialect, 7)
    assert lineage.datasets == expected["datasets"]
    assert _joins(lineage) == expected["joins"]
    assert lineage.filters == expected["filters"]
    assert lineage.time_window == expected["time_window"]
    assert lineage.grain == expected["grain"]


def test_sql_that_does_not_parse_has_an_empty_lineage() -> None:
    lineage = lineage_of("SELECT FROM WHERE (", retail_model("sqlite"), "sqlite", None)
    assert lineage.datasets == [] and lineage.grain == "row" and lineage.row_count is None


def test_merged_lineage_keeps_every_step_and_the_last_grain() -> None:
    model = retail_model("sqlite")
    first = lineage_of(CASES["monthly_revenue_2024"]["sql"]["sqlite"], model, "sqlite", 12, 1)
    second = lineage_of(CASES["revenue_by_category"]["sql"]["sqlite"], model, "sqlite", 5, 2)
    merged = merge_lineage([first, second])
    assert merged is not None
    assert merged.datasets == ["order_items", "orders", "products", "categories"]
    assert len(merged.joins) == 3
    assert merged.grain == "categories.name" and merged.row_count == 5
    assert merged.time_window == first.time_window
    assert merge_lineage([]) is None
