"""The curated demo model against the model generated from the demo DuckDB file."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from tests.conftest import LOCAL

from dataagent.demo import DemoData, curated_model_yaml, write_duckdb
from dataagent.semantic.generation import generate_semantic_model
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.yaml_io import load_yaml
from dataagent.sources.engines import ConnectionSpec
from dataagent.sources.introspection import introspect


@pytest.fixture(scope="module")
def duckdb_path(tmp_path_factory: pytest.TempPathFactory, demo_data: DemoData) -> Path:
    path = tmp_path_factory.mktemp("demo") / "retail.duckdb"
    write_duckdb(demo_data, path)
    return path


@pytest.fixture(scope="module")
def generated(duckdb_path: Path) -> SemanticModel:
    spec = ConnectionSpec(dialect="duckdb", database=str(duckdb_path))
    return generate_semantic_model(introspect(spec, LOCAL), "retail", "duckdb")


def test_curation_renames_nothing_the_generator_names(generated: SemanticModel) -> None:
    """Every dataset, column and relationship keeps the name the generator gives it, so a
    regenerated model lines up with the curated one; curation only adds (and replaces the
    generator's proposals, such as its undiscounted line amount, with its own)."""
    curated = load_yaml(curated_model_yaml())
    assert {d.name for d in curated.datasets} == {d.name for d in generated.datasets}
    for dataset in generated.datasets:
        mine = curated.dataset(dataset.name)
        assert mine is not None
        assert (mine.source, mine.primary_key, mine.row_count) == (
            dataset.source,
            dataset.primary_key,
            dataset.row_count,
        )
        for field in (f for f in dataset.fields if not f.generated):
            same = mine.field(field.name)
            assert same is not None, f"{dataset.name}.{field.name}"
            assert (same.expression, same.data_type, same.native_type, same.nullable) == (
                field.expression,
                field.data_type,
                field.native_type,
                field.nullable,
            )
    relationships = {
        r.name: (r.from_dataset, r.from_columns, r.to_dataset, r.to_columns, r.cardinality)
        for r in generated.relationships
    }
    assert {
        r.name: (r.from_dataset, r.from_columns, r.to_dataset, r.to_columns, r.cardinality)
        for r in curated.relationships
    } == relationships


def test_derived_fields_run_on_the_demo_file(duckdb_path: Path) -> None:
    """Each derived field's expression is valid DuckDB over its own table."""
    curated = load_yaml(curated_model_yaml())
    with duckdb.connect(str(duckdb_path), read_only=True) as conn:
        for dataset in curated.datasets:
            for field in dataset.fields:
                if field.expression != field.name:
                    sql = f"SELECT {field.expression} FROM {dataset.source} LIMIT 1"
                    assert conn.execute(sql).fetchall(), f"{dataset.name}.{field.name}"
