"""YAML dump and load of semantic models: key order, round trips, errors at line and field."""

from __future__ import annotations

from typing import Any

import pytest

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.model import (
    Cardinality,
    Dataset,
    DataType,
    Field_,
    Relationship,
    RelationshipSource,
    SemanticModel,
)
from dataagent.semantic.yaml_io import dump_dataset_yaml, dump_yaml, load_yaml


def model() -> SemanticModel:
    return SemanticModel(
        name="shop",
        description="A shop.",
        dialect="postgresql",
        datasets=[
            Dataset(
                name="customers",
                description="Customer master data",
                source="public.customers",
                row_count=3,
                primary_key=["customer_id"],
                fields=[
                    Field_(
                        name="customer_id",
                        expression="customer_id",
                        label="Customer ID",
                        description="Unique identifier for customer",
                        data_type=DataType.INTEGER,
                        is_primary_key=True,
                        nullable=False,
                    ),
                    Field_(
                        name="segment",
                        expression="segment",
                        label="Segment",
                        data_type=DataType.VARCHAR,
                        sample_values=["no", "yes", "2024-01-01"],
                        distinct_count=3,
                    ),
                ],
            ),
            Dataset(
                name="orders",
                source="public.orders",
                fields=[
                    Field_(name="id", expression="id", data_type=DataType.INTEGER),
                    Field_(name="customer_id", expression="customer_id"),
                    Field_(name="total", expression="total", data_type=DataType.DECIMAL),
                ],
            ),
            Dataset(
                name="notes",
                source="public.notes",
                fields=[Field_(name="body", expression="body")],
            ),
        ],
        relationships=[
            Relationship(
                name="orders_customer",
                from_dataset="orders",
                from_columns=["customer_id"],
                to_dataset="customers",
                to_columns=["customer_id"],
                cardinality=Cardinality.MANY_TO_ONE,
                source=RelationshipSource.FOREIGN_KEY,
            )
        ],
    )


def errors_of(text: str) -> list[dict[str, Any]]:
    with pytest.raises(DataAgentError) as caught:
        load_yaml(text)
    assert caught.value.code is ErrorCode.VALIDATION_ERROR
    assert isinstance(caught.value.details, list)
    return caught.value.details


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    hits = [i + 1 for i, line in enumerate(text.splitlines()) if needle in line]
    return hits[occurrence - 1]


def test_dump_follows_the_seed_key_order() -> None:
    text = dump_yaml(model())
    assert text.startswith("name: shop\ndescription: A shop.\ndialect: postgresql\ndatasets:\n")
    expected = """\
- name: customers
  description: Customer master data
  source: public.customers
  row_count: 3
  primary_key: [customer_id]
  fields:
  - name: customer_id
    expression: customer_id
    label: Customer ID
    description: Unique identifier for customer
    data_type: integer
    is_primary_key: true
    nullable: false
  - name: segment
    expression: segment
    label: Segment
    data_type: varchar
    distinct_count: 3
    sample_values: ['no', 'yes', '2024-01-01']
"""
    assert expected in text
    assert "  from: orders\n  from_columns: [customer_id]\n  to: customers\n" in text


def test_round_trip_is_exact() -> None:
    original = model()
    text = dump_yaml(original)
    loaded = load_yaml(text)
    assert loaded == original
    assert dump_yaml(loaded) == text


def test_dataset_yaml_carries_its_relationships_only() -> None:
    m = model()
    text = dump_dataset_yaml(m.datasets[0], m.relationships)
    assert text.startswith("name: customers\ndescription: Customer master data\n")
    assert "relationships:\n- name: orders_customer\n" in text
    assert "relationships" not in dump_dataset_yaml(m.datasets[2], m.relationships)


def test_a_bad_value_points_at_its_line_and_path() -> None:
    text = dump_yaml(model()).replace("data_type: decimal", "data_type: money")
    (error,) = errors_of(text)
    assert error["path"] == "datasets[1].fields[2].data_type"
    assert error["line"] == line_of(text, "data_type: money")
    assert error["column"] == len("    data_type: ") + 1  # the value
    assert "integer" in error["message"]


def test_message_names_line_and_field() -> None:
    text = dump_yaml(model()).replace("data_type: decimal", "data_type: money")
    with pytest.raises(DataAgentError) as caught:
        load_yaml(text)
    line = line_of(text, "data_type: money")
    assert caught.value.message.startswith(
        f"The semantic model is not valid: line {line}, datasets[1].fields[2].data_type:"
    )


def test_a_missing_key_points_at_its_mapping() -> None:
    text = dump_yaml(model()).replace("    expression: total\n", "")
    (error,) = errors_of(text)
    assert error["path"] == "datasets[1].fields[2].expression"
    assert error["line"] == line_of(text, "- name: total")
    assert error["message"] == "Field required: 'expression'"


def test_an_unknown_key_points_at_the_key() -> None:
    text = dump_yaml(model()).replace(
        "    label: Segment\n", "    label: Segment\n    colour: red\n"
    )
    (error,) = errors_of(text)
    assert error["path"] == "datasets[0].fields[1].colour"
    assert error["line"] == line_of(text, "colour: red")


def test_several_errors_are_all_reported() -> None:
    text = (
        dump_yaml(model())
        .replace("name: notes", "name: 9notes")
        .replace("data_type: decimal", "data_type: money")
    )
    errors = errors_of(text)
    assert [e["path"] for e in errors] == [
        "datasets[1].fields[2].data_type",
        "datasets[2].name",
    ]
    assert errors[1]["line"] == line_of(text, "name: 9notes")


@pytest.mark.parametrize(
    ("change", "path", "needle"),
    [
        (("  to: customers\n", "  to: clients\n"), "relationships[0].to", "to: clients"),
        (
            ("  from_columns: [customer_id]", "  from_columns: [client_id]"),
            "relationships[0].from_columns[0]",
            "from_columns: [client_id]",
        ),
        (("- name: notes", "- name: orders"), "datasets[2].name", "- name: orders"),
        (("dialect: postgresql", "dialect: oracle"), "dialect", "dialect: oracle"),
    ],
)
def test_cross_references_are_located(change: tuple[str, str], path: str, needle: str) -> None:
    text = dump_yaml(model()).replace(*change)
    errors = errors_of(text)
    assert errors[0]["path"] == path
    assert errors[0]["line"] == line_of(
        text, needle, occurrence=1 if path != "datasets[2].name" else 2
    )


def test_model_level_rules_point_at_the_dataset() -> None:
    text = dump_yaml(model()).replace("primary_key: [customer_id]", "primary_key: [nope]")
    (error,) = errors_of(text)
    assert error["path"] == "datasets[0]"
    assert error["line"] == line_of(text, "- name: customers")
    assert "primary key 'nope' is not a field" in error["message"]


def test_syntax_errors_and_duplicates_have_lines() -> None:
    (error,) = errors_of("name: x\ndialect: sqlite\ndatasets: [\n  {name: a\n")
    assert error["line"] >= 4 and error["message"].startswith("YAML syntax error")
    (dup,) = errors_of("name: x\ndialect: sqlite\nname: y\n")
    assert (dup["line"], dup["path"]) == (3, "name")
    (shape,) = errors_of("- just\n- a list\n")
    assert shape["line"] == 1
    (empty,) = errors_of("")
    assert empty["line"] == 1


def test_the_osi_wrapper_is_accepted() -> None:
    text = "semantic_model:\n" + "".join(
        ("  - " if i == 0 else "    ") + line + "\n"
        for i, line in enumerate(dump_yaml(model()).splitlines())
    )
    assert load_yaml(text) == model()
    bad = text.replace("data_type: decimal", "data_type: money")
    (error,) = errors_of(bad)
    assert error["line"] == line_of(bad, "data_type: money")
