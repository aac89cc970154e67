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
from dataagent.semantic.yaml_io import dump_yaml, load_yaml


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


# --- proposals --------------------------------------------------------------------------------


def sales() -> SchemaSnapshot:
    return SchemaSnapshot(
        dialect="postgresql",
        tables=[
            table(
                "lines",
                [
                    col("id"),
                    col("Quantity", "integer"),
                    col("unit_price", "numeric(10,2)"),
                    col("discount", "numeric(4,2)"),
                    col("tax_rate", "numeric(4,2)"),
                    col("price_id", "numeric(10,0)"),
                ],
                schema="public",
                primary_key=["id"],
            ),
            table(
                "orders",
                [
                    col("id"),
                    col("total", "numeric(10,2)"),
                    col("shipping_fee", "double precision"),
                    col("item_count", "integer"),  # not money: a count
                    col("amount", "integer"),  # an integer amount: no type to trust
                ],
                schema="public",
                primary_key=["id"],
            ),
            table(
                "products",
                [col("id"), col("unit_price", "numeric(10,2)"), col("list_price", "real")],
                schema="public",
                primary_key=["id"],
            ),
            table(
                "order_lines",
                [col("id"), col("qty", "integer"), col("price", "numeric(10,2)")],
                schema="public",
                primary_key=["id"],
            ),
            table(
                "line_amount_clash",
                [col("units"), col("price", "real"), col("line_amount", "text")],
                schema="public",
            ),
        ],
    )


def test_every_dataset_gets_a_generated_row_count() -> None:
    model = generate_semantic_model(sales(), "sales")
    counts = [m for m in model.metrics if m.aggregation == "count"]
    assert [m.name for m in counts] == [f"{d.name}_count" for d in model.datasets]
    first = model.metric("line_amount_clash_count")
    assert first is not None
    assert first.label == "Number of line amount clashes"
    assert first.expression is None and first.format.value == "number" and first.generated
    assert model.metric("order_lines_count").label == "Number of order lines"  # type: ignore[union-attr]


def test_money_columns_get_a_total_and_per_unit_prices_an_average() -> None:
    model = generate_semantic_model(sales(), "sales")
    money = {
        m.name: (m.dataset, m.aggregation, m.expression, m.label)
        for m in model.metrics
        if m.format.value == "currency"
    }
    assert money == {
        "total_line_amount_2": (
            "line_amount_clash",
            "sum",
            "line_amount_2",
            "Total line amount 2",
        ),
        # price is in two datasets, and so is unit_price: the names say which
        "avg_line_amount_clash_price": (
            "line_amount_clash",
            "avg",
            "price",
            "Average price of line amount clashes",
        ),
        "avg_lines_unit_price": ("lines", "avg", "unit_price", "Average unit price of lines"),
        "total_lines_line_amount": (
            "lines",
            "sum",
            "line_amount",
            "Total line amount of lines",
        ),
        "avg_order_lines_price": ("order_lines", "avg", "price", "Average price of order lines"),
        "total_order_lines_line_amount": (
            "order_lines",
            "sum",
            "line_amount",
            "Total line amount of order lines",
        ),
        "sum_total": ("orders", "sum", "total", "Sum of total"),
        "total_shipping_fee": ("orders", "sum", "shipping_fee", "Total shipping fee"),
        "avg_products_unit_price": (
            "products",
            "avg",
            "unit_price",
            "Average unit price of products",
        ),
        "avg_list_price": ("products", "avg", "list_price", "Average list price"),
    }
    # not proposed: discount and tax_rate (fractions), price_id (an id), item_count (a
    # count), amount (an integer), primary keys
    assert all(m.generated for m in model.metrics)


def test_quantity_times_price_becomes_a_generated_line_amount() -> None:
    model = generate_semantic_model(sales(), "sales")
    lines = model.dataset("lines")
    assert lines is not None
    amount = lines.field("line_amount")
    assert amount is not None and amount.generated
    # the columns as the generator quotes them: PostgreSQL keeps "Quantity" in capitals
    assert amount.expression == '"Quantity" * unit_price'
    assert amount.data_type is DataType.DECIMAL and amount.label == "Line amount"
    # a discount column is there, but what it means is a guess: the amount stays gross
    assert "Before any discount" in (amount.description or "")
    order_lines = model.dataset("order_lines")
    assert order_lines is not None
    plain = order_lines.field("line_amount")
    assert plain is not None and plain.expression == "qty * price"
    assert "discount" not in (plain.description or "")
    clash = model.dataset("line_amount_clash")
    assert clash is not None
    assert [f.name for f in clash.fields] == ["units", "price", "line_amount", "line_amount_2"]
    assert clash.fields[-1].data_type is DataType.FLOAT
    assert model.dataset("products").field("line_amount") is None  # type: ignore[union-attr]
    assert model.dataset("orders").field("line_amount") is None  # type: ignore[union-attr]
    assert [f.name for f in model.datasets[0].fields if f.generated] == ["line_amount_2"]


def test_proposals_load_back_and_names_are_valid_unique_and_not_field_names() -> None:
    import re

    for snap in (sales(), shop()):
        model = generate_semantic_model(snap, "m")
        assert load_yaml(dump_yaml(model)) == model
        names = [m.name for m in model.metrics]
        assert len(set(names)) == len(names)
        assert all(re.match(NAME_PATTERN, n) for n in names)
        fields = {f.name for d in model.datasets for f in d.fields}
        assert not set(names) & fields
    # shop: orders.total is a DECIMAL; its metric does not take a field's name
    assert generate_semantic_model(shop(), "shop").metric("sum_total") is not None


def test_proposals_are_quoted_for_the_dialect() -> None:
    tables = [table("t", [col("Total Cost", "double"), col("Qty", "int"), col("Price", "real")])]
    pg = generate_semantic_model(SchemaSnapshot(dialect="postgresql", tables=tables), "m")
    # a metric names the field; PostgreSQL folds bare names to lower case, so it is quoted
    assert pg.metric("sum_Total_Cost").expression == '"Total_Cost"'  # type: ignore[union-attr]
    assert pg.datasets[0].field("line_amount").expression == '"Qty" * "Price"'  # type: ignore[union-attr]
    my = generate_semantic_model(SchemaSnapshot(dialect="mysql", tables=tables), "m")
    assert my.metric("sum_Total_Cost").expression == "Total_Cost"  # type: ignore[union-attr]
    assert my.datasets[0].field("line_amount").expression == "Qty * Price"  # type: ignore[union-attr]
    for model in (pg, my):
        assert load_yaml(dump_yaml(model)) == model
