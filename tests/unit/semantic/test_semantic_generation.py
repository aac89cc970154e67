"""Semantic-model generation from hand-built snapshots: names, labels, keys, relationships."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from dataagent.semantic.catalog import (
    ColumnInfo,
    ForeignKeyInfo,
    SchemaSnapshot,
    TableInfo,
)
from dataagent.semantic.generation import (
    column_expression,
    generate_semantic_model,
    humanise,
    to_identifier,
)
from dataagent.semantic.model import (
    NAME_PATTERN,
    Cardinality,
    DataType,
    RelationshipSource,
    SemanticModel,
)
from dataagent.semantic.yaml_io import dump_yaml


def col(name: str, native: str = "INTEGER", **kw: object) -> ColumnInfo:
    return ColumnInfo(name=name, native_type=native, **kw)  # type: ignore[arg-type]


def table(name: str, columns: list[ColumnInfo], schema: str = "main", **kw: object) -> TableInfo:
    return TableInfo(schema_name=schema, name=name, columns=columns, **kw)  # type: ignore[arg-type]


def fk(
    columns: list[str], target: str, refs: list[str], schema: str | None = None
) -> ForeignKeyInfo:
    return ForeignKeyInfo(
        columns=columns, referred_schema=schema, referred_table=target, referred_columns=refs
    )


def shop() -> SchemaSnapshot:
    return SchemaSnapshot(
        dialect="sqlite",
        tables=[
            table(
                "customers",
                [
                    col("id"),
                    col("name", "TEXT"),
                    col("segment", "VARCHAR(20)", sample_values=["a", "b"], distinct_count=2),
                ],
                primary_key=["id"],
                row_estimate=12345,
            ),
            table(
                "customer_profiles",
                [col("customer_id"), col("bio", "TEXT")],
                primary_key=["customer_id"],
                foreign_keys=[fk(["customer_id"], "customers", ["id"])],
            ),
            table("categories", [col("id"), col("label", "TEXT")], primary_key=["id"]),
            table("boxes", [col("id"), col("size", "TEXT")], primary_key=["id"]),
            table("regions", [col("region_id"), col("name", "TEXT")], primary_key=["region_id"]),
            table(
                "orders",
                [
                    col("id"),
                    col("customer_id", nullable=False),
                    col("category_id"),
                    col("box_id"),
                    col("region_id"),
                    col("parent_id"),
                    col("order_id"),
                    col("ordered_at", "TIMESTAMP"),
                    col("total", "DECIMAL(10,2)"),
                ],
                primary_key=["id"],
                foreign_keys=[fk(["customer_id"], "customers", ["id"])],
                row_estimate=1,
            ),
            table(
                "order_lines",
                [col("order_id"), col("line_no"), col("qty")],
                primary_key=["order_id", "line_no"],
                foreign_keys=[fk(["order_id"], "orders", [])],  # no columns: the target's PK
            ),
            table(
                "returns",
                [
                    col("id"),
                    col("order_id"),
                    col("line_no"),
                    col("invoice_id"),
                    col("box_id", "TEXT"),
                ],
                primary_key=["id"],
                unique_keys=[["order_id", "line_no"]],
                foreign_keys=[
                    fk(["order_id", "line_no"], "order_lines", ["order_id", "line_no"]),
                    fk(["id"], "elsewhere", ["id"], schema="other"),  # not introspected
                ],
            ),
            table("invoices", [col("id"), col("n")], primary_key=["id"]),
        ],
    )


def rel(model: SemanticModel, from_ds: str, column: str):  # type: ignore[no-untyped-def]
    found = [
        r for r in model.relationships if r.from_dataset == from_ds and column in r.from_columns
    ]
    assert len(found) == 1, (from_ds, column, found)
    return found[0]


def test_every_table_becomes_a_dataset_with_its_source_and_keys() -> None:
    model = generate_semantic_model(shop(), "shop", "sqlite")
    assert sorted(d.name for d in model.datasets) == sorted(t.name for t in shop().tables)
    customers = model.dataset("customers")
    assert customers is not None
    assert customers.source == "main.customers"
    assert customers.primary_key == ["id"]
    assert customers.description == "Customers table with 12,345 rows."
    assert model.dataset("orders").description == "Orders table with 1 row."  # type: ignore[union-attr]
    assert model.dataset("boxes").description == "Boxes table."  # type: ignore[union-attr]
    ident = customers.field("id")
    assert ident is not None and ident.is_primary_key and not ident.nullable
    assert ident.label == "ID" and ident.data_type is DataType.INTEGER
    segment = customers.field("segment")
    assert segment is not None
    assert segment.sample_values == ["a", "b"] and segment.distinct_count == 2
    assert segment.data_type is DataType.VARCHAR and segment.native_type == "VARCHAR(20)"


def test_declared_foreign_keys_become_relationships_with_cardinality() -> None:
    model = generate_semantic_model(shop(), "shop", "sqlite")
    orders = rel(model, "orders", "customer_id")
    assert (orders.to_dataset, orders.to_columns) == ("customers", ["id"])
    assert orders.cardinality is Cardinality.MANY_TO_ONE
    assert orders.source is RelationshipSource.FOREIGN_KEY
    profile = rel(model, "customer_profiles", "customer_id")
    assert profile.cardinality is Cardinality.ONE_TO_ONE  # the FK is the whole primary key
    lines = rel(model, "order_lines", "order_id")
    assert lines.to_columns == ["id"]  # resolved from the target's primary key
    assert lines.cardinality is Cardinality.MANY_TO_ONE  # part of a composite key only
    returns = rel(model, "returns", "line_no")
    assert returns.from_columns == ["order_id", "line_no"]
    assert returns.to_columns == ["order_id", "line_no"]
    assert returns.cardinality is Cardinality.ONE_TO_ONE  # unique key
    assert not [r for r in model.relationships if r.to_dataset == "elsewhere"]


def test_relationships_are_inferred_from_names_only_where_safe() -> None:
    model = generate_semantic_model(shop(), "shop", "sqlite")
    inferred = {
        (r.from_dataset, r.from_columns[0]): (r.to_dataset, r.to_columns[0])
        for r in model.relationships
        if r.source is RelationshipSource.INFERRED
    }
    assert inferred == {
        ("orders", "category_id"): ("categories", "id"),  # y -> ies
        ("orders", "box_id"): ("boxes", "id"),  # + es
        ("orders", "region_id"): ("regions", "region_id"),  # target's key is <x>_id
        ("returns", "invoice_id"): ("invoices", "id"),
    }
    # customer_id has a declared key; parent_id has no table; orders.order_id would be itself;
    # returns.box_id is text while boxes.id is an integer
    invoice = rel(model, "returns", "invoice_id")
    assert invoice.cardinality is Cardinality.MANY_TO_ONE
    assert invoice.description == "Inferred link returns.invoice_id -> invoices.id."
    field = model.dataset("orders").field("box_id")  # type: ignore[union-attr]
    assert field is not None and "inferred" in (field.description or "")


def test_inference_skips_type_mismatches_and_ambiguous_schemas() -> None:
    snap = SchemaSnapshot(
        dialect="postgresql",
        tables=[
            table("users", [col("id", "uuid")], schema="a", primary_key=["id"]),
            table("users", [col("id", "integer")], schema="b", primary_key=["id"]),
            table("posts", [col("id"), col("user_id", "integer")], schema="c", primary_key=["id"]),
            table("notes", [col("id"), col("user_id", "integer")], schema="b", primary_key=["id"]),
            table("likes", [col("id"), col("user_id", "integer")], schema="a", primary_key=["id"]),
        ],
    )
    model = generate_semantic_model(snap, "m")
    assert [d.name for d in model.datasets] == ["likes", "a_users", "notes", "b_users", "posts"]
    # same schema wins; c.posts cannot choose between a and b; a.likes has the wrong type
    assert [(r.from_dataset, r.to_dataset) for r in model.relationships] == [("notes", "b_users")]


def test_same_table_in_two_schemas_gets_qualified_unique_names() -> None:
    snap = SchemaSnapshot(
        dialect="postgresql",
        tables=[
            table("orders", [col("id")], schema="public", primary_key=["id"]),
            table("orders", [col("id")], schema="sales", primary_key=["id"]),
            table("public_orders", [col("id")], schema="public"),
            table(
                "Order Items",
                [col("Order Date", "date"), col("order date", "date")],
                schema="public",
            ),
            table("2024", [col("x")], schema="public"),
        ],
    )
    model = generate_semantic_model(snap, "m")
    names = {d.source: d.name for d in model.datasets}
    assert names["public.orders"] == "public_orders"
    assert names["sales.orders"] == "sales_orders"
    assert names["public.public_orders"] == "public_orders_2"
    assert names["public.Order Items"] == "Order_Items"
    assert names["public.2024"] == "_2024"
    items = model.dataset("Order_Items")
    assert items is not None
    assert [f.name for f in items.fields] == ["Order_Date", "order_date_2"]
    assert [f.expression for f in items.fields] == ['"Order Date"', '"order date"']
    assert items.fields[0].label == "Order Date"


def test_generation_is_deterministic_whatever_the_table_order() -> None:
    snap = shop()
    first = dump_yaml(generate_semantic_model(snap, "shop"))
    shuffled = snap.model_copy(deep=True)
    random.Random(3).shuffle(shuffled.tables)
    assert dump_yaml(generate_semantic_model(shuffled, "shop")) == first


def test_descriptions_prefer_comments() -> None:
    snap = SchemaSnapshot(
        dialect="duckdb",
        tables=[
            table(
                "t",
                [col("a", comment="The A."), col("b")],
                comment="What t holds.",
                kind="view",
            )
        ],
    )
    ds = generate_semantic_model(snap, "m", description="Mine.").datasets[0]
    assert ds.description == "What t holds."
    assert [f.description for f in ds.fields] == ["The A.", "B of t."]
    assert generate_semantic_model(snap, "m", description="Mine.").description == "Mine."


def test_labels_and_expressions() -> None:
    assert humanise("customer_id") == "Customer ID"
    assert humanise("unitPrice") == "Unit Price"
    assert humanise("CustomerID") == "Customer ID"
    assert humanise("ORDER_TOTAL") == "Order Total"
    assert humanise("url_path") == "URL Path"
    assert column_expression("total", "postgresql") == "total"
    assert column_expression("Total", "postgresql") == '"Total"'
    assert column_expression("Total", "sqlite") == "Total"
    assert column_expression("order", "duckdb") == '"order"'
    assert column_expression("my col", "mysql") == "`my col`"
    assert column_expression("group", "mysql") == "`group`"


@given(st.text(min_size=1, max_size=40))
def test_identifiers_are_always_valid(text: str) -> None:
    import re

    assert re.match(NAME_PATTERN, to_identifier(text))
