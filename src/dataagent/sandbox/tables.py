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


def encode_frame(frame: pd.DataFrame) -> bytes:
    """One DataFrame as an Arrow IPC stream (mixed-type object columns become strings)."""
    try:
        table = pa.Table.from_pandas(frame)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        loose = frame.copy()
        for column in loose.select_dtypes(include="object").columns:
            loose[column] = loose[column].map(lambda item: None if item is None else str(item))
        table = pa.Table.from_pandas(loose)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


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
