"""Driver exceptions mapped to the error taxonomy, with secrets and addresses removed."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable

import duckdb
import psycopg
import pymysql

from dataagent.dialects import Dialect
from dataagent.errors import DataAgentError, ErrorCode

TIMEOUT_MESSAGE = "The query took longer than the time limit and was stopped."

_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s'\"]+")
_IPV4 = re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b")
_CONNINFO_SECRET = re.compile(r"\b(password|host|hostaddr|user)\s*=\s*('[^']*'|\S+)", re.I)
_MYSQL_ACCOUNT = re.compile(r"'([^'@]*)'@'[^']*'")

# SQLite and DuckDB messages that mean "the read-only layer refused this".
_SQLITE_POLICY = (
    "not authorized",
    "authorization denied",
    "readonly database",
    "too many attached databases",
    "only execute one statement",
    "query_only",
)
_DUCKDB_POLICY = ("read-only mode", "configuration has been locked", "disabled by configuration")

_PG_TIMEOUT_STATES = {"55P03", "25P03"}  # lock timeout, idle-in-transaction timeout
_MYSQL_TIMEOUT_CODES = {1969, 3024, 1317, 1205, 1028}
_MYSQL_POLICY_CODES = {1792, 1290, 1227, 1044, 1142, 1143, 1370}  # read-only, denied


def sanitize(message: str, secrets: Iterable[str | None] = ()) -> str:
    """A message with passwords, URLs, host names, addresses and file paths blanked out."""
    text = message
    for secret in sorted((s for s in secrets if s and len(s) >= 2), key=len, reverse=True):
        text = re.sub(rf"(?<![\w.-]){re.escape(secret)}(?![\w.-])", "***", text)
    text = _URL.sub("<url>", text)
    text = _CONNINFO_SECRET.sub(lambda m: f"{m.group(1)}=***", text)
    text = _MYSQL_ACCOUNT.sub(r"'\1'@'***'", text)
    text = _IPV4.sub("<host>", text)
    return text.strip()


def connection_error(exc: BaseException, secrets: Iterable[str | None]) -> DataAgentError:
    """CONNECTION_FAILED for an exception raised while opening a connection."""
    text = _first_line(exc)
    if isinstance(exc, pymysql.err.MySQLError) and len(exc.args) > 1:
        text = str(exc.args[1])
    detail = sanitize(text, secrets)
    return DataAgentError(
        ErrorCode.CONNECTION_FAILED, f"Could not connect to the database: {detail}"
    )


def query_error(
    exc: BaseException, dialect: Dialect, secrets: Iterable[str | None], *, timed_out: bool
) -> DataAgentError:
    """The taxonomy error for an exception raised while a statement ran."""
    if timed_out:
        return DataAgentError(ErrorCode.QUERY_TIMEOUT, TIMEOUT_MESSAGE)
    code, text = _classify(exc, dialect)
    if code is ErrorCode.QUERY_TIMEOUT:
        return DataAgentError(code, TIMEOUT_MESSAGE)
    text = sanitize(text, secrets)
    if code is ErrorCode.SQL_POLICY_VIOLATION:
        return DataAgentError(code, f"The database refused the statement: {text}")
    return DataAgentError(code, f"The query failed: {text}")


def _classify(exc: BaseException, dialect: Dialect) -> tuple[ErrorCode, str]:
    if isinstance(exc, psycopg.Error):
        return _classify_postgres(exc)
    if isinstance(exc, pymysql.err.MySQLError):
        return _classify_mysql(exc)
    if isinstance(exc, sqlite3.Error):
        text = _first_line(exc)
        if text.lower() == "interrupted":
            return ErrorCode.QUERY_TIMEOUT, text
        if any(marker in text.lower() for marker in _SQLITE_POLICY):
            return ErrorCode.SQL_POLICY_VIOLATION, text
        return ErrorCode.QUERY_FAILED, text
    if isinstance(exc, duckdb.Error):
        text = _first_line(exc)
        if isinstance(exc, duckdb.InterruptException):
            return ErrorCode.QUERY_TIMEOUT, text
        if isinstance(exc, duckdb.PermissionException) or any(
            marker in text for marker in _DUCKDB_POLICY
        ):
            return ErrorCode.SQL_POLICY_VIOLATION, text
        return ErrorCode.QUERY_FAILED, text
    return ErrorCode.QUERY_FAILED, f"{type(exc).__name__} in the {dialect} driver"


def _classify_postgres(exc: psycopg.Error) -> tuple[ErrorCode, str]:
    diag = exc.diag
    text = diag.message_primary or _first_line(exc)
    if diag.message_hint:
        text = f"{text} (hint: {diag.message_hint})"
    if exc.sqlstate in _PG_TIMEOUT_STATES:
        return ErrorCode.QUERY_TIMEOUT, text
    if exc.sqlstate == "57014" and "timeout" in text:  # not a cancel by pg_cancel_backend
        return ErrorCode.QUERY_TIMEOUT, text
    if exc.sqlstate in {"25006", "42501"} or "multiple commands" in text:
        return ErrorCode.SQL_POLICY_VIOLATION, text
    if exc.sqlstate is None and isinstance(exc, psycopg.OperationalError):
        return ErrorCode.CONNECTION_FAILED, text
    return ErrorCode.QUERY_FAILED, text


def _classify_mysql(exc: pymysql.err.MySQLError) -> tuple[ErrorCode, str]:
    args = exc.args
    code = args[0] if args and isinstance(args[0], int) else None
    text = str(args[1]) if len(args) > 1 else _first_line(exc)
    if code in _MYSQL_TIMEOUT_CODES:
        return ErrorCode.QUERY_TIMEOUT, text
    if code in _MYSQL_POLICY_CODES:
        return ErrorCode.SQL_POLICY_VIOLATION, text
    return ErrorCode.QUERY_FAILED, text


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
