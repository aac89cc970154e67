"""The command line: `dataagent serve | demo | ask | mcp | openapi | db | users | ontology |
sandbox | eval | version`."""

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
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperGroup

from dataagent import __version__
from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode

if TYPE_CHECKING:
    import datetime as dt

    from dataagent.evals import reports
    from dataagent.evals.faults import CaseResult, FaultCase
    from dataagent.evals.runner import EvalQuestion, QuestionResult
    from dataagent.runs.questions import AskedAnswer
    from dataagent.store.models import Chart
    from dataagent.vocabulary import AgentMode, LlmProvider

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


class _EvalGroup(TyperGroup):
    """`dataagent eval QUESTIONS.jsonl ...` runs `eval run`; `eval faults ...` stays a command."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # Typer's own click Context
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


eval_app = typer.Typer(
    cls=_EvalGroup,
    no_args_is_help=True,
    help="Measure the agent: `dataagent eval QUESTIONS.jsonl` (see `eval run`), `eval faults`.",
)
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
    from dataagent.store.shares import OntologyAccess

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
            target = await ontology_target(ctx, session, OntologyAccess(ontology, "owner"))
        run = faults.ontology_runner(ctx, ontology.owner_id, target, question="eval faults")
        return await faults.evaluate(cases, semantic, run)
    finally:
        await ctx.aclose()


# --- dataagent eval QUESTIONS.jsonl -------------------------------------------------------------


def _reference_settings(settings: Settings, day: dt.date | None) -> Settings:
    """The settings with `reference_date` (DATAAGENT_REFERENCE_DATE) set to `day`: the
    "today" of relative dates in the answers."""
    if day is None:
        return settings
    return settings.model_copy(update={"reference_date": day})


def _parse_day(value: str | None, option: str) -> dt.date | None:
    import datetime as dt

    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise _fail(f"{option} must be a date, YYYY-MM-DD (got {value!r})", 2) from None


def _mode_option(mode: str | None) -> AgentMode | None:
    from dataagent.vocabulary import AGENT_MODES

    if mode is None:
        return None
    if mode not in AGENT_MODES:
        raise _fail(f"--mode must be one of {', '.join(AGENT_MODES)} (got {mode!r})", 2)
    return mode


def _provider_option(provider: str | None) -> LlmProvider | None:
    from dataagent.vocabulary import LLM_PROVIDERS

    if provider is None:
        return None
    if provider not in LLM_PROVIDERS:
        raise _fail(f"--provider must be one of {', '.join(LLM_PROVIDERS)} (got {provider!r})", 2)
    return provider


def _question_day(questions: list[EvalQuestion], today: str | None) -> dt.date | None:
    """--today, else the questions' one reference date (an error when they differ)."""
    given = _parse_day(today, "--today")
    if given is not None:
        return given
    days = {q.reference_date for q in questions if q.reference_date is not None}
    if len(days) > 1:
        listed = ", ".join(sorted(d.isoformat() for d in days))
        raise _fail(f"the questions have several reference dates ({listed}); give --today", 2)
    return days.pop() if days else None


@eval_app.command("run")
def eval_run(
    file: Annotated[Path, typer.Argument(help="JSONL questions (evals/README.md).")],
    ontology: Annotated[
        str | None,
        typer.Option(help="The user's ontology (name or id); default: their default or only one."),
    ] = None,
    database: Annotated[
        str | None,
        typer.Option(
            help="Instead of --ontology: a SQLite/DuckDB file or a database URL; its "
            "connection, generated model and ontology are made once and reused."
        ),
    ] = None,
    gold_database: Annotated[
        str | None,
        typer.Option(help="Run the gold SQL here (default: the ontology's own database)."),
    ] = None,
    mode: Annotated[
        str | None, typer.Option(help="offline, pipeline or react (default: the server's).")
    ] = None,
    provider: Annotated[
        str | None, typer.Option(help="The chat's model provider (default: the user's).")
    ] = None,
    min_accuracy: Annotated[
        float | None,
        typer.Option(min=0.0, max=1.0, help="Exit 1 when execution accuracy is below this."),
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write the JSON report here.")
    ] = None,
    markdown_out: Annotated[
        Path | None, typer.Option("--markdown", help="Write the markdown report here.")
    ] = None,
    today: Annotated[
        str | None,
        typer.Option(help="Reference date YYYY-MM-DD (default: the questions' reference_date)."),
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N questions.")] = None,
    user: Annotated[
        str | None, typer.Option(help="Ask as this user (email; default: the admin).")
    ] = None,
    keep_chats: Annotated[
        bool, typer.Option(help="Keep each question's chat (deleted after scoring by default).")
    ] = False,
) -> None:
    """Ask each question of FILE, score the answers by execution accuracy and report."""
    from dataagent.evals import reports
    from dataagent.evals.runner import read_questions

    if ontology is not None and database is not None:
        raise _fail("give --ontology or --database, not both", 2)
    agent_mode, llm_provider = _mode_option(mode), _provider_option(provider)
    try:
        questions = read_questions(file)
    except DataAgentError as exc:
        raise _fail(exc.message, 2) from None
    questions = questions[:limit] if limit else questions
    day = _question_day(questions, today)
    settings = _reference_settings(_settings(), day)
    _configure_logging(settings)
    if database is not None and "://" not in database:
        # The operator names the file on the command line: this process may open it.
        folder = Path(database).expanduser().resolve().parent
        settings = settings.model_copy(update={"file_roots": [*settings.file_roots, folder]})
    _migrate(settings)
    email = user or settings.admin_email
    try:
        results, info = asyncio.run(
            _evaluate(
                settings,
                questions,
                email,
                ontology,
                database,
                gold_database,
                agent_mode,
                llm_provider,
                keep_chats,
            )
        )
    except DataAgentError as exc:
        raise _fail(exc.message) from None
    info = reports.RunInfo(
        str(file),
        info.ontology,
        mode or "default",
        provider,
        day.isoformat() if day else None,
        info.started_at,
    )
    if json_out is not None:
        document = reports.json_report(info, results)
        json_out.write_text(json.dumps(document, indent=2, default=str) + "\n", encoding="utf-8")
    if markdown_out is not None:
        markdown_out.write_text(reports.markdown_report(info, results), encoding="utf-8")
    accuracy = _print_eval_summary(results)
    if min_accuracy is not None and accuracy < min_accuracy:
        err_console.print(
            f"[red]accuracy {accuracy:.1%} is below --min-accuracy {min_accuracy:.1%}[/red]"
        )
        raise typer.Exit(1)


async def _evaluate(
    settings: Settings,
    questions: list[EvalQuestion],
    email: str,
    ontology: str | None,
    database: str | None,
    gold_database: str | None,
    mode: AgentMode | None,
    provider: LlmProvider | None,
    keep_chats: bool,
) -> tuple[list[QuestionResult], reports.RunInfo]:
    import contextlib
    import datetime as dt
    import tempfile

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from dataagent.evals import reports
    from dataagent.evals.runner import EvalTarget, evaluate, target_runner
    from dataagent.evals.targets import (
        database_ontology,
        gold_runner,
        resolve_ontology,
        user_by_email,
    )
    from dataagent.runs.system import RunSystem
    from dataagent.services.connections import ontology_target

    started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    with contextlib.ExitStack() as stack:

        async def demo_copy() -> Path:
            folder = Path(
                stack.enter_context(tempfile.TemporaryDirectory(prefix="dataagent-eval-"))
            )
            path = folder / "retail.sqlite"
            await asyncio.to_thread(_write_demo_sqlite, path)
            return path

        async with RunSystem.in_process(settings) as system:
            ctx = system.app
            async with ctx.database.session() as session:
                account = await user_by_email(session, email)
                if database is not None:
                    chosen = await database_ontology(ctx, session, account, database)
                else:
                    chosen = await resolve_ontology(session, account, ontology)
                target = await ontology_target(ctx, session, chosen)
                run_gold, dialect = await gold_runner(
                    session, account, target, gold_database, demo_copy
                )
            eval_target = EvalTarget(
                system,
                account.id,
                chosen.ontology.id,
                run_gold,
                target_runner(target),
                dialect,
                mode=mode,
                provider=provider,
                keep_chats=keep_chats,
            )
            columns = (
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
            )
            tally: dict[str, int] = {}
            with Progress(*columns, console=err_console) as progress:
                task = progress.add_task(f"{chosen.ontology.name}", total=len(questions))

                def on_result(result: QuestionResult) -> None:
                    tally[result.outcome] = tally.get(result.outcome, 0) + 1
                    shown = " ".join(f"{k} {v}" for k, v in sorted(tally.items()))
                    progress.update(task, advance=1, description=f"{chosen.ontology.name}: {shown}")

                results = await evaluate(eval_target, questions, on_result)
    info = reports.RunInfo("", chosen.ontology.name, "", None, None, started_at)
    return results, info


def _write_demo_sqlite(path: Path) -> None:
    from dataagent.demo.generator import generate
    from dataagent.demo.loaders import write_sqlite

    write_sqlite(generate(), path)


def _print_eval_summary(results: list[QuestionResult]) -> float:
    """The table of outcomes by kind; the execution accuracy over all questions."""
    from rich import box

    from dataagent.evals.runner import summaries_by_kind
    from dataagent.evals.scoring import OUTCOMES

    summaries = summaries_by_kind(results)
    headers = ("kind", "n", *OUTCOMES, "accuracy", "p50 ms", "p90 ms")
    table = Table(*headers, box=box.SIMPLE_HEAD)
    for row in summaries:
        table.add_row(
            row.label,
            str(row.questions),
            *(str(row.counts.get(o, 0)) for o in OUTCOMES),
            f"{row.accuracy:.0%}",
            f"{row.latency_p50_ms:.0f}",
            f"{row.latency_p90_ms:.0f}",
        )
    # Redirected output is 80 columns wide by default: too narrow for the kinds' names.
    (console if console.is_terminal else Console(width=max(console.width, 100))).print(table)
    total = summaries[0]
    console.print(
        f"execution accuracy {total.accuracy:.1%} ({total.counts.get('correct', 0)} of "
        f"{total.questions}), wrong {total.rate('wrong'):.1%}, "
        f"abstained {total.rate('abstained'):.1%}; {total.model_calls} model calls, "
        f"{total.total_tokens} tokens"
    )
    return total.accuracy


# --- dataagent ask ----------------------------------------------------------------------------


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question, in plain words.")],
    ontology: Annotated[
        str | None,
        typer.Option(help="The ontology (name or id); default: the user's default or only one."),
    ] = None,
    mode: Annotated[
        str | None, typer.Option(help="offline, pipeline or react (default: the server's).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of the answer.")
    ] = False,
    user: Annotated[
        str | None, typer.Option(help="Ask as this user (email; default: the admin).")
    ] = None,
    charts_dir: Annotated[
        Path, typer.Option(help="Where the answer's charts are saved as image files.")
    ] = Path("dataagent-charts"),
    today: Annotated[
        str | None, typer.Option(help="Reference date YYYY-MM-DD for relative dates.")
    ] = None,
) -> None:
    """Answer a question in the terminal, as the web page does (in a new chat of the user's)."""
    agent_mode = _mode_option(mode)
    settings = _reference_settings(_settings(), _parse_day(today, "--today"))
    _configure_logging(settings)
    _migrate(settings)
    email = user or settings.admin_email
    try:
        document = asyncio.run(
            _ask(settings, question, email, ontology, agent_mode, charts_dir, not as_json)
        )
    except DataAgentError as exc:
        raise _fail(exc.message) from None
    if as_json:
        sys.stdout.write(json.dumps(document, default=str) + "\n")
    if document["status"] == "failed":
        raise typer.Exit(1)


async def _ask(
    settings: Settings,
    question: str,
    email: str,
    ontology: str | None,
    mode: AgentMode | None,
    charts_dir: Path,
    show: bool,
) -> dict[str, object]:
    from dataagent.evals.runner import answer_query, target_runner
    from dataagent.evals.targets import resolve_ontology, user_by_email
    from dataagent.runs.questions import ask as ask_question
    from dataagent.runs.system import RunSystem
    from dataagent.services import charts
    from dataagent.services.connections import ontology_target

    async def on_event(event: str, data: dict[str, object]) -> None:
        if not show:
            return
        if event == "phase_start":
            err_console.print(f"[dim]… {data.get('phase')}: {data.get('description', '')}[/dim]")
        elif event == "phase_end":
            err_console.print(f"[dim]✓ {data.get('phase')} ({data.get('durationMs')} ms)[/dim]")
        elif event == "tool_call":
            err_console.print(f"[dim]… {data.get('name')}[/dim]")

    async with RunSystem.in_process(settings) as system:
        ctx = system.app
        async with ctx.database.session() as session:
            account = await user_by_email(session, email)
            chosen = await resolve_ontology(session, account, ontology)
            target = await ontology_target(ctx, session, chosen)
        if show:
            err_console.print(f"[dim]Asking {chosen.ontology.name} as {account.email}[/dim]")
        answer = await ask_question(
            system, account.id, chosen.ontology.id, question, mode=mode, on_event=on_event
        )
        found = answer_query(answer.metadata)
        result = found.preview
        if result is None and found.sql is not None:
            rerun = await target_runner(target)(found.sql)
            result = None if isinstance(rerun, str) else rerun
        async with ctx.database.session() as session:
            kept = await charts.charts_of_message(session, account.id, answer.message_id)
        paths = _save_charts(kept, charts_dir)
    document: dict[str, object] = {
        "status": answer.status,
        "content": answer.content,
        "columns": result.columns if result else [],
        "rows": [list(row) for row in result.rows] if result else [],
        "rowCount": len(result.rows) if result else 0,
        "sql": found.sql,
        "lineage": answer.metadata.get("dataLineage"),
        "charts": [str(p) for p in paths],
        "agentMode": answer.metadata.get("agentMode"),
        "ontology": {"id": str(chosen.ontology.id), "name": chosen.ontology.name},
        "chatId": str(answer.chat_id),
        "messageId": str(answer.message_id),
        "runId": str(answer.run_id),
        "errorCode": answer.error_code,
        "errorMessage": answer.error_message,
    }
    if show:
        _print_answer(answer, document)
    return document


def _save_charts(kept: list[Chart], folder: Path) -> list[Path]:
    """Each chart's image as a file in `folder` (made when there is one); their paths."""
    extensions = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}
    paths: list[Path] = []
    for chart in kept:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"chart-{chart.id}.{extensions.get(chart.media_type, 'png')}"
        path.write_bytes(chart.content)
        paths.append(path.resolve())
    return paths


def _print_answer(answer: AskedAnswer, document: dict[str, object]) -> None:
    from rich.markdown import Markdown
    from rich.syntax import Syntax

    if answer.status == "failed":
        err_console.print(
            f"[red]The answer failed ({answer.error_code}):[/red] {answer.error_message}"
        )
        return
    console.print(Markdown(answer.content))
    columns, rows = document["columns"], document["rows"]
    assert isinstance(columns, list) and isinstance(rows, list)
    if columns:
        table = Table(*[str(c) for c in columns], title=f"{len(rows)} rows")
        for row in rows[:50]:
            table.add_row(*("" if v is None else str(v) for v in row))
        console.print(table)
        if len(rows) > 50:
            console.print(f"[dim]… {len(rows) - 50} more rows (--json prints them all)[/dim]")
    if document["sql"]:
        console.print(Syntax(str(document["sql"]), "sql", word_wrap=True))
    lineage = document["lineage"]
    if isinstance(lineage, dict):
        console.print("[bold]Lineage[/bold]")
        for key in ("datasets", "joins", "filters", "timeWindow", "grain", "rowCount"):
            value = lineage.get(key)
            if value:
                console.print(f"  {key}: {_lineage_text(value)}")
    for path in document["charts"]:  # type: ignore[attr-defined]
        console.print(f"chart: {path}")


def _lineage_text(value: object) -> str:
    if isinstance(value, list):
        return "; ".join(_lineage_text(v) for v in value)
    if isinstance(value, dict) and {"from", "to", "on"} <= value.keys():
        return f"{value['from']} → {value['to']} on {value['on']}"
    if isinstance(value, dict):
        return " ".join(str(v) for v in value.values() if v)
    return str(value)


def main() -> None:
    """Entry point of the `dataagent` script."""
    app()
