"""Who asks and on what, for the command line's `ask` and `eval`: the user by email, their
ontology by name or id (or the stateless chat's rule), an ontology made for a database file
or URL, and where gold queries run."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import urlsplit

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.evals.runner import QueryRunner, spec_runner, target_runner
from dataagent.services import connections, ontologies, semantic_models, users
from dataagent.services.connections import QueryTarget
from dataagent.services.context import AppContext
from dataagent.sources.access import AccessPolicy
from dataagent.sources.engines import ConnectionSpec, normalize_dialect
from dataagent.store.models import Connection, User
from dataagent.store.shares import OntologyAccess

EVAL_NAME_PREFIX = "eval"


async def user_by_email(session: AsyncSession, email: str) -> User:
    """The account the command acts as; NOT_FOUND saying how to make one."""
    user = await users.get_by_email(session, email)
    if user is None:
        raise DataAgentError(
            ErrorCode.NOT_FOUND,
            f"No user has the email {email!r}; run `dataagent demo` (the admin) or "
            "`dataagent users create`, or give --user.",
        )
    return user


async def resolve_ontology(
    session: AsyncSession, user: User, name_or_id: str | None
) -> OntologyAccess:
    """The ready ontology the user reaches (theirs or shared) with this name or id; with
    none named, the stateless chat's rule (their default, else their only ready one, else
    an error listing them)."""
    if name_or_id is None:
        return await ontologies.chat_ontology(session, user, None)
    reached = await ontologies.list_ontologies(session, user.id)
    found = [
        a for a in reached if str(a.ontology.id) == name_or_id or a.ontology.name == name_or_id
    ]
    if not found:
        names = ", ".join(sorted(repr(a.ontology.name) for a in reached)) or "none"
        raise DataAgentError(
            ErrorCode.NOT_FOUND,
            f"{user.email} reaches no ontology named {name_or_id!r} (theirs and shared: {names}).",
        )
    if len(found) > 1:
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR,
            f"{len(found)} ontologies of {user.email} are named {name_or_id!r}; give the id.",
        )
    ontologies.require_ready(found[0].ontology)
    return found[0]


def database_values(database: str) -> dict[str, str]:
    """A connection's values for a file path (SQLite, or DuckDB for .duckdb/.ddb) or a
    database URL."""
    scheme = urlsplit(database).scheme
    if "://" in database and scheme:
        try:
            dialect = normalize_dialect(scheme)
        except ValueError:
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR, f"{scheme!r} is not a database this reads."
            ) from None
        return {"dialect": dialect, "url": database}
    path = Path(database).expanduser().resolve()
    if not path.is_file():
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, f"No database file at {database}.")
    dialect = "duckdb" if path.suffix in (".duckdb", ".ddb") else "sqlite"
    return {"dialect": dialect, "database": str(path)}


def database_spec(database: str) -> ConnectionSpec:
    """`database_values` as a validated spec."""
    return connections.build_spec(database_values(database))


def database_label(spec: ConnectionSpec) -> str:
    """A short name for an eval's connection and ontology: the file's stem or the database."""
    name = spec.endpoint().database or spec.dialect
    return Path(name).stem if spec.dialect in ("sqlite", "duckdb") else name


async def database_ontology(
    ctx: AppContext, session: AsyncSession, user: User, database: str
) -> OntologyAccess:
    """The user's ready ontology on this database, made the first time (a connection, a
    generated semantic model, an ontology, its build waited for) and reused after."""
    values = database_values(database)
    spec = connections.build_spec(values)
    display = spec.display()
    for access in await ontologies.list_ontologies(session, user.id):
        ontology = access.ontology
        if access.kind != "owner" or ontology.status != "ready":
            continue
        if not ontology.name.startswith(EVAL_NAME_PREFIX):
            continue
        try:
            target = await connections.ontology_target(ctx, session, access)
        except DataAgentError:
            continue
        if target.spec.display() == display:
            return access
    label = database_label(spec)
    connection = await connections.create_connection(
        ctx, session, user.id, f"{EVAL_NAME_PREFIX} {label}", values
    )
    model = await semantic_models.create_from_connection(
        ctx, session, user.id, connection.id, label, None
    )
    ontology = await ontologies.create_ontology(
        ctx, session, user.id, model.id, f"{EVAL_NAME_PREFIX} {label}", None
    )
    await ontologies.wait_for_build(ctx, ontology.id)
    await session.refresh(ontology)
    if ontology.status != "ready":
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR,
            f"The ontology on {display} did not build: {ontology.error or 'no reason given'}.",
        )
    return OntologyAccess(ontology, "owner")


async def gold_runner(
    session: AsyncSession,
    user: User,
    target: QueryTarget,
    gold_database: str | None,
    demo_copy: Callable[[], Awaitable[Path]],
) -> tuple[QueryRunner, str]:
    """Where gold queries run, and their dialect: `gold_database` when given; for the demo's
    own connection (DuckDB), the demo data written as SQLite by `demo_copy` (the dev set's
    gold SQL is SQLite); else the ontology's own database (the owner's connection)."""
    if gold_database is not None:
        spec = database_spec(gold_database)
        return spec_runner(spec, AccessPolicy()), spec.dialect
    connection = await session.get(Connection, target.connection_id)
    if connection is not None and connection.kind == "demo" and target.spec.dialect != "sqlite":
        spec = ConnectionSpec(dialect="sqlite", database=str(await demo_copy()))
        return spec_runner(spec, AccessPolicy()), "sqlite"
    return target_runner(target), target.spec.dialect
