"""The model a grantee under a database role sees: nothing read with the owner's account."""

from __future__ import annotations

import pytest

from dataagent.semantic.catalog import ColumnInfo, SchemaSnapshot, TableInfo
from dataagent.semantic.generation import generate_semantic_model
from dataagent.semantic.model import without_samples


def _model(rows: int, comment: str | None = None):  # type: ignore[no-untyped-def]
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
    model = _model(rows)
    [dataset] = model.datasets
    assert dataset.description is not None and dataset.description.endswith(f"with {said}.")
    [shown] = without_samples(model).datasets
    assert shown.description == dataset.description.removesuffix(f" with {said}.") + "."
    assert shown.row_count is None
    assert all(not f.sample_values and f.distinct_count is None for f in shown.fields)


def test_a_description_a_person_wrote_stays() -> None:
    [shown] = without_samples(_model(7, comment="Our shops, with 7 rows of history")).datasets
    assert shown.description == "Our shops, with 7 rows of history"
