"""Connection specs for user databases, and the read-only sessions opened from them."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from dataagent.dialects import FILE_DIALECTS, Dialect, normalize_dialect
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.access import OPEN_FAILED_MESSAGE, AccessPolicy
from dataagent.sources.driver_errors import connection_error
from dataagent.sources.sessions import (
    DEFAULT_MEMORY_MB,
    DRIVER_ERRORS,
    DuckDBSession,
    MySQLSession,
    PostgresSession,
    ReadOnlySession,
    SQLiteSession,
)

log = logging.getLogger(__name__)

DEFAULT_PORTS: dict[str, int] = {"postgresql": 5432, "mysql": 3306}
# libpq parameters a URL may not set: the executor owns the session options.
_PG_RESERVED_PARAMS = frozenset({"options", "application_name", "connect_timeout"})
DATABASE_ROLE_DIALECTS = (
    "A database role can only be named for a PostgreSQL database: other databases have no "
    "row-level security to apply it to."
)
_CONNECT_ERRORS: tuple[type[BaseException], ...] = (*DRIVER_ERRORS, OSError, UnicodeError)


@dataclass(frozen=True)
class Endpoint:
    """A spec resolved to plain connection parameters (URL parsed, fields applied)."""

    host: str | None
    port: int | None
    database: str | None
    username: str | None
    password: str | None
    params: dict[str, str] = field(default_factory=dict)


class ConnectionSpec(BaseModel):
    """How to reach a user's database: a URL, or host/port/database/username/password.

    For SQLite and DuckDB, `database` is the file path (or use `sqlite:///relative.db`,
    `sqlite:////absolute.db`, `duckdb:///...` as SQLAlchemy spells them). Fields given next
    to a URL override its parts, so a URL without a password plus `password` works.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    dialect: Dialect
    url: SecretStr | None = Field(None, description="A database URL; may embed a password.")
    host: str | None = None
    port: int | None = Field(None, ge=1, le=65535)
    database: str | None = Field(None, description="Database name, or file path for files.")
    username: str | None = None
    password: SecretStr | None = None

    @field_validator("dialect", mode="before")
    @classmethod
    def _normalize_dialect(cls, value: object) -> object:
        return normalize_dialect(value) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _complete(self) -> ConnectionSpec:
        for name in ("url", "host", "database", "username", "password"):
            value = getattr(self, name)
            text = value.get_secret_value() if isinstance(value, SecretStr) else value
            if text is not None and "\x00" in text:
                raise ValueError(f"{name} cannot contain a NUL character")
        if self.host is not None:
            try:
                self.host.encode("idna")
            except UnicodeError:
                raise ValueError("host is not a valid host name or address") from None
        if self.url is not None:
            scheme = urlsplit(self.url.get_secret_value()).scheme
            try:
                url_dialect = normalize_dialect(scheme) if scheme else None
            except ValueError:
                url_dialect = None
            if url_dialect != self.dialect:
                raise ValueError(f"the URL is not a {self.dialect} URL")
        endpoint = self.endpoint()
        if not endpoint.database:
            what = "file path" if self.dialect in FILE_DIALECTS else "database name"
            raise ValueError(f"a {self.dialect} connection needs a {what}")
        if self.dialect not in FILE_DIALECTS and not endpoint.host:
            raise ValueError(f"a {self.dialect} connection needs a host")
        return self

    def endpoint(self) -> Endpoint:
        """The spec as plain connection parameters."""
        host = port = database = username = password = None
        params: dict[str, str] = {}
        if self.url is not None:
            parts = urlsplit(self.url.get_secret_value())
            if self.dialect in FILE_DIALECTS:
                # SQLAlchemy style: three slashes then a relative path, four for absolute.
                database = unquote(parts.path[1:] if parts.path.startswith("/") else parts.path)
            else:
                host, port = parts.hostname, parts.port
                database = unquote(parts.path.lstrip("/")) or None
                username = unquote(parts.username) if parts.username else None
                password = unquote(parts.password) if parts.password else None
                params = dict(parse_qsl(parts.query))
        return Endpoint(
            host=self.host or host,
            port=self.port or port or DEFAULT_PORTS.get(self.dialect),
            database=self.database or database,
            username=self.username or username,
            password=self.password.get_secret_value() if self.password else password,
            params=params,
        )

    def display(self) -> str:
        """A URL-like name safe to show: no password, no query parameters."""
        ep = self.endpoint()
        if self.dialect in FILE_DIALECTS:
            return f"{self.dialect}:///{ep.database}"
        user = f"{ep.username}@" if ep.username else ""
        return f"{self.dialect}://{user}{ep.host}:{ep.port}/{ep.database}"

    def secrets(self) -> list[str | None]:
        """Values that must never appear in a message: password, URL, host, file path."""
        ep = self.endpoint()
        values = [ep.password, ep.host]
        if self.url is not None:
            values.append(self.url.get_secret_value())
        if self.dialect in FILE_DIALECTS:
            values.append(ep.database)
        return values


class ConnectionCheck(BaseModel):
    """The outcome of `test_connection`."""

    ok: bool
    server_version: str | None = None
    error: str | None = None
    error_code: str | None = None
    warnings: list[str] = Field(default_factory=list)


@contextmanager
def open_readonly(
    spec: ConnectionSpec,
    policy: AccessPolicy,
    *,
    timeout_s: float = 30.0,
    catalog_access: bool = False,
    memory_mb: int = DEFAULT_MEMORY_MB,
) -> Iterator[ReadOnlySession]:
    """A hardened read-only session for one unit of work, closed (and rolled back) on exit.

    `policy` decides which files and accounts may be used; it is applied on every open (a
    file path is resolved again, an account's privileges read again). `catalog_access=True`
    is for introspection code only: it lets SQLite sessions read `sqlite_master` and run
    schema-reading PRAGMAs. Statements sent through a session are NOT checked by the SQL
    guard; user SQL must go through `execute_query`.
    """
    session = _connect(spec, policy, timeout_s, catalog_access, memory_mb)
    try:
        yield session
    finally:
        try:
            session.close()
        except DRIVER_ERRORS:
            log.warning("closing a %s session failed", spec.dialect, exc_info=True)


def _connect(
    spec: ConnectionSpec,
    policy: AccessPolicy,
    timeout_s: float,
    catalog_access: bool,
    memory_mb: int,
) -> ReadOnlySession:
    ep = spec.endpoint()
    secrets = spec.secrets()
    if policy.database_role is not None and spec.dialect != "postgresql":
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, DATABASE_ROLE_DIALECTS)
    if spec.dialect in FILE_DIALECTS:
        return _open_file(
            spec.dialect, ep.database or "", policy, timeout_s, catalog_access, memory_mb
        )
    try:
        if spec.dialect == "postgresql":
            params: dict[str, Any] = {
                k: v for k, v in ep.params.items() if k not in _PG_RESERVED_PARAMS
            }
            params.update(host=ep.host, port=ep.port, dbname=ep.database, user=ep.username)
            if ep.password is not None:
                params["password"] = ep.password
            return PostgresSession(
                params,
                timeout_s,
                secrets,
                allow_privileged=policy.allow_privileged,
                database_role=policy.database_role,
            )
        return MySQLSession(
            {
                "host": ep.host,
                "port": ep.port,
                "user": ep.username or "",
                "password": ep.password or "",
                "database": ep.database,
            },
            timeout_s,
            secrets,
            allow_privileged=policy.allow_privileged,
        )
    except DataAgentError:
        raise
    except _CONNECT_ERRORS as exc:
        raise connection_error(exc, secrets) from None


def _open_file(
    dialect: Dialect,
    database: str,
    policy: AccessPolicy,
    timeout_s: float,
    catalog_access: bool,
    memory_mb: int,
) -> ReadOnlySession:
    """Open the real path the policy allows (never the text given), then confirm it held."""
    path = policy.check_file(database)
    secrets = [database, str(path)]
    session: ReadOnlySession
    try:
        if dialect == "sqlite":
            session = SQLiteSession(
                str(path), timeout_s, secrets, catalog_access=catalog_access, memory_mb=memory_mb
            )
        else:
            session = DuckDBSession(str(path), timeout_s, secrets, memory_mb=memory_mb)
    except _CONNECT_ERRORS:
        # One message whatever went wrong, so a refusal never tells which paths exist.
        raise DataAgentError(ErrorCode.CONNECTION_FAILED, OPEN_FAILED_MESSAGE) from None
    try:
        policy.confirm_opened(path)
    except DataAgentError:
        session.close()
        raise
    return session


def check_access(
    spec: ConnectionSpec,
    policy: AccessPolicy,
    *,
    timeout_s: float = 5.0,
    require_reachable: bool = False,
) -> None:
    """Refuse (FORBIDDEN) a connection the policy forbids: a file outside it, a privileged
    account. A server that cannot be reached passes unless `require_reachable`: whatever it
    turns out to be is checked again each time it is opened. A database role in the policy
    is checked as every query will check it (`PostgresSession._check_role`).
    """
    if policy.database_role is not None and spec.dialect != "postgresql":
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, DATABASE_ROLE_DIALECTS)
    if spec.dialect in FILE_DIALECTS:
        policy.check_file(spec.endpoint().database or "")
        return
    try:
        with open_readonly(spec, policy, timeout_s=timeout_s):
            pass
    except DataAgentError as exc:
        if require_reachable or exc.code is ErrorCode.FORBIDDEN:
            raise


def test_connection(
    spec: ConnectionSpec, policy: AccessPolicy, *, timeout_s: float = 10.0
) -> ConnectionCheck:
    """Open a read-only session, run SELECT 1, and report the server version and risks."""
    try:
        with open_readonly(spec, policy, timeout_s=timeout_s) as session:
            session.fetch("SELECT 1", max_rows=1)
            return ConnectionCheck(
                ok=True, server_version=session.server_version, warnings=_warnings(session)
            )
    except DataAgentError as exc:
        return ConnectionCheck(ok=False, error=exc.message, error_code=exc.code.value)


test_connection.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def _warnings(session: ReadOnlySession) -> list[str]:
    privileged = session.privileged if isinstance(session, PostgresSession | MySQLSession) else None
    if privileged is None:
        return []
    return [
        f"The account {privileged}. It is allowed only because "
        "DATAAGENT_ALLOW_PRIVILEGED_ACCOUNTS is on: the read-only session stops writes, but "
        "only an account with nothing but SELECT grants keeps server files and other "
        "databases out of reach. Every query through it logs a warning."
    ]
