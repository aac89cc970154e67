"""The SQL guard on its own: golden fixtures, scoping, allow-lists, row caps, fuzzing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from dataagent.dialects import DIALECTS, normalize_dialect
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.guard import MAX_SQL_CHARS, TableRef, check_sql

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sql_guard"
ALLOWED = ("customers", "products", "orders", "order_items")


def _cases(name: str) -> list[Any]:
    entries = yaml.safe_load((FIXTURES / name).read_text())
    cases = []
    for entry in entries:
        dialects = DIALECTS if entry["dialects"] == "all" else entry["dialects"]
        for dialect in dialects:
            sql = entry["sql"].replace("__OUT__", "/tmp/out").replace("__DSN__", "dbname=x")
            cases.append(pytest.param(entry, dialect, sql, id=f"{entry['id']}-{dialect}"))
    return cases


def refusal(sql: str, dialect: str, allowed: Any = ALLOWED) -> str:
    with pytest.raises(DataAgentError) as caught:
        check_sql(sql, dialect, allowed)
    assert caught.value.code is ErrorCode.SQL_POLICY_VIOLATION
    return caught.value.message


@pytest.mark.parametrize(("entry", "dialect", "sql"), _cases("harmful.yaml"))
def test_harmful_golden_fixture(entry: dict[str, Any], dialect: str, sql: str) -> None:
    if entry["verdict"] == "allow":
        check_sql(sql, dialect, ALLOWED)  # passes the guard; the time limit stops it
        return
    assert entry["reason"].lower() in refusal(sql, dialect).lower()


@pytest.mark.parametrize(("entry", "dialect", "sql"), _cases("legitimate.yaml"))
def test_legitimate_golden_fixture(entry: dict[str, Any], dialect: str, sql: str) -> None:
    result = check_sql(sql, dialect, ALLOWED)
    # What the executor sends re-checks clean: the rewrite adds nothing the guard refuses.
    check_sql(result.limited_sql(501), dialect, ALLOWED)


def test_every_refusal_is_a_sentence_with_the_code() -> None:
    message = refusal("DELETE FROM orders", "postgresql")
    assert message.startswith("SQL policy violation: ")
    assert "DELETE" in message


@pytest.mark.parametrize("sql", ["", "   ", ";", "-- only a comment"])
def test_no_statement_is_refused(sql: str) -> None:
    assert "no SQL statement" in refusal(sql, "sqlite")


def test_unparseable_sql_fails_closed() -> None:
    assert "could not be parsed" in refusal("SELECT FROM WHERE (", "postgresql")


def test_too_long_sql_is_refused() -> None:
    sql = "SELECT " + " + ".join(["1"] * (MAX_SQL_CHARS // 4)) + " AS n"
    assert "longer than" in refusal(sql, "duckdb")


def test_unknown_dialect_is_refused() -> None:
    assert "unsupported SQL dialect" in refusal("SELECT 1", "oracle")


@pytest.mark.parametrize(
    ("spelling", "dialect"),
    [
        ("postgres", "postgresql"),
        ("PostgreSQL", "postgresql"),
        ("mariadb", "mysql"),
        ("postgresql+psycopg", "postgresql"),
        ("sqlite", "sqlite"),
        ("duckdb", "duckdb"),
    ],
)
def test_dialect_spellings(spelling: str, dialect: str) -> None:
    assert normalize_dialect(spelling) == dialect


# --- CTE scoping -------------------------------------------------------------------------


def test_cte_names_are_not_tables() -> None:
    result = check_sql(
        "WITH recent AS (SELECT * FROM orders), big AS (SELECT * FROM recent WHERE total > 9)"
        " SELECT * FROM big JOIN customers c ON c.id = big.customer_id",
        "postgresql",
        ALLOWED,
    )
    assert {t.name for t in result.tables} == {"orders", "customers"}


def test_a_cte_is_not_visible_outside_its_query() -> None:
    sql = "SELECT * FROM (WITH secrets AS (SELECT 1 AS x) SELECT * FROM secrets) AS a, secrets"
    assert "secrets" in refusal(sql, "postgresql")


def test_a_cte_cannot_see_a_later_cte() -> None:
    sql = "WITH a AS (SELECT * FROM b), b AS (SELECT 1 AS x) SELECT * FROM a"
    assert "table b" in refusal(sql, "postgresql")


def test_recursive_cte_sees_itself() -> None:
    check_sql(
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3)"
        " SELECT * FROM r",
        "sqlite",
        ALLOWED,
    )


def test_qualified_name_is_never_a_cte() -> None:
    sql = "WITH staff_salaries AS (SELECT 1 AS x) SELECT * FROM public.staff_salaries"
    assert "staff_salaries" in refusal(sql, "postgresql")


# --- the allow-list ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "dialect", "allowed"),
    [
        ("SELECT * FROM orders", "postgresql", ["public.orders"]),
        ("SELECT * FROM public.orders", "postgresql", ["orders"]),
        ("SELECT * FROM PUBLIC.Orders", "postgresql", ["public.orders"]),
        ('SELECT * FROM "orders"', "postgresql", ["ORDERS"]),
        ("SELECT * FROM main.orders", "sqlite", ["orders"]),
        ("SELECT * FROM orders", "duckdb", ["main.orders"]),
        ("SELECT * FROM `Orders`", "mysql", ["orders"]),
    ],
)
def test_allow_list_matches_sensibly(sql: str, dialect: str, allowed: list[str]) -> None:
    check_sql(sql, dialect, allowed)


@pytest.mark.parametrize(
    ("sql", "dialect", "allowed"),
    [
        ("SELECT * FROM finance.orders", "postgresql", ["orders"]),
        ("SELECT * FROM finance.orders", "postgresql", ["public.orders"]),
        ("SELECT * FROM memory.main.orders", "duckdb", ["main.orders"]),
        ("SELECT * FROM orders", "sqlite", []),
    ],
)
def test_allow_list_refuses_other_schemas(sql: str, dialect: str, allowed: list[str]) -> None:
    assert "not one of the tables" in refusal(sql, dialect, allowed)


def test_no_allow_list_allows_any_user_table_but_not_catalogs() -> None:
    result = check_sql("SELECT * FROM anything JOIN other.thing USING (id)", "postgresql", None)
    assert TableRef("thing", "other") in result.tables
    assert "system catalog" in refusal("SELECT * FROM pg_class", "postgresql", None)


def test_mysql_dual_is_not_a_table() -> None:
    result = check_sql("SELECT 1 AS one FROM DUAL", "mysql", ALLOWED)
    assert result.tables == ()
    assert result.sql() == "SELECT 1 AS one"


def test_table_functions_outside_the_safe_list_are_refused() -> None:
    check_sql("SELECT * FROM generate_series(1, 3) AS g(n)", "postgresql", ALLOWED)
    check_sql("SELECT * FROM range(3)", "duckdb", ALLOWED)
    check_sql("SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (v INT PATH '$')) AS j", "mysql")
    # Allowed as a value, not as a table.
    assert "table function upper() is not allowed here" in refusal(
        "SELECT * FROM upper('x') AS u", "postgresql"
    )
    assert "table function repeat() is not allowed here" in refusal(
        "SELECT * FROM repeat('a', 3)", "duckdb"
    )
    # Not on the allow-list at all: refused by name first.
    assert "function my_report() is not allowed" in refusal(
        "SELECT * FROM my_report(1) AS r", "postgresql"
    )
    assert "function json_each() is not allowed" in refusal(
        "SELECT * FROM json_each('[1]')", "sqlite"
    )


# --- MySQL / MariaDB: one connection, one database -------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM other_db.orders",
        "SELECT o.id FROM orders o JOIN other_db.customers c ON c.id = o.customer_id",
        "SELECT id FROM orders WHERE customer_id IN (SELECT id FROM other_db.customers)",
        "WITH x AS (SELECT * FROM `other_db`.`orders`) SELECT * FROM x",
        "SELECT * FROM Shop.orders",  # another database on a case-sensitive server
    ],
)
def test_mysql_queries_stay_in_the_connection_database(sql: str) -> None:
    with pytest.raises(DataAgentError) as caught:
        check_sql(sql, "mysql", None, database="shop")
    assert "outside this connection's database" in caught.value.message


def test_mysql_own_database_may_be_named() -> None:
    result = check_sql(
        "SELECT * FROM shop.orders JOIN customers USING (id)", "mysql", None, database="shop"
    )
    assert TableRef("orders", "shop") in result.tables
    check_sql("SELECT * FROM shop.orders", "mysql", ["shop.orders"], database="shop")


def test_mysql_without_a_database_refuses_every_qualified_table() -> None:
    assert "outside this connection's database" in refusal(
        "SELECT * FROM shop.orders", "mysql", None
    )
    check_sql("SELECT * FROM orders", "mysql", None)


def test_the_database_rule_is_mysql_only() -> None:
    check_sql("SELECT * FROM finance.orders", "postgresql", None, database="shop")
    check_sql("SELECT * FROM main.orders", "duckdb", None, database="shop")


# --- the row cap and re-generation ---------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "dialect", "expected"),
    [
        ("SELECT id FROM orders", "postgresql", "SELECT id FROM orders LIMIT 11"),
        ("SELECT id FROM orders LIMIT 5", "postgresql", "SELECT id FROM orders LIMIT 5"),
        ("SELECT id FROM orders LIMIT 5000", "sqlite", "SELECT id FROM orders LIMIT 11"),
        (
            "SELECT id FROM orders LIMIT 20, 5000",
            "mysql",
            "SELECT id FROM orders LIMIT 11 OFFSET 20",
        ),
        (
            "SELECT id FROM orders UNION SELECT id FROM products ORDER BY 1",
            "duckdb",
            "SELECT id FROM orders UNION SELECT id FROM products ORDER BY 1 LIMIT 11",
        ),
        (
            "SELECT id FROM orders FETCH FIRST 50 ROWS ONLY",
            "postgresql",
            "SELECT * FROM (SELECT id FROM orders FETCH FIRST 50 ROWS ONLY) AS _da_q LIMIT 11",
        ),
        ("(SELECT id FROM orders)", "sqlite", "SELECT id FROM orders LIMIT 11"),
    ],
)
def test_row_cap_is_written_into_the_statement(sql: str, dialect: str, expected: str) -> None:
    assert check_sql(sql, dialect, ALLOWED).limited_sql(11) == expected


def test_comments_never_reach_the_database() -> None:
    result = check_sql("SELECT id /* DROP TABLE x */ FROM orders -- trailing", "mysql", ALLOWED)
    assert result.sql() == "SELECT id FROM orders"


def test_strings_keep_their_value_when_regenerated() -> None:
    result = check_sql("SELECT 'it''s; DROP TABLE orders' AS s", "postgresql", ALLOWED)
    assert result.sql() == "SELECT 'it''s; DROP TABLE orders' AS s"


def test_functions_called_are_reported() -> None:
    result = check_sql("SELECT lower(name), count(*) FROM customers GROUP BY 1", "sqlite", ALLOWED)
    assert "lower" in result.functions and "count" in result.functions


# --- fuzzing ------------------------------------------------------------------------------

SQL_WORDS = st.sampled_from(
    [
        "SELECT",
        "FROM",
        "WHERE",
        "orders",
        "customers",
        "staff_salaries",
        "(",
        ")",
        ",",
        ";",
        "*",
        "1",
        "'x'",
        "--",
        "/*",
        "*/",
        "/*!",
        "DELETE",
        "INTO",
        "WITH",
        "AS",
        "UNION",
        "pg_sleep(1)",
        "JOIN",
        "ON",
        "=",
        "LIMIT",
        "@@x",
        "$$",
        "\n",
    ]
)


@settings(max_examples=300, deadline=None)
@given(words=st.lists(SQL_WORDS, max_size=14), dialect=st.sampled_from(DIALECTS))
def test_any_text_is_approved_or_refused_never_crashes(words: list[str], dialect: str) -> None:
    sql = " ".join(words)
    try:
        result = check_sql(sql, dialect, ALLOWED)
    except DataAgentError as error:
        assert error.code is ErrorCode.SQL_POLICY_VIOLATION
        return
    # An approved statement reads only allowed tables and re-checks clean once re-generated.
    assert all(t.name in ALLOWED for t in result.tables)
    check_sql(result.limited_sql(501), dialect, ALLOWED)
