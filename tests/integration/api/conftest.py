"""An app per test, on a migrated SQLite file or a fresh PostgreSQL database, with users."""

from __future__ import annotations

import asyncio
import functools
import sqlite3
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from dataagent.api.app import create_app
from dataagent.auth.passwords import hash_password
from dataagent.auth.tokens import issue_token
from dataagent.config import Settings
from dataagent.services import connections, ontologies, semantic_models
from dataagent.services.context import AppContext
from dataagent.store.database import Database
from dataagent.store.migrations import upgrade
from dataagent.store.models import Ontology, User

PASSWORD = "correct-horse-battery"


@functools.cache
def _password_hash() -> str:
    return hash_password(PASSWORD)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The app database URL: a SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'app.db'}"
    url: str = request.getfixturevalue("postgres_db")
    return url


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    """Settings isolated to this test."""
    upgrade(database_url)
    return Settings(
        data_dir=tmp_path / "data",
        # Tests write their SQLite/DuckDB files under tmp_path; the data directory inside it
        # stays private all the same.
        file_roots=[tmp_path],
        database_url=database_url,
        secret_key="test-secret-key-that-is-long-enough-for-hs256",
        max_body_bytes=64 * 1024,
        # Not built: what `/` answers must not depend on a `make web` in this checkout.
        web_dir=tmp_path / "web-not-built",
        # A provider is named, so questions can be sent (no model is called unless a test
        # scripts one); tests of a server without one configure it away.
        openai_api_key="sk-test-not-used",
        _env_file=None,  # type: ignore[call-arg]
    )


@dataclass
class Account:
    """A user and a client signed in as that user."""

    id: uuid.UUID
    email: str
    role: str
    client: httpx.AsyncClient


@dataclass
class World:
    """The app under test, its database, and signed-in clients per role."""

    app: FastAPI
    context: AppContext
    database: Database
    anon: httpx.AsyncClient
    admin: Account
    contributor: Account
    other: Account
    viewer: Account
    make_ontology: Callable[..., Awaitable[uuid.UUID]]


def _client(app: FastAPI, token: str | None = None) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test", headers=headers
    )


@pytest.fixture
async def world(settings: Settings) -> AsyncIterator[World]:
    """Four users (admin, two contributors, a viewer), each with a signed-in client."""
    app = create_app(settings)
    context: AppContext = app.state.context
    database = context.database
    anon = _client(app)
    accounts: dict[str, Account] = {}
    # Users are inserted with one precomputed hash and given tokens directly: argon2 is
    # slow on purpose, and sign-in itself is tested in test_auth.py.
    async with database.session() as session:
        for key, role in (
            ("admin", "admin"),
            ("contributor", "contributor"),
            ("other", "contributor"),
            ("viewer", "viewer"),
        ):
            email = f"{key}@example.com"
            user = User(email=email, password_hash=_password_hash(), role=role)
            session.add(user)
            await session.flush()
            token, _ = issue_token(user.id, user.token_version, context.secret_key, 60)
            accounts[key] = Account(user.id, email, role, _client(app, token))
        await session.commit()

    async def make_ontology(
        owner: Account, status: str = "ready", name: str = "Retail"
    ) -> uuid.UUID:
        """A real ontology of a small SQLite database, built the production way; or, for
        `building` / `failed`, one caught in that state."""
        path = settings.data_dir.parent / f"shop-{uuid.uuid4().hex[:8]}.db"
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT)")
            db.execute("INSERT INTO customers VALUES (1, 'Ana', 'Oslo'), (2, 'Bo', 'Rome')")
        db.close()
        async with database.session() as session:
            connection = await connections.create_connection(
                context, session, owner.id, name, {"dialect": "sqlite", "database": str(path)}
            )
            model = await semantic_models.create_from_connection(
                context, session, owner.id, connection.id, name.lower(), None
            )
            if status == "ready":
                ontology = await ontologies.create_ontology(
                    context, session, owner.id, model.id, name, None
                )
                await context.builds.wait(ontology.id)
                await session.refresh(ontology)
                assert ontology.status == "ready", ontology.error
                return ontology.id
            stuck = Ontology(
                name=name, owner_id=owner.id, status=status, semantic_model_id=model.id
            )
            session.add(stuck)
            await session.commit()
            return stuck.id

    world = World(app, context, database, anon, make_ontology=make_ontology, **accounts)
    try:
        yield world
    finally:
        for account in accounts.values():
            await account.client.aclose()
        await anon.aclose()
        await context.aclose()


async def ontology_on(
    world: World, owner: Account, values: dict[str, str], name: str
) -> tuple[uuid.UUID, uuid.UUID]:
    """A connection with these values, a semantic model generated from it and a ready
    ontology of that model, built the production way: (connection id, ontology id)."""
    context = world.context
    async with world.database.session() as session:
        connection = await connections.create_connection(context, session, owner.id, name, values)
        model = await semantic_models.create_from_connection(
            context, session, owner.id, connection.id, name.lower(), None
        )
        ontology = await ontologies.create_ontology(
            context, session, owner.id, model.id, name, None
        )
        await context.builds.wait(ontology.id)
        await session.refresh(ontology)
        assert ontology.status == "ready", ontology.error
        return connection.id, ontology.id


async def built(client: httpx.AsyncClient, ontology_id: str) -> dict[str, object]:
    """The ontology once its build has ended (polled over HTTP, as a client would)."""
    for _ in range(3000):
        response = await client.get(f"/api/ontologies/{ontology_id}")
        ontology: dict[str, object] = response.json()["data"]
        if ontology["status"] != "building":
            return ontology
        await asyncio.sleep(0.01)
    raise AssertionError(f"ontology {ontology_id} still building")


async def refuse_inserts(database: Database, table: str, column: str, value: str) -> None:
    """Make the app database refuse to insert the rows of `table` whose `column` is `value`:
    a trigger, so the statement itself fails in the database, as a full disk would make it."""
    async with database.engine.begin() as conn:
        if conn.dialect.name == "sqlite":
            await conn.exec_driver_sql(
                f"CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table} "
                f"WHEN NEW.{column} = '{value}' BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
            return
        await conn.exec_driver_sql(
            "CREATE FUNCTION refuse_insert() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$"
        )
        await conn.exec_driver_sql(
            f"CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table} FOR EACH ROW "
            f"WHEN (NEW.{column} = '{value}') EXECUTE FUNCTION refuse_insert()"
        )
