"""Migrations upgrade and downgrade cleanly on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

from dataagent.store.database import sync_url
from dataagent.store.migrations import current_revision, downgrade, head_revision, upgrade
from dataagent.store.models import Base

EXPECTED_INDEXES = {
    "data_chats": {("owner_id",), ("ontology_id",), ("updated_at",)},
    "data_chat_messages": {("chat_id",), ("created_at",)},
    "data_agent_preferences": {("user_id", "key"), ("ontology_id",)},
}


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'm.db'}"
    value: str = request.getfixturevalue("postgres_db")
    return value


def _tables(url: str) -> dict[str, set[tuple[str, ...]]]:
    engine = create_engine(sync_url(url))
    try:
        inspector = inspect(engine)
        return {
            name: {tuple(ix["column_names"]) for ix in inspector.get_indexes(name)}  # type: ignore[misc]
            for name in inspector.get_table_names()
            if name != "alembic_version"
        }
    finally:
        engine.dispose()


def test_upgrade_creates_every_model_table_with_indexes(url: str) -> None:
    upgrade(url)
    assert current_revision(url) == head_revision()
    tables = _tables(url)
    assert set(tables) == set(Base.metadata.tables)
    for table, indexes in EXPECTED_INDEXES.items():
        assert indexes <= tables[table], table


def test_downgrade_to_base_and_upgrade_again(url: str) -> None:
    upgrade(url)
    downgrade(url, "base")
    assert current_revision(url) is None
    assert _tables(url) == {}
    upgrade(url)
    assert current_revision(url) == head_revision()


def test_models_match_migrations(url: str) -> None:
    """Autogenerate finds nothing to do: the models and the migrations agree."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    upgrade(url)
    engine = create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            diff = compare_metadata(context, Base.metadata)
    finally:
        engine.dispose()
    assert diff == []


def test_existing_users_start_at_token_version_0(url: str) -> None:
    """0003 adds a NOT NULL column to a table that already has rows."""
    upgrade(url, "0002")
    engine = create_engine(sync_url(url))
    try:
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO users (id, email, password_hash, role, is_active,"
                    " created_at, updated_at)"
                    " VALUES (:id, 'old@example.com', 'x', 'admin', :active, :now, :now)"
                ),
                {"id": uuid.uuid4().hex, "active": True, "now": datetime.now(UTC)},
            )
        upgrade(url)
        with engine.connect() as conn:
            versions = conn.execute(text("SELECT token_version FROM users")).scalars().all()
        assert versions == [0]
        downgrade(url, "0002")
        with engine.connect() as conn:
            assert conn.execute(text("SELECT email FROM users")).scalars().all() == [
                "old@example.com"
            ]
    finally:
        engine.dispose()
