"""The command line: `dataagent serve | demo | mcp | openapi | db | users | ontology | sandbox |
eval | version`."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import getpass
import json
import logging
import os
import secrets
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from dataagent import __version__
from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode

if TYPE_CHECKING:
    from dataagent.evals.faults import CaseResult, FaultCase

HANDLED_SIGNALS = (signal.SIGINT, signal.SIGTERM)

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Data Agent command line.")
db_app = typer.Typer(no_args_is_help=True, help="The app database.")
users_app = typer.Typer(no_args_is_help=True, help="Local user accounts.")
app.add_typer(db_app, name="db")
app.add_typer(users_app, name="users")
ontology_app = typer.Typer(no_args_is_help=True, help="Ontologies.")
app.add_typer(ontology_app, name="ontology")
sandbox_app = typer.Typer(help="The Python sandbox.", no_args_is_help=True)
app.add_typer(sandbox_app, name="sandbox", help="The Python sandbox.")
eval_app = typer.Typer(no_args_is_help=True, help="Measure the agent.")
app.add_typer(eval_app, name="eval")

console = Console()
err_console = Console(stderr=True)


def _settings() -> Settings:
    return Settings()


def _configure_logging(settings: Settings) -> None:
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # Alembic narrates its set-up at INFO (plugins, "Context impl", DDL mode): debugging
    # detail. `store.migrations` logs the one line a person wants: which migrations ran.
    if settings.log_level != "DEBUG":
        logging.getLogger("alembic").setLevel(logging.WARNING)


def _fail(message: str, code: int = 1) -> typer.Exit:
    err_console.print(f"[red]error:[/red] {message}")
    return typer.Exit(code)


def _migrate(settings: Settings) -> None:
    from dataagent.store.migrations import upgrade

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade(settings.resolved_database_url)


@app.command()
def version() -> None:
    """Print the version."""
    console.print(f"dataagent {__version__}")


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Listen address (DATAAGENT_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Listen port (DATAAGENT_PORT).")] = None,
) -> None:
    """Apply pending migrations and run the API server until SIGTERM or Ctrl-C."""
    settings = _settings()
    _configure_logging(settings)
    _migrate(settings)
    _run_server(settings, host or settings.host, port or settings.port)


def _run_server(settings: Settings, host: str, port: int) -> None:
    import uvicorn

    from dataagent.api.app import create_app

    class Server(uvicorn.Server):
        """Uvicorn, but a SIGTERM/SIGINT that ends a graceful shutdown exits with status 0."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            previous = {sig: signal.signal(sig, self.handle_exit) for sig in HANDLED_SIGNALS}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    log = logging.getLogger("dataagent")
    log.info("Data Agent %s listening on http://%s:%d", __version__, host, port)
    config = uvicorn.Config(
        create_app(settings),
        host=host,
        port=port,
        log_level=settings.log_level.lower(),
        timeout_graceful_shutdown=10,
        # The app sees the socket's peer; DATAAGENT_TRUSTED_PROXIES alone decides whose
        # X-Forwarded-For is believed (uvicorn's own default trusts 127.0.0.1's).
        proxy_headers=False,
    )
    Server(config).run()
    log.info("Data Agent stopped")


@app.command()
def mcp(
    token_file: Annotated[
        Path | None,
        typer.Option(help="Read the API token from this file instead of DATAAGENT_TOKEN."),
    ] = None,
) -> None:
    """Serve the MCP tools over stdio, as the user whose API token is in DATAAGENT_TOKEN."""
    settings = _settings()
    # Standard output carries the protocol: everything else (logs included) goes to stderr.
    _configure_logging(settings)
    token = _mcp_token(token_file)
    _migrate(settings)
    try:
        asyncio.run(_serve_mcp(settings, token))
    except DataAgentError as exc:
        raise _fail(exc.message) from None


def _mcp_token(token_file: Path | None) -> str:
    if token_file is not None:
        try:
            token = token_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise _fail(f"cannot read the token file {token_file}: {exc.strerror}", 2) from None
    else:
        token = os.environ.get("DATAAGENT_TOKEN", "").strip()
    if not token:
        raise _fail(
            "no API token: set DATAAGENT_TOKEN or give --token-file "
            "(POST /api/auth/login returns one; docs/mcp.md)",
            2,
        )
    return token


async def _serve_mcp(settings: Settings, token: str) -> None:
    from dataagent.api.mcp_server import SIGN_IN, serve_stdio
    from dataagent.runs.system import RunSystem
    from dataagent.services.users import user_for_token

    async with RunSystem.in_process(settings) as system:
        async with system.app.database.session() as session:
            user = await user_for_token(system.app, session, token)
        if user is None:
            raise DataAgentError(ErrorCode.UNAUTHORIZED, SIGN_IN)
        logging.getLogger("dataagent").info("MCP server on stdio, as %s", user.email)
        await serve_stdio(system, token)


@db_app.command("upgrade")
def db_upgrade(revision: str = "head") -> None:
    """Apply migrations up to REVISION (default: the newest)."""
    settings = _settings()
    from dataagent.store.migrations import current_revision, upgrade

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade(settings.resolved_database_url, revision)
    console.print(f"app database at revision {current_revision(settings.resolved_database_url)}")


@db_app.command("downgrade")
def db_downgrade(revision: str) -> None:
    """Revert migrations down to REVISION (`base` empties the database)."""
    settings = _settings()
    from dataagent.store.migrations import current_revision, downgrade

    downgrade(settings.resolved_database_url, revision)
    console.print(f"app database at revision {current_revision(settings.resolved_database_url)}")


@db_app.command("current")
def db_current() -> None:
    """Print the revision the app database is at."""
    from dataagent.store.migrations import current_revision

    console.print(current_revision(_settings().resolved_database_url) or "empty")


def _read_password(password_stdin: bool) -> str:
    if password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    if sys.stdin.isatty():
        first = getpass.getpass("Password: ")
        if first != getpass.getpass("Repeat password: "):
            raise _fail("the passwords differ")
        return first
    raise _fail("no terminal to ask for a password: pipe it in with --password-stdin", 2)


@users_app.command("create")
def users_create(
    email: Annotated[str, typer.Option(help="Email address (the login).")],
    role: Annotated[str, typer.Option(help="admin, contributor or viewer.")] = "viewer",
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from standard input.")
    ] = False,
) -> None:
    """Create a local user."""
    settings = _settings()
    password = _read_password(password_stdin)
    _migrate(settings)
    try:
        user = asyncio.run(_create_user(settings, email, password, role))
    except DataAgentError as exc:
        raise _fail(exc.message) from None
    console.print(f"created {user} ({role})")


async def _create_user(settings: Settings, email: str, password: str, role: str) -> str:
    from dataagent.services import users
    from dataagent.store.database import Database

    database = Database(settings.resolved_database_url)
    try:
        async with database.session() as session:
            user = await users.create_user(session, email, password, role)
            return user.email
    finally:
        await database.dispose()


def _print_models(settings: Settings) -> None:
    """Which chat models will answer, or how to configure one."""
    from dataagent.llm import providers

    enabled = providers.enabled(settings)
    if not enabled:
        console.print(
            "[yellow]No chat model is configured:[/yellow] questions are answered by the "
            "built-in offline planner, which answers those the semantic model makes "
            f"unambiguous. {providers.NOT_CONFIGURED}"
        )
        return
    names = ", ".join(
        f"{providers.display_name(settings, p)} ({providers.default_model(settings, p)})"
        for p in enabled
    )
    console.print(f"[bold]Chat models:[/bold] {names}")


@app.command()
def demo(
    serve_after: Annotated[
        bool, typer.Option("--serve/--no-serve", help="Start the server after seeding.")
    ] = True,
) -> None:
    """Generate the demo retail database, create the admin user, and start the server.

    Relative dates are read against the demo data's last day (`DATAAGENT_REFERENCE_DATE`,
    unless it is set), so "last quarter" means the data's last quarter."""
    from dataagent.demo.generator import LAST_DAY

    settings = _settings()
    if settings.reference_date is None:
        settings = settings.model_copy(update={"reference_date": LAST_DAY.astype(dt.date)})
    _configure_logging(settings)
    _migrate(settings)
    from dataagent.demo.setup import seed_demo

    password = (
        settings.admin_password.get_secret_value()
        if settings.admin_password
        else secrets.token_urlsafe(12)
    )
    result = asyncio.run(seed_demo(settings, password))
    url = f"http://{settings.host}:{settings.port}"
    console.print(f"[bold]Demo database:[/bold] {result.database_path}")
    if result.created_admin:
        console.print(f"[bold]Sign in at {url} as {settings.admin_email}[/bold]")
        console.print(f"[bold]Password (shown once):[/bold] {password}")
    else:
        console.print(f"Sign in at {url} as {settings.admin_email} (existing account)")
    _print_models(settings)
    sys.stdout.flush()
    if serve_after:
        _run_server(settings, settings.host, settings.port)


@app.command()
def openapi(
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="Write here instead of stdout.")
    ] = None,
) -> None:
    """Print the HTTP API's OpenAPI document (JSON) without starting a server."""
    from dataagent.api.app import openapi_document

    document = openapi_document()
    text = json.dumps(document, indent=2, sort_keys=True) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        Path(output).write_text(text, encoding="utf-8")


@ontology_app.command("backfill")
def ontology_backfill(
    force: Annotated[
        bool, typer.Option(help="Re-embed every ontology, not just stale ones.")
    ] = False,
) -> None:
    """Build again the ontologies whose embeddings are missing or from another provider."""
    settings = _settings()
    _configure_logging(settings)
    _migrate(settings)
    done = asyncio.run(_backfill(settings, force))
    console.print(f"re-embedded {done} ontolog{'y' if done == 1 else 'ies'}")


async def _backfill(settings: Settings, force: bool) -> int:
    from dataagent.runs.system import RunSystem
    from dataagent.services.ontologies import backfill_stale

    # Each ontology is built again as a durable run here, as a server builds one.
    async with RunSystem.in_process(settings) as system:
        return await backfill_stale(system.app, force)


@sandbox_app.command("serve")
def sandbox_serve(
    host: str = typer.Option("127.0.0.1", help="Address to listen on."),
    port: int = typer.Option(8765, help="Port to listen on."),
    token: str | None = typer.Option(
        None, envvar="DATAAGENT_SANDBOX_TOKEN", help="Require this bearer token on /execute."
    ),
) -> None:
    """Serve the sandbox's `POST /execute` and `GET /health` with the local warm pool."""
    import uvicorn

    from dataagent.api.sandbox_service import create_app

    settings = _settings()
    if host not in ("127.0.0.1", "localhost", "::1") and not token:
        typer.echo("warning: serving the sandbox beyond localhost without --token", err=True)
    uvicorn.run(create_app(settings, token=token), host=host, port=port, log_level="info")


@eval_app.command("faults")
def eval_faults(
    file: Annotated[Path, typer.Argument(help="JSONL: question, gold_sql, faulty_sql, kind.")],
    ontology: Annotated[
        str | None, typer.Option(help="The ontology (name or id) whose database the SQL reads.")
    ] = None,
    database: Annotated[
        Path | None, typer.Option(help="Instead of --ontology: a SQLite or DuckDB file.")
    ] = None,
    model: Annotated[
        Path | None,
        typer.Option(help="With --database: its semantic model YAML (default: generated)."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="End with a JSON summary instead of a table.")
    ] = False,
) -> None:
    """Run the verifier on gold and faulty SQL; print each case's flags and a table by kind."""
    from dataagent.evals import faults

    if (ontology is None) == (database is None):
        raise _fail("give --ontology or --database (one of them)", 2)
    try:
        cases = faults.read_cases(file)
        if database is not None:
            results = _faults_on_file(cases, database, model)
        else:
            assert ontology is not None
            results = asyncio.run(_faults_on_ontology(_settings(), cases, ontology))
    except DataAgentError as exc:
        raise _fail(exc.message) from None
    for line in faults.report_lines(results):
        sys.stdout.write(line + "\n")
    summary = faults.summarise(results)
    if as_json:
        sys.stdout.write(json.dumps({"byKind": [row.to_json() for row in summary]}) + "\n")
        return
    table = Table("kind", "cases", "faulty flagged", "by its check", "gold flagged")
    for row in summary:
        table.add_row(
            row.kind, str(row.cases), str(row.faulty_flagged), str(row.named), str(row.gold_flagged)
        )
    console.print(table)


def _faults_on_file(
    cases: list[FaultCase], database: Path, model_file: Path | None
) -> list[CaseResult]:
    from dataagent.evals import faults
    from dataagent.semantic.generation import generate_semantic_model
    from dataagent.semantic.yaml_io import load_yaml
    from dataagent.sources.access import AccessPolicy
    from dataagent.sources.engines import ConnectionSpec
    from dataagent.sources.introspection import introspect

    dialect = "duckdb" if database.suffix in (".duckdb", ".ddb") else "sqlite"
    spec = ConnectionSpec(dialect=dialect, database=str(database))
    if model_file is not None:
        semantic = load_yaml(model_file.read_text(encoding="utf-8"))
    else:
        semantic = generate_semantic_model(introspect(spec, AccessPolicy()), database.stem)
    return asyncio.run(faults.evaluate(cases, semantic, faults.database_runner(spec)))


async def _faults_on_ontology(
    settings: Settings, cases: list[FaultCase], name_or_id: str
) -> list[CaseResult]:
    from dataagent.evals import faults
    from dataagent.services.connections import ontology_target
    from dataagent.services.context import AppContext
    from dataagent.services.ontologies import ready_model
    from dataagent.store.ontologies import find_ontologies

    ctx = AppContext.from_settings(settings)
    try:
        async with ctx.database.session() as session:
            found = await find_ontologies(session, name_or_id)
            if not found:
                raise DataAgentError(
                    ErrorCode.NOT_FOUND, f"No ontology has the name or id {name_or_id!r}."
                )
            if len(found) > 1:
                raise DataAgentError(
                    ErrorCode.VALIDATION_ERROR,
                    f"{len(found)} ontologies are named {name_or_id!r}; give the id of one.",
                )
            ontology = found[0]
            semantic = ready_model(ontology)
            target = await ontology_target(ctx, session, ontology.owner_id, ontology)
        run = faults.ontology_runner(ctx, ontology.owner_id, target, question="eval faults")
        return await faults.evaluate(cases, semantic, run)
    finally:
        await ctx.aclose()


def main() -> None:
    """Entry point of the `dataagent` script."""
    app()
