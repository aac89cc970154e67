"""File datasets: the one record of each upload (its files live under the data directory)."""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.sources.datasets import IngestedFiles
from dataagent.store import audit
from dataagent.store.models import Connection, FileDataset
from dataagent.store.ownership import get_owned


async def add_dataset(
    session: AsyncSession,
    owner_id: uuid.UUID,
    connection_id: uuid.UUID,
    name: str,
    description: str | None,
    files: IngestedFiles,
) -> FileDataset:
    """Add the record of an ingested upload (flushed, with its audit event)."""
    dataset = FileDataset(
        owner_id=owner_id,
        connection_id=connection_id,
        registry_id=files.id,
        name=name,
        description=description,
        version_hash=files.version_hash,
        prompts=files.prompts,
        files=[f.model_dump(mode="json") for f in files.files],
    )
    session.add(dataset)
    await session.flush()
    audit.record(session, owner_id, "dataset.create", "dataset", dataset.id)
    return dataset


async def list_datasets(session: AsyncSession, owner_id: uuid.UUID) -> list[FileDataset]:
    """The owner's datasets, newest first."""
    rows = await session.scalars(
        select(FileDataset)
        .where(FileDataset.owner_id == owner_id)
        .order_by(FileDataset.created_at.desc(), FileDataset.id)
    )
    return list(rows)


async def get_dataset(
    session: AsyncSession, owner_id: uuid.UUID, dataset_id: uuid.UUID
) -> FileDataset:
    """The owner's dataset, or NOT_FOUND."""
    return await get_owned(session, FileDataset, owner_id, dataset_id, "Dataset")


async def delete_dataset(session: AsyncSession, dataset: FileDataset) -> None:
    """Delete a dataset's record and its connection (with its audit event)."""
    connection = await session.get(Connection, dataset.connection_id)
    audit.record(session, dataset.owner_id, "dataset.delete", "dataset", dataset.id)
    if connection is not None:
        await session.delete(connection)  # cascades to the dataset record
    else:
        await session.delete(dataset)
