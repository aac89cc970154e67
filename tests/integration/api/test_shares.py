"""Shares of an ontology: made and revoked by its owner or an admin, checked, audited; a
database role checked against a real PostgreSQL database when the share is made."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest
from sqlalchemy import select
from tests.conftest import fresh_postgres_database, postgres_reader
from tests.integration.api.conftest import Account, World, ontology_on

from dataagent.sources.engines import DATABASE_ROLE_DIALECTS
from dataagent.store.models import AuditEvent, OntologyShare


def shares_path(ontology_id: uuid.UUID | str) -> str:
    return f"/api/ontologies/{ontology_id}/shares"


async def _audit(world: World, action: str) -> list[AuditEvent]:
    async with world.database.session() as session:
        rows = await session.scalars(
            select(AuditEvent).where(AuditEvent.action == action).order_by(AuditEvent.created_at)
        )
        return list(rows)


async def _group(world: World, name: str, *members: Account) -> str:
    created = await world.admin.client.post("/api/groups", json={"name": name})
    group_id: str = created.json()["data"]["id"]
    await world.admin.client.put(
        f"/api/groups/{group_id}/members", json={"userIds": [str(m.id) for m in members]}
    )
    return group_id


async def test_owner_shares_lists_and_revokes(world: World) -> None:
    owner = world.contributor.client
    ontology_id = await world.make_ontology(world.contributor)
    group_id = await _group(world, "Analysts", world.viewer)
    assert (await world.other.client.get(f"/api/ontologies/{ontology_id}")).status_code == 404

    direct = await owner.post(shares_path(ontology_id), json={"userId": str(world.other.id)})
    assert direct.status_code == 201, direct.text
    share = direct.json()["data"]
    assert share["userId"] == str(world.other.id)
    assert share["userEmail"] == "other@example.com"
    assert share["groupId"] is None and share["groupName"] is None
    assert share["databaseRole"] is None
    assert share["createdBy"] == str(world.contributor.id)
    assert share["ontologyId"] == str(ontology_id)
    by_group = await owner.post(shares_path(ontology_id), json={"groupId": group_id})
    assert by_group.status_code == 201, by_group.text
    assert by_group.json()["data"]["groupName"] == "Analysts"

    listing = (await owner.get(shares_path(ontology_id))).json()["data"]
    assert [s["id"] for s in listing] == [share["id"], by_group.json()["data"]["id"]]
    for grantee in (world.other, world.viewer):
        reached = await grantee.client.get(f"/api/ontologies/{ontology_id}")
        assert reached.status_code == 200
        assert reached.json()["data"]["access"] == "shared"

    revoked = await owner.delete(f"{shares_path(ontology_id)}/{share['id']}")
    assert revoked.status_code == 204
    assert (await world.other.client.get(f"/api/ontologies/{ontology_id}")).status_code == 404
    assert (await world.viewer.client.get(f"/api/ontologies/{ontology_id}")).status_code == 200
    again = await owner.delete(f"{shares_path(ontology_id)}/{share['id']}")
    assert again.status_code == 404

    created = await _audit(world, "share.create")
    assert [e.details for e in created] == [
        {"ontologyId": str(ontology_id), "userId": str(world.other.id), "databaseRole": None},
        {"ontologyId": str(ontology_id), "groupId": group_id, "databaseRole": None},
    ]
    assert all(e.actor_id == world.contributor.id for e in created)
    assert all(e.object_type == "ontology_share" for e in created)
    revokes = await _audit(world, "share.revoke")
    assert [(e.object_id, e.actor_id) for e in revokes] == [(share["id"], world.contributor.id)]
    assert revokes[0].details == created[0].details


async def test_bad_shares_are_refused_with_a_sentence(world: World) -> None:
    owner = world.contributor.client
    ontology_id = await world.make_ontology(world.contributor)
    group_id = await _group(world, "Analysts")
    path = shares_path(ontology_id)

    def refused(response: Any, status: int, code: str) -> str:
        assert response.status_code == status, response.text
        error = response.json()["error"]
        assert error["code"] == code
        assert error["message"].endswith(".")
        message: str = error["message"]
        return message

    both = await owner.post(path, json={"userId": str(world.other.id), "groupId": group_id})
    assert "exactly one" in refused(both, 400, "VALIDATION_ERROR")
    assert "exactly one" in refused(await owner.post(path, json={}), 400, "VALIDATION_ERROR")
    nulls = await owner.post(path, json={"userId": None, "groupId": None})
    refused(nulls, 400, "VALIDATION_ERROR")
    self_share = await owner.post(path, json={"userId": str(world.contributor.id)})
    assert "owns the ontology" in refused(self_share, 400, "VALIDATION_ERROR")
    ghost_user = await owner.post(path, json={"userId": str(uuid.uuid4())})
    assert refused(ghost_user, 404, "NOT_FOUND") == "User not found."
    ghost_group = await owner.post(path, json={"groupId": str(uuid.uuid4())})
    assert refused(ghost_group, 404, "NOT_FOUND") == "Group not found."
    ghost_ontology = await owner.post(
        shares_path(uuid.uuid4()), json={"userId": str(world.other.id)}
    )
    assert refused(ghost_ontology, 404, "NOT_FOUND") == "Ontology not found."
    for role in ("", "1abc", "sales west", "x;DROP", "r" * 64, 'a"b'):
        bad_role = await owner.post(
            path, json={"userId": str(world.other.id), "databaseRole": role}
        )
        refused(bad_role, 400, "VALIDATION_ERROR")
    unknown_field = await owner.post(path, json={"userId": str(world.other.id), "role": "x"})
    refused(unknown_field, 400, "VALIDATION_ERROR")

    assert (await owner.post(path, json={"userId": str(world.other.id)})).status_code == 201
    assert (await owner.post(path, json={"groupId": group_id})).status_code == 201
    twice = await owner.post(path, json={"userId": str(world.other.id)})
    assert "already" in refused(twice, 409, "CONFLICT")
    twice_group = await owner.post(path, json={"groupId": group_id})
    assert "already" in refused(twice_group, 409, "CONFLICT")
    other_ontology = await world.make_ontology(world.contributor, name="Second")
    shares = (await owner.get(path)).json()["data"]
    moved = await owner.delete(f"{shares_path(other_ontology)}/{shares[0]['id']}")
    assert refused(moved, 404, "NOT_FOUND") == "Share not found."
    assert len((await owner.get(path)).json()["data"]) == 2


async def test_a_race_for_one_share_is_one_201_and_the_rest_409(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    body = {"userId": str(world.other.id)}
    answers = await asyncio.gather(
        *(world.contributor.client.post(shares_path(ontology_id), json=body) for _ in range(4))
    )
    assert sorted(a.status_code for a in answers) == [201, 409, 409, 409], [a.text for a in answers]
    async with world.database.session() as session:
        assert len(list(await session.scalars(select(OntologyShare)))) == 1


async def test_only_the_owner_or_an_admin_manages_shares(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    path = shares_path(ontology_id)
    made = await world.contributor.client.post(path, json={"userId": str(world.other.id)})
    share_id = made.json()["data"]["id"]

    # A grantee (who reaches the ontology) and a stranger alike: as for an ontology not theirs.
    for response in (
        await world.other.client.get(path),
        await world.other.client.post(path, json={"userId": str(world.viewer.id)}),
        await world.other.client.delete(f"{path}/{share_id}"),
        await world.viewer.client.get(path),
    ):
        assert response.status_code == 404, response.text
        assert response.json()["error"]["code"] == "NOT_FOUND"
    # A viewer lacks ontologies:write, which making and revoking need.
    assert (
        await world.viewer.client.post(path, json={"userId": str(world.admin.id)})
    ).status_code == 403
    assert (await world.viewer.client.delete(f"{path}/{share_id}")).status_code == 403
    assert (await world.anon.get(path)).status_code == 401

    # An admin manages any ontology's shares.
    admin = world.admin.client
    assert [s["id"] for s in (await admin.get(path)).json()["data"]] == [share_id]
    added = await admin.post(path, json={"userId": str(world.viewer.id)})
    assert added.status_code == 201, added.text
    assert added.json()["data"]["createdBy"] == str(world.admin.id)
    assert (await admin.delete(f"{path}/{share_id}")).status_code == 204
    assert (await world.other.client.get(f"/api/ontologies/{ontology_id}")).status_code == 404
    assert (await world.viewer.client.get(f"/api/ontologies/{ontology_id}")).status_code == 200
    assert [e.actor_id for e in await _audit(world, "share.revoke")] == [world.admin.id]
    # The owner cannot be made a grantee of their own ontology, by an admin either.
    owner_share = await admin.post(path, json={"userId": str(world.contributor.id)})
    assert owner_share.status_code == 400


async def test_shares_go_with_their_ontology_and_their_user(world: World) -> None:
    first = await world.make_ontology(world.contributor, name="First")
    second = await world.make_ontology(world.contributor, name="Second")
    for ontology_id in (first, second):
        for grantee in (world.other, world.viewer):
            made = await world.contributor.client.post(
                shares_path(ontology_id), json={"userId": str(grantee.id)}
            )
            assert made.status_code == 201

    assert (await world.contributor.client.delete(f"/api/ontologies/{first}")).status_code == 204
    assert (await world.admin.client.delete(f"/api/users/{world.viewer.id}")).status_code == 204

    async with world.database.session() as session:
        left = list(await session.scalars(select(OntologyShare)))
    assert [(s.ontology_id, s.user_id) for s in left] == [(second, world.other.id)]
    listing = (await world.contributor.client.get(shares_path(second))).json()["data"]
    assert [s["userEmail"] for s in listing] == ["other@example.com"]


async def test_a_database_role_needs_a_ready_postgresql_ontology(world: World) -> None:
    owner = world.contributor.client
    ready = await world.make_ontology(world.contributor)
    body = {"userId": str(world.other.id), "databaseRole": "sales_west"}
    sqlite = await owner.post(shares_path(ready), json=body)
    assert sqlite.status_code == 400
    assert sqlite.json()["error"] == {"code": "VALIDATION_ERROR", "message": DATABASE_ROLE_DIALECTS}

    building = await world.make_ontology(world.contributor, status="building", name="Later")
    early = await owner.post(shares_path(building), json=body)
    assert early.status_code == 400
    assert "build it first" in early.json()["error"]["message"]
    plain = await owner.post(shares_path(building), json={"userId": str(world.other.id)})
    assert plain.status_code == 201
    assert await _audit(world, "share.create") != []


async def test_share_routes_answer_405_with_allow(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    response = await world.contributor.client.put(shares_path(ontology_id), json={})
    assert response.status_code == 405
    assert set(response.headers["allow"].replace(" ", "").split(",")) == {"GET", "POST"}
    one = await world.contributor.client.get(f"{shares_path(ontology_id)}/{uuid.uuid4()}")
    assert one.status_code == 405
    assert one.headers["allow"] == "DELETE"


# --- a database role on a real PostgreSQL database --------------------------------------------


@dataclass
class Shop:
    """A PostgreSQL database with orders by region under row-level security, the read-only
    account a connection logs in as, and roles for shares to name."""

    url: str
    admin_url: str
    reader: str
    west: str
    east: str
    stranger: str
    mighty: str


@pytest.fixture
def shop(postgres_admin_url: str) -> Iterator[Shop]:
    """Orders by region, RLS by role; `west`/`east` granted to the reader, `stranger` not,
    `mighty` granted but BYPASSRLS. Every role is dropped afterwards."""
    suffix = uuid.uuid4().hex[:8]
    west, east = f"da_west_{suffix}", f"da_east_{suffix}"
    stranger, mighty = f"da_stranger_{suffix}", f"da_mighty_{suffix}"
    with fresh_postgres_database(postgres_admin_url) as admin_url:
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(
                "CREATE TABLE orders (id integer PRIMARY KEY, region text NOT NULL, "
                "amount numeric NOT NULL)"
            )
            conn.execute(
                "INSERT INTO orders VALUES (1, 'west', 10), (2, 'west', 20), (3, 'east', 5)"
            )
        with postgres_reader(admin_url) as reader_url:
            reader = urlsplit(reader_url).username or ""
            with psycopg.connect(admin_url, autocommit=True) as conn:
                conn.execute(f"CREATE ROLE {west} NOLOGIN")
                conn.execute(f"CREATE ROLE {east} NOLOGIN")
                conn.execute(f"CREATE ROLE {stranger} NOLOGIN")
                conn.execute(f"CREATE ROLE {mighty} NOLOGIN BYPASSRLS")
                conn.execute(
                    f"GRANT USAGE ON SCHEMA public TO {west}, {east}, {stranger}, {mighty}"
                )
                conn.execute(f"GRANT SELECT ON orders TO {west}, {east}, {stranger}, {mighty}")
                conn.execute(f"GRANT {west}, {east}, {mighty} TO {reader}")
                conn.execute("ALTER TABLE orders ENABLE ROW LEVEL SECURITY")
                conn.execute(
                    f"CREATE POLICY reader_all ON orders FOR SELECT TO {reader} USING (true)"
                )
                conn.execute(
                    f"CREATE POLICY west ON orders FOR SELECT TO {west} USING (region = 'west')"
                )
                conn.execute(
                    f"CREATE POLICY east ON orders FOR SELECT TO {east} USING (region = 'east')"
                )
            try:
                yield Shop(reader_url, admin_url, reader, west, east, stranger, mighty)
            finally:
                with psycopg.connect(admin_url, autocommit=True) as conn:
                    for role in (west, east, stranger, mighty):
                        conn.execute(f"DROP OWNED BY {role}")
                        conn.execute(f"DROP ROLE {role}")


async def _postgres_ontology(world: World, owner: Account, shop: Shop) -> uuid.UUID:
    """A ready ontology of the shop, through a connection as its read-only account."""
    values = {"dialect": "postgresql", "url": shop.url}
    return (await ontology_on(world, owner, values, "Shop"))[1]


def _no_connection_details(text: str, shop: Shop) -> None:
    parts = urlsplit(shop.url)
    for secret in (shop.reader, parts.hostname or "", str(parts.port), "postgresql://"):
        assert secret not in text, (secret, text)


async def test_a_good_database_role_is_accepted_and_limits_the_grantees_rows(
    world: World, shop: Shop
) -> None:
    ontology_id = await _postgres_ontology(world, world.contributor, shop)
    owner = world.contributor.client
    made = await owner.post(
        shares_path(ontology_id), json={"userId": str(world.other.id), "databaseRole": shop.west}
    )
    assert made.status_code == 201, made.text
    assert made.json()["data"]["databaseRole"] == shop.west
    [event] = await _audit(world, "share.create")
    assert event.details == {
        "ontologyId": str(ontology_id),
        "userId": str(world.other.id),
        "databaseRole": shop.west,
    }

    sql = "SELECT region, count(*) AS n FROM orders GROUP BY region ORDER BY region"
    body = {"ontologyId": str(ontology_id), "sql": sql}
    theirs = await world.other.client.post("/api/query", json=body)
    assert theirs.status_code == 200, theirs.text
    assert theirs.json()["data"]["rows"] == [["west", 2]]
    mine = await owner.post("/api/query", json=body)
    assert mine.json()["data"]["rows"] == [["east", 1], ["west", 2]]


async def test_a_refused_database_role_is_403_with_a_sentence_and_no_connection_details(
    world: World, shop: Shop
) -> None:
    ontology_id = await _postgres_ontology(world, world.contributor, shop)
    missing = f"da_missing_{uuid.uuid4().hex[:8]}"
    expected = {
        missing: "does not exist",
        shop.stranger: "not a member",
        shop.mighty: "privileged",
    }
    for role, reason in expected.items():
        # The owner and an admin (who does not own the connection) hear the same.
        for client in (world.contributor.client, world.admin.client):
            response = await client.post(
                shares_path(ontology_id), json={"userId": str(world.other.id), "databaseRole": role}
            )
            assert response.status_code == 403, response.text
            error = response.json()["error"]
            assert error["code"] == "FORBIDDEN"
            assert reason in error["message"] and role in error["message"]
            _no_connection_details(response.text, shop)
    async with world.database.session() as session:
        assert list(await session.scalars(select(OntologyShare))) == []
    assert await _audit(world, "share.create") == []


async def test_a_database_that_cannot_be_opened_is_said_without_its_details(
    world: World, shop: Shop
) -> None:
    ontology_id = await _postgres_ontology(world, world.contributor, shop)
    with psycopg.connect(shop.admin_url, autocommit=True) as conn:
        conn.execute(f"ALTER ROLE {shop.reader} NOLOGIN")
    response = await world.admin.client.post(
        shares_path(ontology_id),
        json={"groupId": await _group(world, "West"), "databaseRole": shop.west},
    )
    assert response.status_code == 502, response.text
    assert response.json()["error"]["code"] == "CONNECTION_FAILED"
    assert "could not be reached" in response.json()["error"]["message"]
    _no_connection_details(response.text, shop)
