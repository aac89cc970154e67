"""File datasets: upload CSV, Parquet or Excel files and query them like a connection."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode, not_found
from dataagent.services.connections import add_managed_connection
from dataagent.services.context import AppContext
from dataagent.sources.datasets import DatasetFiles, DatasetSchema
from dataagent.sources.engines import ConnectionSpec
from dataagent.sources.files import Upload
from dataagent.store import file_datasets
from dataagent.store.models import FileDataset

MAX_NAME_CHARS = 200


async def upload_dataset(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    name: str,
    uploads: Sequence[Upload],
    description: str | None,
) -> FileDataset:
    """Load the files (on the query pool) into a new dataset with its own connection.

    All or nothing: when any file fails, or the record cannot be stored, no files are kept.
    """
    name = name.strip()
    if not name or len(name) > MAX_NAME_CHARS:
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR, f"A dataset needs a name (1-{MAX_NAME_CHARS} chars)."
        )
    files = DatasetFiles.from_settings(ctx.settings)
    ingested = await ctx.query_pool.run(owner_id, files.ingest, uploads)
    try:
        spec = ConnectionSpec(dialect="duckdb", database=str(ingested.database))
        connection = await add_managed_connection(
            ctx, session, owner_id, f"Files: {name}", spec, "files"
        )
        dataset = await file_datasets.add_dataset(
            session, owner_id, connection.id, name, description, ingested
        )
        await session.commit()
    except BaseException:
        files.delete(ingested.id)
        raise
    return dataset


async def list_datasets(session: AsyncSession, owner_id: uuid.UUID) -> list[FileDataset]:
    """The caller's datasets, newest first."""
    return await file_datasets.list_datasets(session, owner_id)


async def get_dataset(
    session: AsyncSession, owner_id: uuid.UUID, dataset_id: uuid.UUID
) -> FileDataset:
    """The caller's dataset, or NOT_FOUND."""
    return await file_datasets.get_dataset(session, owner_id, dataset_id)


async def dataset_schema(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    dataset_id: uuid.UUID,
    sample_rows: int = 0,
) -> DatasetSchema:
    """The tables and columns of one of the caller's datasets, with sample rows if asked."""
    dataset = await file_datasets.get_dataset(session, owner_id, dataset_id)
    files = DatasetFiles.from_settings(ctx.settings)
    try:
        tables = await ctx.query_pool.run(owner_id, files.schema, dataset.registry_id, sample_rows)
    except DataAgentError as exc:
        # Deleted meanwhile (its row, then its files): gone, not a failing database.
        gone = not files.database_path(dataset.registry_id).exists()
        if exc.code is ErrorCode.CONNECTION_FAILED and gone:
            raise not_found("Dataset") from exc
        raise
    return DatasetSchema(
        id=str(dataset.id), name=dataset.name, version_hash=dataset.version_hash, tables=tables
    )


async def delete_dataset(
    ctx: AppContext, session: AsyncSession, owner_id: uuid.UUID, dataset_id: uuid.UUID
) -> None:
    """Delete a dataset, its connection and its files."""
    dataset = await file_datasets.get_dataset(session, owner_id, dataset_id)
    await file_datasets.delete_dataset(session, dataset)
    await session.commit()
    DatasetFiles.from_settings(ctx.settings).delete(dataset.registry_id)
