"""`dataagent demo`: the demo database, the admin account and the demo ontology, idempotently."""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.config import Settings
from dataagent.demo.semantic_model import curated_model_yaml
from dataagent.runs.system import RunSystem
from dataagent.services import connections, ontologies, semantic_models, users
from dataagent.services.context import AppContext
from dataagent.sources.engines import ConnectionSpec
from dataagent.store.models import Connection, Ontology

log = logging.getLogger(__name__)

DEMO_ONTOLOGY_NAME = "Retail demo"
DEMO_DESCRIPTION = "Stores, customers, products and two years of orders."


@dataclass(frozen=True)
class SeedResult:
    """What seeding produced: where the data is, and whether the admin is new."""

    database_path: Path
    created_admin: bool


def demo_database_path(settings: Settings) -> Path:
    """Where the demo DuckDB file lives."""
    return (settings.data_dir / "demo" / "retail.duckdb").resolve()


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
    # The demo ontology is built as a durable run here, as a server builds one.
    async with RunSystem.in_process(settings) as system:
        context = system.app
        async with context.database.session() as session:
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
                await _build_demo_ontology(context, session, admin.id, path)
            else:
                await _mark_demo_connection(session, admin.id, path)
    return SeedResult(path, created)


async def _mark_demo_connection(session: AsyncSession, owner_id: uuid.UUID, path: Path) -> None:
    """Demo data seeded by an older version: its connection becomes the managed kind."""
    rows = await session.scalars(
        select(Connection).where(
            Connection.owner_id == owner_id,
            Connection.kind == "database",
            Connection.display == ConnectionSpec(dialect="duckdb", database=str(path)).display(),
        )
    )
    changed = False
    for connection in rows:
        connection.kind = "demo"
        changed = True
    if changed:
        await session.commit()


async def _build_demo_ontology(
    context: AppContext, session: AsyncSession, owner_id: uuid.UUID, path: Path
) -> None:
    """Connection -> semantic model (generated, then curated) -> ontology, as a user would.

    The demo file lies in the data directory: its connection is a managed one (`demo`),
    which opens exactly that file under the same access policy as everyone's.
    """
    spec = ConnectionSpec(dialect="duckdb", database=str(path))
    connection = await connections.add_managed_connection(
        context, session, owner_id, "Retail demo", spec, "demo"
    )
    await session.commit()
    model = await semantic_models.create_from_connection(
        context, session, owner_id, connection.id, "retail", DEMO_DESCRIPTION
    )
    # The generated model names every table and column; the curated one keeps those names
    # and adds what only a person knows (which orders count, the metrics), as an edit would.
    await semantic_models.update_semantic_model(
        session, owner_id, model.id, None, None, curated_model_yaml()
    )
    ontology = await ontologies.create_ontology(
        context, session, owner_id, model.id, DEMO_ONTOLOGY_NAME, DEMO_DESCRIPTION
    )
    await ontologies.wait_for_build(context, ontology.id)
