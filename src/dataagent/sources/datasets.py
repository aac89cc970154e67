"""The registry of file datasets: a `registry.json` listing beside one DuckDB file per dataset.

Layout under the datasets directory (`<data_dir>/datasets` by default):

    registry.json             every dataset: id, name, description, prompts, version hash, files
    <id>/data.duckdb          the dataset's tables, one per file (one per Excel sheet)

Writes hold a file lock and replace `registry.json` atomically, so readers never see
a half-written listing and two processes cannot lose each other's datasets.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import decimal
import fcntl
import hashlib
import json
import math
import os
import re
import shutil
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb
from pydantic import BaseModel, Field

from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode, not_found
from dataagent.semantic.model import DataType
from dataagent.sources.access import OPEN_FAILED_MESSAGE, real_path
from dataagent.sources.files import FileSummary, Upload, check_size, ingest_file
from dataagent.sources.introspection import (
    IntrospectionOptions,
    SchemaSnapshot,
    TableInfo,
    introspect_duckdb,
    map_data_type,
)

REGISTRY_FILE = "registry.json"
DATABASE_FILE = "data.duckdb"
MAX_SAMPLE_ROWS = 100
MAX_FILES = 20
_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


class DatasetEntry(BaseModel):
    """One dataset as listed in the registry."""

    id: str
    name: str
    description: str | None = None
    prompts: list[str] = Field(default_factory=list)
    version_hash: str
    created_at: str
    database: str = Field(description="The DuckDB file, relative to the datasets directory.")
    files: list[FileSummary]


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


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


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


def _json_value(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, decimal.Decimal):
        return float(value) if value.is_finite() else None
    if isinstance(value, dt.date | dt.time | dt.datetime):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return f"<{len(bytes(value))} bytes>"
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if value is None or isinstance(value, bool | int | str):
        return value
    return str(value)


class DatasetRegistry:
    """File datasets under one directory: create, list, read schemas, delete."""

    def __init__(self, root: Path, max_upload_bytes: int = 100 * 1024 * 1024) -> None:
        self.root = real_path(root)  # stored paths stay valid whatever the working directory
        self.max_upload_bytes = max_upload_bytes

    @classmethod
    def from_settings(cls, settings: Settings) -> DatasetRegistry:
        """The registry in `<data_dir>/datasets`, with the configured upload limit."""
        return cls(settings.data_dir / "datasets", settings.upload_max_bytes)

    # --- reading -----------------------------------------------------------------------------

    def datasets(self) -> list[DatasetEntry]:
        """Every dataset, oldest first."""
        path = self.root / REGISTRY_FILE
        if not path.exists():
            return []
        data = json.loads(path.read_text(encoding="utf-8"))
        return [DatasetEntry.model_validate(d) for d in data.get("datasets", [])]

    def get(self, dataset_id: str) -> DatasetEntry:
        """One dataset, or NOT_FOUND."""
        if _ID.match(dataset_id):
            for entry in self.datasets():
                if entry.id == dataset_id:
                    return entry
        raise not_found("Dataset")

    def database_path(self, dataset_id: str) -> Path:
        """The DuckDB file holding the dataset's tables."""
        return self.root / self.get(dataset_id).database

    def _checked_database(self, entry: DatasetEntry) -> Path:
        """The dataset's file, refused when anything on its path was swapped for a link."""
        path = self.root / entry.database
        if real_path(path) != path:
            raise DataAgentError(ErrorCode.CONNECTION_FAILED, OPEN_FAILED_MESSAGE)
        return path

    def schema(self, dataset_id: str, sample_rows: int = 0) -> DatasetSchema:
        """The dataset's tables and columns, with up to `sample_rows` rows of each table."""
        if not 0 <= sample_rows <= MAX_SAMPLE_ROWS:
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR,
                f"sample_rows must be between 0 and {MAX_SAMPLE_ROWS}.",
            )
        entry = self.get(dataset_id)
        path = self._checked_database(entry)
        try:
            conn = duckdb.connect(str(path), read_only=True)
        except duckdb.Error:
            raise DataAgentError(ErrorCode.CONNECTION_FAILED, OPEN_FAILED_MESSAGE) from None
        try:
            snapshot = introspect_duckdb(conn, IntrospectionOptions(sample_values=False))
            tables = []
            for t in snapshot.tables:
                rows = None
                if sample_rows:
                    cursor = conn.execute(
                        f"SELECT * FROM {_quote(t.schema_name)}.{_quote(t.name)} "  # noqa: S608
                        f"LIMIT {sample_rows}"
                    )
                    names = [d[0] for d in cursor.description or []]
                    rows = [
                        {n: _json_value(v) for n, v in zip(names, row, strict=True)}
                        for row in cursor.fetchall()
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
        finally:
            conn.close()
        return DatasetSchema(
            id=entry.id, name=entry.name, version_hash=entry.version_hash, tables=tables
        )

    # --- writing -----------------------------------------------------------------------------

    def create(
        self, name: str, uploads: Sequence[Upload], description: str | None = None
    ) -> DatasetEntry:
        """Ingest the files into a new dataset and list it; nothing is kept if any file fails."""
        name = name.strip()
        if not name or len(name) > 200:
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR, "A dataset needs a name (1-200 chars)."
            )
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
            with self._locked():
                entries = self.datasets()
                # Random, so one user cannot guess where another user's files are.
                dataset_id = uuid.uuid4().hex
                staging.rename(self.root / dataset_id)
                entry = DatasetEntry(
                    id=dataset_id,
                    name=name,
                    description=description,
                    prompts=prompts,
                    version_hash=version_hash(files),
                    created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                    database=f"{dataset_id}/{DATABASE_FILE}",
                    files=files,
                )
                self._write([*entries, entry])
            return entry
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)

    def delete(self, dataset_id: str) -> None:
        """Remove a dataset and its files (NOT_FOUND when it is not listed)."""
        with self._locked():
            entries = self.datasets()
            if not _ID.match(dataset_id) or not any(e.id == dataset_id for e in entries):
                raise not_found("Dataset")
            self._write([e for e in entries if e.id != dataset_id])
            trash = self.root / f".trash-{uuid.uuid4().hex}"
            with contextlib.suppress(FileNotFoundError):
                (self.root / dataset_id).rename(trash)
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

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / ".registry.lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _write(self, entries: list[DatasetEntry]) -> None:
        body = {"datasets": [e.model_dump(mode="json") for e in entries]}
        tmp = self.root / f".{REGISTRY_FILE}.{uuid.uuid4().hex}.tmp"
        tmp.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, self.root / REGISTRY_FILE)
