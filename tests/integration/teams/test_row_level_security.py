"""Row-level security by the database, for an ontology shared under database roles.

A real PostgreSQL user database (fresh per test) holds `sales` and `stores` with row-level
security by region: a read-only login account that is a member of two NOLOGIN roles, one
policy per role. The contributor owns the connection (as that account), the model and the
ontology; `other` is a grantee under the west role, `east` one under the east role. Each
grantee sees only their region's rows through `POST /api/query`, plan compile, a chat (the
offline planner, and the agent's tools under a scripted model), and the agent server; the
owner sees both. Nothing read with the owner's account (sample values, counts, the value
index) and nothing about the connection reaches a grantee.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import psycopg
import pytest
from langchain_core.messages import BaseMessage
from tests.conftest import fresh_postgres_database, with_user
from tests.fakes.scripted_model import Reply, ScriptedChatModel, call
from tests.integration.api.conftest import Account, World, ontology_on
from tests.integration.runs.conftest import Live, parse, read_frames
from tests.integration.teams.conftest import add_account

from dataagent.services import connections, ontologies
from dataagent.sources.executor import SHARED_CONNECTION_FAILED
from dataagent.sources.sessions import role_problem
from dataagent.store import shares
from dataagent.store.models import OntologyShare

# Only in the east rows: the value that must never reach the west grantee.
EAST_STORE = "Eastonbury"
WEST_STORE = "Westfield"
BY_REGION = "SELECT region, count(*) AS n FROM sales GROUP BY region ORDER BY region"
TOTAL_BY_REGION = {
    "datasets": ["sales"],
    "measures": [{"field": "sales.amount", "aggregation": "sum", "alias": "total"}],
    "dimensions": [{"field": "sales.region", "alias": "region"}],
    "order": [{"by": "region", "direction": "asc"}],
}
# The owner's rows per region, and their totals.
COUNTS = {"east": 2, "west": 3}
TOTALS = {"east": 300, "west": 60}
# What the owner's account counted, as generated descriptions say it.
OWNER_COUNTS = ("5 rows", "2 rows")


@dataclass
class RlsDatabase:
    """The user database, its read-only account and its two region roles."""

    admin_url: str  # the superuser's URL of the database (set-up and tear-down only)
    reader_url: str  # the account the owner's connection uses
    reader: str
    west: str
    east: str

    def admin(self, *statements: str) -> None:
        """Run statements as the superuser, in the user database."""
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)  # type: ignore[arg-type]


@pytest.fixture
def rls_db(postgres_admin_url: str) -> Iterator[RlsDatabase]:
    """A fresh database with sales and stores under row-level security by region."""
    suffix = uuid.uuid4().hex[:8]
    reader, west, east = f"da_rls_reader_{suffix}", f"da_rls_west_{suffix}", f"da_rls_east_{suffix}"
    with fresh_postgres_database(postgres_admin_url) as url:
        db = RlsDatabase(url, with_user(url, reader), reader, west, east)
        try:
            db.admin(
                f'CREATE ROLE "{reader}" LOGIN',
                f'CREATE ROLE "{west}" NOLOGIN',
                f'CREATE ROLE "{east}" NOLOGIN',
                f'GRANT "{west}", "{east}" TO "{reader}"',
                f'GRANT USAGE ON SCHEMA public TO "{reader}", "{west}", "{east}"',
                "CREATE TABLE stores (id integer PRIMARY KEY, name text NOT NULL, "
                "region text NOT NULL)",
                "CREATE TABLE sales (id integer PRIMARY KEY, "
                "store_id integer NOT NULL REFERENCES stores (id), region text NOT NULL, "
                "amount integer NOT NULL)",
                f"INSERT INTO stores VALUES (1, '{WEST_STORE}', 'west'), "
                f"(2, '{EAST_STORE}', 'east')",
                "INSERT INTO sales VALUES (1, 1, 'west', 10), (2, 1, 'west', 20), "
                "(3, 1, 'west', 30), (4, 2, 'east', 100), (5, 2, 'east', 200)",
                f'GRANT SELECT ON stores, sales TO "{reader}", "{west}", "{east}"',
            )
            for table in ("sales", "stores"):
                db.admin(
                    f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
                    # The account itself (the owner) sees every row.
                    f'CREATE POLICY everything ON {table} FOR SELECT TO "{reader}" USING (true)',
                    f'CREATE POLICY west ON {table} FOR SELECT TO "{west}" '
                    "USING (region = 'west')",
                    f'CREATE POLICY east ON {table} FOR SELECT TO "{east}" '
                    "USING (region = 'east')",
                )
            yield db
        finally:
            with psycopg.connect(postgres_admin_url, autocommit=True) as conn:
                name = url.rsplit("/", 1)[-1]
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]
                for role in (reader, west, east):
                    conn.execute(f'DROP ROLE IF EXISTS "{role}"')  # type: ignore[arg-type]


@dataclass
class Shared:
    """The owner's ontology of the RLS database, shared with two grantees under roles."""

    world: World
    db: RlsDatabase
    ontology_id: uuid.UUID
    connection_id: uuid.UUID
    east: Account

    @property
    def owner(self) -> Account:
        """Whose connection, model and ontology it is."""
        return self.world.contributor

    @property
    def west(self) -> Account:
        """The grantee under the west role."""
        return self.world.other

    async def query(self, account: Account, sql: str) -> httpx.Response:
        """`POST /api/query` on the ontology, as `account`."""
        return await account.client.post(
            "/api/query", json={"ontologyId": str(self.ontology_id), "sql": sql}
        )

    async def counts(self, account: Account) -> dict[str, int]:
        """Rows per region, as `account` sees them through `POST /api/query`."""
        response = await self.query(account, BY_REGION)
        assert response.status_code == 200, response.text
        return {region: n for region, n in response.json()["data"]["rows"]}


@pytest.fixture
async def shared(world: World, rls_db: RlsDatabase) -> AsyncIterator[Shared]:
    """The owner's ready ontology, built the production way, shared under west and east."""
    owner = world.contributor
    values = {"dialect": "postgresql", "url": rls_db.reader_url}
    connection_id, ontology_id = await ontology_on(world, owner, values, "Sales")
    east = await add_account(world, "east")
    # The share rows as the shares API stores them (its checks are another test's subject).
    async with world.database.session() as session:
        for grantee, role in ((world.other, rls_db.west), (east, rls_db.east)):
            session.add(
                OntologyShare(
                    ontology_id=ontology_id,
                    user_id=grantee.id,
                    database_role=role,
                    created_by=owner.id,
                )
            )
        await session.commit()
    try:
        yield Shared(world, rls_db, ontology_id, connection_id, east)
    finally:
        await east.client.aclose()


def _text(body: Any) -> str:
    return json.dumps(body) if not isinstance(body, str) else body


# --- each grantee sees only their region --------------------------------------------------------


async def test_each_grantee_sees_only_their_region_through_post_query(shared: Shared) -> None:
    assert await shared.counts(shared.owner) == COUNTS
    assert await shared.counts(shared.west) == {"west": 3}
    assert await shared.counts(shared.east) == {"east": 2}
    # Joins and filters cannot reach around the policy: it is on every table read.
    joined = await shared.query(
        shared.west,
        "SELECT st.name, sum(s.amount) AS total FROM sales s JOIN stores st "
        "ON st.id = s.store_id GROUP BY st.name",
    )
    assert joined.json()["data"]["rows"] == [[WEST_STORE, 60]]
    asked = await shared.query(shared.west, f"SELECT id FROM stores WHERE name = '{EAST_STORE}'")
    assert asked.json()["data"]["rows"] == []


async def test_each_grantee_sees_only_their_region_through_plan_compile(shared: Shared) -> None:
    async def totals(account: Account) -> dict[str, int]:
        response = await account.client.post(
            f"/api/ontologies/{shared.ontology_id}/compile",
            json={"plan": TOTAL_BY_REGION, "execute": True},
        )
        assert response.status_code == 200, response.text
        return {region: int(total) for region, total in response.json()["data"]["result"]["rows"]}

    assert await totals(shared.owner) == TOTALS
    assert await totals(shared.west) == {"west": TOTALS["west"]}
    assert await totals(shared.east) == {"east": TOTALS["east"]}


async def _ask(
    live: Live, account: Account, ontology_id: uuid.UUID, question: str, mode: str
) -> list[tuple[int, str, str]]:
    """A new chat of `account` on the ontology in `mode`; the question's stream, to its end."""
    async with httpx.AsyncClient(
        base_url=live.url, headers=dict(account.client.headers), timeout=60
    ) as client:
        created = await client.post(
            "/api/data-agent/chats",
            json={"name": "Sales", "ontologyId": str(ontology_id), "agentMode": mode},
        )
        assert created.status_code == 201, created.text
        chat_id = created.json()["data"]["id"]
        sent = await client.post(
            f"/api/data-agent/chats/{chat_id}/messages", json={"content": question}
        )
        assert sent.status_code == 201, sent.text
        message_id = sent.json()["data"]["assistantMessage"]["id"]
        url = f"/api/data-agent/chats/{chat_id}/messages/{message_id}/stream"
        async with client.stream("POST", url) as response:
            assert response.status_code == 200, await response.aread()
            return parse(await read_frames(response))


def _complete(frames: list[tuple[int, str, str]]) -> dict[str, Any]:
    [done] = [json.loads(data) for _, event, data in frames if event == "message_complete"]
    return done  # type: ignore[no-any-return]


async def test_each_grantee_sees_only_their_region_in_an_offline_chat(
    shared: Shared, live: Live
) -> None:
    async def answer(account: Account) -> tuple[dict[str, int], str]:
        frames = await _ask(live, account, shared.ontology_id, "total amount by region", "offline")
        done = _complete(frames)
        assert done["status"] == "complete", done
        [step] = done["metadata"]["stepResults"]
        rows = step["sqlResult"]["rows"]
        streamed = "".join(data for _, _, data in frames)
        return {str(r[0]): int(r[-1]) for r in rows}, streamed

    owner_rows, _ = await answer(shared.owner)
    assert owner_rows == TOTALS
    west_rows, west_stream = await answer(shared.west)
    assert west_rows == {"west": TOTALS["west"]}
    assert EAST_STORE not in west_stream, west_stream[max(0, west_stream.find(EAST_STORE) - 300) :][
        :600
    ]
    east_rows, _ = await answer(shared.east)
    assert east_rows == {"east": TOTALS["east"]}


def _agent_script(outputs: list[str]) -> list[Any]:
    """The ReAct turns: read the model of stores and sales, sample stores, count sales by
    region, list the datasets; then an answer. Every tool result the model reads is kept in
    `outputs`."""

    def answer(messages: list[BaseMessage]) -> Reply:
        outputs.extend(str(m.content) for m in messages if m.type == "tool")
        return Reply(text="Done.")

    return [
        Reply(
            tool_calls=[
                call("get_dataset_details", datasetNames=["stores", "sales"]),
                call("get_sample_data", datasetName="stores"),
                call("query_database", sql=BY_REGION),
                call("list_datasets"),
            ]
        ),
        answer,
    ]


async def test_the_agents_tools_run_under_the_role_and_its_prompt_holds_no_sample(
    shared: Shared, live: Live
) -> None:
    context = shared.world.context

    async def run(account: Account) -> tuple[list[str], ScriptedChatModel]:
        outputs: list[str] = []
        model = ScriptedChatModel(script=_agent_script(outputs))
        context.chat_model_factory = lambda info: model
        frames = await _ask(
            live, account, shared.ontology_id, "How many sales per region?", "react"
        )
        assert _complete(frames)["status"] == "complete"
        return outputs, model

    owner_outputs, owner_model = await run(shared.owner)
    details, sample, counted, listing = owner_outputs
    assert "5 rows" in listing
    # The owner's model was read with the owner's account: it holds the sampled values.
    assert EAST_STORE in details and "sample_values" in details
    assert EAST_STORE in sample and WEST_STORE in sample
    assert "east" in counted and "west" in counted
    owner_sent = "\n".join(str(m.content) for messages in owner_model.calls for m in messages)
    assert EAST_STORE in owner_sent and "5 rows" in owner_sent

    west_outputs, west_model = await run(shared.west)
    details, sample, counted, listing = west_outputs
    assert "sales" in listing and not [c for c in OWNER_COUNTS if c in listing]
    assert "sample_values" not in details and "row_count" not in details
    assert WEST_STORE in sample and EAST_STORE not in sample
    assert "| west" in counted and "east" not in counted
    # Nothing the west grantee's model was sent (prompt, grounding, tool results) holds a
    # value read from the east rows, or any sample at all.
    sent = "\n".join(str(m.content) for messages in west_model.calls for m in messages)
    assert EAST_STORE not in sent and "sample_values" not in sent
    assert not [c for c in OWNER_COUNTS if c in sent]

    east_outputs, _ = await run(shared.east)
    assert WEST_STORE not in east_outputs[1] and EAST_STORE in east_outputs[1]
    assert "| east" in east_outputs[2] and "west" not in east_outputs[2]


async def test_each_grantee_sees_only_their_region_through_the_agent_server(
    shared: Shared,
) -> None:
    ctx = shared.world.context
    # No model: the offline planner answers, and "SQL:" runs the person's own SQL.
    ctx.settings = ctx.settings.model_copy(update={"openai_api_key": None})
    ctx.chat_model_factory = None

    async def ask(account: Account, message: str) -> dict[str, Any]:
        response = await account.client.post(
            "/api/chat", json={"ontologyId": str(shared.ontology_id), "message": message}
        )
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()["data"]
        assert answer["status"] == "succeeded", answer
        return answer

    for account, expected in ((shared.owner, COUNTS), (shared.west, {"west": 3})):
        answer = await ask(account, f"SQL: {BY_REGION}")
        assert {r: n for r, n in answer["result"]["rows"]} == expected
    answer = await ask(shared.east, "total amount by region")
    assert {str(r[0]): int(r[-1]) for r in answer["result"]["rows"]} == {"east": 300}
    assert EAST_STORE not in json.dumps(await ask(shared.west, "total amount by region"))


# --- SQL that would step out of the role ----------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "SET ROLE {east}",
        "SET LOCAL ROLE {east}",
        "RESET ROLE",
        "SET SESSION AUTHORIZATION {reader}",
        "RESET SESSION AUTHORIZATION",
        "SELECT set_config('role', '{east}', true)",
        "SELECT set_config('role', '{reader}', false)",
        "WITH r AS (SELECT set_config('role', '{east}', true) AS x) SELECT region FROM sales, r",
        "SELECT region FROM sales WHERE set_config('role', '{east}', true) IS NOT NULL",
        "SELECT (SELECT set_config('role', '{east}', true)), region FROM sales",
        "SELECT pg_catalog.set_config('role', '{east}', true)",
        "SELECT current_setting('role')",
        "SELECT current_setting('role', true)",
        "SELECT region FROM sales WHERE region = current_setting('role')",
        "SELECT session_user",
        "SELECT current_user",
        "SELECT user",
        "SELECT current_role",
        "SELECT current_catalog",
        "SELECT region FROM sales; SET ROLE {east}",
    ],
)
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_sql_changing_role_or_reading_who_runs_it_is_refused(
    shared: Shared, sql: str
) -> None:
    db = shared.db
    response = await shared.query(
        shared.west, sql.format(east=db.east, reader=db.reader, west=db.west)
    )
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "SQL_POLICY_VIOLATION"
    assert db.reader not in response.text
    # And the next query still runs under the west role.
    assert await shared.counts(shared.west) == {"west": 3}


# --- the role is checked again at every query -----------------------------------------------------


async def test_the_role_is_checked_again_at_every_query(shared: Shared) -> None:
    db = shared.db
    assert await shared.counts(shared.west) == {"west": 3}

    db.admin(f'REVOKE "{db.west}" FROM "{db.reader}"')
    refused = await shared.query(shared.west, BY_REGION)
    assert refused.status_code == 403, refused.text
    error = refused.json()["error"]
    assert error["code"] == "FORBIDDEN"
    assert error["message"] == role_problem(db.west, (False, False, False, False, False, []))
    # The owner and the other grantee go on as before.
    assert await shared.counts(shared.owner) == COUNTS
    assert await shared.counts(shared.east) == {"east": 2}

    db.admin(f'GRANT "{db.west}" TO "{db.reader}"')
    assert await shared.counts(shared.west) == {"west": 3}

    db.admin(f'ALTER ROLE "{db.west}" BYPASSRLS')
    refused = await shared.query(shared.west, BY_REGION)
    assert refused.status_code == 403, refused.text
    assert "privileged" in refused.json()["error"]["message"]
    assert "BYPASSRLS" in refused.json()["error"]["message"]
    db.admin(f'ALTER ROLE "{db.west}" NOBYPASSRLS')

    # The database's policy decides, at every query: without one, the role reads no row.
    db.admin("DROP POLICY west ON sales")
    assert await shared.counts(shared.west) == {}


# --- nothing read with the owner's account reaches a restricted grantee ---------------------------


async def test_a_restricted_grantee_sees_no_sampled_value_or_count(shared: Shared) -> None:
    base = f"/api/ontologies/{shared.ontology_id}"

    owner = (await shared.owner.client.get(f"{base}/datasets/stores")).json()["data"]
    assert EAST_STORE in owner["yaml"] and "sample_values" in owner["yaml"]
    assert owner["description"].endswith("with 2 rows.")
    owner_graph = (await shared.owner.client.get(f"{base}/graph")).text
    assert "2 rows" in owner_graph and "5 rows" in owner_graph
    for grantee in (shared.west, shared.east):
        for name in ("stores", "sales"):
            response = await grantee.client.get(f"{base}/datasets/{name}")
            assert response.status_code == 200, response.text
            detail = response.json()["data"]
            assert "sample_values" not in detail["yaml"]
            assert "distinct_count" not in detail["yaml"] and "row_count" not in detail["yaml"]
            assert EAST_STORE not in response.text and WEST_STORE not in response.text
            assert not [c for c in OWNER_COUNTS if c in response.text]
            assert detail["description"] and detail["fields"], "still described"
        for path in ("/suggestions", "/graph", "/search?q=stores%20by%20name", ""):
            response = await grantee.client.get(f"{base}{path}")
            assert response.status_code == 200, response.text
            assert EAST_STORE not in response.text and WEST_STORE not in response.text
            assert not [c for c in OWNER_COUNTS if c in response.text]

    async with shared.world.database.session() as session:
        owner_values = await ontologies.value_index(
            session, await shares.reach(session, shared.owner.id, shared.ontology_id)
        )
        west_access = await shares.reach(session, shared.west.id, shared.ontology_id)
        west_values = await ontologies.value_index(session, west_access)
    assert EAST_STORE in {v.value for v in owner_values.values}
    assert west_access.restricted and len(west_values) == 0
    model = ontologies.access_model(west_access)
    assert all(
        not f.sample_values and f.distinct_count is None for d in model.datasets for f in d.fields
    )
    assert all(d.row_count is None for d in model.datasets)


# --- nothing about the connection reaches a grantee -----------------------------------------------


async def test_a_grantee_learns_nothing_about_the_connection(shared: Shared) -> None:
    db = shared.db
    secrets = (db.reader, "127.0.0.1", "5432", "postgresql://", "da_test_")

    ran = await shared.query(shared.west, BY_REGION)
    run = await shared.west.client.get(f"/api/runs/{ran.json()['data']['runId']}")
    assert run.status_code == 200, run.text
    assert not [s for s in secrets if s in ran.text or s in run.text]
    # The owner's connection is theirs alone.
    assert (
        await shared.west.client.get(f"/api/connections/{shared.connection_id}")
    ).status_code == 404

    # The database stops answering: the grantee's error names nothing of the connection.
    async with shared.world.database.session() as session:
        await connections.update_connection(
            shared.world.context,
            session,
            shared.owner.id,
            shared.connection_id,
            None,
            {"url": db.reader_url.replace(":5432/", ":1/")},
        )
    failed = await shared.query(shared.west, BY_REGION)
    assert failed.status_code >= 400, failed.text
    error = failed.json()["error"]
    assert error["message"] == SHARED_CONNECTION_FAILED
    assert not [s for s in (db.reader, "127.0.0.1", ":1/", "postgresql://") if s in failed.text]
    # The failure is recorded as the grantee's run; its capsule names nothing either.
    capsule = await shared.west.client.get(f"/api/runs/{error['details']['runId']}")
    assert capsule.status_code == 200, capsule.text
    assert capsule.json()["data"]["status"] == "failed"
    assert not [s for s in (db.reader, "127.0.0.1", ":1/", "postgresql://") if s in capsule.text], (
        capsule.text
    )
