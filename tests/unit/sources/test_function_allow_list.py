"""The function allow-list: the issue's attacks refused by name, each way a name can be written.

The issue's attacks (ts_stat, ts_rewrite, the gin_/brin_ maintenance functions, txid_current,
a regclass cast), their kin on the other dialects (DuckDB's setseed and write_log, SQLite's
total_changes and last_insert_rowid, MariaDB's LAST_INSERT_ID and BINLOG_GTID_POS) and
qualified calls (public.anything()) passed the deny-list guard this allow-list replaced; the
rest were on the deny-list and must stay refused. The catalog walk in
tests/integration/sources/test_function_catalogs.py checks the allowed names themselves
against each database's own facts.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import sqlglot
from sqlglot import exp
from tests.fixtures.compiler.compiler_golden import load_cases, retail_model

from dataagent.dialects import DIALECTS
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.plan import QueryPlan
from dataagent.sources import guard
from dataagent.sources.calls import RefusedCall, calls_in_text, render
from dataagent.sources.functions import (
    ALLOWED_FUNCTIONS,
    CATEGORIES,
    SYNTAX_FORMS,
    TABLE_FUNCTIONS,
    allow_list_markdown,
    allowed_functions,
    category_of,
    is_allowed_function,
)
from dataagent.sources.guard import check_sql

DOCS = Path(__file__).resolve().parents[3] / "docs" / "sql-safety.md"


def refusal(sql: str, dialect: str) -> str:
    with pytest.raises(DataAgentError) as caught:
        check_sql(sql, dialect, None)
    assert caught.value.code is ErrorCode.SQL_POLICY_VIOLATION
    return caught.value.message


# --- the attacks, and their kin on every dialect --------------------------------------

ATTACKS = [
    # PostgreSQL: SQL run from a string
    (
        "postgresql",
        "SELECT ts_stat('SELECT to_tsvector(replace(pg_read_file(''/etc/passwd''),'':'','' ''))')",
        "ts_stat",
    ),
    ("postgresql", "SELECT ts_stat('SELECT to_tsvector(s) FROM secrets')", "ts_stat"),
    (
        "postgresql",
        "SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery')",
        "ts_rewrite",
    ),
    ("postgresql", "SELECT query_to_xml('SELECT * FROM secrets', true, true, '')", "query_to_xml"),
    # PostgreSQL: index changes that survive the rollback, transaction ids, settings, sleeps
    ("postgresql", "SELECT gin_clean_pending_list('orders_idx')", "gin_clean_pending_list"),
    ("postgresql", "SELECT brin_summarize_new_values('orders_idx')", "brin_summarize_new_values"),
    ("postgresql", "SELECT brin_desummarize_range('orders_idx', 0)", "brin_desummarize_range"),
    ("postgresql", "SELECT txid_current()", "txid_current"),
    ("postgresql", "SELECT set_config('role', 'postgres', true)", "set_config"),
    ("postgresql", 'SELECT "pg_sleep"(1)', "pg_sleep"),
    ("postgresql", 'SELECT "PG_SLEEP"(1)', "pg_sleep"),
    ("postgresql", "SELECT pg_catalog.pg_sleep(1)", "pg_catalog.pg_sleep()"),
    ("postgresql", "SELECT public.anything(1)", "public.anything()"),
    ("postgresql", "SELECT nextval('order_numbers')", "nextval"),
    ("postgresql", "SELECT * FROM orders WHERE id = lo_import('/etc/hostname')", "lo_import"),
    ("postgresql", "SELECT max(id) FILTER (WHERE pg_sleep(1) IS NULL) FROM orders", "pg_sleep"),
    ("postgresql", "SELECT current_setting('data_directory')", "current_setting"),
    # DuckDB
    ("duckdb", "SELECT setseed(0.5)", "setseed"),
    ("duckdb", "SELECT * FROM query('SELECT * FROM secrets')", "query"),
    (
        "duckdb",
        "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))",
        "json_execute_serialized_sql",
    ),
    ("duckdb", "SELECT * FROM read_csv('/etc/passwd')", "read_csv"),
    ("duckdb", "SELECT nextval('seq')", "nextval"),
    ("duckdb", "SELECT write_log('x')", "write_log"),
    ("duckdb", "SELECT sleep_ms(1000)", "sleep_ms"),
    ("duckdb", "SELECT 'abc'.upper()", "'abc'.upper()"),
    # SQLite
    ("sqlite", "SELECT total_changes()", "total_changes"),
    ("sqlite", "SELECT last_insert_rowid()", "last_insert_rowid"),
    ("sqlite", "SELECT sqlite_compileoption_get(0)", "sqlite_compileoption_get"),
    ("sqlite", "SELECT randomblob(1000000000)", "randomblob"),
    ("sqlite", "SELECT load_extension('/tmp/evil.so')", "load_extension"),
    ("sqlite", "SELECT main.lower('x')", "main.lower()"),
    # MySQL / MariaDB
    ("mysql", "SELECT LAST_INSERT_ID(42)", "last_insert_id"),
    ("mysql", "SELECT RELEASE_ALL_LOCKS()", "release_all_locks"),
    ("mysql", "SELECT MASTER_GTID_WAIT('0-1-100', 30)", "master_gtid_wait"),
    ("mysql", "SELECT BINLOG_GTID_POS('mariadb-bin.000001', 600)", "binlog_gtid_pos"),
    ("mysql", "SELECT NEXTVAL(order_numbers)", "nextval"),
    ("mysql", "SELECT `sleep`(1)", "sleep"),
    ("mysql", "SELECT sys.sleep(1)", "sys.sleep()"),
    ("mysql", "SELECT LOAD_FILE('/etc/hostname')", "load_file"),
]


@pytest.mark.parametrize(("dialect", "sql", "name"), ATTACKS, ids=[a[2] for a in ATTACKS])
def test_attacks_are_refused_by_name(dialect: str, sql: str, name: str) -> None:
    message = refusal(sql, dialect)
    assert f"function {name}" in message
    assert "is not allowed" in message


def test_a_refusal_says_what_is_allowed_instead() -> None:
    message = refusal("SELECT ts_stat('SELECT 1')", "postgresql")
    assert "not on the PostgreSQL allow-list" in message
    assert "aggregates" in message and "dates and times" in message


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 'staff_salaries'::regclass",
        "SELECT CAST('pg_sleep' AS regproc)",
        "SELECT 'x'::pg_catalog.regnamespace",
        "SELECT 'x'::\"regrole\"",
        "SELECT 'english'::regconfig",
    ],
)
def test_casts_to_object_identifier_types_are_refused(sql: str) -> None:
    assert "object-identifier types" in refusal(sql, "postgresql")


@pytest.mark.parametrize("dialect", DIALECTS)
def test_next_value_for_is_refused(dialect: str) -> None:
    # No dialect's parser reads it today; should one start to, the tree check refuses it.
    assert "could not be parsed" in refusal("SELECT NEXT VALUE FOR order_numbers", dialect)
    tree = exp.select(exp.NextValueFor(this=exp.column("order_numbers")))
    with pytest.raises(DataAgentError, match="NEXT VALUE FOR"):
        guard._check_nodes(tree, dialect)  # type: ignore[arg-type]


# --- every way the generated SQL can write a name ---------------------------------------------


def test_a_typed_node_is_checked_by_the_name_the_generator_writes() -> None:
    # DuckDB's read_csv parses to a typed node, not an anonymous call: only the checking
    # generator, which sees READ_CSV pass through func(), can refuse it.
    tree = sqlglot.parse_one("SELECT * FROM read_csv('/etc/passwd')", read="duckdb")
    assert not list(tree.find_all(exp.Anonymous))
    with pytest.raises(RefusedCall, match="read_csv"):
        render(tree, "duckdb")


@pytest.mark.parametrize(
    ("node", "dialect", "name"),
    [
        (exp.XMLTable(this=exp.Literal.string("/a")), "postgresql", "xmltable"),
        (exp.OpenJSON(this=exp.Literal.string("{}")), "mysql", "openjson"),
    ],
)
def test_a_call_written_with_an_f_string_is_caught_in_the_text(
    node: exp.Func, dialect: str, name: str
) -> None:
    # These generators write the call with an f-string, never through func(): the last look
    # at the finished text is what refuses them.
    with pytest.raises(RefusedCall, match=f"function {name}\\(\\)"):
        render(exp.select(node), dialect)  # type: ignore[arg-type]


def test_typed_nodes_written_with_f_strings_are_reported_when_allowed() -> None:
    rendered = render(exp.select(exp.Uuid()), "postgresql")
    assert rendered.sql == "SELECT GEN_RANDOM_UUID()"
    assert rendered.calls == ("gen_random_uuid",)


def test_an_alias_named_like_a_function_exempts_only_itself() -> None:
    assert "pg_sleep" in refusal("WITH pg_sleep(a) AS (SELECT 1) SELECT pg_sleep(5)", "postgresql")
    # The text check on its own: one alias with a column list exempts one "pg_sleep(".
    text = "WITH pg_sleep(a) AS (SELECT 1) SELECT pg_sleep(5)"
    with pytest.raises(RefusedCall, match="pg_sleep"):
        calls_in_text(text, "postgresql", Counter({"pg_sleep": 1}))
    assert (
        calls_in_text(
            "WITH pg_sleep(a) AS (SELECT 1) SELECT a FROM pg_sleep",
            "postgresql",
            Counter({"pg_sleep": 1}),
        )
        == []
    )


def test_a_type_with_parameters_exempts_only_itself() -> None:
    # CHAR is both a type and a function on MySQL: the cast's CHAR(3) is a type, CHAR(65) a call.
    result = check_sql("SELECT CAST(name AS CHAR(3)), CHAR(65) FROM customers", "mysql", None)
    assert set(result.functions) == {"cast", "char"}
    assert calls_in_text(
        "SELECT CAST(x AS DECIMAL(10, 2))", "postgresql", Counter({"decimal": 1})
    ) == ["cast"]
    # Without the type it exempts, a type name before "(" is a call like any other.
    with pytest.raises(RefusedCall, match="function xml"):
        calls_in_text("SELECT XML('<a/>')", "postgresql", Counter())


@pytest.mark.parametrize(
    ("sql", "dialect"),
    [
        (
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) "
            "SELECT * FROM r",
            "sqlite",
        ),
        ("SELECT * FROM generate_series(1, 3) AS pg_sleep(x)", "postgresql"),
        ("SELECT x FROM (VALUES (1), (2)) AS v(x)", "duckdb"),
        ("SELECT CAST(total AS DECIMAL(10, 2)) AS t FROM orders", "mysql"),
        ("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY total) FROM orders", "postgresql"),
        ("SELECT * EXCLUDE (note) FROM orders", "duckdb"),
        ("SELECT SUBSTRING(name FROM 1 FOR (2 + 1)) FROM customers", "postgresql"),
    ],
)
def test_names_before_parentheses_that_are_not_calls_pass(sql: str, dialect: str) -> None:
    check_sql(sql, dialect, None)


def test_the_functions_called_are_the_names_written() -> None:
    result = check_sql("SELECT date_trunc('month', d), count(*) FROM t GROUP BY 1", "duckdb")
    assert result.functions == ("date_trunc", "count")


# --- the data ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_lists_are_well_formed(dialect: str) -> None:
    groups = ALLOWED_FUNCTIONS[dialect]  # type: ignore[index]
    assert list(groups) == list(CATEGORIES)
    names = [name for group in groups.values() for name in group]
    assert len(names) == len(set(names)), "a function is listed under two categories"
    assert all(name == name.lower() for name in [*names, *SYNTAX_FORMS[dialect]])  # type: ignore[index]
    # A table function must pass the allow-list too.
    assert TABLE_FUNCTIONS[dialect] <= allowed_functions(dialect)  # type: ignore[index,arg-type]


# One statement per syntax form whose re-generated SQL writes that form before "(".
SYNTAX_PROBES = {
    "postgresql": {
        "all": "SELECT 1 = ALL(ARRAY[1])",
        "any": "SELECT 1 = ANY(ARRAY[1])",
        "array": "SELECT ARRAY(SELECT 1)",
        "cast": "SELECT '1'::INT",
        "coalesce": "SELECT COALESCE(NULL, 1)",
        "current_time": "SELECT CURRENT_TIME(2)",
        "exists": "SELECT EXISTS (SELECT 1)",
        "greatest": "SELECT GREATEST(1, 2)",
        "grouping": "SELECT a, GROUPING(a) FROM t GROUP BY ROLLUP (a)",
        "least": "SELECT LEAST(1, 2)",
        "localtime": "SELECT LOCALTIME(2)",
        "localtimestamp": "SELECT LOCALTIMESTAMP(2)",
        "nullif": "SELECT NULLIF(1, 2)",
        "row": "SELECT ROW(1, 2)",
        "some": "SELECT 1 = SOME(ARRAY[1])",
        "trim": "SELECT TRIM(BOTH 'x' FROM 'xax')",
    },
    "sqlite": {"cast": "SELECT CAST(1 AS TEXT)", "exists": "SELECT EXISTS (SELECT 1)"},
    "duckdb": {
        "all": "SELECT 1 = ALL(SELECT 1)",
        "any": "SELECT 1 = ANY(SELECT 1)",
        "array": "SELECT ARRAY(SELECT 1)",
        "cast": "SELECT CAST(1 AS TEXT)",
        "coalesce": "SELECT IFNULL(a, 1) FROM t",
        "columns": "SELECT COLUMNS('a') FROM t",
        "exists": "SELECT EXISTS (SELECT 1)",
        "extract": "SELECT EXTRACT(YEAR FROM d) FROM t",
        "grouping": "SELECT a, GROUPING(a) FROM t GROUP BY ROLLUP (a)",
        "grouping_id": "SELECT a, GROUPING_ID(a) FROM t GROUP BY ROLLUP (a)",
        "interval": "SELECT d + INTERVAL (n) DAY FROM t",
        "try_cast": "SELECT TRY_CAST('1' AS INT)",
    },
    "mysql": {
        "all": "SELECT 1 = ALL(SELECT 1)",
        "any": "SELECT 1 = ANY(SELECT 1)",
        "columns": "SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (v INT PATH '$')) AS j",
        "exists": "SELECT EXISTS (SELECT 1)",
        "row": "SELECT ROW(1, 2) = ROW(1, 2)",
    },
}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_syntax_form_is_one_sqlglot_writes(dialect: str) -> None:
    probes = SYNTAX_PROBES[dialect]
    assert set(probes) == SYNTAX_FORMS[dialect]  # type: ignore[index]
    for form, sql in probes.items():
        written = check_sql(sql, dialect, None).sql()
        assert re.search(rf"\b{form}\s*\(", written, re.IGNORECASE), (form, written)


@pytest.mark.parametrize(
    ("name", "dialect", "category"),
    [
        ("percentile_cont", "postgresql", "aggregate"),
        ("strftime", "sqlite", "datetime"),
        ("list_value", "duckdb", "array"),
        ("date_format", "mysql", "datetime"),
        ("row_number", "mysql", "window"),
    ],
)
def test_lookups(name: str, dialect: str, category: str) -> None:
    assert is_allowed_function(name.upper(), dialect)  # type: ignore[arg-type]
    assert category_of(name, dialect) == category  # type: ignore[arg-type]


def test_sqlite_operators_the_authorizer_reports_are_allowed() -> None:
    # SQLite's authorizer names the function behind LIKE, GLOB, -> and ->>.
    for name in ("like", "glob", "->", "->>"):
        assert is_allowed_function(name, "sqlite")
    assert not is_allowed_function("load_extension", "sqlite")


def test_the_docs_list_exactly_the_allowed_functions() -> None:
    docs = DOCS.read_text()
    start = "<!-- allow-lists: generated by dataagent.sources.functions.allow_list_markdown() -->"
    end = "<!-- end of allow-lists -->"
    assert start in docs and end in docs
    embedded = docs.split(start, 1)[1].split(end, 1)[0].strip() + "\n"
    assert embedded == allow_list_markdown(), (
        "docs/sql-safety.md and sources/functions.py disagree: paste the output of "
        "allow_list_markdown() between the markers"
    )


# --- what our own compiler writes -------------------------------------------------------------

COMPILER_CASES = load_cases()


@pytest.mark.parametrize("case", COMPILER_CASES, ids=[c["name"] for c in COMPILER_CASES])
@pytest.mark.parametrize("dialect", DIALECTS)
def test_compiled_plans_pass_the_guard(case: dict[str, Any], dialect: str) -> None:
    # The names sqlglot writes for each dialect (STRFTIME, DATE_TRUNC, MAKEDATE, ...) are allowed.
    compiled = compile_plan(QueryPlan.model_validate(case["plan"]), retail_model(dialect), dialect)
    result = check_sql(compiled.sql, dialect, None)
    check_sql(result.limited_sql(501), dialect, None)
