"""Tables going into the sandbox: DataFrames as Arrow IPC streams, never Python literals."""

from __future__ import annotations

import keyword
from collections.abc import Mapping

import pandas as pd
import pyarrow as pa

from dataagent.errors import DataAgentError, ErrorCode

RESERVED_NAMES = frozenset({"pd", "np", "plt", "set_result"})


def check_table_name(name: str) -> str:
    """A table name usable as a Python variable (`df`, `current_data`, `step_1_data`, ...)."""
    if (
        not name.isidentifier()
        or keyword.iskeyword(name)
        or name.startswith("__")
        or name in RESERVED_NAMES
        or len(name) > 64
    ):
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR, f"Invalid table name for the sandbox: {name[:64]!r}."
        )
    return name


# What pyarrow raises for a frame it cannot convert: mixed types, integers past 64 bits, ...
_UNCONVERTIBLE = (pa.ArrowException, ValueError, TypeError, OverflowError)


def encode_frame(frame: pd.DataFrame) -> bytes:
    """One DataFrame as an Arrow IPC stream (mixed-type object columns become strings)."""
    if frame.columns.has_duplicates:
        duplicated = sorted({str(name) for name in frame.columns[frame.columns.duplicated()]})
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR,
            f"A table for the sandbox has duplicate column names: {', '.join(duplicated)}.",
        )
    try:
        table = pa.Table.from_pandas(frame)
    except _UNCONVERTIBLE:
        table = _loose_table(frame)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _loose_table(frame: pd.DataFrame) -> pa.Table:
    """The frame with its object columns as strings; refused when even that fails."""
    loose = frame.copy()
    for column in loose.select_dtypes(include="object").columns:
        loose[column] = loose[column].map(lambda item: None if item is None else str(item))
    try:
        return pa.Table.from_pandas(loose)
    except _UNCONVERTIBLE as exc:
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR, f"A table cannot be passed to the sandbox: {exc}"
        ) from exc


def decode_frame(data: bytes) -> pd.DataFrame:
    """The DataFrame back from an Arrow IPC stream."""
    with pa.ipc.open_stream(pa.py_buffer(data)) as reader:
        return reader.read_all().to_pandas()


def encode_tables(data: Mapping[str, pd.DataFrame] | None) -> list[tuple[str, bytes]]:
    """Named DataFrames as (name, Arrow bytes) pairs, names checked."""
    if not data:
        return []
    encoded: list[tuple[str, bytes]] = []
    for name, frame in data.items():
        if not isinstance(frame, pd.DataFrame):
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR, f"Sandbox table {name!r} is not a DataFrame."
            )
        encoded.append((check_table_name(name), encode_frame(frame)))
    return encoded
