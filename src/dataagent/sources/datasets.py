"""File datasets on disk: uploaded files loaded into one DuckDB file per dataset.

Layout under the datasets directory (`<data_dir>/datasets` by default):

    <id>/data.duckdb          the dataset's tables, one per file (one per Excel sheet)

The id is random. What a dataset is called, its description, prompts, version hash and
files are its row in the app database (`file_datasets`, written by `services/datasets.py`):
that row is the one record. This module makes, reads and removes the files.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
from pydantic import BaseModel

from dataagent.config import Settings
from dataagent.dialects import qualified_name
from dataagent.errors import DataAgentError, ErrorCode, not_found
from dataagent.semantic.catalog import SchemaSnapshot, TableInfo, map_data_type
from dataagent.semantic.model import DataType
from dataagent.sources.access import AccessPolicy, real_path
from dataagent.sources.engines import ConnectionSpec, open_readonly
from dataagent.sources.files import FileSummary, Upload, check_size, ingest_file
from dataagent.sources.introspection import IntrospectionOptions, introspect_duckdb
from dataagent.sources.results import json_safe

DATABASE_FILE = "data.duckdb"
MAX_SAMPLE_ROWS = 100
MAX_FILES = 20
_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


class IngestedFiles(BaseModel):
    """What an upload became on disk: the dataset's id, its file and what is in it."""

    id: str
    database: Path
    files: list[FileSummary]
    prompts: list[str]
    version_hash: str


class ColumnSchema(BaseModel):
    """One column of a dataset table."""

    name: str
    type: str
    data_type: DataType
    nullable: bool


class TableSchema(BaseModel):
    """One table of a dataset, with sample rows when asked for."""

    name: str
    row_count: int | None
    columns: list[ColumnSchema]
    sample_rows: list[dict[str, Any]] | None = None


class DatasetSchema(BaseModel):
    """The schema of a dataset (`GET /api/datasets/{id}/schema`)."""

    id: str
    name: str
    version_hash: str
    tables: list[TableSchema]


def version_hash(files: Sequence[FileSummary]) -> str:
    """A short content hash of the dataset's files (changes when any file's content does)."""
    digest = hashlib.sha256()
    for f in files:
        digest.update(f"{f.filename}\0{f.sha256}\n".encode())
    return digest.hexdigest()[:16]


def _humanise(name: str) -> str:
    return name.replace("_", " ").strip()


def _is_key(table: TableInfo, column: str) -> bool:
    lowered = column.lower()
    return lowered == "id" or lowered.endswith("_id") or column in table.primary_key


def suggest_prompts(snapshot: SchemaSnapshot, limit: int = 4) -> list[str]:
    """Questions to start from, derived from columns alone ("Total <measure> by <category>")."""
    prompts: list[str] = []
    for table in snapshot.tables:
        types = {c.name: map_data_type(c.native_type) for c in table.columns}
        measures = [
            c.name
            for c in table.columns
            if types[c.name] in (DataType.DECIMAL, DataType.FLOAT, DataType.INTEGER)
            and not _is_key(table, c.name)
        ]
        measures.sort(key=lambda n: types[n] is DataType.INTEGER)  # money-like columns first
        categories = [
            c.name
            for c in table.columns
            if len(c.sample_values) >= 2 and not _is_key(table, c.name)
        ]
        times = [
            c.name for c in table.columns if types[c.name] in (DataType.DATE, DataType.TIMESTAMP)
        ]
        noun = _humanise(table.name)
        if measures and categories:
            prompts.append(f"Total {_humanise(measures[0])} by {_humanise(categories[0])}")
        if measures and times:
            prompts.append(f"Total {_humanise(measures[0])} per month")
        if measures and categories:
            prompts.append(f"Average {_humanise(measures[-1])} by {_humanise(categories[-1])}")
        if categories:
            prompts.append(f"How many {noun} rows are there per {_humanise(categories[-1])}?")
        prompts.append(f"How many rows does {noun} have?")
    unique = list(dict.fromkeys(prompts))
    return unique[:limit]


class DatasetFiles:
    """The files of every file dataset under one directory: ingest, read, delete."""

    def __init__(self, root: Path, max_upload_bytes: int = 100 * 1024 * 1024) -> None:
        self.root = real_path(root)  # stored paths stay valid whatever the working directory
        self.max_upload_bytes = max_upload_bytes

    @classmethod
    def from_settings(cls, settings: Settings) -> DatasetFiles:
        """The files in `<data_dir>/datasets`, with the configured upload limit."""
        return cls(settings.data_dir / "datasets", settings.upload_max_bytes)

    def database_path(self, dataset_id: str) -> Path:
        """The DuckDB file holding a dataset's tables (NOT_FOUND for an id that is no id)."""
        if not _ID.match(dataset_id):
            raise not_found("Dataset")
        return self.root / dataset_id / DATABASE_FILE

    def schema(self, dataset_id: str, sample_rows: int = 0) -> list[TableSchema]:
        """The dataset's tables and columns, with up to `sample_rows` rows of each table.

        Read through the one read-only opener, under a policy that allows this directory
        only: a file swapped for a link to anything else is refused.
        """
        if not 0 <= sample_rows <= MAX_SAMPLE_ROWS:
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR,
                f"sample_rows must be between 0 and {MAX_SAMPLE_ROWS}.",
            )
        spec = ConnectionSpec(dialect="duckdb", database=str(self.database_path(dataset_id)))
        policy = AccessPolicy(file_roots=(self.root,))
        with open_readonly(spec, policy, catalog_access=True) as session:
            snapshot = introspect_duckdb(
                session.raw_connection, IntrospectionOptions(sample_values=False)
            )
            tables = []
            for t in snapshot.tables:
                rows = None
                if sample_rows:
                    columns, raw = session.fetch(
                        f"SELECT * FROM {qualified_name((t.schema_name, t.name), 'duckdb')}",  # noqa: S608
                        max_rows=sample_rows,
                    )
                    rows = [
                        {n: json_safe(v) for n, v in zip(columns, row, strict=True)} for row in raw
                    ]
                tables.append(
                    TableSchema(
                        name=t.name,
                        row_count=t.row_estimate,
                        columns=[
                            ColumnSchema(
                                name=c.name,
                                type=c.native_type,
                                data_type=map_data_type(c.native_type),
                                nullable=c.nullable,
                            )
                            for c in t.columns
                        ],
                        sample_rows=rows,
                    )
                )
        return tables

    def ingest(self, uploads: Sequence[Upload]) -> IngestedFiles:
        """Load the files into a new dataset directory; nothing is kept if any file fails."""
        if not uploads or len(uploads) > MAX_FILES:
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR, f"Upload between 1 and {MAX_FILES} files."
            )
        for upload in uploads:  # refuse oversized files before writing anything
            if isinstance(upload.source, bytes):
                check_size(upload.filename, len(upload.source), self.max_upload_bytes)
        self.root.mkdir(parents=True, exist_ok=True)
        staging = self.root / f".staging-{uuid.uuid4().hex}"
        staging.mkdir()
        try:
            files, prompts = self._ingest(staging, uploads)
            # Random, so one user cannot guess where another user's files are.
            dataset_id = uuid.uuid4().hex
            staging.rename(self.root / dataset_id)
            return IngestedFiles(
                id=dataset_id,
                database=self.root / dataset_id / DATABASE_FILE,
                files=files,
                prompts=prompts,
                version_hash=version_hash(files),
            )
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)

    def delete(self, dataset_id: str) -> None:
        """Remove a dataset's files (nothing to do when they are already gone)."""
        directory = self.database_path(dataset_id).parent
        trash = self.root / f".trash-{uuid.uuid4().hex}"
        with contextlib.suppress(FileNotFoundError):
            directory.rename(trash)
            shutil.rmtree(trash, ignore_errors=True)

    def _ingest(
        self, staging: Path, uploads: Sequence[Upload]
    ) -> tuple[list[FileSummary], list[str]]:
        conn = duckdb.connect(str(staging / DATABASE_FILE))
        try:
            files: list[FileSummary] = []
            taken: set[str] = set()
            for i, upload in enumerate(uploads):
                filename = Path(upload.filename).name or f"file{i + 1}"
                if isinstance(upload.source, bytes):
                    path = staging / f"upload-{i}{Path(filename).suffix.lower()}"
                    path.write_bytes(upload.source)
                else:
                    path = upload.source
                try:
                    files.append(
                        ingest_file(
                            conn, path, filename, max_bytes=self.max_upload_bytes, taken=taken
                        )
                    )
                finally:
                    if isinstance(upload.source, bytes):
                        path.unlink(missing_ok=True)
            prompts = suggest_prompts(introspect_duckdb(conn))
            conn.execute("CHECKPOINT")
        finally:
            conn.close()
        return files, prompts
