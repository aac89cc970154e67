"""File datasets: real CSV, Parquet and Excel files ingested into real DuckDB databases."""

from __future__ import annotations

import io
import json
import re
import threading
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.conftest import LOCAL

from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.generation import generate_semantic_model
from dataagent.sources.datasets import DatasetFiles, version_hash
from dataagent.sources.engines import ConnectionSpec
from dataagent.sources.files import Upload
from dataagent.sources.introspection import introspect

SALES_CSV = (
    "Order ID,Region,Product Name,Amount,Order Date\n"
    + "".join(
        f"{i},{['North', 'South', 'East'][i % 3]},Item {i},{i * 1.5:.2f},2024-01-{1 + i % 28:02d}\n"
        for i in range(1, 41)
    )
).encode()


def parquet_bytes() -> bytes:
    table = pa.table({"id": [1, 2, 3], "city": ["Oslo", "Rome", "Oslo"], "temp": [1.5, 20.0, 3.25]})
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def excel_bytes() -> bytes:
    sink = io.BytesIO()
    with pd.ExcelWriter(sink, engine="openpyxl") as writer:
        pd.DataFrame({"Name": ["a", "b"], "Score": [1, 2]}).to_excel(
            writer, sheet_name="Scores", index=False
        )
        pd.DataFrame({"Team": ["x"], "Mixed": ["1"]}).to_excel(
            writer, sheet_name="Team List", index=False
        )
        pd.DataFrame().to_excel(writer, sheet_name="Empty", index=False)
    return sink.getvalue()


@pytest.fixture
def registry(tmp_path: Path) -> DatasetFiles:
    return DatasetFiles(tmp_path / "datasets", max_upload_bytes=64 * 1024)


def refused(registry: DatasetFiles, upload: Upload) -> DataAgentError:
    with pytest.raises(DataAgentError) as caught:
        registry.ingest([upload])
    left = list(registry.root.glob("*"))
    assert left == []  # no staging directory, no database
    return caught.value


def test_a_csv_becomes_a_dataset(registry: DatasetFiles) -> None:
    entry = registry.ingest([Upload("sales.csv", SALES_CSV)])
    assert re.fullmatch(r"[0-9a-f]{32}", entry.id)  # random: another user cannot guess it
    (file,) = entry.files
    assert (file.filename, file.format, file.size_bytes) == ("sales.csv", "csv", len(SALES_CSV))
    (table,) = file.tables
    assert table.name == "sales"
    assert table.rows == 40
    assert table.columns == ["order_id", "region", "product_name", "amount", "order_date"]
    assert entry.prompts == [
        "Total amount by region",
        "Total amount per month",
        "Average amount by region",
        "How many sales rows are there per region?",
    ]
    assert entry.version_hash == version_hash(entry.files)
    assert entry.database == registry.database_path(entry.id)
    assert entry.database == registry.root / entry.id / "data.duckdb"
    assert entry.database.is_file()
    # The files are all there is on disk: the record of the dataset is the app database's.
    assert sorted(p.name for p in registry.root.iterdir()) == [entry.id]


def test_schema_with_sample_rows(registry: DatasetFiles) -> None:
    entry = registry.ingest([Upload("sales.csv", SALES_CSV)])
    tables = registry.schema(entry.id, sample_rows=2)
    (table,) = tables
    assert table.row_count == 40
    assert [(c.name, c.data_type.value) for c in table.columns] == [
        ("order_id", "integer"),
        ("region", "varchar"),
        ("product_name", "varchar"),
        ("amount", "float"),
        ("order_date", "date"),
    ]
    assert table.sample_rows == [
        {
            "order_id": 1,
            "region": "South",
            "product_name": "Item 1",
            "amount": 1.5,
            "order_date": "2024-01-02",
        },
        {
            "order_id": 2,
            "region": "East",
            "product_name": "Item 2",
            "amount": 3.0,
            "order_date": "2024-01-03",
        },
    ]
    json.dumps([t.model_dump(mode="json") for t in tables])  # every sample value is JSON
    assert registry.schema(entry.id)[0].sample_rows is None
    with pytest.raises(DataAgentError) as caught:
        registry.schema(entry.id, sample_rows=1000)
    assert caught.value.code is ErrorCode.VALIDATION_ERROR


def test_parquet_excel_and_several_files_in_one_dataset(
    registry: DatasetFiles, tmp_path: Path
) -> None:
    parquet = tmp_path / "weather.parquet"
    parquet.write_bytes(parquet_bytes())
    entry = registry.ingest(
        [
            Upload("weather.parquet", parquet),
            Upload("scores.xlsx", excel_bytes()),
            Upload("weather.csv", b"id;city\n1;Oslo\n"),  # same stem, semicolons
        ],
    )
    tables = {t.name: t for f in entry.files for t in f.tables}
    assert set(tables) == {"weather", "scores_scores", "scores_team_list", "weather_2"}
    assert tables["weather"].rows == 3
    assert tables["scores_scores"].columns == ["name", "score"]
    assert tables["scores_team_list"].columns == ["team", "mixed"]
    assert tables["weather_2"].columns == ["id", "city"]
    assert [f.format for f in entry.files] == ["parquet", "excel", "csv"]
    model = generate_semantic_model(
        introspect(ConnectionSpec(dialect="duckdb", database=str(entry.database)), LOCAL), "m"
    )
    assert {d.name for d in model.datasets} == set(tables)
    city = model.dataset("weather").field("city")  # type: ignore[union-attr]
    assert city is not None and city.sample_values == ["Oslo", "Rome"]


def test_latin1_csv(registry: DatasetFiles) -> None:
    entry = registry.ingest([Upload("people.csv", "name,city\nJosé,Zürich\n".encode("latin-1"))])
    rows = registry.schema(entry.id, sample_rows=1)[0].sample_rows
    assert rows == [{"name": "José", "city": "Zürich"}]


def test_size_limit(registry: DatasetFiles, tmp_path: Path) -> None:
    big = b"a,b\n" + b"1,2\n" * 20_000
    error = refused(registry, Upload("big.csv", big))
    assert error.code is ErrorCode.PAYLOAD_TOO_LARGE
    assert "largest file accepted is 65,536 bytes" in error.message
    path = tmp_path / "big.csv"
    path.write_bytes(big)
    assert refused(registry, Upload("big.csv", path)).code is ErrorCode.PAYLOAD_TOO_LARGE


@pytest.mark.parametrize(
    ("filename", "content", "message"),
    [
        ("data.json", b"{}", "data.json has an unsupported type"),
        ("empty.csv", b"", "empty.csv is empty."),
        (
            "blob.csv",
            b"\x00\x01\x02\x03binary",
            "blob.csv is not a CSV file: its content is binary.",
        ),
        ("fake.parquet", b"a,b\n1,2\n", "fake.parquet looks like a CSV file, not PARQUET"),
        ("legacy.xlsx", b"\xd0\xcf\x11\xe0" + b"\x00" * 64, "legacy Excel (.xls) file"),
        ("broken.parquet", b"PAR1" + b"\x00" * 64 + b"PAR1", "could not be read as PARQUET"),
        ("ragged.csv", b"a,b\n1,2\n3,4,5\n6,7\n", "is not a valid CSV file"),
        ("zip.xlsx", b"PK\x03\x04garbage", "zip.xlsx is a ZIP archive, not an Excel workbook."),
        ("ctrl.csv", b"PK\x03\x04garbage", "ctrl.csv is not a CSV file: its content is binary."),
    ],
)
def test_bad_files_get_a_clear_error(
    registry: DatasetFiles, filename: str, content: bytes, message: str
) -> None:
    error = refused(registry, Upload(filename, content))
    assert error.code is ErrorCode.VALIDATION_ERROR
    assert message in error.message
    assert "/" not in error.message  # no server paths


def test_parquet_uploaded_as_csv_is_refused(registry: DatasetFiles) -> None:
    error = refused(registry, Upload("data.csv", parquet_bytes()))
    assert (
        error.message
        == "data.csv looks like a PARQUET file, not CSV; rename it or upload the right file."
    )


@pytest.mark.parametrize("good_rows", [3, 3000, 30_000])
def test_a_ragged_row_is_named(tmp_path: Path, good_rows: int) -> None:
    registry = DatasetFiles(tmp_path / "datasets")
    rows = b"a,b\n" + b"1,2\n" * good_rows + b'1,"x,y",3\n'
    error = refused(registry, Upload("late.csv", rows))
    assert error.message == (
        f"late.csv is not a valid CSV file: line {good_rows + 2} has 3 values but the header has 2."
    )


def test_one_bad_file_keeps_nothing(registry: DatasetFiles) -> None:
    with pytest.raises(DataAgentError):
        registry.ingest([Upload("ok.csv", b"a\n1\n"), Upload("bad.csv", b"\x00\x00")])
    assert list(registry.root.glob("*")) == []


def test_ids_and_delete(registry: DatasetFiles) -> None:
    first = registry.ingest([Upload("s.csv", SALES_CSV)])
    second = registry.ingest([Upload("s.csv", SALES_CSV)])
    assert first.id != second.id
    assert first.version_hash == second.version_hash  # same content, same version
    other = registry.ingest([Upload("s.csv", SALES_CSV + b"41,North,x,1,2024-02-01\n")])
    assert other.version_hash != first.version_hash
    for bad in ("../" + first.id, first.id.upper(), "", "a/b"):
        with pytest.raises(DataAgentError) as caught:
            registry.database_path(bad)
        assert caught.value.code is ErrorCode.NOT_FOUND
    registry.delete(first.id)
    assert not (registry.root / first.id).exists()
    registry.delete(first.id)  # already gone: nothing to do
    assert sorted(p.name for p in registry.root.iterdir()) == sorted([second.id, other.id])


def test_concurrent_ingests_each_get_their_own_directory(registry: DatasetFiles) -> None:
    errors: list[BaseException] = []
    ids: list[str] = []

    def ingest(i: int) -> None:
        try:
            ids.append(registry.ingest([Upload(f"f{i}.csv", b"x\n1\n")]).id)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=ingest, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(set(ids)) == 4
    assert sorted(p.name for p in registry.root.iterdir()) == sorted(ids)


def test_files_from_settings(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, upload_max_bytes=2048)
    registry = DatasetFiles.from_settings(settings)
    assert registry.root == (tmp_path / "datasets").resolve()
    assert registry.max_upload_bytes == 2048


def test_a_dataset_file_swapped_for_a_link_is_refused(
    registry: DatasetFiles, tmp_path: Path
) -> None:
    entry = registry.ingest([Upload("s.csv", SALES_CSV)])
    elsewhere = tmp_path / "elsewhere.duckdb"
    entry.database.rename(elsewhere)
    entry.database.symlink_to(elsewhere)
    with pytest.raises(DataAgentError) as caught:
        registry.schema(entry.id)
    assert caught.value.code is ErrorCode.FORBIDDEN


def test_a_late_odd_value_keeps_its_column_as_text(registry: DatasetFiles) -> None:
    """Types come from the whole file: a value after DuckDB's usual sample is not lost."""
    rows = b"id,score\n" + b"".join(b"%d,%d\n" % (i, i) for i in range(30_000)) + b"30000,N/A\n"
    registry.max_upload_bytes = 1_000_000
    entry = registry.ingest([Upload("scores.csv", rows)])
    (table,) = registry.schema(entry.id)
    assert [(c.name, c.data_type.value) for c in table.columns] == [
        ("id", "integer"),
        ("score", "varchar"),
    ]
    assert table.row_count == 30_001
