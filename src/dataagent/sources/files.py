"""File datasets: CSV, Parquet and Excel files loaded into tables of a DuckDB database.

A file's type is read from its content (magic bytes, text decoding), and must agree
with its extension; a file over the size limit, of the wrong type or malformed is
refused with a sentence a person can act on.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import re
import unicodedata
import zipfile
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import duckdb
from pydantic import BaseModel, Field

from dataagent.errors import DataAgentError, ErrorCode

EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "csv",
    ".txt": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".xlsx": "excel",
    ".xlsm": "excel",
}
_DELIMITERS = (",", ";", "\t", "|")
_SNIFF_BYTES = 64 * 1024
_MAX_UNZIPPED_RATIO = 20  # an .xlsx inflating to more than this many times its size is a bomb


class FileFormat(StrEnum):
    """The file types a dataset can be made of."""

    CSV = "csv"
    PARQUET = "parquet"
    EXCEL = "excel"


class TableSummary(BaseModel):
    """One table made from a file (one per file, or one per Excel sheet)."""

    name: str
    rows: int
    columns: list[str]


class FileSummary(BaseModel):
    """What one uploaded file became."""

    filename: str
    format: FileFormat
    size_bytes: int
    sha256: str
    tables: list[TableSummary] = Field(default_factory=list)


@dataclass(frozen=True)
class Upload:
    """A file to ingest: its original name and its content (a path or the bytes)."""

    filename: str
    source: Path | bytes


def _invalid(message: str) -> DataAgentError:
    return DataAgentError(ErrorCode.VALIDATION_ERROR, message)


def _megabytes(n: int) -> str:
    return f"{n / 1_048_576:.1f} MB" if n >= 1_048_576 else f"{n:,} bytes"


def to_sql_name(text: str, fallback: str = "column") -> str:
    """A snake_case identifier: "Order Date" -> `order_date`, "unitPrice" -> `unit_price`."""
    ascii_text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", ascii_text)
    name = re.sub(r"[^0-9a-zA-Z]+", "_", snake).strip("_").lower() or fallback
    return f"_{name}" if name[0].isdigit() else name


def unique_name(base: str, taken: set[str]) -> str:
    """`base`, or `base_2`, `base_3`, ... whichever is not taken yet (then marked taken)."""
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def detect_format(path: Path, filename: str) -> tuple[FileFormat, str]:
    """The file's format, read from its content, and (for CSV) its text encoding."""
    claimed = EXTENSIONS.get(Path(filename).suffix.lower())
    if claimed is None:
        raise _invalid(
            f"{filename} has an unsupported type; upload CSV (.csv, .tsv), "
            "Parquet (.parquet) or Excel (.xlsx) files."
        )
    size = path.stat().st_size
    if size == 0:
        raise _invalid(f"{filename} is empty.")
    with path.open("rb") as fh:
        head = fh.read(_SNIFF_BYTES)
        fh.seek(max(0, size - 4))
        tail = fh.read(4)
    if head.startswith(b"PAR1") and tail == b"PAR1":
        found, encoding = FileFormat.PARQUET, ""
    elif head.startswith(b"PK\x03\x04") and claimed == "excel":
        if not _is_xlsx(path):
            raise _invalid(f"{filename} is a ZIP archive, not an Excel workbook.")
        found, encoding = FileFormat.EXCEL, ""
    elif head.startswith(b"\xd0\xcf\x11\xe0"):
        raise _invalid(f"{filename} is a legacy Excel (.xls) file; save it as .xlsx or CSV.")
    else:
        text_encoding = _text_encoding(head)
        if text_encoding is None:
            what = {"parquet": "a Parquet", "excel": "an Excel"}.get(claimed, "a CSV")
            raise _invalid(f"{filename} is not {what} file: its content is binary.")
        encoding = text_encoding
        found = FileFormat.CSV
    if found.value != claimed:
        raise _invalid(
            f"{filename} looks like a {found.value.upper()} file, not {claimed.upper()}; "
            "rename it or upload the right file."
        )
    return found, encoding


def _is_xlsx(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            return "xl/workbook.xml" in archive.namelist()
    except zipfile.BadZipFile:
        return False


def _text_encoding(head: bytes) -> str | None:
    # control bytes other than whitespace mean a binary file, whatever decodes
    if re.search(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f]", head):
        return None
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
        return "utf-8"
    except UnicodeDecodeError:
        return "latin-1"  # decodes any byte; the usual encoding of spreadsheet exports


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's content, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def check_size(filename: str, size: int, max_bytes: int) -> None:
    """Refuse a file larger than the limit (PAYLOAD_TOO_LARGE)."""
    if size > max_bytes:
        raise DataAgentError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            f"{filename} is {_megabytes(size)}; "
            f"the largest file accepted is {_megabytes(max_bytes)}.",
            details={"size_bytes": size, "max_bytes": max_bytes},
        )


def ingest_file(
    conn: duckdb.DuckDBPyConnection,
    path: Path,
    filename: str,
    *,
    max_bytes: int,
    taken: set[str],
) -> FileSummary:
    """Load one file into new table(s) of an open DuckDB database; `taken` holds used names."""
    size = path.stat().st_size
    check_size(filename, size, max_bytes)
    fmt, encoding = detect_format(path, filename)
    stem = to_sql_name(Path(filename).stem, fallback="data")
    if fmt is FileFormat.EXCEL:
        tables = _load_excel(conn, path, filename, stem, size, taken)
    else:
        table = unique_name(stem, taken)
        _load_flat(conn, path, filename, fmt, encoding, table)
        tables = [_summary(conn, table)]
    return FileSummary(
        filename=filename, format=fmt, size_bytes=size, sha256=file_sha256(path), tables=tables
    )


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _load_flat(
    conn: duckdb.DuckDBPyConnection,
    path: Path,
    filename: str,
    fmt: FileFormat,
    encoding: str,
    table: str,
) -> None:
    if fmt is FileFormat.PARQUET:
        reader, args = "read_parquet(?)", [str(path)]
    else:
        # every choice that DuckDB's sniffer could otherwise make silently is pinned: it may
        # not skip leading rows, drop quoting, or type a column from a sample that misses a
        # later value (which would turn that value into NULL)
        reader = (
            "read_csv(?, delim = ?, quote = '\"', escape = '\"', header = true, skip = 0, "
            "strict_mode = true, sample_size = -1, encoding = ?)"
        )
        args = [str(path), _delimiter(path, encoding), encoding]
    try:
        conn.execute(f"CREATE TABLE {_quote(table)} AS SELECT * FROM {reader}", args)  # noqa: S608
    except duckdb.Error as exc:
        message = str(exc)
        if fmt is FileFormat.CSV and "Expected Number of Columns" not in message:
            message = _ragged_line(path, encoding, args[1]) or message
        raise _invalid(_read_failure(filename, fmt, message, path)) from exc
    _normalise_columns(conn, table)


def _delimiter(path: Path, encoding: str) -> str:
    with path.open("r", encoding=encoding, errors="replace", newline="") as fh:
        header = fh.readline()
    counts = {d: header.count(d) for d in _DELIMITERS}
    best = max(_DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","


def _ragged_line(path: Path, encoding: str, delimiter: str) -> str | None:
    """DuckDB's words for the first row whose width differs from the header's, if any."""
    with path.open("r", encoding=encoding, errors="replace", newline="") as fh:
        reader = csv.reader(fh, delimiter=delimiter)
        header = next(reader, [])
        for row in reader:
            if row and len(row) != len(header):
                return (
                    f"CSV Error on Line: {reader.line_num}\n"
                    f"Expected Number of Columns: {len(header)} Found: {len(row)}"
                )
    return None


def _read_failure(filename: str, fmt: FileFormat, message: str, path: Path) -> str:
    line = re.search(r"CSV Error on Line: (\d+)", message)
    width = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", message)
    if line and width:
        return (
            f"{filename} is not a valid CSV file: line {line.group(1)} has {width.group(2)} "
            f"values but the header has {width.group(1)}."
        )
    if line:
        return f"{filename} is not a valid CSV file: line {line.group(1)} cannot be read."
    if "sniffing" in message:
        return (
            f"{filename} is not a valid CSV file: its rows do not have a consistent number "
            "of columns."
        )
    first = message.splitlines()[0].replace(str(path), filename) if message else ""
    first = re.sub(r"^[A-Za-z ]+Error: ", "", first)
    return f"{filename} could not be read as {fmt.value.upper()}: {first}"


def _normalise_columns(conn: duckdb.DuckDBPyConnection, table: str) -> None:
    """Rename columns to snake_case identifiers, so generated SQL needs no quoting."""
    columns = [row[0] for row in conn.execute(f"DESCRIBE {_quote(table)}").fetchall()]
    taken: set[str] = set()
    for column in columns:
        new = unique_name(to_sql_name(column), taken)
        if new != column:
            conn.execute(
                f"ALTER TABLE {_quote(table)} RENAME COLUMN {_quote(column)} TO {_quote(new)}"
            )


def _load_excel(
    conn: duckdb.DuckDBPyConnection,
    path: Path,
    filename: str,
    stem: str,
    size: int,
    taken: set[str],
) -> list[TableSummary]:
    import pandas as pd  # heavy; only Excel needs it

    with zipfile.ZipFile(path) as archive:
        inflated = sum(info.file_size for info in archive.infolist())
    if inflated > _MAX_UNZIPPED_RATIO * size + 10_000_000:
        raise _invalid(f"{filename} expands to {_megabytes(inflated)}, too large to read.")
    try:
        sheets = pd.read_excel(path, sheet_name=None, engine="openpyxl")
    except Exception as exc:  # openpyxl raises many types for broken workbooks
        raise _invalid(f"{filename} could not be read as an Excel workbook.") from exc
    non_empty = {name: df for name, df in sheets.items() if not df.dropna(how="all").empty}
    if not non_empty:
        raise _invalid(f"{filename} has no sheet with data.")
    tables = []
    for sheet, frame in non_empty.items():
        frame = frame.dropna(how="all").copy()
        for column in frame.columns:
            if frame[column].dtype == object:  # mixed cells: keep them as text
                frame[column] = frame[column].map(lambda v: None if pd.isna(v) else str(v))
        frame.columns = [str(c) for c in frame.columns]
        base = stem if len(non_empty) == 1 else f"{stem}_{to_sql_name(str(sheet), 'sheet')}"
        table = unique_name(base, taken)
        conn.register("_upload_frame", frame)
        try:
            conn.execute(f"CREATE TABLE {_quote(table)} AS SELECT * FROM _upload_frame")  # noqa: S608
        finally:
            conn.unregister("_upload_frame")
        _normalise_columns(conn, table)
        tables.append(_summary(conn, table))
    return tables


def _summary(conn: duckdb.DuckDBPyConnection, table: str) -> TableSummary:
    rows = conn.execute(f"SELECT COUNT(*) FROM {_quote(table)}").fetchone()  # noqa: S608
    columns = [row[0] for row in conn.execute(f"DESCRIBE {_quote(table)}").fetchall()]
    return TableSummary(name=table, rows=int(rows[0]) if rows else 0, columns=columns)
