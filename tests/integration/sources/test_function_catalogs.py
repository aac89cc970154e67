"""The allow-lists against each database's own catalog of functions.

For every dialect: every allowed name exists in the installed catalog, and none of the facts
the catalog keeps about it says it can run SQL text, touch files, change state or sleep.
Where a fact is true of an allowed function for a harmless reason, the exception is listed
below with that reason; an exception that no longer applies fails the test too, so the lists
stay reviewed. Each test prints how many functions the catalog has and how many are allowed.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Iterator
from typing import Any

import duckdb
import psycopg
import pymysql
import pytest
from tests.conftest import mysql_connect

from dataagent.sources.calls import RefusedCall, calls_in_text
from dataagent.sources.functions import SYNTAX_FORMS, TABLE_FUNCTIONS, allowed_functions
from dataagent.sources.policy import OBJECT_IDENTIFIER_TYPES


def keywords(pattern: re.Pattern[str], text: str) -> set[str]:
    """The screened words in a text, singular and lower-cased (executes -> execute)."""
    found = set()
    for word in pattern.findall(text):
        word = (word if isinstance(word, str) else word[0]).lower()
        if word.startswith("execut"):
            word = "execute"
        found.add("query" if word == "queries" else word.removesuffix("s"))
    return found


# --- PostgreSQL (pg_proc) ----------------------------------------------------------------------

# (name, identity arguments) -> why an overload that is not parallel-safe may still be called.
PG_PARALLEL_REVIEWED = {
    ("age", "xid"): "reads the transaction counter to give an xid's age; assigns no xid",
    ("random", ""): "restricted only because its generator state is per backend; changes no "
    "database state (setseed, which sets that state, is not allowed)",
}
PG_RETURNS_OBJECT_IDENTIFIER_REVIEWED = {
    "pg_typeof": "names the type of the value it is given; looks nothing up by name",
}
PG_VOLATILE_REVIEWED = {
    "clock_timestamp": "reads the clock",
    "gen_random_uuid": "draws random bytes",
    "random": "draws a random number",
}
PG_KEYWORDS = re.compile(
    r"\b(files?|sleeps?|locks?|sequences?|execut\w*|query|queries|sql|settings?|"
    r"configuration|server|backend|replication|wal|snapshot|privileges?|roles?|notify|"
    r"advisory|large object|extensions?|tablespace|database|relation|transactions?|xid|"
    r"cursor|session|user)\b",
    re.IGNORECASE,
)
# (name, keyword) -> why the word in its description is harmless.
PG_KEYWORDS_REVIEWED = {
    ("age", "transaction"): "age(xid): the age of a transaction id, read from the counter",
    ("now", "transaction"): "the time the current transaction started",
    ("transaction_timestamp", "transaction"): "the time the current transaction started",
    ("jsonb_path_query", "query"): "a JSON path query, not SQL",
    ("jsonb_path_query_array", "query"): "a JSON path query, not SQL",
    ("jsonb_path_query_first", "query"): "a JSON path query, not SQL",
    ("substring", "sql"): "substring(text, text, text) matches an SQL regular expression",
}


@pytest.fixture(scope="module")
def pg_catalog(postgres_admin_url: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(postgres_admin_url) as conn:
        return conn.execute(
            """
            SELECT p.proname, pg_get_function_identity_arguments(p.oid), p.provolatile,
                   p.proparallel,
                   p.proacl IS NULL OR has_function_privilege('public', p.oid, 'EXECUTE'),
                   coalesce(obj_description(p.oid, 'pg_proc'), ''),
                   ARRAY(SELECT format_type(t, NULL)
                         FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) AS t),
                   format_type(p.prorettype, NULL)
            FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = 'pg_catalog'
            """
        ).fetchall()


@pytest.fixture(scope="module")
def pg_object_identifier_types(postgres_admin_url: str) -> set[str]:
    """The types whose values look catalog objects up by name (regclass, regproc, ...)."""
    with psycopg.connect(postgres_admin_url) as conn:
        rows = conn.execute(
            "SELECT typname FROM pg_type WHERE typname LIKE 'reg%' AND typcategory = 'N'"
        ).fetchall()
    return {str(row[0]) for row in rows}


def test_the_guard_refuses_casts_to_every_object_identifier_type(
    pg_object_identifier_types: set[str],
) -> None:
    assert pg_object_identifier_types, "pg_type lists no object identifier types"
    assert pg_object_identifier_types <= OBJECT_IDENTIFIER_TYPES


def test_postgresql_catalog(
    pg_catalog: list[tuple[Any, ...]], pg_object_identifier_types: set[str], capsys: Any
) -> None:
    PG_OBJECT_IDENTIFIER_TYPES = pg_object_identifier_types
    catalog = {row[0] for row in pg_catalog}
    allowed = allowed_functions("postgresql")
    problems = [f"{name}: not in pg_proc" for name in sorted(allowed - catalog)]
    checked = allowed | (SYNTAX_FORMS["postgresql"] & catalog)
    used: set[Any] = set()
    for name, args, volatility, parallel, public, description, arg_types, returns in pg_catalog:
        if name not in checked:
            continue
        overload = f"{name}({args})"
        if parallel != "s":
            if (name, args) in PG_PARALLEL_REVIEWED:
                used.add((name, args))
            else:
                problems.append(f"{overload}: parallel {parallel!r} (state, SQL, or locks)")
        if volatility == "v":
            if name in PG_VOLATILE_REVIEWED:
                used.add(name)
            else:
                problems.append(f"{overload}: volatile")
        if not public:
            problems.append(f"{overload}: PUBLIC may not execute it")
        odd = [t for t in arg_types if t.removesuffix("[]") in PG_OBJECT_IDENTIFIER_TYPES]
        if odd:
            problems.append(f"{overload}: takes an object identifier ({', '.join(odd)})")
        if returns.removesuffix("[]") in PG_OBJECT_IDENTIFIER_TYPES:
            if name in PG_RETURNS_OBJECT_IDENTIFIER_REVIEWED:
                used.add(("returns", name))
            else:
                problems.append(f"{overload}: returns {returns}, a catalog lookup by name")
        for word in keywords(PG_KEYWORDS, description):
            if (name, word) in PG_KEYWORDS_REVIEWED:
                used.add((name, word))
            else:
                problems.append(f"{overload}: description says {word!r}: {description}")
    reviewed = {
        *PG_PARALLEL_REVIEWED,
        *PG_VOLATILE_REVIEWED,
        *PG_KEYWORDS_REVIEWED,
        *(("returns", name) for name in PG_RETURNS_OBJECT_IDENTIFIER_REVIEWED),
    }
    problems += [f"reviewed exception no longer applies: {e}" for e in reviewed - used]
    report(capsys, "PostgreSQL pg_proc (pg_catalog)", len(catalog), len(allowed))
    assert not problems, "\n".join(problems)


# --- DuckDB (duckdb_functions()) ---------------------------------------------------------------

DUCKDB_VOLATILE_REVIEWED = {
    "gen_random_uuid": "draws random bytes",
    "random": "draws a random number",
    "uuid": "draws random bytes",
}
# Names that are also table functions or table macros, which the guard refuses in FROM.
DUCKDB_TABLE_FORM_REFUSED = {
    "histogram": "the table macro histogram(table, column) reads a table by name",
    "repeat": "the table function repeat(value, n)",
}
DUCKDB_MACRO_CALLS_REVIEWED = {
    ("json_group_object", "error"): "raises 'key cannot be NULL'; throwing changes nothing",
}
DUCKDB_KEYWORDS = re.compile(
    r"\b(files?|sleeps?|locks?|sequences?|secrets?|settings?|execut\w*|query|queries|sql)\b",
    re.IGNORECASE,
)
DUCKDB_KEYWORDS_REVIEWED = {
    **{
        (name, "execute"): "runs the aggregate named in its second argument; DuckDB resolves "
        "that name among aggregate functions only, which this test checks are all free of "
        "side effects"
        for name in ("aggregate", "array_aggr", "array_aggregate", "list_aggr", "list_aggregate")
    },
    **{
        (name, "execute"): "runs the lambda written in the query, whose calls the guard checks"
        for name in ("array_reduce", "list_reduce", "reduce")
    },
}
DUCKDB_CALLABLE_TYPES = {"scalar", "aggregate", "window", "macro"}


def test_duckdb_catalog(capsys: Any) -> None:
    with duckdb.connect() as conn:
        rows = conn.execute(
            "SELECT function_name, function_type, has_side_effects, stability,"
            " macro_definition, coalesce(description, '') FROM duckdb_functions()"
        ).fetchall()
    catalog = {row[0] for row in rows}
    allowed = allowed_functions("duckdb")
    tables = TABLE_FUNCTIONS["duckdb"]
    problems = [f"{name}: not in duckdb_functions()" for name in sorted(allowed - catalog)]
    used: set[Any] = set()
    for name, kind, side_effects, stability, macro, description in rows:
        if kind == "aggregate" and (side_effects or stability == "VOLATILE"):
            problems.append(f"aggregate {name} is volatile; list_aggregate() could call it")
        if name not in allowed:
            continue
        runs = kind in DUCKDB_CALLABLE_TYPES or (
            kind in {"table", "table_macro"} and name in tables
        )
        if not runs:
            if name in DUCKDB_TABLE_FORM_REFUSED and kind in {"table", "table_macro"}:
                used.add(name)
                continue
            problems.append(f"{name}: a {kind} function")
            continue
        if side_effects or stability == "VOLATILE":
            if name in DUCKDB_VOLATILE_REVIEWED:
                used.add(name)
            else:
                problems.append(f"{name} ({kind}): side effects {side_effects}, {stability}")
        if macro:
            problems += _macro_problems(name, macro, used)
        for word in keywords(DUCKDB_KEYWORDS, description):
            if (name, word) in DUCKDB_KEYWORDS_REVIEWED:
                used.add((name, word))
            else:
                problems.append(f"{name}: description says {word!r}: {description}")
    reviewed = {
        *DUCKDB_VOLATILE_REVIEWED,
        *DUCKDB_TABLE_FORM_REFUSED,
        *DUCKDB_MACRO_CALLS_REVIEWED,
        *DUCKDB_KEYWORDS_REVIEWED,
    }
    problems += [f"reviewed exception no longer applies: {e}" for e in reviewed - used]
    report(capsys, "DuckDB duckdb_functions()", len(catalog), len(allowed))
    assert not problems, "\n".join(problems)


def _macro_problems(name: str, body: str, used: set[Any]) -> list[str]:
    """A macro may only call allowed functions (its body is SQL like any other)."""
    text = body
    for (macro, callee), _why in DUCKDB_MACRO_CALLS_REVIEWED.items():
        call = re.compile(rf'"?\b{callee}\b"?\s*\(')
        if macro == name and call.search(text):
            text = call.sub("(", text)
            used.add((macro, callee))
    try:
        calls_in_text(text, "duckdb", Counter())
    except RefusedCall as refused:
        return [f"macro {name} calls what a query may not: {refused.reason} Body: {body}"]
    return []


# --- SQLite (pragma_function_list) -------------------------------------------------------------

SQLITE_DIRECTONLY = 0x80000
SQLITE_DETERMINISTIC = 0x800
SQLITE_NONDETERMINISTIC_REVIEWED = {
    "random": "draws a random number",
    "current_date": "reads the clock",
    "current_time": "reads the clock",
    "current_timestamp": "reads the clock",
}


def test_sqlite_catalog(capsys: Any) -> None:
    with sqlite3.connect(":memory:") as conn:
        rows = conn.execute(
            "SELECT name, builtin, type, narg, flags FROM pragma_function_list"
        ).fetchall()
    catalog = {row[0] for row in rows}
    allowed = allowed_functions("sqlite")
    problems = [f"{name}: not in pragma_function_list" for name in sorted(allowed - catalog)]
    used = set()
    for name, builtin, kind, narg, flags in rows:
        if name not in allowed:
            continue
        if not builtin:
            problems.append(f"{name}/{narg}: not built in")
        if flags & SQLITE_DIRECTONLY:
            problems.append(f"{name}/{narg}: SQLITE_DIRECTONLY (unsafe outside top-level SQL)")
        # SQLite flags scalar functions; aggregates and windows ('a', 'w') never carry it.
        if kind == "s" and not flags & SQLITE_DETERMINISTIC:
            if name in SQLITE_NONDETERMINISTIC_REVIEWED:
                used.add(name)
            else:
                problems.append(f"{name}/{narg}: not deterministic")
    problems += [
        f"reviewed exception no longer applies: {name}"
        for name in set(SQLITE_NONDETERMINISTIC_REVIEWED) - used
    ]
    report(capsys, "SQLite pragma_function_list", len(catalog), len(allowed))
    assert not problems, "\n".join(problems)


# --- MariaDB (the server's help tables) ---------------------------------------------------------

# Categories whose topics document functions; JSON and window functions sit under
# "Contents" but their documentation lives under /sql-functions/.
MARIADB_FUNCTION_CATEGORIES = {"Functions", "Functions and Modifiers for Use with GROUP BY"}
MARIADB_DANGEROUS = {
    "aes_decrypt",
    "aes_encrypt",
    "benchmark",
    "binlog_gtid_pos",
    "connection_id",
    "des_decrypt",
    "des_encrypt",
    "encrypt",
    "found_rows",
    "get_lock",
    "is_free_lock",
    "is_used_lock",
    "last_insert_id",
    "lastval",
    "load_file",
    "master_gtid_wait",
    "master_pos_wait",
    "name_const",
    "nextval",
    "old_password",
    "password",
    "random_bytes",
    "release_all_locks",
    "release_lock",
    "row_count",
    "setval",
    "sleep",
    "sys_guid",
    "uuid_short",
    "wsrep_last_seen_gtid",
    "wsrep_last_written_gtid",
    "wsrep_sync_wait_upto_gtid",
}
MARIADB_KEYWORDS = re.compile(
    r"\b(files?|sleeps?|locks?|sequences?|replication|binlog|binary log|gtid|passwords?|"
    r"waits?|privileges?|execut\w*)\b",
    re.IGNORECASE,
)
MARIADB_KEYWORDS_REVIEWED = {
    ("dense_rank", "sequence"): "the ORDER BY sequence of the window",
    ("rank", "sequence"): "the ORDER BY sequence of the window",
    ("row_number", "sequence"): "the ORDER BY sequence of the window",
    ("json_unquote", "sequence"): "escape sequences in a string",
    ("json_table", "sequence"): "the sequence of JSON nodes a path finds",
    ("json_table", "replication"): "a note on statement-based replication, not an action",
    ("rand", "sequence"): "a seed gives a repeatable sequence of values",
    ("rand", "execute"): "evaluated again each time a WHERE clause is executed",
    ("rand", "replication"): "non-deterministic, so unsafe for statement-based replication",
    ("sysdate", "replication"): "non-deterministic, so unsafe for statement-based replication",
    ("sysdate", "binary log"): "SET TIMESTAMP in the binary log does not change it",
    ("sysdate", "execute"): "returns the time at which it executes",
    ("uuid", "replication"): "non-deterministic, so unsafe for statement-based replication",
}


@pytest.fixture(scope="module")
def mariadb_help(mysql_admin_url: str) -> Iterator[tuple[dict[str, list[str]], Any]]:
    conn = mysql_connect(mysql_admin_url)
    try:
        with conn.cursor() as cur:
            cur.execute(
                "SELECT t.name, c.name, p.name, t.description, t.url FROM mysql.help_topic t"
                " JOIN mysql.help_category c ON c.help_category_id = t.help_category_id"
                " LEFT JOIN mysql.help_category p ON p.help_category_id = c.parent_category_id"
            )
            topics = cur.fetchall()
        assert len(topics) > 500, "the help tables are not loaded (mariadb-install-db)"
        yield _documented_functions(topics), conn
    finally:
        conn.close()


def _documented_functions(topics: list[tuple[str, ...]]) -> dict[str, list[str]]:
    """Function name -> the help text of each topic documenting it (by title or syntax)."""
    documented: dict[str, list[str]] = {}
    for title, category, parent, description, url in topics:
        if not (
            "/sql-functions/" in url
            or category in MARIADB_FUNCTION_CATEGORIES
            or parent == "Functions"
        ):
            continue
        name = re.sub(r"\s+(Function|FUNCTION)$", "", title.replace("\\", "").strip())
        names = {name.lower()} if re.fullmatch(r"\w+", name) else set()
        if description.startswith("Syntax"):
            syntax = description.split("Description\n-----------", 1)[0]
            names |= {n.lower() for n in re.findall(r"\b([A-Za-z_]\w*)\s*\(", syntax)}
        text = description.split("Examples\n--------", 1)[0].split("URL:", 1)[0]
        for each in names - {"over"}:
            documented.setdefault(each, []).append(text)
    return documented


def test_mariadb_catalog(mariadb_help: tuple[dict[str, list[str]], Any], capsys: Any) -> None:
    documented, conn = mariadb_help
    allowed = allowed_functions("mysql")
    problems = [
        f"{name}: not documented as a function" for name in sorted(allowed - documented.keys())
    ]
    problems += [f"{name}: known to be dangerous" for name in sorted(allowed & MARIADB_DANGEROUS)]
    problems += [f"{name}: not a function of this server" for name in _missing(conn, allowed)]
    used = set()
    for name in sorted(allowed & documented.keys()):
        for text in documented[name]:
            for word in keywords(MARIADB_KEYWORDS, text):
                if (name, word) in MARIADB_KEYWORDS_REVIEWED:
                    used.add((name, word))
                else:
                    problems.append(f"{name}: help text says {word!r}")
    problems += [
        f"reviewed exception no longer applies: {e}" for e in set(MARIADB_KEYWORDS_REVIEWED) - used
    ]
    report(capsys, "MariaDB help tables (documented functions)", len(documented), len(allowed))
    assert not problems, "\n".join(problems)


def _missing(conn: Any, names: frozenset[str]) -> list[str]:
    """Names this server does not know (checked with PREPARE, which never runs anything)."""
    missing = []
    with conn.cursor() as cur:
        for name in sorted(names):
            probe = f"SELECT {name}()"
            if name in TABLE_FUNCTIONS["mysql"]:
                probe = f"SELECT * FROM {name}('[]', '$[*]' COLUMNS (a INT PATH '$')) AS t"
            try:
                cur.execute("PREPARE probe FROM %s", (probe,))
            except pymysql.err.MySQLError as exc:
                # 1305/1630: no such function; 1582 (argument count) and 1064 (keyword
                # syntax such as LEFT()) mean the server knows the name.
                if exc.args[0] in (1305, 1630):
                    missing.append(name)
                continue
            cur.execute("DEALLOCATE PREPARE probe")
    return missing


def report(capsys: Any, catalog: str, total: int, allowed: int) -> None:
    """Print the counts even when pytest captures output."""
    with capsys.disabled():
        print(f"\n{catalog}: {total} functions, {allowed} allowed")
