"""When a message asks for SQL (seed 004: QueryPlan first, SQL only when asked)."""

from __future__ import annotations

import pytest

from dataagent.agent.plan_agent import asks_for_sql, explicit_sql


@pytest.mark.parametrize(
    ("message", "sql"),
    [
        ("Run this SQL: SELECT count(*) FROM orders", "SELECT count(*) FROM orders"),
        ("sql: DELETE FROM orders;", "DELETE FROM orders"),
        (
            "SELECT region, sum(amount) FROM sales GROUP BY 1",
            "SELECT region, sum(amount) FROM sales GROUP BY 1",
        ),
        ("Please run\n```sql\nSELECT 1 AS one FROM t\n```", "SELECT 1 AS one FROM t"),
        ("DROP TABLE orders", "DROP TABLE orders"),
        ("What is the net revenue by region?", None),
        ("select the top 5 stores by revenue", None),
        ("Show me revenue with SQL", None),
        ("Which SQL tables hold the stores?", None),
    ],
)
def test_the_statement_the_person_wrote(message: str, sql: str | None) -> None:
    assert explicit_sql(message, "duckdb") == sql


@pytest.mark.parametrize(
    ("message", "asks"),
    [
        ("Show me revenue with SQL", True),
        ("SELECT * FROM orders", True),
        ("What is the net revenue by region?", False),
        ("select the top 5 stores by revenue", False),
    ],
)
def test_whether_the_person_asks_for_sql(message: str, asks: bool) -> None:
    assert asks_for_sql(message, "duckdb") is asks
