"""The app database: engine, session factory and URL handling for SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

ASYNC_DRIVERS = {"sqlite": "sqlite+aiosqlite", "postgresql": "postgresql+asyncpg"}
SYNC_DRIVERS = {"sqlite": "sqlite", "postgresql": "postgresql+psycopg"}


def _with_driver(url: str, drivers: dict[str, str]) -> str:
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend not in drivers:
        raise ValueError(f"unsupported app database {backend!r}: use SQLite or PostgreSQL")
    return parsed.set(drivername=drivers[backend]).render_as_string(hide_password=False)


def async_url(url: str) -> str:
    """The URL with the async driver this app uses (aiosqlite or asyncpg)."""
    return _with_driver(url, ASYNC_DRIVERS)


def sync_url(url: str) -> str:
    """The URL with a sync driver (for Alembic): pysqlite or psycopg."""
    return _with_driver(url, SYNC_DRIVERS)


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    # Cascading deletes need foreign keys on; WAL lets readers and one writer overlap.
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def create_engine(url: str) -> AsyncEngine:
    """An async engine for the app database, with SQLite pragmas applied per connection."""
    engine = create_async_engine(async_url(url), pool_pre_ping=True)
    if engine.dialect.name == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


class Database:
    """The engine and session factory the app and CLI share."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = create_engine(url)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        """A session that rolls back when the block raises."""
        async with self.sessions() as session:
            yield session

    async def ping(self) -> bool:
        """True when the app database answers."""
        from sqlalchemy import text

        try:
            async with self.engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
            return True
        except Exception:
            return False

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()
