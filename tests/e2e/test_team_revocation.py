"""Two `dataagent serve` processes on one PostgreSQL app database: a share revoked, or a
member taken out of a group, is in force on the other replica's very next request.

The owner builds an ontology through replica A; it is shared with G directly and with group
T (holding H). G and H read and query it through replica B. Each change is written to the
app database (as the shares API of either replica would write it), then checked on B at
once: no sleep, no cache to expire.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
from tests.e2e.servers import Server, shop_database, start_ontology, until

OWNER, G, H = "owner@example.com", "g@example.com", "h@example.com"
COUNT_SQL = "SELECT count(*) AS n FROM t0000_orders"


@pytest.fixture
def replicas(tmp_path: Path, postgres_db: str) -> Iterator[tuple[Server, Server]]:
    """Replicas A and B: one app database, one secret key, one folder of user databases."""
    shared = tmp_path / "shared"
    shared.mkdir()
    env = {"DATAAGENT_DATABASE_URL": postgres_db, "DATAAGENT_FILE_ROOTS": str(shared)}
    servers = []
    for name in ("a", "b"):
        home = tmp_path / name
        home.mkdir()
        servers.append(Server(home, dict(env)))
    a, b = servers
    for email in (OWNER, G, H):
        a.create_user(email)  # migrates the app database first
    try:
        for server in servers:
            server.start()
            server.follow_output()
        yield a, b
    finally:
        for server in servers:
            server.stop()


def user_id(app_db: str, email: str) -> uuid.UUID:
    """A user's id in the app database."""
    with psycopg.connect(app_db) as conn:
        row = conn.execute("SELECT id FROM users WHERE email = %s", (email,)).fetchone()
    assert row is not None, email
    found: uuid.UUID = row[0]
    return found


def write(app_db: str, sql: str, *params: object) -> None:
    """One committed change to the app database."""
    with psycopg.connect(app_db) as conn:
        conn.execute(sql, params)


def share_with(app_db: str, ontology_id: str, *, user: uuid.UUID | None = None,
               group: uuid.UUID | None = None) -> None:  # fmt: skip
    """A share row, as `POST /api/ontologies/{id}/shares` makes one."""
    write(
        app_db,
        "INSERT INTO ontology_shares (id, ontology_id, user_id, group_id, created_at) "
        "VALUES (%s, %s, %s, %s, now())",
        uuid.uuid4(), uuid.UUID(ontology_id), user, group,
    )  # fmt: skip


def reaches(client: httpx.Client, ontology_id: str) -> tuple[int, int]:
    """The statuses of reading the ontology and of querying it."""
    read = client.get(f"/api/ontologies/{ontology_id}")
    query = client.post("/api/query", json={"ontologyId": ontology_id, "sql": COUNT_SQL})
    if query.status_code == 200:
        assert query.json()["data"]["rows"] == [[1]], query.text
    return read.status_code, query.status_code


@pytest.mark.postgres
def test_revocation_and_membership_changes_are_in_force_on_the_next_request(
    replicas: tuple[Server, Server], postgres_db: str
) -> None:
    a, b = replicas
    database = shop_database(a.home.parent / "shared" / "shop.db", tables=1)
    with a.client(OWNER) as owner:
        ontology_id = start_ontology(owner, database)

        def ready() -> bool:
            status = owner.get(f"/api/ontologies/{ontology_id}").json()["data"]["status"]
            assert status != "failed"
            return bool(status == "ready")

        until(ready, "the ontology is built")

    g_id, h_id = user_id(postgres_db, G), user_id(postgres_db, H)
    team = uuid.uuid4()
    write(postgres_db, "INSERT INTO groups (id, name, created_at, updated_at) "
          "VALUES (%s, 'T', now(), now())", team)  # fmt: skip
    write(postgres_db, "INSERT INTO group_members (group_id, user_id, created_at) "
          "VALUES (%s, %s, now())", team, h_id)  # fmt: skip
    share_with(postgres_db, ontology_id, user=g_id)
    share_with(postgres_db, ontology_id, group=team)

    with b.client(G) as g, b.client(H) as h:
        assert reaches(g, ontology_id) == (200, 200)
        assert reaches(h, ontology_id) == (200, 200)
        listed = g.get("/api/ontologies").json()["data"]
        assert [(o["id"], o["access"], o["owner"]["email"]) for o in listed] == [
            (ontology_id, "shared", OWNER)
        ]
        chat = g.post(
            "/api/data-agent/chats",
            json={"name": "G's", "ontologyId": ontology_id, "agentMode": "offline"},
        )
        assert chat.status_code == 201, chat.text
        chat_url = f"/api/data-agent/chats/{chat.json()['data']['id']}"
        asked = g.post(f"{chat_url}/messages", json={"content": "how many orders are there"})
        assert asked.status_code == 201, asked.text
        answer_id = asked.json()["data"]["assistantMessage"]["id"]
        streamed = g.post(f"{chat_url}/messages/{answer_id}/stream")
        assert streamed.status_code == 200 and "event: message_complete" in streamed.text

        # G's share revoked: B refuses G's next request, and keeps the chat readable.
        write(postgres_db, "DELETE FROM ontology_shares WHERE user_id = %s", g_id)
        assert reaches(g, ontology_id) == (404, 404)
        assert g.get("/api/ontologies").json()["data"] == []
        kept = g.get(chat_url)
        assert kept.status_code == 200 and kept.json()["data"]["ontologyAccess"] == "withdrawn"
        refused = g.post(f"{chat_url}/messages", json={"content": "and now?"})
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"]["code"] == "FORBIDDEN"
        assert "no longer shared" in refused.json()["error"]["message"]
        assert reaches(h, ontology_id) == (200, 200)  # H's group share is untouched

        # H taken out of T: B refuses H's next request.
        write(postgres_db, "DELETE FROM group_members WHERE user_id = %s", h_id)
        assert reaches(h, ontology_id) == (404, 404)

        # Both given back: B answers the next request again.
        share_with(postgres_db, ontology_id, user=g_id)
        write(postgres_db, "INSERT INTO group_members (group_id, user_id, created_at) "
              "VALUES (%s, %s, now())", team, h_id)  # fmt: skip
        assert reaches(g, ontology_id) == (200, 200)
        assert reaches(h, ontology_id) == (200, 200)
        assert g.get(chat_url).json()["data"]["ontologyAccess"] == "shared"
        again = g.post(f"{chat_url}/messages", json={"content": "and now?"})
        assert again.status_code == 201, again.text

    # Replica A sees the same: nothing was cached on either side.
    with a.client(G) as g:
        assert reaches(g, ontology_id) == (200, 200)
