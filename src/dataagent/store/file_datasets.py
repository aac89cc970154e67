"""File datasets: uploads loaded into DuckDB (the registry), owned and queried like connections."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.sources.credentials import CredentialCipher
from dataagent.sources.datasets import DatasetRegistry, DatasetSchema
from dataagent.sources.engines import ConnectionSpec
from dataagent.sources.files import Upload
from dataagent.sources.pool import QueryPool
from dataagent.store import audit
from dataagent.store.models import Connection, FileDataset
from dataagent.store.ownership import get_owned


async def create_dataset(
    session: AsyncSession,
    registry: DatasetRegistry,
    cipher: CredentialCipher,
    pool: QueryPool,
    owner_id: uuid.UUID,
    name: str,
    uploads: Sequence[Upload],
    description: str | None,
) -> FileDataset:
    """Ingest the files (on the query pool) and register a dataset with its own connection."""
    entry = await pool.run(owner_id, registry.create, name, uploads, description)
    try:
        spec = ConnectionSpec(dialect="duckdb", database=str(registry.database_path(entry.id)))
        connection = Connection(
            owner_id=owner_id,
            name=f"Files: {entry.name}",
            dialect="duckdb",
            kind="files",
            display=spec.display(),
            secret=cipher.encrypt(spec),
        )
        session.add(connection)
        await session.flush()
        dataset = FileDataset(
            owner_id=owner_id,
            connection_id=connection.id,
            registry_id=entry.id,
            name=entry.name,
            description=entry.description,
            version_hash=entry.version_hash,
            prompts=entry.prompts,
            files=[f.model_dump(mode="json") for f in entry.files],
        )
        session.add(dataset)
        await session.flush()
        audit.record(session, owner_id, "dataset.create", "dataset", dataset.id)
        await session.commit()
    except BaseException:
        # Keep the registry and the app database in step: no files without a record.
        await asyncio.to_thread(registry.delete, entry.id)
        raise
    return dataset


async def list_datasets(session: AsyncSession, owner_id: uuid.UUID) -> list[FileDataset]:
    """The caller's datasets, newest first."""
    rows = await session.scalars(
        select(FileDataset)
        .where(FileDataset.owner_id == owner_id)
        .order_by(FileDataset.created_at.desc(), FileDataset.id)
    )
    return list(rows)


async def get_dataset(
    session: AsyncSession, owner_id: uuid.UUID, dataset_id: uuid.UUID
) -> FileDataset:
    """The caller's dataset, or NOT_FOUND."""
    return await get_owned(session, FileDataset, owner_id, dataset_id, "Dataset")


async def dataset_schema(
    registry: DatasetRegistry, pool: QueryPool, dataset: FileDataset, sample_rows: int
) -> DatasetSchema:
    """The dataset's tables and columns, with sample rows when asked for."""
    return await pool.run(dataset.owner_id, registry.schema, dataset.registry_id, sample_rows)


async def delete_dataset(
    session: AsyncSession, registry: DatasetRegistry, dataset: FileDataset
) -> None:
    """Delete the dataset, its connection and its files."""
    connection = await session.get(Connection, dataset.connection_id)
    audit.record(session, dataset.owner_id, "dataset.delete", "dataset", dataset.id)
    if connection is not None:
        await session.delete(connection)  # cascades to the dataset record
    else:
        await session.delete(dataset)
    await session.commit()
    await asyncio.to_thread(registry.delete, dataset.registry_id)
