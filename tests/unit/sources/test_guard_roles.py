"""The guard against SQL that would step out of a shared ontology's database role, or learn
which account, role or database a query runs as (a grantee may learn neither)."""

from __future__ import annotations

import pytest

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.guard import check_sql

ALLOWED = ("sales", "stores")


def refusal(sql: str) -> str:
    with pytest.raises(DataAgentError) as caught:
        check_sql(sql, "postgresql", ALLOWED)
    assert caught.value.code is ErrorCode.SQL_POLICY_VIOLATION
    return caught.value.message


@pytest.mark.parametrize(
    "sql",
    [
        "SET ROLE east",
        "SET LOCAL ROLE east",
        "SET SESSION ROLE east",
        "SET role = 'east'",
        "SET role TO east",
        "RESET ROLE",
        "RESET ALL",
        "SET SESSION AUTHORIZATION east",
        "SET SESSION AUTHORIZATION DEFAULT",
        "RESET SESSION AUTHORIZATION",
        "DISCARD ALL",
        "SELECT region FROM sales; SET ROLE east",
        "SELECT region FROM sales; RESET ROLE",
    ],
)
def test_statements_that_change_role_are_refused(sql: str) -> None:
    message = refusal(sql)
    assert "only read queries" in message or "exactly one statement" in message


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT set_config('role', 'east', true)",
        "SELECT set_config('role', 'east', false)",
        "SELECT SET_CONFIG('role', 'east', true)",
        "SELECT \"set_config\"('role', 'east', true)",
        "SELECT set_config('session_authorization', 'east', true)",
        "WITH r AS (SELECT set_config('role', 'east', true) AS x) SELECT region FROM sales, r",
        "SELECT region FROM sales WHERE set_config('role', 'east', true) IS NOT NULL",
        "SELECT (SELECT set_config('role', 'east', true)), region FROM sales",
        "SELECT region FROM sales ORDER BY set_config('role', 'east', true)",
        "SELECT region FROM sales UNION SELECT set_config('role', 'east', true)",
        "SELECT s.region FROM sales s, LATERAL (SELECT set_config('role', 'east', true)) t",
        "SELECT current_setting('role')",
        "SELECT current_setting('role', true)",
        "SELECT current_setting('is_superuser')",
        "SELECT region FROM sales WHERE region = current_setting('role')",
    ],
)
def test_settings_functions_are_refused_anywhere(sql: str) -> None:
    message = refusal(sql)
    assert "set_config" in message or "current_setting" in message


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT pg_catalog.set_config('role', 'east', true)",
        "SELECT pg_catalog.current_setting('role')",
    ],
)
def test_qualified_settings_functions_are_refused(sql: str) -> None:
    assert "qualified calls" in refusal(sql)


@pytest.mark.parametrize(
    ("sql", "word"),
    [
        ("SELECT session_user", "session_user"),
        ("SELECT current_user", "current_user"),
        ("SELECT CURRENT_USER", "current_user"),
        ("SELECT user", "user"),
        ("SELECT current_role", "current_role"),
        ("SELECT system_user", "system_user"),
        ("SELECT current_catalog", "current_catalog"),
        ("SELECT region FROM sales WHERE region = current_user", "current_user"),
        ("SELECT region FROM sales WHERE session_user IS NOT NULL", "session_user"),
    ],
)
def test_words_naming_the_account_are_refused(sql: str, word: str) -> None:
    message = refusal(sql)
    assert f"{word} is not allowed" in message and "account" in message


def test_quoted_or_qualified_columns_named_user_are_data() -> None:
    checked = check_sql('SELECT "user", s.user FROM sales AS s', "postgresql", ALLOWED)
    assert checked.sql() == 'SELECT "user", s.user FROM sales AS s'


def test_other_dialects_keep_their_column_named_user() -> None:
    assert check_sql("SELECT user FROM sales", "sqlite", ALLOWED).sql() == "SELECT user FROM sales"
