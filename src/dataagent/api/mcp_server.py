"""The MCP server: Data Agent's tools for an MCP client (Claude Desktop, an IDE, another agent),
over stdio (`dataagent mcp`) and over streamable HTTP (`/mcp` on the API server).

The tools are thin clients of the services the API uses, so they keep its rules: the same
ownership (another user's ontology is NOT_FOUND), the same permissions, the same SQL guard
and run capsules, and questions answered through the same chats and runs as the web page's
(`runs.questions.ask`). The caller is the user behind a login token: over stdio the token
given to `dataagent mcp`, over HTTP each request's bearer token; every call checks it again,
as every API request does, so a token signed out or expired stops working at once.

A refused call is a tool error (`isError`) whose text starts with the error's code
(`SQL_POLICY_VIOLATION: ...`), which a model can read and act on.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import Headers
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from dataagent import __version__
from dataagent.api.errors import error_response
from dataagent.api.schemas.ontologies import dataset_detail_public, search_result
from dataagent.api.schemas.queries import query_output
from dataagent.auth.permissions import Permission, require_permission
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.runs import questions
from dataagent.runs.system import RunSystem
from dataagent.services import ontologies, queries
from dataagent.services.reports import parse_markdown_table
from dataagent.services.users import user_for_token
from dataagent.store.models import Ontology, User
from dataagent.vocabulary import AgentMode

MCP_PATH = "/mcp"
# Rows of an answer's main result an `ask` hands back (the whole result is in its run capsule).
ASK_MAX_ROWS = 50
SIGN_IN = "Sign in to continue: the token is missing, invalid or expired."

INSTRUCTIONS = """\
Data Agent answers questions about the user's databases. Each database is reached through an
ontology (a semantic model of its tables, metrics and relationships). Start with
list_ontologies. For a question in plain language, call ask: it plans, writes and checks the
SQL, runs it read-only and explains the answer. To work step by step instead, use
search_datasets and describe_dataset to find the tables and columns, then run_query with one
read-only SELECT."""

# Where a call finds the caller's login token: over stdio the server's, over HTTP the request's.
TokenSource = Callable[[Context], str | None]

OntologyRef = Annotated[
    str,
    Field(
        min_length=1,
        max_length=255,
        description="The ontology's id (from list_ontologies), or its exact name.",
    ),
]


def _text(data: Any) -> list[TextContent]:
    return [TextContent(type="text", text=json.dumps(data, default=str, ensure_ascii=False))]


def _result(data: dict[str, Any]) -> CallToolResult:
    """A tool's answer: as JSON text (what most clients show a model) and as structured
    content."""
    return CallToolResult(content=_text(data), structured_content=data)


def _refused(exc: DataAgentError) -> CallToolResult:
    """A tool error whose text starts with the error's code, then its sentence."""
    return CallToolResult(
        content=[TextContent(type="text", text=f"{exc.code.value}: {exc.message}")],
        is_error=True,
    )


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return None


def _request_token(ctx: Context) -> str | None:
    headers: Mapping[str, str] | None = ctx.headers
    return bearer_token(headers.get("authorization") if headers is not None else None)


def main_result(metadata: Mapping[str, Any], max_rows: int = ASK_MAX_ROWS) -> dict[str, Any]:
    """The SQL an answer ran and its main (last) table: from the pipeline's step results, or
    from the ReAct agent's `query_database` calls."""
    sql: list[str] = []
    table: tuple[list[str], list[list[Any]], int, bool] | None = None
    for step in metadata.get("stepResults") or []:
        result = (step or {}).get("sqlResult") or {}
        if isinstance(result.get("sql"), str) and result["sql"].strip():
            sql.append(result["sql"].strip())
        if result.get("columns"):
            rows = [list(row) for row in result.get("rows") or []]
            count = result.get("rowCount")
            table = (
                list(result["columns"]),
                rows,
                count if isinstance(count, int) else len(rows),
                result.get("truncated") is True,
            )
    if not sql:
        for call in metadata.get("toolCalls") or []:
            if call.get("name") != "query_database" or call.get("isError") is True:
                continue
            text = (call.get("args") or {}).get("sql")
            if isinstance(text, str) and text.strip():
                sql.append(text.strip())
            output = call.get("result")
            parsed = parse_markdown_table(output) if isinstance(output, str) else None
            table = parsed or table
    if table is None:
        return {"sql": sql, "result": None}
    columns, rows, row_count, truncated = table
    return {
        "sql": sql,
        "result": {
            "columns": columns,
            "rows": rows[:max_rows],
            "rowCount": max(row_count, len(rows)),
            "truncated": truncated or len(rows) > max_rows,
        },
    }


class DataAgentTools:
    """The tools, for callers whose token `token_of` finds, answering on `system`'s runs."""

    def __init__(self, system: RunSystem, token_of: TokenSource) -> None:
        self.system = system
        self.app = system.app
        self.token_of = token_of

    async def _caller(self, ctx: Context, session: AsyncSession, permission: Permission) -> User:
        """The user behind the call's token, with `permission` (the API's checks)."""
        user = await user_for_token(self.app, session, self.token_of(ctx))
        if user is None:
            raise DataAgentError(ErrorCode.UNAUTHORIZED, SIGN_IN)
        require_permission(user.role, permission)
        return user

    async def _ontology(self, session: AsyncSession, user: User, ref: str) -> Ontology:
        """The ontology the caller reaches (theirs or shared) with this id or, failing that,
        this exact name."""
        try:
            ontology_id = uuid.UUID(ref.strip())
        except ValueError:
            ontology_id = None
        if ontology_id is not None:
            return (await ontologies.reach(session, user.id, ontology_id)).ontology
        named = [
            a.ontology
            for a in await ontologies.list_ontologies(session, user.id)
            if a.ontology.name.casefold() == ref.strip().casefold()
        ]
        if len(named) > 1:
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR,
                f"{len(named)} of the ontologies you reach are named {ref!r}; give the id of one.",
            )
        if not named:
            raise DataAgentError(
                ErrorCode.NOT_FOUND,
                f"No ontology you reach has the id or name {ref!r}; list_ontologies names them.",
            )
        return named[0]

    async def _call(
        self,
        ctx: Context,
        permission: Permission,
        work: Callable[[AsyncSession, User], Awaitable[dict[str, Any]]],
    ) -> CallToolResult:
        try:
            async with self.app.database.session() as session:
                user = await self._caller(ctx, session, permission)
                return _result(await work(session, user))
        except DataAgentError as exc:
            return _refused(exc)

    async def list_ontologies(self, ctx: Context) -> CallToolResult:
        """The ontologies the caller reaches: their own and those shared with them."""

        async def work(session: AsyncSession, user: User) -> dict[str, Any]:
            found = await ontologies.list_ontologies(session, user.id)
            emails = await ontologies.owner_emails(session, {a.owner_id for a in found})
            return {
                "ontologies": [
                    {
                        "id": str(a.ontology.id),
                        "name": a.ontology.name,
                        "description": a.ontology.description,
                        "status": a.ontology.status,
                        "datasetCount": a.ontology.dataset_count,
                        "access": a.kind,
                        "owner": emails.get(a.owner_id, ""),
                    }
                    for a in found
                ]
            }

        return await self._call(ctx, Permission.ONTOLOGIES_READ, work)

    async def search_datasets(
        self,
        ontology_id: OntologyRef,
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=2000,
                description="The question or the words to look for, in plain language.",
            ),
        ],
        ctx: Context,
        k: Annotated[int, Field(ge=1, le=100, description="How many of each to return.")] = 10,
    ) -> CallToolResult:
        """The ontology's datasets and metrics most relevant to a question."""

        async def work(session: AsyncSession, user: User) -> dict[str, Any]:
            ontology = await self._ontology(session, user, ontology_id)
            ranking = await ontologies.search(self.app, session, ontology, query, k)
            return search_result(ranking).model_dump(mode="json", by_alias=True)

        return await self._call(ctx, Permission.ONTOLOGIES_READ, work)

    async def describe_dataset(
        self,
        ontology_id: OntologyRef,
        dataset: Annotated[
            str,
            Field(
                min_length=1,
                max_length=255,
                description="The dataset's name, as search_datasets returns it.",
            ),
        ],
        ctx: Context,
    ) -> CallToolResult:
        """A dataset's description, fields, relationships and YAML definition."""

        async def work(session: AsyncSession, user: User) -> dict[str, Any]:
            ontology = await self._ontology(session, user, ontology_id)
            found, related = await ontologies.dataset_detail(session, user.id, ontology.id, dataset)
            detail = dataset_detail_public(found, related)
            return detail.model_dump(mode="json", by_alias=True)

        return await self._call(ctx, Permission.ONTOLOGIES_READ, work)

    async def run_query(
        self,
        ontology_id: OntologyRef,
        sql: Annotated[
            str,
            Field(
                min_length=1,
                max_length=100_000,
                description="One read-only statement (SELECT or WITH) over the ontology's tables.",
            ),
        ],
        ctx: Context,
        max_rows: Annotated[
            int, Field(ge=1, le=10_000, description="The most rows to return.")
        ] = 100,
    ) -> CallToolResult:
        """Run one read-only statement on the ontology's database (its tables only)."""

        async def work(session: AsyncSession, user: User) -> dict[str, Any]:
            ontology = await self._ontology(session, user, ontology_id)
            recorded = await queries.run_sql(
                self.app, session, user.id, sql, ontology_id=ontology.id, max_rows=max_rows
            )
            return query_output(recorded).model_dump(mode="json", by_alias=True)

        return await self._call(ctx, Permission.CONNECTIONS_READ, work)

    async def ask(
        self,
        ontology_id: OntologyRef,
        question: Annotated[
            str,
            Field(min_length=1, max_length=10_000, description="The question, in plain language."),
        ],
        ctx: Context,
        mode: Annotated[
            AgentMode | None,
            Field(description="How to answer; leave it out for the server's default."),
        ] = None,
        chat_id: Annotated[
            str | None,
            Field(description="A previous answer's chatId, to ask a follow-up in that chat."),
        ] = None,
    ) -> CallToolResult:
        """Answer a question with the full agent, in a chat the user also sees in the web page."""
        try:
            async with self.app.database.session() as session:
                user = await self._caller(ctx, session, Permission.DATA_AGENT_WRITE)
                ontology = await self._ontology(session, user, ontology_id)
            chat = _uuid(chat_id, "chatId") if chat_id else None
            phases = 0

            async def on_event(event: str, data: dict[str, Any]) -> None:
                nonlocal phases
                if event == "phase_start":
                    phases += 1
                    await ctx.report_progress(phases, message=str(data.get("phase", "")))

            answer = await questions.ask(
                self.system,
                user.id,
                ontology.id,
                question,
                mode=mode,
                chat_id=chat,
                on_event=on_event,
            )
        except DataAgentError as exc:
            return _refused(exc)
        if answer.status == "failed":
            code = answer.error_code or ErrorCode.INTERNAL_ERROR.value
            return CallToolResult(
                content=[TextContent(type="text", text=f"{code}: {answer.error_message}")],
                is_error=True,
            )
        return _result(
            {
                "status": answer.status,
                "narrative": answer.content,
                **main_result(answer.metadata),
                "chatId": str(answer.chat_id),
                "messageId": str(answer.message_id),
                "runId": str(answer.run_id),
            }
        )


def _uuid(text: str, name: str) -> uuid.UUID:
    try:
        return uuid.UUID(text.strip())
    except ValueError:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, f"{name} is not an id.") from None


_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)

DESCRIPTIONS = {
    "list_ontologies": (
        "List the user's ontologies: one per connected database (or uploaded files), with its "
        "id, name, description, build status and number of datasets. Call this first; the "
        "other tools take an ontology's id (or exact name). Only `ready` ontologies answer."
    ),
    "search_datasets": (
        "Find the datasets (tables) and metrics of an ontology most relevant to a question, "
        "best first, with their scores. Use it to choose what to describe_dataset or query."
    ),
    "describe_dataset": (
        "Describe one dataset of an ontology: its description, its fields (name, type, label, "
        "description, primary key), its relationships to other datasets (the join columns) and "
        "its YAML definition. Use it before writing SQL for run_query."
    ),
    "run_query": (
        "Run one read-only SQL statement (SELECT or WITH, in the ontology's database dialect) "
        "over the ontology's tables and return its columns and rows. Anything but a read of "
        "the ontology's own tables is refused with SQL_POLICY_VIOLATION; every run is kept "
        "as a run capsule whose runId is returned. Prefer `ask` for a question in plain "
        "language."
    ),
    "ask": (
        "Answer a data question in plain language about an ontology's database: the agent "
        "plans, finds the tables and join paths, writes and checks the SQL, runs it read-only "
        "and explains the answer. Returns the narrative, the SQL, the main result's rows (at "
        f"most {ASK_MAX_ROWS}), the status (`complete`, or `clarification_needed` with the "
        "question to answer in a follow-up) and the chatId for follow-up questions."
    ),
}


def build_server(system: RunSystem, token_of: TokenSource) -> MCPServer:
    """Data Agent's MCP server: its five tools, for the callers `token_of` names."""
    server: MCPServer = MCPServer(
        "dataagent", title="Data Agent", instructions=INSTRUCTIONS, version=__version__
    )
    tools = DataAgentTools(system, token_of)
    for name, fn, hints in (
        ("list_ontologies", tools.list_ontologies, _READ_ONLY),
        ("search_datasets", tools.search_datasets, _READ_ONLY),
        ("describe_dataset", tools.describe_dataset, _READ_ONLY),
        # A run is recorded (its run capsule), the database only read.
        (
            "run_query",
            tools.run_query,
            ToolAnnotations(read_only_hint=False, destructive_hint=False),
        ),
        # An answer is a chat and messages the user keeps.
        ("ask", tools.ask, ToolAnnotations(read_only_hint=False, destructive_hint=False)),
    ):
        server.add_tool(fn, name=name, description=DESCRIPTIONS[name], annotations=hints)
    return server


async def serve_stdio(system: RunSystem, token: str) -> None:
    """Serve the tools over standard input and output, as the user whose token this is."""
    await build_server(system, lambda _ctx: token).run_stdio_async()


class McpEndpoint:
    """`/mcp` on the API server: the bearer token checked (401 as the API answers), then the
    SDK's streamable HTTP transport, stateless (any replica can answer any request)."""

    def __init__(self, system: RunSystem) -> None:
        self.context = system.app
        self.server = build_server(system, _request_token)
        # Every request carries its bearer token and no ambient credential (no cookie), so a
        # page on another origin has nothing to replay: the Host/Origin check is not needed.
        self.server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            stateless_http=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self.transport = StreamableHTTPASGIApp(self.server.session_manager)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a request without a valid token; hand the others to the transport."""
        token = bearer_token(Headers(scope=scope).get("authorization"))
        async with self.context.database.session() as session:
            user = await user_for_token(self.context, session, token)
        if user is None:
            refused = error_response(
                ErrorCode.UNAUTHORIZED, SIGN_IN, 401, headers={"WWW-Authenticate": "Bearer"}
            )
            await refused(scope, receive, send)
            return
        await self.transport(scope, receive, send)

    def route(self) -> Route:
        """The route to add to the app (kept out of the OpenAPI document: it is MCP's)."""
        return Route(MCP_PATH, self, include_in_schema=False)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The transport's task group, for the app's lifespan."""
        async with self.server.session_manager.run():
            yield
