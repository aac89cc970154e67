"""Shared fixtures: real databases for tests.

PostgreSQL tests use `DATAAGENT_TEST_POSTGRES_URL` (a libpq URL such as
`postgresql://root@127.0.0.1:5432/test`) and MariaDB/MySQL tests use
`DATAAGENT_TEST_MYSQL_URL` (`mysql://root@127.0.0.1:3306/test`). When
`DATAAGENT_REQUIRE_SERVICES=1` (set by `.ci/run`) a missing or unreachable
server fails the test instead of skipping it; so does a missing `../shared/evaldata` (the
third-party evaluation data the gold-query, Spider retrieval and Spider modelling tests read).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from dataagent.demo import DemoData, DemoFacts, generate, headline_facts
from dataagent.sources.access import AccessPolicy

# The access policy of trusted local use (any file, no privileged accounts): what tests
# that are not about access itself open databases with.
LOCAL = AccessPolicy()

# Third-party evaluation data (Spider dev, defog), beside the checkout: ../shared/evaldata.
EVALDATA = Path(__file__).resolve().parents[2] / "shared" / "evaldata"
SPIDER_SQLITE = EVALDATA / "spider_dev" / "sqlite"


def _required() -> bool:
    return os.environ.get("DATAAGENT_REQUIRE_SERVICES") == "1"


def _missing(what: str) -> None:
    if _required():
        pytest.fail(f"{what} is required here (DATAAGENT_REQUIRE_SERVICES=1) but not available")
    pytest.skip(f"{what} not available")


def _with_database(url: str, database: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{database}", parts.query, parts.fragment))


@pytest.fixture(scope="session")
def evaldata() -> Path:
    """The evaluation data directory (skips, or fails in CI, when absent)."""
    if not (SPIDER_SQLITE.is_dir() and (EVALDATA / "defog_postgres").is_dir()):
        _missing(f"The evaluation data ({EVALDATA})")
    return EVALDATA


@pytest.fixture(scope="session")
def postgres_admin_url() -> str:
    """The configured PostgreSQL server (skips, or fails in CI, when absent)."""
    url = os.environ.get("DATAAGENT_TEST_POSTGRES_URL")
    if not url:
        _missing("PostgreSQL (DATAAGENT_TEST_POSTGRES_URL)")
        raise AssertionError("unreachable")
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=5) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:
        _missing(f"PostgreSQL at {url} ({exc.__class__.__name__})")
    return url


@contextmanager
def fresh_postgres_database(admin_url: str) -> Iterator[str]:
    """A new, empty PostgreSQL database on the server; dropped on exit."""
    import psycopg

    name = f"da_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _with_database(admin_url, name)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def postgres_db(postgres_admin_url: str) -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test; dropped afterwards."""
    with fresh_postgres_database(postgres_admin_url) as url:
        yield url


@pytest.fixture(scope="session")
def mysql_admin_url() -> str:
    """The configured MariaDB/MySQL server (skips, or fails in CI, when absent)."""
    url = os.environ.get("DATAAGENT_TEST_MYSQL_URL")
    if not url:
        _missing("MariaDB/MySQL (DATAAGENT_TEST_MYSQL_URL)")
        raise AssertionError("unreachable")
    try:
        mysql_connect(url).close()
    except Exception as exc:
        _missing(f"MariaDB/MySQL at {url} ({exc.__class__.__name__})")
    return url


def mysql_connect(url: str, database: str | None = None):  # type: ignore[no-untyped-def]
    """A PyMySQL connection (autocommit) to the URL's database, or to `database`."""
    import pymysql

    parts = urlsplit(url)
    return pymysql.connect(
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 3306,
        user=parts.username or "root",
        password=parts.password or "",
        database=database if database is not None else (parts.path.lstrip("/") or None),
        autocommit=True,
    )


@contextmanager
def fresh_mysql_database(admin_url: str) -> Iterator[str]:
    """A new, empty MariaDB/MySQL database on the server; dropped on exit."""
    name = f"da_test_{uuid.uuid4().hex[:12]}"
    conn = mysql_connect(admin_url)
    with conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE `{name}`")
    conn.close()
    try:
        yield _with_database(admin_url, name)
    finally:
        conn = mysql_connect(admin_url)
        with conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
        conn.close()


@pytest.fixture
def mysql_db(mysql_admin_url: str) -> Iterator[str]:
    """A fresh, empty MariaDB/MySQL database for one test; dropped afterwards."""
    with fresh_mysql_database(mysql_admin_url) as url:
        yield url


@pytest.fixture(scope="session")
def demo_data() -> DemoData:
    """The demo retailer for the default seed, generated once per test session."""
    return generate()


@pytest.fixture(scope="session")
def demo_facts(demo_data: DemoData) -> DemoFacts:
    """The headline facts of the default demo data."""
    return headline_facts(demo_data)


def with_user(url: str, user: str) -> str:
    """The URL with its user replaced (and no password)."""
    parts = urlsplit(url)
    netloc = f"{user}@{parts.hostname}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


@contextmanager
def postgres_reader(url: str, schemas: tuple[str, ...] = ("public",)) -> Iterator[str]:
    """A login role that can only read the tables there now: how the docs say to connect.

    Data Agent refuses superuser connections, so every test that queries PostgreSQL through
    the executor connects as one of these.
    """
    import psycopg

    role = f"da_ro_{uuid.uuid4().hex[:10]}"
    database = urlsplit(url).path.lstrip("/")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
        conn.execute(f'GRANT CONNECT ON DATABASE "{database}" TO "{role}"')
        for schema in schemas:
            conn.execute(f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"')
            conn.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA "{schema}" TO "{role}"')
    try:
        yield with_user(url, role)
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP OWNED BY "{role}"')
            conn.execute(f'DROP ROLE "{role}"')


@contextmanager
def mysql_reader(url: str) -> Iterator[str]:
    """An account with SELECT on the URL's database only (no FILE, SUPER, RELOAD)."""
    user = f"da_ro_{uuid.uuid4().hex[:10]}"
    database = urlsplit(url).path.lstrip("/")
    conn = mysql_connect(url)
    try:
        with conn.cursor() as cur:
            cur.execute(f"CREATE USER '{user}'@'%'")
            # SHOW VIEW lets introspection read a view's definition; nothing more.
            cur.execute(f"GRANT SELECT, SHOW VIEW ON `{database}`.* TO '{user}'@'%'")
    finally:
        conn.close()
    try:
        yield with_user(url, user)
    finally:
        conn = mysql_connect(url)
        try:
            with conn.cursor() as cur:
                cur.execute(f"DROP USER IF EXISTS '{user}'@'%'")
        finally:
            conn.close()
