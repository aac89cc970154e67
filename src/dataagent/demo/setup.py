"""`dataagent demo`: the demo database, the admin account and the demo ontology, idempotently."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select

from dataagent.config import Settings
from dataagent.store import users
from dataagent.store.database import Database
from dataagent.store.models import Ontology
from dataagent.store.ontologies import create_ontology

log = logging.getLogger(__name__)

DEMO_ONTOLOGY_NAME = "Retail demo"


@dataclass(frozen=True)
class SeedResult:
    """What seeding produced: where the data is, and whether the admin is new."""

    database_path: Path
    created_admin: bool


def demo_database_path(settings: Settings) -> Path:
    """Where the demo DuckDB file lives."""
    return settings.data_dir / "demo" / "retail.duckdb"


def write_demo_database(path: Path) -> None:
    """Generate the demo retailer and write it as a DuckDB file."""
    from dataagent.demo.generator import generate
    from dataagent.demo.loaders import write_duckdb

    path.parent.mkdir(parents=True, exist_ok=True)
    write_duckdb(generate(), path)


async def seed_demo(settings: Settings, admin_password: str) -> SeedResult:
    """Create what the demo needs that does not exist yet; keep what does."""
    path = demo_database_path(settings)
    if not path.exists():
        log.info("generating the demo database at %s", path)
        await asyncio.to_thread(write_demo_database, path)
    database = Database(settings.resolved_database_url)
    try:
        async with database.session() as session:
            admin = await users.get_by_email(session, settings.admin_email)
            created = admin is None
            if admin is None:
                admin = await users.create_user(
                    session, settings.admin_email, admin_password, "admin"
                )
            existing = await session.scalar(
                select(Ontology).where(
                    Ontology.owner_id == admin.id, Ontology.name == DEMO_ONTOLOGY_NAME
                )
            )
            if existing is None:
                await create_ontology(
                    session,
                    admin.id,
                    DEMO_ONTOLOGY_NAME,
                    status="ready",
                    description="Stores, customers, products and two years of orders.",
                )
    finally:
        await database.dispose()
    return SeedResult(path, created)
