"""What a session may reach: privileged accounts, file roots, swapped files, uniform errors.

Each test performs the attack that worked before the access policy existed, then checks it
is refused now: a superuser (or FILE/SUPER) account, a file outside the admin's roots, the
app's own files, a file swapped for a symlink after its connection was made.
"""

from __future__ import annotations

import logging
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import psycopg
import pytest
from pydantic import ValidationError
from tests.conftest import LOCAL, mysql_connect, mysql_reader, postgres_reader, with_user

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.access import ACCOUNT_RECIPE, OPEN_FAILED_MESSAGE, AccessPolicy
from dataagent.sources.engines import ConnectionSpec, check_access, test_connection
from dataagent.sources.executor import execute_query
from dataagent.sources.results import QueryError

ALLOWED = AccessPolicy(allow_privileged=True)


def refused(spec: ConnectionSpec, policy: AccessPolicy, sql: str = "SELECT 1") -> QueryError:
    with pytest.raises(QueryError) as caught:
        execute_query(spec, sql, policy=policy)
    return caught.value


# --- privileged accounts ----------------------------------------------------------------------


def test_a_postgres_superuser_is_refused_at_use(postgres_db: str) -> None:
    spec = ConnectionSpec(dialect="postgresql", url=postgres_db)  # type: ignore[arg-type]
    error = refused(spec, LOCAL)
    assert error.code is ErrorCode.FORBIDDEN
    assert "superuser" in error.message and ACCOUNT_RECIPE in error.message
    check = test_connection(spec, LOCAL)
    assert not check.ok and check.error_code == "FORBIDDEN"


def test_an_allowed_superuser_works_and_every_run_warns(
    postgres_db: str, caplog: pytest.LogCaptureFixture
) -> None:
    spec = ConnectionSpec(dialect="postgresql", url=postgres_db)  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, logger="dataagent.sources.sessions"):
        for _ in range(2):
            assert execute_query(spec, "SELECT 1 AS one", policy=ALLOWED).rows == [[1]]
    warnings = [r for r in caplog.records if "privileged PostgreSQL account" in r.message]
    assert len(warnings) == 2
    check = test_connection(spec, ALLOWED)
    assert check.ok and check.warnings and "superuser" in check.warnings[0]


@contextmanager
def _postgres_role(url: str, grant: str) -> Iterator[ConnectionSpec]:
    role = f"da_priv_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
        conn.execute(grant.format(role=f'"{role}"'))
    try:
        yield ConnectionSpec(dialect="postgresql", url=with_user(url, role))  # type: ignore[arg-type]
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP ROLE "{role}"')


@pytest.mark.parametrize(
    ("grant", "says"),
    [
        ("ALTER ROLE {role} CREATEROLE", "CREATEROLE"),
        ("GRANT pg_read_server_files TO {role}", "pg_read_server_files"),
        ("GRANT pg_execute_server_program TO {role}", "pg_execute_server_program"),
    ],
)
def test_postgres_roles_that_reach_server_files_are_refused(
    postgres_db: str, grant: str, says: str
) -> None:
    with _postgres_role(postgres_db, grant) as spec:
        error = refused(spec, LOCAL)
        assert error.code is ErrorCode.FORBIDDEN and says in error.message
        assert execute_query(spec, "SELECT 1", policy=ALLOWED).rows == [[1]]


def test_a_postgres_read_only_role_is_accepted(postgres_db: str) -> None:
    with postgres_reader(postgres_db) as url:
        spec = ConnectionSpec(dialect="postgresql", url=url)  # type: ignore[arg-type]
        assert execute_query(spec, "SELECT 1", policy=LOCAL).rows == [[1]]
        check_access(spec, LOCAL)  # what creating the connection checks


def test_creation_refuses_a_reachable_superuser_but_not_an_unreachable_server(
    postgres_db: str,
) -> None:
    admin = ConnectionSpec(dialect="postgresql", url=postgres_db)  # type: ignore[arg-type]
    with pytest.raises(DataAgentError) as caught:
        check_access(admin, LOCAL)
    assert caught.value.code is ErrorCode.FORBIDDEN
    down = ConnectionSpec(dialect="postgresql", url="postgresql://a@127.0.0.1:9/x")  # type: ignore[arg-type]
    check_access(down, LOCAL)  # checked again when it is first used
    with pytest.raises(DataAgentError) as caught:
        check_access(down, LOCAL, require_reachable=True)
    assert caught.value.code is ErrorCode.CONNECTION_FAILED


@contextmanager
def _mysql_account(url: str, *grants: str) -> Iterator[ConnectionSpec]:
    user = f"da_priv_{uuid.uuid4().hex[:8]}"
    role = f"da_role_{uuid.uuid4().hex[:8]}"
    database = url.rsplit("/", 1)[-1]
    conn = mysql_connect(url)
    try:
        with conn.cursor() as cur:
            cur.execute(f"CREATE USER '{user}'@'%'")
            cur.execute(f"GRANT SELECT ON `{database}`.* TO '{user}'@'%'")
            cur.execute(f"CREATE ROLE {role}")
            for grant in grants:
                cur.execute(grant.format(user=f"'{user}'@'%'", role=role))
    finally:
        conn.close()
    try:
        yield ConnectionSpec(dialect="mysql", url=with_user(url, user))  # type: ignore[arg-type]
    finally:
        conn = mysql_connect(url)
        try:
            with conn.cursor() as cur:
                cur.execute(f"DROP USER IF EXISTS '{user}'@'%'")
                cur.execute(f"DROP ROLE IF EXISTS {role}")
        finally:
            conn.close()


def test_the_mysql_admin_account_is_refused(mysql_db: str) -> None:
    spec = ConnectionSpec(dialect="mysql", url=mysql_db)  # type: ignore[arg-type]
    error = refused(spec, LOCAL)
    assert error.code is ErrorCode.FORBIDDEN and "ALL PRIVILEGES" in error.message
    assert execute_query(spec, "SELECT 1", policy=ALLOWED).rows == [[1]]


@pytest.mark.parametrize(
    ("grants", "says"),
    [
        (("GRANT FILE ON *.* TO {user}",), "FILE"),
        (("GRANT SUPER ON *.* TO {user}",), "SUPER"),
        (("GRANT SELECT, RELOAD ON *.* TO {user}",), "RELOAD"),
        # MariaDB shows a role's grants only to accounts that may read `mysql`: a role it
        # cannot see into is refused, whatever it holds.
        (("GRANT FILE ON *.* TO {role}", "GRANT {role} TO {user}"), "role"),
    ],
)
def test_mysql_accounts_with_server_privileges_are_refused(
    mysql_db: str, grants: tuple[str, ...], says: str
) -> None:
    with _mysql_account(mysql_db, *grants) as spec:
        error = refused(spec, LOCAL)
        assert error.code is ErrorCode.FORBIDDEN and says in error.message, error.message


def test_a_mysql_select_only_account_is_accepted(mysql_db: str) -> None:
    with mysql_reader(mysql_db) as url:
        spec = ConnectionSpec(dialect="mysql", url=url)  # type: ignore[arg-type]
        assert execute_query(spec, "SELECT 1", policy=LOCAL).rows == [[1]]


# --- files ------------------------------------------------------------------------------------


def _sqlite(path: Path, secret: str = "visible") -> Path:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (v TEXT)")
        db.execute("INSERT INTO t VALUES (?)", (secret,))
    return path


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path]:
    """An allowed folder, and a data directory (private) beside it."""
    allowed, data = tmp_path / "files", tmp_path / "data"
    allowed.mkdir()
    data.mkdir()
    return allowed, data


def _server(allowed: Path, data: Path, own: tuple[Path, ...] = ()) -> AccessPolicy:
    return AccessPolicy.server(file_roots=[allowed], private_roots=[data], own_files=own)


def test_files_outside_the_roots_are_refused(roots: tuple[Path, Path], tmp_path: Path) -> None:
    allowed, data = roots
    policy = _server(allowed, data)
    inside = _sqlite(allowed / "shop.db")
    outside = _sqlite(tmp_path / "elsewhere.db")
    spec = ConnectionSpec(dialect="sqlite", database=str(inside))
    assert execute_query(spec, "SELECT v FROM t", policy=policy).rows == [["visible"]]
    for path in (outside, allowed / ".." / "elsewhere.db", Path("/etc/passwd")):
        error = refused(ConnectionSpec(dialect="sqlite", database=str(path)), policy)
        assert error.code is ErrorCode.FORBIDDEN and "DATAAGENT_FILE_ROOTS" in error.message
    nothing = AccessPolicy.server(file_roots=[], private_roots=[data])
    error = refused(spec, nothing)
    assert error.code is ErrorCode.FORBIDDEN and "only uploaded files" in error.message


def test_the_data_directory_is_refused_even_inside_a_root(tmp_path: Path) -> None:
    data = tmp_path / "data"
    upload = _sqlite(
        (data / "datasets" / "abc").mkdir(parents=True) or data / "datasets" / "abc" / "u.db"
    )
    app_db = _sqlite(data / "dataagent.db", secret="argon2-hash")
    policy = AccessPolicy.server(file_roots=[tmp_path], private_roots=[data])
    for path in (upload, app_db):
        error = refused(ConnectionSpec(dialect="sqlite", database=str(path)), policy)
        assert error.code is ErrorCode.FORBIDDEN and "data directory" in error.message
    # The owner reaches their own upload, through the policy of its own connection.
    own = AccessPolicy.server(file_roots=[], private_roots=[data], own_files=[upload])
    spec = ConnectionSpec(dialect="sqlite", database=str(upload))
    assert execute_query(spec, "SELECT v FROM t", policy=own).rows == [["visible"]]


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb"])
def test_a_file_swapped_for_a_symlink_after_creation_is_refused(
    roots: tuple[Path, Path], dialect: str
) -> None:
    allowed, data = roots
    policy = _server(allowed, data)
    target = allowed / f"shop.{dialect}"
    secret = data / f"dataagent.{dialect}"
    if dialect == "sqlite":
        _sqlite(target)
        _sqlite(secret, secret="argon2-hash")
    else:
        for path, value in ((target, "visible"), (secret, "argon2-hash")):
            with duckdb.connect(str(path)) as db:
                db.execute("CREATE TABLE t AS SELECT ? AS v", [value])
    spec = ConnectionSpec(dialect=dialect, database=str(target))  # type: ignore[arg-type]
    check_access(spec, policy)  # what creating the connection checks: it passes
    assert execute_query(spec, "SELECT v FROM t", policy=policy).rows == [["visible"]]

    target.unlink()
    target.symlink_to(secret)  # swapped after creation
    error = refused(spec, policy, "SELECT v FROM t")
    assert error.code is ErrorCode.FORBIDDEN
    assert "argon2" not in error.message

    # A folder on the way swapped for a link is caught the same way.
    target.unlink()
    (allowed / "sub").symlink_to(data)
    via_folder = ConnectionSpec(dialect=dialect, database=str(allowed / "sub" / secret.name))  # type: ignore[arg-type]
    assert refused(via_folder, policy).code is ErrorCode.FORBIDDEN


def test_a_file_swapped_between_the_check_and_the_open_is_refused(
    roots: tuple[Path, Path],
) -> None:
    allowed, data = roots
    secret = _sqlite(data / "dataagent.db", secret="argon2-hash")
    target = _sqlite(allowed / "shop.db")

    class SwapAfterCheck(AccessPolicy):
        def check_file(self, database: str) -> Path:
            path = super().check_file(database)
            target.unlink()
            target.symlink_to(secret)  # the race: the file changes right after the check
            return path

    policy = SwapAfterCheck(file_roots=(allowed.resolve(),), private_roots=(data.resolve(),))
    error = refused(ConnectionSpec(dialect="sqlite", database=str(target)), policy)
    assert error.code is ErrorCode.CONNECTION_FAILED
    assert error.message == OPEN_FAILED_MESSAGE


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb"])
def test_open_errors_do_not_tell_which_paths_exist(tmp_path: Path, dialect: str) -> None:
    not_a_database = tmp_path / "notes.txt"
    not_a_database.write_text("hello\n" * 100)
    cases = [tmp_path / "missing.db", tmp_path, not_a_database]
    messages = set()
    for path in cases:
        error = refused(ConnectionSpec(dialect=dialect, database=str(path)), LOCAL)  # type: ignore[arg-type]
        assert error.code is ErrorCode.CONNECTION_FAILED, error.message
        assert str(tmp_path) not in error.message
        messages.add(error.message)
    assert messages == {OPEN_FAILED_MESSAGE}


@pytest.mark.parametrize("field", ["database", "url", "host", "username", "password"])
def test_nul_in_any_connection_field_is_a_validation_error(field: str) -> None:
    values = {"dialect": "postgresql", "host": "db", "database": "x", field: "a\x00b"}
    if field == "url":
        values[field] = "postgresql://db/a\x00b"
    with pytest.raises(ValidationError, match="NUL"):
        ConnectionSpec.model_validate(values)
    with pytest.raises(DataAgentError) as caught:
        AccessPolicy().check_file("/tmp/a\x00x")
    assert caught.value.code is ErrorCode.VALIDATION_ERROR
