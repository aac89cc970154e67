"""File datasets: upload CSV, Parquet or Excel; list them; read their schema and samples."""

from __future__ import annotations

import shutil
import tempfile
import uuid
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Query, Response, UploadFile

from dataagent.api.deps import CipherDep, QueryPoolDep
from dataagent.api.schemas import ERROR_RESPONSES, NO_NUL, POOL_RESPONSES, ApiModel, Envelope
from dataagent.auth.dependencies import SessionDep, SettingsDep, require
from dataagent.auth.permissions import Permission
from dataagent.sources.datasets import MAX_SAMPLE_ROWS, DatasetRegistry
from dataagent.sources.files import Upload
from dataagent.store import file_datasets
from dataagent.store.models import FileDataset, User

router = APIRouter(prefix="/api/datasets", tags=["datasets"], responses=ERROR_RESPONSES)
Reader = Annotated[User, Depends(require(Permission.CONNECTIONS_READ))]
Writer = Annotated[User, Depends(require(Permission.CONNECTIONS_WRITE))]


class DatasetPublic(ApiModel):
    """A dataset as the registry lists it (seed 004), plus its connection."""

    id: uuid.UUID
    name: str
    description: str | None
    prompts: list[str] | None
    version_hash: str
    files: list[dict[str, Any]] | None
    connection_id: uuid.UUID
    created_at: datetime


def _registry(settings: SettingsDep) -> DatasetRegistry:
    return DatasetRegistry.from_settings(settings)


RegistryDep = Annotated[DatasetRegistry, Depends(_registry)]


def _public(dataset: FileDataset) -> DatasetPublic:
    return DatasetPublic.model_validate(dataset)


@router.post("", status_code=201, operation_id="uploadDataset", responses=POOL_RESPONSES)
async def upload_dataset(
    user: Writer,
    session: SessionDep,
    settings: SettingsDep,
    registry: RegistryDep,
    cipher: CipherDep,
    pool: QueryPoolDep,
    name: Annotated[str, Form(min_length=1, max_length=200, pattern=NO_NUL)],
    files: Annotated[list[UploadFile], File(min_length=1)],
    description: Annotated[str | None, Form(max_length=10_000, pattern=NO_NUL)] = None,
) -> Envelope[DatasetPublic]:
    """Load CSV, Parquet or Excel files into a new dataset (one table per file or sheet)."""
    spool = settings.data_dir / "tmp"
    spool.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=spool) as tmp:
        uploads = []
        for i, upload in enumerate(files):
            path = Path(tmp) / f"{i}.upload"
            with path.open("wb") as out:
                shutil.copyfileobj(upload.file, out)
            uploads.append(Upload(upload.filename or f"file{i}", path))
        dataset = await file_datasets.create_dataset(
            session, registry, cipher, pool, user.id, name, uploads, description
        )
    return Envelope(data=_public(dataset))


@router.get("", operation_id="listDatasets")
async def list_datasets(user: Reader, session: SessionDep) -> Envelope[list[DatasetPublic]]:
    """The caller's datasets."""
    return Envelope(data=[_public(d) for d in await file_datasets.list_datasets(session, user.id)])


@router.get("/{dataset_id}/schema", operation_id="getDatasetSchema", responses=POOL_RESPONSES)
async def dataset_schema(
    user: Reader,
    session: SessionDep,
    registry: RegistryDep,
    pool: QueryPoolDep,
    dataset_id: uuid.UUID,
    sample_rows: Annotated[int, Query(alias="sampleRows", ge=0, le=MAX_SAMPLE_ROWS)] = 0,
) -> Envelope[dict[str, Any]]:
    """Tables, columns and types, with up to `sampleRows` rows of each table."""
    dataset = await file_datasets.get_dataset(session, user.id, dataset_id)
    schema = await file_datasets.dataset_schema(registry, pool, dataset, sample_rows)
    return Envelope(data=schema.model_dump(mode="json", by_alias=True))


@router.delete("/{dataset_id}", status_code=204, operation_id="deleteDataset")
async def delete_dataset(
    user: Writer, session: SessionDep, registry: RegistryDep, dataset_id: uuid.UUID
) -> Response:
    """Delete a dataset, its connection and its files."""
    dataset = await file_datasets.get_dataset(session, user.id, dataset_id)
    await file_datasets.delete_dataset(session, registry, dataset)
    return Response(status_code=204)
