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

from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.generation import generate_semantic_model
from dataagent.sources.datasets import DatasetRegistry, version_hash
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
def registry(tmp_path: Path) -> DatasetRegistry:
    return DatasetRegistry(tmp_path / "datasets", max_upload_bytes=64 * 1024)


def refused(registry: DatasetRegistry, upload: Upload) -> DataAgentError:
    with pytest.raises(DataAgentError) as caught:
        registry.create("bad", [upload])
    assert registry.datasets() == []
    left = [p.name for p in registry.root.glob("*") if not p.name.startswith(".registry")]
    assert left == []  # no staging directory, no database
    return caught.value


def test_a_csv_becomes_a_listed_dataset(registry: DatasetRegistry) -> None:
    entry = registry.create("Sales 2024", [Upload("sales.csv", SALES_CSV)], "Shop sales.")
    assert re.fullmatch(r"[0-9a-f]{32}", entry.id)  # random: another user cannot guess it
    assert entry.name == "Sales 2024"
    assert entry.description == "Shop sales."
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
    listed = json.loads((registry.root / "registry.json").read_text())
    assert [d["id"] for d in listed["datasets"]] == [entry.id]
    assert registry.get(entry.id) == entry
    assert registry.database_path(entry.id) == registry.root / entry.id / "data.duckdb"


def test_schema_with_sample_rows(registry: DatasetRegistry) -> None:
    entry = registry.create("Sales", [Upload("sales.csv", SALES_CSV)])
    schema = registry.schema(entry.id, sample_rows=2)
    (table,) = schema.tables
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
    json.dumps(schema.model_dump(mode="json"))  # every sample value is JSON
    assert registry.schema(entry.id).tables[0].sample_rows is None
    with pytest.raises(DataAgentError) as caught:
        registry.schema(entry.id, sample_rows=1000)
    assert caught.value.code is ErrorCode.VALIDATION_ERROR


def test_parquet_excel_and_several_files_in_one_dataset(
    registry: DatasetRegistry, tmp_path: Path
) -> None:
    parquet = tmp_path / "weather.parquet"
    parquet.write_bytes(parquet_bytes())
    entry = registry.create(
        "Mixed",
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
        introspect("duckdb", str(registry.database_path(entry.id))), "m"
    )
    assert {d.name for d in model.datasets} == set(tables)
    city = model.dataset("weather").field("city")  # type: ignore[union-attr]
    assert city is not None and city.sample_values == ["Oslo", "Rome"]


def test_latin1_csv(registry: DatasetRegistry) -> None:
    entry = registry.create(
        "People", [Upload("people.csv", "name,city\nJosé,Zürich\n".encode("latin-1"))]
    )
    rows = registry.schema(entry.id, sample_rows=1).tables[0].sample_rows
    assert rows == [{"name": "José", "city": "Zürich"}]


def test_size_limit(registry: DatasetRegistry, tmp_path: Path) -> None:
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
    registry: DatasetRegistry, filename: str, content: bytes, message: str
) -> None:
    error = refused(registry, Upload(filename, content))
    assert error.code is ErrorCode.VALIDATION_ERROR
    assert message in error.message
    assert "/" not in error.message  # no server paths


def test_parquet_uploaded_as_csv_is_refused(registry: DatasetRegistry) -> None:
    error = refused(registry, Upload("data.csv", parquet_bytes()))
    assert (
        error.message
        == "data.csv looks like a PARQUET file, not CSV; rename it or upload the right file."
    )


@pytest.mark.parametrize("good_rows", [3, 3000, 30_000])
def test_a_ragged_row_is_named(tmp_path: Path, good_rows: int) -> None:
    registry = DatasetRegistry(tmp_path / "datasets")
    rows = b"a,b\n" + b"1,2\n" * good_rows + b'1,"x,y",3\n'
    error = refused(registry, Upload("late.csv", rows))
    assert error.message == (
        f"late.csv is not a valid CSV file: line {good_rows + 2} has 3 values but the header has 2."
    )


def test_one_bad_file_keeps_nothing(registry: DatasetRegistry) -> None:
    with pytest.raises(DataAgentError):
        registry.create("two", [Upload("ok.csv", b"a\n1\n"), Upload("bad.csv", b"\x00\x00")])
    assert registry.datasets() == []


def test_ids_lookup_and_delete(registry: DatasetRegistry) -> None:
    first = registry.create("Sales", [Upload("s.csv", SALES_CSV)])
    second = registry.create("Sales", [Upload("s.csv", SALES_CSV)])
    assert first.id != second.id and (first.name, second.name) == ("Sales", "Sales")
    assert first.version_hash == second.version_hash  # same content, same version
    other = registry.create("!!!", [Upload("s.csv", SALES_CSV + b"41,North,x,1,2024-02-01\n")])
    assert other.version_hash != first.version_hash
    for bad in ("nope", "../" + first.id, first.id.upper(), ""):
        with pytest.raises(DataAgentError) as caught:
            registry.get(bad)
        assert caught.value.code is ErrorCode.NOT_FOUND
    registry.delete(first.id)
    assert [e.id for e in registry.datasets()] == [second.id, other.id]
    assert not (registry.root / first.id).exists()
    with pytest.raises(DataAgentError) as caught:
        registry.delete(first.id)
    assert caught.value.code is ErrorCode.NOT_FOUND


def test_concurrent_creates_lose_nothing(registry: DatasetRegistry) -> None:
    errors: list[BaseException] = []

    def create(i: int) -> None:
        try:
            registry.create("Same", [Upload(f"f{i}.csv", b"x\n1\n")])
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=create, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    listed = registry.datasets()
    assert [e.name for e in listed] == ["Same"] * 4 and len({e.id for e in listed}) == 4


def test_registry_from_settings(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, upload_max_bytes=2048)
    registry = DatasetRegistry.from_settings(settings)
    assert registry.root == (tmp_path / "datasets").resolve()
    assert registry.max_upload_bytes == 2048
    assert registry.datasets() == []


def test_a_late_odd_value_keeps_its_column_as_text(registry: DatasetRegistry) -> None:
    """Types come from the whole file: a value after DuckDB's usual sample is not lost."""
    rows = b"id,score\n" + b"".join(b"%d,%d\n" % (i, i) for i in range(30_000)) + b"30000,N/A\n"
    registry.max_upload_bytes = 1_000_000
    entry = registry.create("Scores", [Upload("scores.csv", rows)])
    (table,) = registry.schema(entry.id).tables
    assert [(c.name, c.data_type.value) for c in table.columns] == [
        ("id", "integer"),
        ("score", "varchar"),
    ]
    assert table.row_count == 30_001
