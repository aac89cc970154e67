"""What a grantee under a database role sees of a model: nothing read from the data."""

from __future__ import annotations

import pytest

from dataagent.semantic.catalog import ColumnInfo, SchemaSnapshot, TableInfo
from dataagent.semantic.generation import generate_semantic_model
from dataagent.semantic.model import SemanticModel, without_samples


def test_without_samples_drops_values_and_counts_and_keeps_the_rest() -> None:
    model = SemanticModel.model_validate(
        {
            "name": "shop",
            "dialect": "postgresql",
            "datasets": [
                {
                    "name": "orders",
                    "source": "public.orders",
                    "row_count": 1200,
                    "fields": [
                        {
                            "name": "region",
                            "expression": "region",
                            "data_type": "varchar",
                            "description": "Sales region",
                            "sample_values": ["west", "east"],
                            "distinct_count": 2,
                        }
                    ],
                }
            ],
        }
    )
    shown = without_samples(model)
    field = shown.datasets[0].fields[0]
    assert field.sample_values == [] and field.distinct_count is None
    assert shown.datasets[0].row_count is None
    assert field.description == "Sales region" and shown.datasets[0].source == "public.orders"
    # The original is untouched (it is cached and shared with the owner's requests).
    assert model.datasets[0].fields[0].sample_values == ["west", "east"]
    assert model.datasets[0].row_count == 1200


def _generated(rows: int, comment: str | None = None) -> SemanticModel:
    table = TableInfo(
        schema_name="public",
        name="stores",
        comment=comment,
        columns=[
            ColumnInfo(name="id", native_type="integer"),
            ColumnInfo(name="name", native_type="text", sample_values=["Eastonbury"]),
        ],
        primary_key=["id"],
        row_estimate=rows,
    )
    snapshot = SchemaSnapshot(dialect="postgresql", tables=[table])
    return generate_semantic_model(snapshot, "shop", "postgresql")


@pytest.mark.parametrize(("rows", "said"), [(1, "1 row"), (1234, "1,234 rows")])
def test_the_generated_row_count_leaves_the_description(rows: int, said: str) -> None:
    model = _generated(rows)
    [dataset] = model.datasets
    assert dataset.description is not None and dataset.description.endswith(f"with {said}.")
    [shown] = without_samples(model).datasets
    assert shown.description == dataset.description.removesuffix(f" with {said}.") + "."
    assert shown.row_count is None
    assert all(not f.sample_values and f.distinct_count is None for f in shown.fields)


def test_a_description_a_person_wrote_stays() -> None:
    [shown] = without_samples(_generated(7, comment="Our shops, with 7 rows of history")).datasets
    assert shown.description == "Our shops, with 7 rows of history"
