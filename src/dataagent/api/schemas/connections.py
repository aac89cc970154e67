"""Connections to users' databases (never a password or a URL with one on the way out)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import ConfigDict, Field, SecretStr

from dataagent.api.schemas import HAS_TEXT, ApiInput, ApiModel
from dataagent.dialects import DIALECT_ALIASES, DIALECTS, FILE_DIALECTS, Dialect
from dataagent.vocabulary import ConnectionKind


class ConnectionPublic(ApiModel):
    """A connection as the API shows it: never a password or a URL with one."""

    id: uuid.UUID
    name: str
    dialect: Dialect
    kind: ConnectionKind
    display: str
    server_version: str | None
    last_tested_at: datetime | None
    created_at: datetime
    updated_at: datetime


# A host as the connection drivers take it: a host name of ASCII labels (1-63 characters,
# dots between, one trailing dot allowed; an international name in its xn-- form), or an IPv4
# or IPv6 address (brackets and a %zone allowed). The spec's own check (IDNA) accepts all of
# these, so what the document accepts, the server accepts.
HOST_PATTERN = r"^(?:[A-Za-z0-9_%:\[\]-]{1,63}\.)*[A-Za-z0-9_%:\[\]-]{1,63}\.?$"


class CredentialFields(ApiInput):
    """Either `url`, or host / port / database / username / password."""

    url: SecretStr | None = Field(None, min_length=1, max_length=4096)
    host: str | None = Field(None, min_length=1, max_length=255, pattern=HOST_PATTERN)
    port: int | None = Field(None, ge=1, le=65535)
    database: str | None = Field(None, min_length=1, max_length=4096, pattern=HAS_TEXT)
    username: str | None = Field(None, min_length=1, max_length=255, pattern=HAS_TEXT)
    password: SecretStr | None = Field(None, max_length=1024)

    def credential_values(self) -> dict[str, Any]:
        """The credential fields that were given."""
        return {
            k: getattr(self, k) for k in CredentialFields.model_fields if k in self.model_fields_set
        }


# What a URL must hold when no field beside it gives that part (ConnectionSpec's rules): a
# path naming the database (or the file), and for a server, a host.
URL_WITH_PATH = r"^[^:/?#]+://[^/?#]*/[^?#]*[^/?#]"
_PORT = r"(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})?)?"
# A server's URL as urlsplit reads it: user info, a host (an IPv6 address in brackets), a port.
URL_SERVER = rf"^[^:/?#]+://([^/?#@]*@)?(\[[^\]/?#]*\]|[^/?#@:\[\]]*){_PORT}([/?#]|$)"
URL_WITH_HOST = rf"^[^:/?#]+://([^/?#@]*@)?(\[[^\]/?#]+\]|[^/?#@:\[\]]+){_PORT}([/?#]|$)"
_SERVERS = [d for d in DIALECTS if d not in FILE_DIALECTS]


def _url_rules(dialect_required: bool) -> list[dict[str, Any]]:
    """The spec's rules as JSON Schema: each dialect's URL schemes, what a URL must hold
    when no field gives that part, and without a URL, a file path (SQLite, DuckDB) or a host
    and database name (servers). On an update (`dialect_required=False`) only what the body
    itself shows: its own dialect, its own URL."""
    url_alone = {"url": {"type": "string"}}
    rules: list[dict[str, Any]] = [
        {
            # Any dialect: a URL given without `database` names the database (or file).
            "if": {"properties": {**url_alone, "database": {"type": "null"}}, "required": ["url"]},
            "then": {"properties": {"url": {"pattern": URL_WITH_PATH}}},
        },
        {
            "if": {"properties": {"dialect": {"enum": _SERVERS}}, "required": ["dialect", "url"]},
            "then": {"properties": {"url": {"pattern": URL_SERVER}}},
        },
        {
            "if": {
                "properties": {
                    "dialect": {"enum": _SERVERS},
                    **url_alone,
                    "host": {"type": "null"},
                },
                "required": ["dialect", "url"],
            },
            "then": {"properties": {"url": {"pattern": URL_WITH_HOST}}},
        },
    ]
    if dialect_required:
        no_url = {"url": {"type": "null"}}
        rules += [
            {
                "if": {
                    "properties": {"dialect": {"enum": sorted(FILE_DIALECTS)}, **no_url},
                    "required": ["dialect"],
                },
                "then": {"required": ["database"], "properties": {"database": {"type": "string"}}},
            },
            {
                "if": {
                    "properties": {"dialect": {"enum": _SERVERS}, **no_url},
                    "required": ["dialect"],
                },
                "then": {
                    "required": ["host", "database"],
                    "properties": {"host": {"type": "string"}, "database": {"type": "string"}},
                },
            },
        ]
    for dialect in DIALECTS:
        schemes = sorted(a for a, d in DIALECT_ALIASES.items() if d == dialect)
        pattern = f"^({'|'.join(schemes)})(\\+[a-z0-9]+)?://"
        rules.append(
            {
                "if": {"properties": {"dialect": {"const": dialect}}, "required": ["dialect"]},
                "then": {"properties": {"url": {"pattern": pattern}}},
            }
        )
    return rules


def _create_rules(schema: dict[str, Any]) -> None:
    schema["allOf"] = _url_rules(dialect_required=True)


def _update_rules(schema: dict[str, Any]) -> None:
    schema["allOf"] = _url_rules(dialect_required=False)


class ConnectionCreate(CredentialFields):
    """A new connection."""

    model_config = ConfigDict(json_schema_extra=_create_rules)

    name: str = Field(min_length=1, max_length=255, pattern=HAS_TEXT)
    dialect: Dialect


class ConnectionUpdate(CredentialFields):
    """A new name, or new credentials (merged over the stored ones)."""

    model_config = ConfigDict(json_schema_extra=_update_rules)

    name: str | None = Field(None, min_length=1, max_length=255, pattern=HAS_TEXT)
    dialect: Dialect | None = None


class ConnectionTestResult(ApiModel):
    """Whether the database answered, and its version."""

    ok: bool
    server_version: str | None
    error: str | None
    error_code: str | None


def connection_public(connection: Any) -> ConnectionPublic:
    """The public view of a connection."""
    return ConnectionPublic.model_validate(connection)
