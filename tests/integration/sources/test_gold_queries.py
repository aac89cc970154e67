"""Every gold query of ../shared/evaldata passes the SQL guard and runs through the executor.

The function allow-lists must refuse no legitimate analysis. Gold SQL written by third
parties is the measure: Spider dev (the official SQLite gold, SpiderMan's corrected gold and
SpiderMan's chinook_1 questions) on the Spider SQLite files, and defog's PostgreSQL gold
(every `;` alternative and `{a, b}` column option, expanded as sql-eval does) on the defog
dumps, connected as a SELECT-only login role. SpiderMan's MySQL-dialect gold goes through
the guard alone. A failure names every refused or failing query with its reason.
"""

from __future__ import annotations

import csv
import itertools
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from tests.conftest import EVALDATA, LOCAL

from dataagent.errors import DataAgentError
from dataagent.sources.engines import ConnectionSpec
from dataagent.sources.executor import execute_query
from dataagent.sources.guard import check_sql
from dataagent.sources.results import QueryError

SPIDER = EVALDATA / "spider_dev"
DEFOG = EVALDATA / "defog_postgres"
DEFOG_QUESTION_FILES = (
    "questions_gen_postgres",
    "instruct_basic_postgres",
    "instruct_advanced_postgres",
    "idk",
)
# Gold query id -> why the guard refuses it (a function that is genuinely dangerous). None so
# far: every gold query passes.
EXPECTED_REFUSALS: dict[str, str] = {}

# Skips without ../shared/evaldata; fails instead under DATAAGENT_REQUIRE_SERVICES=1 (CI).
pytestmark = pytest.mark.usefixtures("evaldata")


@dataclass(frozen=True)
class Gold:
    """One gold query and the database it runs on."""

    id: str
    sql: str
    database: str


def expand(query: str) -> list[str]:
    """sql-eval's expansion: `;` separates alternatives, and the first `{a, b}` stands for
    every non-empty subset of its columns in order (`GROUP BY {}` takes the same columns)."""
    queries = []
    for alternative in (q.strip() for q in query.split(";")):
        if not alternative:
            continue
        start = alternative.find("{")
        end = alternative.find("}", start + 1)
        if start == -1 or end == -1:
            queries.append(alternative)
            continue
        options = alternative[start + 1 : end].split(",")
        for size in range(1, len(options) + 1):
            for chosen in itertools.combinations(options, size):
                columns = ", ".join(chosen)
                rest = alternative[end + 1 :].replace("GROUP BY {}", f"GROUP BY {columns}")
                queries.append(alternative[:start] + columns + rest)
    return queries


def spider_gold(field: str) -> list[Gold]:
    lines = (SPIDER / "questions" / "spider_dev_compact.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    return [Gold(f"{r['id']}:{field}", r[field], r["sqlite_file"]) for r in records]


def chinook_gold() -> list[Gold]:
    path = SPIDER / "questions" / "spiderman_train_chinook_1_mysql.csv"
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    return [
        Gold(f"chinook_1:{i}", r["sql"], f"sqlite/{r['database']}.sqlite")
        for i, r in enumerate(rows)
    ]


def defog_gold() -> list[Gold]:
    golds = []
    for name in DEFOG_QUESTION_FILES:
        with (DEFOG / "questions" / f"{name}.csv").open(newline="") as handle:
            for i, row in enumerate(csv.DictReader(handle)):
                for j, sql in enumerate(expand(row["query"])):
                    golds.append(Gold(f"{name}:{i}:{j}", sql, row["db_name"]))
    return golds


def failure(gold: Gold, error: DataAgentError) -> str:
    return f"{gold.id} [{gold.database}] {error.code.value}: {error.message}\n    {gold.sql}"


def report(capsys: Any, suite: str, passed: int, total: int) -> None:
    with capsys.disabled():
        print(f"\n{suite}: {passed}/{total} gold queries pass")


def check_outcome(suite: str, golds: list[Gold], problems: dict[str, str], capsys: Any) -> None:
    refused = {k for k in problems if k in EXPECTED_REFUSALS}
    unexpected = [problems[k] for k in problems if k not in EXPECTED_REFUSALS]
    report(capsys, suite, len(golds) - len(problems), len(golds))
    assert not unexpected, f"{len(unexpected)} gold queries failed:\n" + "\n".join(unexpected)
    stale = {k for k in EXPECTED_REFUSALS if k.startswith(suite)} - refused
    assert not stale, f"expected refusals that now pass: {sorted(stale)}"


# --- Spider on SQLite --------------------------------------------------------------------------

SQLITE_SUITES = {
    "spider gold_sql": lambda: spider_gold("gold_sql"),
    "spider spiderman_gold_sql": lambda: spider_gold("spiderman_gold_sql"),
    "spiderman chinook_1": chinook_gold,
}


@pytest.mark.parametrize("suite", list(SQLITE_SUITES))
def test_spider_gold_runs_on_sqlite(suite: str, capsys: Any) -> None:
    golds = SQLITE_SUITES[suite]()
    problems = {}
    for gold in golds:
        spec = ConnectionSpec(dialect="sqlite", database=str(SPIDER / gold.database))
        try:
            execute_query(spec, gold.sql, timeout_s=30, policy=LOCAL)
        except QueryError as error:
            problems[gold.id] = failure(gold, error)
    check_outcome(suite, golds, problems, capsys)


def test_spiderman_mysql_gold_passes_the_guard(capsys: Any) -> None:
    golds = spider_gold("spiderman_gold_sql") + chinook_gold()
    problems = {}
    for gold in golds:
        try:
            check_sql(gold.sql, "mysql").limited_sql(501)
        except DataAgentError as error:
            problems[gold.id] = failure(gold, error)
    check_outcome("spiderman (MySQL dialect, guard only)", golds, problems, capsys)


# --- defog on PostgreSQL -----------------------------------------------------------------------


def _with(url: str, *, user: str | None = None, database: str | None = None) -> str:
    parts = urlsplit(url)
    netloc = f"{user or parts.username}@{parts.hostname}:{parts.port}"
    path = f"/{database}" if database else parts.path
    return urlunsplit((parts.scheme, netloc, path, parts.query, parts.fragment))


@pytest.fixture(scope="module")
def defog_databases(postgres_admin_url: str) -> Iterator[dict[str, str]]:
    """Each defog dump in a fresh database, read through a SELECT-only login role.

    Yields db name -> URL of that database for the reader role (never the admin account).
    """
    suffix = uuid.uuid4().hex[:8]
    role = f"da_gold_ro_{suffix}"
    names = sorted(p.name for p in (DEFOG / "databases").iterdir() if p.is_dir())
    databases = {name: f"da_gold_{name}_{suffix}" for name in names}
    with psycopg.connect(postgres_admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
    try:
        for name, database in databases.items():
            with psycopg.connect(postgres_admin_url, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{database}"')
                conn.execute(f'GRANT CONNECT ON DATABASE "{database}" TO "{role}"')
            dump = (DEFOG / "databases" / name / f"{name}.sql").read_text()
            with psycopg.connect(_with(postgres_admin_url, database=database)) as conn:
                conn.execute(dump)  # type: ignore[arg-type]  # a trusted file, no parameters
                schemas = [
                    r[0]
                    for r in conn.execute(
                        "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%'"
                        " AND nspname <> 'information_schema'"
                    )
                ]
                for schema in schemas:
                    conn.execute(f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"')
                    conn.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA "{schema}" TO "{role}"')
        yield {
            name: _with(postgres_admin_url, user=role, database=database)
            for name, database in databases.items()
        }
    finally:
        with psycopg.connect(postgres_admin_url, autocommit=True) as conn:
            for database in databases.values():
                conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            conn.execute(f'DROP ROLE IF EXISTS "{role}"')


def test_defog_reader_is_not_privileged(defog_databases: dict[str, str]) -> None:
    with psycopg.connect(defog_databases["academic"]) as conn:
        row = conn.execute(
            "SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user"
        ).fetchone()
    assert row == (False, False, False)


def test_defog_gold_runs_on_postgresql(defog_databases: dict[str, str], capsys: Any) -> None:
    golds = defog_gold()
    problems = {}
    for gold in golds:
        spec = ConnectionSpec(dialect="postgresql", url=defog_databases[gold.database])  # type: ignore[arg-type]
        try:
            execute_query(spec, gold.sql, timeout_s=30, policy=LOCAL)
        except QueryError as error:
            problems[gold.id] = failure(gold, error)
    check_outcome("defog (PostgreSQL)", golds, problems, capsys)
