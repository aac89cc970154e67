"""Issue 25's authorization matrix: who may use a shared ontology, and how.

One ontology (on a PostgreSQL database reached with a password) is owned by the contributor
and shared with `other` directly, with a group holding `member`, and with the viewer. Every
route under the ontology, model, connection, query, run-capsule, chat, stream, chart and
agent prefixes is called by each actor (owner, direct grantee, group grantee, viewer
grantee, a contributor with no share, an admin with no share): the status each gets is
compared with the table below, every mismatch reported at once, and no body a non-owner
receives (errors and event streams included) may carry the connection's password, user,
host or URL.

The rows run in order, the refused actors of a row before the allowed ones, so one world
serves the whole table: a row may use what an earlier row made (a chat, a message), and the
deletes come last. Revocation (a share row deleted, a member removed from the group) is
checked between the table's two parts, on the next request, with no cache to wait for.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx
import psycopg
import pytest
from langchain_core.messages import BaseMessage, ToolMessage
from sqlalchemy import delete, func, select
from tests.conftest import fresh_postgres_database
from tests.fakes.scripted_model import Reply, ScriptedChatModel, call
from tests.integration.api.conftest import Account, World, built, database_url, world
from tests.integration.api.conftest import settings as api_settings

from dataagent.auth.permissions import Permission, has_permission
from dataagent.auth.tokens import issue_token
from dataagent.charts import ChartRequest
from dataagent.config import Settings
from dataagent.services import charts
from dataagent.store.models import (
    Group,
    GroupMember,
    OntologyShare,
    QueryRecord,
    User,
)

__all__ = ["api_settings", "database_url", "world"]

Actor = Literal["owner", "direct", "group", "viewer", "stranger", "admin"]
ACTORS: tuple[Actor, ...] = ("owner", "direct", "group", "viewer", "stranger", "admin")
GRANTEES: tuple[Actor, ...] = ("direct", "group", "viewer")
READERS: tuple[Actor, ...] = ("owner", *GRANTEES)
ASKERS: tuple[Actor, ...] = ("owner", "direct", "group")  # readers with data_agent:write

# Every route under these is classified below (or the test fails).
PREFIXES = (
    "/api/ontologies",
    "/api/semantic-models",
    "/api/connections",
    "/api/query",
    "/api/runs",
    "/api/data-agent",
    "/api/charts",
    "/api/agent",
    "/api/v1/agent",
    "/api/chat",
    "/api/admin/ontologies",
)

QUESTION = "how many customers are there"
COUNT_SQL = "SELECT count(*) AS n FROM customers"
PLAN = {
    "datasets": ["customers"],
    "measures": [{"field": "customers.id", "aggregation": "count", "alias": "customers"}],
}
CHART = ChartRequest(
    chart_type="bar",
    title="Customers by city",
    data=[{"city": "Oslo", "customers": 2}, {"city": "Rome", "customers": 1}],
    x="city",
    y=["customers"],
)


@dataclass(frozen=True)
class Target:
    """The owner's PostgreSQL database and the account its connection signs in with."""

    database: str
    user: str
    password: str
    host: str
    port: int

    def body(self) -> dict[str, Any]:
        """The connection as the owner creates it."""
        return {
            "name": "Curated shop",
            "dialect": "postgresql",
            "host": self.host,
            "port": self.port,
            "database": self.database,
            "username": self.user,
            "password": self.password,
        }

    def secrets(self) -> list[str]:
        """What no grantee may ever read: the password, the user, the host, the URL."""
        url = f"postgresql://{self.user}:{self.password}@{self.host}:{self.port}/{self.database}"
        return [self.password, self.user, self.host, url, f"{self.host}:{self.port}"]


@pytest.fixture
def settings(api_settings: Settings) -> Settings:
    """No model provider: chats, the agent server and compile answer offline (the stateless
    chat's rows bring a scripted model of their own)."""
    return api_settings.model_copy(update={"openai_api_key": None})


@pytest.fixture
def target(postgres_admin_url: str) -> Iterator[Target]:
    """A fresh PostgreSQL database of customers and orders, read by a login role with a
    password (trust auth ignores it; what matters is that it is never shown)."""
    suffix = uuid.uuid4().hex[:10]
    user, password = f"reader_secret_{suffix}", f"S3cretPassw0rd-{suffix}"
    with psycopg.connect(postgres_admin_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE \"{user}\" LOGIN PASSWORD '{password}'")
    try:
        with fresh_postgres_database(postgres_admin_url) as url, psycopg.connect(url) as conn:
            conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT)")
            conn.execute(
                "CREATE TABLE orders (id INTEGER PRIMARY KEY, "
                "customer_id INTEGER REFERENCES customers(id), amount NUMERIC)"
            )
            conn.execute(
                "INSERT INTO customers VALUES (1, 'Ana', 'Oslo'), (2, 'Bo', 'Rome'), "
                "(3, 'Cy', 'Oslo')"
            )
            conn.execute("INSERT INTO orders VALUES (1, 1, 9.5), (2, 2, 20), (3, 1, 4)")
            database = conn.info.dbname
            conn.execute(f'GRANT CONNECT ON DATABASE "{database}" TO "{user}"')
            conn.execute(f'GRANT USAGE ON SCHEMA public TO "{user}"')
            conn.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{user}"')
            conn.commit()
            yield Target(database, user, password, conn.info.host, conn.info.port)
    finally:
        with psycopg.connect(postgres_admin_url, autocommit=True) as conn:
            conn.execute(f'DROP ROLE IF EXISTS "{user}"')


@dataclass
class State:
    """What the matrix made so far, for later rows to use."""

    world: World
    target: Target
    accounts: dict[Actor, Account]
    tmp: Path
    ontology: str = ""
    model: str = ""
    connection: str = ""
    group: uuid.UUID = field(default_factory=uuid.uuid4)
    chats: dict[Actor, str] = field(default_factory=dict)
    answers: dict[Actor, str] = field(default_factory=dict)
    runs: dict[Actor, str] = field(default_factory=dict)
    preferences: dict[Actor, str] = field(default_factory=dict)
    connections: dict[Actor, str] = field(default_factory=dict)
    regenerated: str = ""
    chart: str = ""

    def chat(self, actor: Actor = "direct") -> str:
        """The chat `actor` started on the shared ontology."""
        return f"/api/data-agent/chats/{self.chats[actor]}"

    def answer(self) -> str:
        """The direct grantee's answer in its chat."""
        return f"{self.chat()}/messages/{self.answers['direct']}"


Url = Callable[[State], str]
Body = Callable[[State, Actor], Any]
Keep = Callable[[State, Actor, httpx.Response], Awaitable[None]]
Check = Callable[[State, Actor, httpx.Response], str | None]


@dataclass(frozen=True)
class Row:
    """One route: how to call it, and who gets what.

    An actor in `allowed` gets that status; anyone else gets 403 when their role lacks
    `permission` (the role check comes first), else 404.
    """

    method: str
    route: str  # the OpenAPI path, to tie the table to the app's routes
    url: Url
    permission: Permission
    allowed: dict[Actor, int]
    body: Body | None = None
    keep: Keep | None = None
    check: Check | None = None
    model: bool = False  # the stateless chat needs a model: a scripted one, for this row
    label: str = ""

    def expected(self, actor: Actor, accounts: dict[Actor, Account]) -> int:
        """The status `actor` should get."""
        if not has_permission(accounts[actor].role, self.permission):
            return 403
        return self.allowed.get(actor, 404)

    def name(self) -> str:
        """How a mismatch names the row."""
        return f"{self.method} {self.route}" + (f" ({self.label})" if self.label else "")


def only(status: int, *actors: Actor) -> dict[Actor, int]:
    """`status` for these actors (everyone else is refused)."""
    return dict.fromkeys(actors, status)


def data(response: httpx.Response) -> Any:
    """The envelope's `data`."""
    return response.json()["data"]


# --- what the rows keep and check -------------------------------------------------------


async def keep_chat(s: State, actor: Actor, response: httpx.Response) -> None:
    s.chats[actor] = data(response)["id"]


async def keep_answer(s: State, actor: Actor, response: httpx.Response) -> None:
    s.answers[actor] = data(response)["assistantMessage"]["id"]


async def keep_regenerated(s: State, actor: Actor, response: httpx.Response) -> None:
    s.regenerated = data(response)["assistantMessage"]["id"]


async def keep_run(s: State, actor: Actor, response: httpx.Response) -> None:
    s.runs[actor] = data(response)["runId"]


async def keep_preference(s: State, actor: Actor, response: httpx.Response) -> None:
    s.preferences[actor] = data(response)["id"]


async def keep_connection(s: State, actor: Actor, response: httpx.Response) -> None:
    s.connections[actor] = data(response)["id"]


async def keep_chart(s: State, actor: Actor, response: httpx.Response) -> None:
    # A chart of the grantee's answer, as the chart tool keeps one.
    owner = s.accounts[actor].id
    chart = await charts.create_chart(s.world.context, owner, uuid.UUID(s.answers[actor]), CHART)
    s.chart = str(chart.id)


async def wait_build(s: State, actor: Actor, response: httpx.Response) -> None:
    await s.world.context.builds.wait(uuid.UUID(data(response)["id"]))


def lists_ontology(s: State, actor: Actor, response: httpx.Response) -> str | None:
    found = [o for o in data(response) if o["id"] == s.ontology]
    if actor not in READERS:
        return "lists the ontology" if found else None
    if not found:
        return "does not list the ontology"
    access = "owner" if actor == "owner" else "shared"
    owner = found[0]["owner"]
    if found[0]["access"] != access or owner["email"] != s.accounts["owner"].email:
        return f"lists it as {found[0]['access']} of {owner}"
    return None


def reads_shared(s: State, actor: Actor, response: httpx.Response) -> str | None:
    got = data(response)
    access = "owner" if actor == "owner" else "shared"
    if got["access"] != access or got["owner"]["id"] != str(s.accounts["owner"].id):
        return f"access {got['access']}, owner {got['owner']}"
    return None


def lists_no_other(key: str) -> Check:
    def check(s: State, actor: Actor, response: httpx.Response) -> str | None:
        mine = getattr(s, key)
        listed = mine in {item["id"] for item in data(response)}
        if listed != (actor == "owner"):
            return f"{key} listed: {listed}"
        return None

    return check


def counts_customers(s: State, actor: Actor, response: httpx.Response) -> str | None:
    got = data(response)
    result = got.get("result", got) if isinstance(got, dict) else got
    if result is None or result["rows"] != [[3]]:
        return f"rows {result and result['rows']}"
    return None


def answered(s: State, actor: Actor, response: httpx.Response) -> str | None:
    if "event: message_complete" not in response.text or "3" not in response.text:
        return f"no complete answer naming 3 customers: {response.text[-400:]}"
    return None


def agent_answered(s: State, actor: Actor, response: httpx.Response) -> str | None:
    got = data(response)
    if got["status"] != "succeeded" or got["result"]["rows"] != [[3]]:
        return f"answer {got['status']}, rows {got['result'] and got['result']['rows']}"
    return None


def streamed_done(s: State, actor: Actor, response: httpx.Response) -> str | None:
    if "event: done" not in response.text or "event: error" in response.text:
        return f"stream did not end well: {response.text[-400:]}"
    return None


def owned_by_asker(s: State, actor: Actor, response: httpx.Response) -> str | None:
    # The capsule read is the one this person's own query made.
    return None if data(response)["id"] == s.runs[actor] else "another record"


# --- the table --------------------------------------------------------------------------


def ontology_url(tail: str = "") -> Url:
    return lambda s: f"/api/ontologies/{s.ontology}{tail}"


ONT = "/api/ontologies/{ontology_id}"
CHAT = "/api/data-agent/chats/{chat_id}"
MESSAGE = CHAT + "/messages/{message_id}"
P = Permission

READS: list[Row] = [
    Row("GET", "/api/ontologies", lambda s: "/api/ontologies", P.ONTOLOGIES_READ,
        only(200, *ACTORS), check=lists_ontology),
    Row("GET", ONT, ontology_url(), P.ONTOLOGIES_READ, only(200, *READERS), check=reads_shared),
    Row("GET", ONT + "/graph", ontology_url("/graph"), P.ONTOLOGIES_READ, only(200, *READERS)),
    Row("GET", ONT + "/datasets/{name}", ontology_url("/datasets/customers"), P.ONTOLOGIES_READ,
        only(200, *READERS)),
    Row("GET", ONT + "/search", ontology_url("/search?q=customers+by+city"), P.ONTOLOGIES_READ,
        only(200, *READERS)),
    Row("GET", ONT + "/suggestions", ontology_url("/suggestions"), P.ONTOLOGIES_READ,
        only(200, *READERS)),
    Row("POST", ONT + "/join-paths", ontology_url("/join-paths"), P.ONTOLOGIES_READ,
        only(200, *READERS), body=lambda s, a: {"datasets": ["orders", "customers"]}),
    Row("POST", ONT + "/compile", ontology_url("/compile"), P.ONTOLOGIES_READ,
        only(200, *READERS), body=lambda s, a: {"plan": PLAN}, label="compile only"),
    Row("POST", ONT + "/compile", ontology_url("/compile"), P.ONTOLOGIES_READ,
        only(200, *READERS), body=lambda s, a: {"plan": PLAN, "execute": True},
        check=counts_customers, label="execute"),
    # The owner's model and connection: theirs alone, even to read.
    Row("GET", "/api/semantic-models", lambda s: "/api/semantic-models",
        P.SEMANTIC_MODELS_READ, only(200, *ACTORS), check=lists_no_other("model")),
    Row("GET", "/api/semantic-models/{model_id}", lambda s: f"/api/semantic-models/{s.model}",
        P.SEMANTIC_MODELS_READ, only(200, "owner")),
    Row("GET", "/api/connections", lambda s: "/api/connections", P.CONNECTIONS_READ,
        only(200, *ACTORS), check=lists_no_other("connection")),
    Row("GET", "/api/connections/{connection_id}", lambda s: f"/api/connections/{s.connection}",
        P.CONNECTIONS_READ, only(200, "owner")),
    Row("POST", "/api/connections/{connection_id}/test",
        lambda s: f"/api/connections/{s.connection}/test", P.CONNECTIONS_READ, only(200, "owner")),
    # SQL: through the ontology for everyone it reaches, through the connection for its owner.
    Row("POST", "/api/query", lambda s: "/api/query", P.CONNECTIONS_READ, only(200, *READERS),
        body=lambda s, a: {"ontologyId": s.ontology, "sql": COUNT_SQL}, keep=keep_run,
        check=counts_customers, label="ontologyId"),
    Row("POST", "/api/query", lambda s: "/api/query", P.CONNECTIONS_READ, only(400, *READERS),
        body=lambda s, a: {"ontologyId": s.ontology, "sql": "SELECT nope FROM customers"},
        label="ontologyId, failing SQL"),
    Row("POST", "/api/query", lambda s: "/api/query", P.CONNECTIONS_READ, only(200, "owner"),
        body=lambda s, a: {"connectionId": s.connection, "sql": COUNT_SQL},
        label="the owner's connectionId"),
    Row("GET", "/api/runs/{run_id}", lambda s: f"/api/runs/{s.runs['direct']}",
        P.CONNECTIONS_READ, only(200, "direct"), check=owned_by_asker,
        label="the direct grantee's record"),
    Row("GET", "/api/runs/{run_id}", lambda s: f"/api/runs/{s.runs['owner']}",
        P.CONNECTIONS_READ, only(200, "owner"), label="the owner's record"),
    # Chats: started by anyone who may ask; each chat its starter's alone.
    Row("POST", "/api/data-agent/chats", lambda s: "/api/data-agent/chats", P.DATA_AGENT_WRITE,
        only(201, *ASKERS), keep=keep_chat,
        body=lambda s, a: {"name": f"{a}'s", "ontologyId": s.ontology, "agentMode": "offline"}),
    Row("GET", "/api/data-agent/chats", lambda s: "/api/data-agent/chats", P.DATA_AGENT_READ,
        only(200, *ACTORS)),
    Row("GET", CHAT, lambda s: s.chat(), P.DATA_AGENT_READ, only(200, "direct")),
    Row("PATCH", CHAT, lambda s: s.chat(), P.DATA_AGENT_WRITE, only(200, "direct"),
        body=lambda s, a: {"name": "Renamed"}),
    Row("GET", CHAT + "/messages", lambda s: f"{s.chat()}/messages", P.DATA_AGENT_READ,
        only(200, "direct")),
    Row("POST", CHAT + "/messages", lambda s: f"{s.chat()}/messages", P.DATA_AGENT_WRITE,
        only(201, "direct"), body=lambda s, a: {"content": QUESTION}, keep=keep_answer),
    Row("POST", MESSAGE + "/stream", lambda s: f"{s.answer()}/stream", P.DATA_AGENT_WRITE,
        only(200, "direct"), check=answered, keep=keep_chart),
    Row("GET", MESSAGE + "/events", lambda s: f"{s.answer()}/events", P.DATA_AGENT_READ,
        only(200, "direct"), check=answered),
    Row("GET", MESSAGE, lambda s: s.answer(), P.DATA_AGENT_READ, only(200, "direct")),
    Row("GET", MESSAGE + "/report", lambda s: f"{s.answer()}/report", P.DATA_AGENT_READ,
        only(200, "direct")),
    Row("GET", MESSAGE + "/traces", lambda s: f"{s.answer()}/traces", P.DATA_AGENT_READ,
        only(200, "direct")),
    Row("POST", MESSAGE + "/cancel", lambda s: f"{s.answer()}/cancel", P.DATA_AGENT_WRITE,
        only(409, "direct"), label="a finished answer"),
    Row("POST", MESSAGE + "/regenerate", lambda s: f"{s.answer()}/regenerate",
        P.DATA_AGENT_WRITE, only(201, "direct"), keep=keep_regenerated),
    Row("POST", "/api/data-agent/stream/{message_id}",
        lambda s: f"/api/data-agent/stream/{s.regenerated}", P.DATA_AGENT_WRITE,
        only(200, "direct"), check=answered),
    Row("GET", "/api/charts/{chart_id}", lambda s: f"/api/charts/{s.chart}", P.DATA_AGENT_READ,
        only(200, "direct")),
    Row("GET", "/api/charts/{chart_id}.png", lambda s: f"/api/charts/{s.chart}.png",
        P.DATA_AGENT_READ, only(200, "direct")),
    # Preferences about the shared ontology: each person's own.
    Row("GET", "/api/data-agent/preferences",
        lambda s: f"/api/data-agent/preferences?scope=ontology&ontologyId={s.ontology}",
        P.DATA_AGENT_READ, only(200, *READERS)),
    Row("POST", "/api/data-agent/preferences", lambda s: "/api/data-agent/preferences",
        P.DATA_AGENT_WRITE, only(201, *ASKERS), keep=keep_preference,
        body=lambda s, a: {"ontologyId": s.ontology, "key": "currency", "value": "EUR"}),
    Row("PATCH", "/api/data-agent/preferences/{preference_id}",
        lambda s: f"/api/data-agent/preferences/{s.preferences['direct']}", P.DATA_AGENT_WRITE,
        only(200, "direct"), body=lambda s, a: {"value": "NOK"}),
    Row("DELETE", "/api/data-agent/preferences/{preference_id}",
        lambda s: f"/api/data-agent/preferences/{s.preferences['direct']}", P.DATA_AGENT_WRITE,
        only(204, "direct")),
    Row("DELETE", "/api/data-agent/preferences",
        lambda s: f"/api/data-agent/preferences?ontologyId={s.ontology}", P.DATA_AGENT_WRITE,
        only(204, *ASKERS)),
    # The stateless chat and the agent server, on the shared ontology.
    Row("POST", "/api/agent/chat", lambda s: "/api/agent/chat", P.DATA_AGENT_WRITE,
        only(200, *ASKERS), model=True, check=streamed_done,
        body=lambda s, a: {"ontologyId": s.ontology,
                           "messages": [{"role": "user", "content": QUESTION}]}),
    Row("POST", "/api/v1/agent/chat", lambda s: "/api/v1/agent/chat", P.DATA_AGENT_WRITE,
        only(200, *ASKERS), model=True, check=streamed_done,
        body=lambda s, a: {"ontologyId": s.ontology,
                           "messages": [{"role": "user", "content": QUESTION}]}),
    Row("POST", "/api/chat", lambda s: "/api/chat", P.DATA_AGENT_WRITE, only(200, *ASKERS),
        body=lambda s, a: {"ontologyId": s.ontology, "message": QUESTION},
        check=agent_answered),
    Row("POST", "/api/chat/stream", lambda s: "/api/chat/stream", P.DATA_AGENT_WRITE,
        only(200, *ASKERS), body=lambda s, a: {"ontologyId": s.ontology, "message": QUESTION},
        check=streamed_done),
    # Writes: the owner chain stays; an admin is no owner (its one exception: the backfill
    # every ontology has, seed 000's admin tool).
    Row("PATCH", "/api/semantic-models/{model_id}", lambda s: f"/api/semantic-models/{s.model}",
        P.SEMANTIC_MODELS_WRITE, only(200, "owner"),
        body=lambda s, a: {"description": f"edited by {a}"}),
    Row("POST", "/api/semantic-models/{model_id}/regenerate",
        lambda s: f"/api/semantic-models/{s.model}/regenerate", P.SEMANTIC_MODELS_WRITE,
        only(200, "owner")),
    Row("POST", "/api/semantic-models", lambda s: "/api/semantic-models",
        P.SEMANTIC_MODELS_WRITE, only(201, "owner"),
        body=lambda s, a: {"connectionId": s.connection, "name": f"{a}'s copy"},
        label="from the owner's connection"),
    Row("POST", "/api/ontologies", lambda s: "/api/ontologies", P.ONTOLOGIES_WRITE,
        only(201, "owner"), keep=wait_build,
        body=lambda s, a: {"semanticModelId": s.model, "name": f"{a}'s copy"},
        label="from the owner's model"),
    Row("POST", ONT + "/rebuild", ontology_url("/rebuild"), P.ONTOLOGIES_WRITE,
        only(202, "owner"), keep=wait_build),
    Row("GET", ONT + "/build/events", ontology_url("/build/events"), P.ONTOLOGIES_READ,
        only(200, "owner")),
    Row("POST", "/api/admin/ontologies/{ontology_id}/backfill-embeddings",
        lambda s: f"/api/admin/ontologies/{s.ontology}/backfill-embeddings", P.USERS_MANAGE,
        only(200, "admin")),
    # Shares: the owner's and any admin's to manage; a grantee is refused as anyone else.
    Row("GET", ONT + "/shares", ontology_url("/shares"), P.ONTOLOGIES_READ,
        only(200, "owner", "admin")),
    Row("POST", ONT + "/shares", ontology_url("/shares"), P.ONTOLOGIES_WRITE,
        only(400, "owner", "admin"),
        body=lambda s, a: {"userId": str(s.accounts["owner"].id)}, label="with the owner"),
    Row("DELETE", ONT + "/shares/{share_id}", ontology_url(f"/shares/{uuid.UUID(int=0)}"),
        P.ONTOLOGIES_WRITE, {}, label="no such share"),
    Row("PATCH", "/api/connections/{connection_id}", lambda s: f"/api/connections/{s.connection}",
        P.CONNECTIONS_WRITE, only(200, "owner"), body=lambda s, a: {"name": f"renamed by {a}"}),
    Row("POST", "/api/connections", lambda s: "/api/connections", P.CONNECTIONS_WRITE,
        only(201, "owner", "direct", "group", "stranger", "admin"), keep=keep_connection,
        body=lambda s, a: {"name": f"{a}'s own", "dialect": "sqlite",
                           "database": str(s.tmp / "own.db")},
        label="one's own, not about the share"),
    # The group grantee's chat goes; the direct grantee's stays for the revocation.
    Row("DELETE", CHAT, lambda s: s.chat("group"), P.DATA_AGENT_DELETE, only(204, "group")),
]  # fmt: skip

DELETES: list[Row] = [
    Row("DELETE", ONT, ontology_url(), P.ONTOLOGIES_WRITE, only(204, "owner")),
    Row("DELETE", "/api/semantic-models/{model_id}", lambda s: f"/api/semantic-models/{s.model}",
        P.SEMANTIC_MODELS_WRITE, only(204, "owner")),
    Row("DELETE", "/api/connections/{connection_id}",
        lambda s: f"/api/connections/{s.connections['owner']}", P.CONNECTIONS_WRITE,
        only(204, "owner"), label="the owner's unused one"),
]  # fmt: skip


# --- running it -------------------------------------------------------------------------


def scripted_model() -> ScriptedChatModel:
    """A model that counts the customers with the query tool, then says how many."""

    def step(messages: list[BaseMessage]) -> Reply:
        if isinstance(messages[-1], ToolMessage):
            return Reply(text="There are 3 customers.")
        return Reply(tool_calls=[call("query_database", sql=COUNT_SQL)])

    return ScriptedChatModel(default=step)


@dataclass
class Matrix:
    """Runs rows, collecting every mismatch and every body a non-owner received."""

    state: State
    problems: list[str] = field(default_factory=list)
    seen: list[tuple[str, Actor, str]] = field(default_factory=list)

    async def call(
        self, actor: Actor, method: str, url: str, body: Any = None, what: str = ""
    ) -> httpx.Response:
        """One request as `actor`; its body is kept for the credential check."""
        client = self.state.accounts[actor].client
        response = await client.request(method, url, json=body)
        self.seen.append((what or f"{method} {url}", actor, response.text))
        return response

    def expect(self, what: str, actor: Actor, response: httpx.Response, status: int) -> bool:
        """Record a mismatch of status; True when it matched."""
        if response.status_code == status:
            return True
        self.problems.append(
            f"{what} as {actor}: {response.status_code}, expected {status}: {response.text[:200]}"
        )
        return False

    async def run(self, rows: list[Row]) -> None:
        """Every row, refused actors first (they must change nothing), then allowed ones."""
        ctx = self.state.world.context
        for row in rows:
            order = [a for a in ACTORS if a not in row.allowed] + list(row.allowed)
            for actor in order:
                if row.model:
                    ctx.chat_model_factory = lambda info: scripted_model()
                try:
                    body = row.body(self.state, actor) if row.body else None
                    response = await self.call(
                        actor, row.method, row.url(self.state), body, row.name()
                    )
                finally:
                    ctx.chat_model_factory = None
                if not self.expect(
                    row.name(), actor, response, row.expected(actor, self.state.accounts)
                ):
                    continue
                if response.status_code >= 400:
                    continue
                if row.check is not None and (problem := row.check(self.state, actor, response)):
                    self.problems.append(f"{row.name()} as {actor}: {problem}")
                if row.keep is not None and actor in row.allowed:
                    await row.keep(self.state, actor, response)

    def leaks(self) -> list[str]:
        """Bodies a non-owner received that carry a connection secret."""
        secrets = self.state.target.secrets()
        return [
            f"{what} as {actor} shows {secret!r}"
            for what, actor, text in self.seen
            if actor != "owner"
            for secret in secrets
            if secret in text
        ]


def classified_routes() -> set[tuple[str, str]]:
    return {(row.method, row.route) for row in READS + DELETES}


async def add_user(world: World, email: str, role: str) -> Account:
    """A signed-in account, made as the `world` fixture makes its own: the row (with the
    password hash the others have: argon2 is slow on purpose) and a token given directly."""
    async with world.database.session() as session:
        known = await session.get(User, world.contributor.id)
        assert known is not None
        user = User(email=email, password_hash=known.password_hash, role=role)
        session.add(user)
        await session.flush()
        token, _ = issue_token(user.id, user.token_version, world.context.secret_key, 60)
        await session.commit()
    client = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=world.app),
        base_url="http://test",
        headers={"Authorization": f"Bearer {token}"},
    )
    return Account(user.id, email, role, client)


async def setup(world: World, target: Target, tmp: Path) -> State:
    """The owner's ontology on the target, shared three ways; the extra accounts."""
    accounts: dict[Actor, Account] = {
        "owner": world.contributor,
        "direct": world.other,
        "viewer": world.viewer,
        "admin": world.admin,
        "group": await add_user(world, "member@example.com", "contributor"),
        "stranger": await add_user(world, "stranger@example.com", "contributor"),
    }
    state = State(world, target, accounts, tmp)
    owner = world.contributor.client
    created = await owner.post("/api/connections", json=target.body())
    assert created.status_code == 201, created.text
    state.connection = data(created)["id"]
    model = await owner.post(
        "/api/semantic-models", json={"connectionId": state.connection, "name": "shop"}
    )
    assert model.status_code == 201, model.text
    state.model = data(model)["id"]
    ontology = await owner.post(
        "/api/ontologies", json={"semanticModelId": state.model, "name": "Shop"}
    )
    assert ontology.status_code == 201, ontology.text
    state.ontology = data(ontology)["id"]
    assert (await built(owner, state.ontology))["status"] == "ready"
    ontology_id = uuid.UUID(state.ontology)
    async with world.database.session() as session:
        session.add(Group(id=state.group, name="Analysts", created_by=world.admin.id))
        await session.flush()
        session.add(GroupMember(group_id=state.group, user_id=accounts["group"].id))
        session.add_all(
            OntologyShare(ontology_id=ontology_id, created_by=world.contributor.id, **grantee)
            for grantee in (
                {"user_id": world.other.id},
                {"user_id": world.viewer.id},
                {"group_id": state.group},
            )
        )
        await session.commit()
    return state


async def revocation(matrix: Matrix) -> None:
    """Take the group member out and the direct share away: their next request is 404; the
    direct grantee's chat stays readable, and asking in it is 403 with why."""
    s = matrix.state
    world, ontology_id = s.world, uuid.UUID(s.ontology)
    async with world.database.session() as session:
        await session.execute(
            delete(GroupMember).where(GroupMember.user_id == s.accounts["group"].id)
        )
        await session.execute(
            delete(OntologyShare).where(
                OntologyShare.ontology_id == ontology_id,
                OntologyShare.user_id == s.accounts["direct"].id,
            )
        )
        await session.commit()
    for actor in ("direct", "group"):
        what = f"after revocation: GET {s.ontology}"
        matrix.expect(
            what,
            actor,
            await matrix.call(actor, "GET", f"/api/ontologies/{s.ontology}", what=what),
            404,
        )
        body = {"ontologyId": s.ontology, "sql": COUNT_SQL}
        what = "after revocation: POST /api/query"
        matrix.expect(what, actor, await matrix.call(actor, "POST", "/api/query", body, what), 404)
        listed = await matrix.call(actor, "GET", "/api/ontologies", what="after revocation: list")
        if s.ontology in {o["id"] for o in data(listed)}:
            matrix.problems.append(f"after revocation: {actor} still lists the ontology")
    # The viewer's own share is untouched.
    what = "after revocation: the viewer's GET"
    matrix.expect(
        what,
        "viewer",
        await matrix.call("viewer", "GET", f"/api/ontologies/{s.ontology}", what=what),
        200,
    )

    chat = await matrix.call("direct", "GET", s.chat(), what="withdrawn chat: GET")
    if matrix.expect("withdrawn chat: GET", "direct", chat, 200):
        got = data(chat)
        if got["ontologyAccess"] != "withdrawn" or len(got["messages"]) < 2:
            matrix.problems.append(f"withdrawn chat reads as {got['ontologyAccess']}")
    for what, url, body in (
        ("withdrawn chat: send", f"{s.chat()}/messages", {"content": QUESTION}),
        ("withdrawn chat: regenerate", f"{s.answer()}/regenerate", None),
    ):
        refused = await matrix.call("direct", "POST", url, body, what)
        if matrix.expect(what, "direct", refused, 403):
            error = refused.json()["error"]
            if error["code"] != "FORBIDDEN" or "no longer shared" not in error["message"]:
                matrix.problems.append(f"{what}: {error}")
    what = "after revocation: new chat"
    new_chat = {"name": "again", "ontologyId": s.ontology, "agentMode": "offline"}
    matrix.expect(
        what,
        "direct",
        await matrix.call("direct", "POST", "/api/data-agent/chats", new_chat, what),
        404,
    )

    # Given back: the next request reaches it again.
    async with world.database.session() as session:
        session.add(GroupMember(group_id=s.group, user_id=s.accounts["group"].id))
        session.add(OntologyShare(ontology_id=ontology_id, user_id=s.accounts["direct"].id))
        await session.commit()
    for actor in ("direct", "group"):
        what = "shared again: GET"
        matrix.expect(
            what,
            actor,
            await matrix.call(actor, "GET", f"/api/ontologies/{s.ontology}", what=what),
            200,
        )


@pytest.mark.postgres
async def test_who_may_do_what_with_a_shared_ontology(
    target: Target, world: World, tmp_path: Path
) -> None:
    app_routes = {
        (method.upper(), path)
        for path, operations in world.app.openapi()["paths"].items()
        if path.startswith(PREFIXES)
        for method in operations
    }
    unclassified = sorted(app_routes - classified_routes())
    assert not unclassified, f"routes missing from the authorization matrix: {unclassified}"
    assert not classified_routes() - app_routes, "the matrix names routes the app has not"

    state = await setup(world, target, tmp_path)
    matrix = Matrix(state)
    try:
        await matrix.run(READS)
        await revocation(matrix)
        await matrix.run(DELETES)
        # The ontology's shares (and chats, the grantees' too) went with it.
        async with world.database.session() as session:
            shares = await session.scalar(
                select(func.count())
                .select_from(OntologyShare)
                .where(OntologyShare.ontology_id == uuid.UUID(state.ontology))
            )
            asker = await session.scalar(
                select(QueryRecord.owner_id).where(
                    QueryRecord.id == uuid.UUID(state.runs["direct"])
                )
            )
        if shares:
            matrix.problems.append(f"{shares} shares outlived their ontology")
        if asker != state.accounts["direct"].id:
            matrix.problems.append("the grantee's query is recorded as someone else's")
        what = "after the delete: the grantee's chat"
        matrix.expect(
            what, "direct", await matrix.call("direct", "GET", state.chat(), what=what), 404
        )
    finally:
        for actor in ("group", "stranger"):
            await state.accounts[actor].client.aclose()
    problems = matrix.problems + matrix.leaks()
    assert not problems, "\n".join(problems)
    # The check can see a secret: the owner's own connection shows its user and host.
    owners = [text for _, actor, text in matrix.seen if actor == "owner"]
    assert any(target.user in text and target.host in text for text in owners)
