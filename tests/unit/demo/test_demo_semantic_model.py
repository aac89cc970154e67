"""The curated semantic model shipped with the demo: valid, complete, true to the schema."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dataagent.demo import SCHEMA, TABLES, curated_model_yaml
from dataagent.errors import DataAgentError
from dataagent.semantic.model import Cardinality, Metric, SemanticModel
from dataagent.semantic.yaml_io import load_yaml

DOCS = Path(__file__).resolve().parents[3] / "docs" / "semantic-model.md"
QUOTED = "# src/dataagent/demo/semantic_model.yaml\n"
COMPLETED = "orders.status = 'completed'"

# name -> (format, dataset, aggregation, expression, filter) or (format, numerator, denominator):
# the definitions of src/dataagent/demo/facts.py, which the compiler tests reproduce.
SIMPLE = {
    "revenue": ("currency", "order_items", "sum", "line_revenue", COMPLETED),
    "gross_margin": (
        "currency",
        "order_items",
        "sum",
        "line_revenue - quantity * products.unit_cost",
        COMPLETED,
    ),
    "units": ("number", "order_items", "sum", "quantity", COMPLETED),
    "orders": ("number", "orders", "count", None, None),
    "completed_orders": ("number", "orders", "count", None, "status = 'completed'"),
    "returned_orders": ("number", "orders", "count", None, "status = 'returned'"),
    "selling_area": ("number", "stores", "sum", "square_feet", None),
    "customers": ("number", "orders", "count_distinct", "customer_id", None),
}
RATIO = {
    "margin_pct": ("percent", "gross_margin", "revenue"),
    "average_order_value": ("currency", "revenue", "completed_orders"),
    "return_rate": ("percent", "returned_orders", "orders"),
    "revenue_per_square_foot": ("currency", "revenue", "selling_area"),
}
SYNONYMS = {
    "revenue": {"sales", "net sales", "turnover"},
    "margin_pct": {"margin %", "gross margin percent", "margin rate"},
    "average_order_value": {"AOV", "basket size", "average basket"},
    "units": {"units sold", "items sold"},
    "revenue_per_square_foot": {"sales per square foot", "sales density"},
}


@pytest.fixture(scope="module")
def model() -> SemanticModel:
    return load_yaml(curated_model_yaml())


def _metric(model: SemanticModel, name: str) -> Metric:
    found = model.metric(name)
    assert found is not None, name
    return found


def test_it_loads_as_a_duckdb_model_of_the_demo_tables(model: SemanticModel) -> None:
    assert (model.name, model.dialect) == ("retail", "duckdb")
    assert sorted(d.name for d in model.datasets) == sorted(TABLES)
    for dataset in model.datasets:
        assert dataset.source == f"main.{dataset.name}"
        assert dataset.primary_key == ["id"]


def test_every_column_is_a_described_field_under_its_own_name(model: SemanticModel) -> None:
    for table in SCHEMA:
        dataset = model.dataset(table.name)
        assert dataset is not None and dataset.description, table.name
        for column in table.columns:
            field = dataset.field(column.name)
            assert field is not None, f"{table.name}.{column.name}"
            assert field.expression == column.name
            assert field.label and field.description, f"{table.name}.{column.name}"


def test_derived_fields(model: SemanticModel) -> None:
    items = model.dataset("order_items")
    assert items is not None
    line_revenue = items.field("line_revenue")
    assert line_revenue is not None
    assert line_revenue.expression == "quantity * unit_price * (1 - discount)"
    assert line_revenue.data_type == "decimal"
    stored = {(t.name, c.name) for t in SCHEMA for c in t.columns}
    for dataset in model.datasets:
        for field in dataset.fields:
            if (dataset.name, field.name) not in stored:
                assert field.label and field.description, f"{dataset.name}.{field.name}"


def test_relationships_are_the_foreign_keys_named_as_generated(model: SemanticModel) -> None:
    expected = {
        (table.name, column.name, (column.references or "").split(".")[0])
        for table in SCHEMA
        for column in table.columns
        if column.references
    }
    found = {(r.from_dataset, r.from_columns[0], r.to_dataset) for r in model.relationships}
    assert found == expected
    for r in model.relationships:
        assert r.name == f"{r.from_dataset}_{r.from_columns[0]}_{r.to_dataset}"
        assert (r.to_columns, r.cardinality) == (["id"], Cardinality.MANY_TO_ONE)
        assert r.description


def test_exactly_the_agreed_metrics(model: SemanticModel) -> None:
    assert sorted(m.name for m in model.metrics) == sorted([*SIMPLE, *RATIO])


@pytest.mark.parametrize("name", sorted(SIMPLE))
def test_simple_metric(model: SemanticModel, name: str) -> None:
    metric = _metric(model, name)
    found = (metric.format, metric.dataset, metric.aggregation, metric.expression, metric.filter)
    assert found == SIMPLE[name]


@pytest.mark.parametrize("name", sorted(RATIO))
def test_ratio_metric(model: SemanticModel, name: str) -> None:
    metric = _metric(model, name)
    assert (metric.format, metric.numerator, metric.denominator) == RATIO[name]


def test_every_metric_says_what_counts(model: SemanticModel) -> None:
    for metric in model.metrics:
        assert metric.label, metric.name
        assert metric.description and metric.description.endswith("."), metric.name
        assert not metric.generated, metric.name
    for name, synonyms in SYNONYMS.items():
        assert synonyms <= set(_metric(model, name).synonyms), name


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.DOTALL)


def test_the_guide_quotes_the_curated_model_as_it_is() -> None:
    quoted = [b for b in _blocks(DOCS.read_text(), "yaml") if b.startswith(QUOTED)]
    assert len(quoted) >= 8
    curated = curated_model_yaml()
    for block in quoted:
        assert block.removeprefix(QUOTED) in curated, block


def test_the_guide_shows_the_error_load_yaml_gives() -> None:
    """The wrong metric of the validation section is refused with the error shown after it,
    and the corrected one is accepted."""
    section = DOCS.read_text().split("## Validation errors", 1)[1].split("\n## ", 1)[0]
    wrong, fixed = _blocks(section, "yaml")[:2]
    [shown] = _blocks(section, "json")
    with pytest.raises(DataAgentError) as raised:
        load_yaml(curated_model_yaml() + wrong)
    error = raised.value
    found = {"error": {"code": error.code, "message": error.message, "details": error.details}}
    assert json.loads(shown) == found
    fixed_model = load_yaml(curated_model_yaml() + fixed)
    assert fixed_model.metric("discount_given") is not None
