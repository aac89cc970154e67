"""File datasets: upload CSV, Parquet or Excel; list them; read their schema and samples."""

from __future__ import annotations

import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Query, Response, UploadFile

from dataagent.api.deps import ConnectionReader, ConnectionWriter, ContextDep, SessionDep
from dataagent.api.schemas import ERROR_RESPONSES, NO_NUL, POOL_RESPONSES, Envelope
from dataagent.api.schemas.datasets import DatasetPublic
from dataagent.services import datasets
from dataagent.sources.datasets import MAX_SAMPLE_ROWS
from dataagent.sources.files import Upload

router = APIRouter(prefix="/api/datasets", tags=["datasets"], responses=ERROR_RESPONSES)


@router.post("", status_code=201, operation_id="uploadDataset", responses=POOL_RESPONSES)
async def upload_dataset(
    user: ConnectionWriter,
    context: ContextDep,
    session: SessionDep,
    name: Annotated[str, Form(min_length=1, max_length=200, pattern=NO_NUL)],
    files: Annotated[list[UploadFile], File(min_length=1)],
    description: Annotated[str | None, Form(max_length=10_000, pattern=NO_NUL)] = None,
) -> Envelope[DatasetPublic]:
    """Load CSV, Parquet or Excel files into a new dataset (one table per file or sheet)."""
    spool = context.settings.data_dir / "tmp"
    spool.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=spool) as tmp:
        uploads = []
        for i, upload in enumerate(files):
            path = Path(tmp) / f"{i}.upload"
            with path.open("wb") as out:
                shutil.copyfileobj(upload.file, out)
            uploads.append(Upload(upload.filename or f"file{i}", path))
        dataset = await datasets.upload_dataset(
            context, session, user.id, name, uploads, description
        )
    return Envelope(data=DatasetPublic.model_validate(dataset))


@router.get("", operation_id="listDatasets")
async def list_datasets(
    user: ConnectionReader, session: SessionDep
) -> Envelope[list[DatasetPublic]]:
    """The caller's datasets."""
    found = await datasets.list_datasets(session, user.id)
    return Envelope(data=[DatasetPublic.model_validate(d) for d in found])


@router.get("/{dataset_id}/schema", operation_id="getDatasetSchema", responses=POOL_RESPONSES)
async def dataset_schema(
    user: ConnectionReader,
    context: ContextDep,
    session: SessionDep,
    dataset_id: uuid.UUID,
    sample_rows: Annotated[int, Query(alias="sampleRows", ge=0, le=MAX_SAMPLE_ROWS)] = 0,
) -> Envelope[dict[str, Any]]:
    """Tables, columns and types, with up to `sampleRows` rows of each table."""
    schema = await datasets.dataset_schema(context, session, user.id, dataset_id, sample_rows)
    return Envelope(data=schema.model_dump(mode="json", by_alias=True))


@router.delete("/{dataset_id}", status_code=204, operation_id="deleteDataset")
async def delete_dataset(
    user: ConnectionWriter, context: ContextDep, session: SessionDep, dataset_id: uuid.UUID
) -> Response:
    """Delete a dataset, its connection and its files."""
    await datasets.delete_dataset(context, session, user.id, dataset_id)
    return Response(status_code=204)
