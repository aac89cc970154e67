"""Two `dataagent serve` processes on one PostgreSQL app database: a share revoked, or a
member taken out of a group, is in force on the other replica's very next request.

The owner builds an ontology through replica A and shares it there with G directly and with
group T (an admin made it on A, with H in it). G and H read and query it through replica B.
Each change is made through replica A's API, then checked on B at once: no sleep, no cache
to expire.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.e2e.servers import Server, shop_database, start_ontology, until

OWNER, G, H, ADMIN = "owner@example.com", "g@example.com", "h@example.com", "admin@example.com"
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
    a.create_user(ADMIN, role="admin")
    try:
        for server in servers:
            server.start()
            server.follow_output()
        yield a, b
    finally:
        for server in servers:
            server.stop()


def reaches(client: httpx.Client, ontology_id: str) -> tuple[int, int]:
    """The statuses of reading the ontology and of querying it."""
    read = client.get(f"/api/ontologies/{ontology_id}")
    query = client.post("/api/query", json={"ontologyId": ontology_id, "sql": COUNT_SQL})
    if query.status_code == 200:
        assert query.json()["data"]["rows"] == [[1]], query.text
    return read.status_code, query.status_code


@pytest.mark.postgres
def test_revocation_and_membership_changes_are_in_force_on_the_next_request(
    replicas: tuple[Server, Server],
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

    with a.client(OWNER) as owner, a.client(ADMIN) as admin, b.client(G) as g, b.client(H) as h:
        g_id, h_id = (c.get("/api/auth/me").json()["data"]["id"] for c in (g, h))
        team = admin.post("/api/groups", json={"name": "T"})
        assert team.status_code == 201, team.text
        members_url = f"/api/groups/{team.json()['data']['id']}/members"
        assert admin.put(members_url, json={"userIds": [h_id]}).status_code == 200
        shares_url = f"/api/ontologies/{ontology_id}/shares"
        direct = owner.post(shares_url, json={"userId": g_id})
        assert direct.status_code == 201, direct.text
        by_group = owner.post(shares_url, json={"groupId": team.json()["data"]["id"]})
        assert by_group.status_code == 201, by_group.text

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

        # G's share revoked on A: B refuses G's next request, and keeps the chat readable.
        revoked = owner.delete(f"{shares_url}/{direct.json()['data']['id']}")
        assert revoked.status_code == 204, revoked.text
        assert reaches(g, ontology_id) == (404, 404)
        assert g.get("/api/ontologies").json()["data"] == []
        kept = g.get(chat_url)
        assert kept.status_code == 200 and kept.json()["data"]["ontologyAccess"] == "withdrawn"
        refused = g.post(f"{chat_url}/messages", json={"content": "and now?"})
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"]["code"] == "FORBIDDEN"
        assert "no longer shared" in refused.json()["error"]["message"]
        assert reaches(h, ontology_id) == (200, 200)  # H's group share is untouched

        # H taken out of T on A: B refuses H's next request.
        assert admin.put(members_url, json={"userIds": []}).status_code == 200
        assert reaches(h, ontology_id) == (404, 404)

        # Both given back on A: B answers the next request again.
        assert owner.post(shares_url, json={"userId": g_id}).status_code == 201
        assert admin.put(members_url, json={"userIds": [h_id]}).status_code == 200
        assert reaches(g, ontology_id) == (200, 200)
        assert reaches(h, ontology_id) == (200, 200)
        assert g.get(chat_url).json()["data"]["ontologyAccess"] == "shared"
        again = g.post(f"{chat_url}/messages", json={"content": "and now?"})
        assert again.status_code == 201, again.text

    # Replica A sees the same: nothing was cached on either side.
    with a.client(G) as g:
        assert reaches(g, ontology_id) == (200, 200)
