"""The SQL builder's column check over the demo model: valid SQL in its usual shapes passes;
a column the model does not have, or a derived field read as a column, is named."""

from __future__ import annotations

import pytest
import sqlglot
from tests.fixtures.compiler.compiler_golden import demo_model

from dataagent.agent.pipeline.sql_builder import canonical_plan, column_problem
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.plan import QueryPlan

MODEL = demo_model("sqlite")


def problem(sql: str) -> str | None:
    return column_problem(sqlglot.parse_one(sql, read="sqlite"), MODEL)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT status, COUNT(*) AS n FROM orders GROUP BY status ORDER BY n DESC",
        "SELECT o.id, SUM(oi.quantity) FROM main.orders o JOIN order_items oi "
        "ON oi.order_id = o.id GROUP BY o.id",
        "WITH t AS (SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY 1) "
        "SELECT c.segment, AVG(t.n) FROM t JOIN customers c ON c.id = t.customer_id "
        "GROUP BY c.segment",
        "SELECT x.a FROM (SELECT id AS a FROM orders) AS x",
        "SELECT s.region, SUM(oi.quantity * oi.unit_price * (1 - oi.discount)) AS revenue "
        "FROM order_items oi JOIN orders o ON o.id = oi.order_id "
        "JOIN stores s ON s.id = o.store_id WHERE o.status = 'completed' GROUP BY s.region",
        "SELECT * FROM products WHERE category_id IN (SELECT id FROM categories "
        "WHERE department = 'Home')",
    ],
)
def test_sql_over_the_model_passes(sql: str) -> None:
    assert problem(sql) is None


@pytest.mark.parametrize(
    ("sql", "named"),
    [
        ("SELECT o.amount FROM orders o", "amount"),
        ("SELECT segment_name FROM customers", "segment_name"),
        ("WITH t AS (SELECT id FROM orders) SELECT t.total FROM t", "total"),
    ],
)
def test_an_unknown_column_is_named(sql: str, named: str) -> None:
    found = problem(sql)
    assert found is not None and named in found
    assert found.startswith("the SQL reads a column the semantic model does not have")


def test_a_derived_field_read_as_a_column_names_its_expression() -> None:
    found = problem("SELECT SUM(line_revenue) FROM order_items")
    assert found is not None
    assert "order_items.line_revenue = `quantity * unit_price * (1 - discount)`" in found


def test_a_query_plans_dataset_names_are_spelt_as_the_model_spells_them() -> None:
    written = QueryPlan.model_validate(
        {
            "datasets": ["ORDERS"],
            "measures": [{"field": "Orders.*", "aggregation": "count", "alias": "n"}],
            "dimensions": [{"field": "main.stores.region"}],
            "filters": [{"any": [{"field": "Orders.status", "op": "=", "value": "completed"}]}],
            "order": [{"by": "n", "direction": "desc"}],
        }
    )
    plan = canonical_plan(written, MODEL)
    assert plan.datasets == ["orders"]
    assert plan.measures[0].field == "orders.*"
    assert plan.order[0].by == "n"
    # `main.stores.region`: `main` is no dataset, so the name is left for the compiler.
    assert plan.dimensions[0].field == "main.stores.region"
    fixed = plan.model_copy(update={"dimensions": []})
    assert "COUNT(*)" in compile_plan(fixed, MODEL, "sqlite").sql
