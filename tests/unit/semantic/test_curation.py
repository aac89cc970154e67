"""The three-way merge of a new generation into a model people have edited."""

from __future__ import annotations

import pytest

from dataagent.semantic.catalog import ColumnInfo, ForeignKeyInfo, SchemaSnapshot, TableInfo
from dataagent.semantic.curation import ModelChange, merge_models
from dataagent.semantic.expressions import expression_problems
from dataagent.semantic.generation import generate_semantic_model
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.yaml_io import dump_yaml, load_yaml


def col(name: str, native: str = "INTEGER", **kw: object) -> ColumnInfo:
    return ColumnInfo(name=name, native_type=native, **kw)  # type: ignore[arg-type]


def shop(
    *, note: bool = False, stores: bool = True, segments: list[str] | None = None
) -> SchemaSnapshot:
    """A small shop; the keywords change the database the way people change theirs."""
    customers = [col("id"), col("name", "TEXT"), col("segment", "TEXT", sample_values=["a"])]
    if segments is not None:
        customers[2] = col("segment", "TEXT", sample_values=segments)
    orders = [col("id"), col("customer_id"), col("store_id"), col("total", "DECIMAL(10,2)")]
    if note:
        orders.append(col("note", "TEXT"))
    tables = [
        TableInfo(schema_name="main", name="customers", columns=customers, primary_key=["id"]),
        TableInfo(
            schema_name="main",
            name="orders",
            columns=orders,
            primary_key=["id"],
            row_estimate=10,
            foreign_keys=[
                ForeignKeyInfo(
                    columns=["customer_id"], referred_table="customers", referred_columns=["id"]
                )
            ],
        ),
        TableInfo(
            schema_name="main",
            name="order_items",
            columns=[
                col("id"),
                col("order_id"),
                col("quantity"),
                col("unit_price", "DECIMAL(10,2)"),
            ],
            primary_key=["id"],
        ),
    ]
    if stores:
        tables.append(
            TableInfo(
                schema_name="main",
                name="stores",
                columns=[col("id"), col("city", "TEXT")],
                primary_key=["id"],
            )
        )
    return SchemaSnapshot(dialect="sqlite", tables=tables)


def gen(snapshot: SchemaSnapshot) -> SemanticModel:
    return generate_semantic_model(snapshot, "shop")


def edit(model: SemanticModel, change: object) -> SemanticModel:
    """A person's edit: the model as YAML, changed, loaded back (so it validates)."""
    data = model.model_dump(mode="json", by_alias=True)
    change(data)  # type: ignore[operator]
    return load_yaml(dump_yaml(SemanticModel.model_validate(data)))


def changes_of(changes: list[ModelChange]) -> dict[tuple[str, str], str]:
    return {(c.kind, c.name): c.change for c in changes}


def check(model: SemanticModel) -> None:
    """The merged model validates, its expressions hold, and it survives YAML."""
    SemanticModel.model_validate(model.model_dump(mode="json", by_alias=True))
    assert expression_problems(model) == []
    assert load_yaml(dump_yaml(model)) == model


def dataset(data: dict, name: str) -> dict:  # type: ignore[type-arg]
    return next(d for d in data["datasets"] if d["name"] == name)


def field(data: dict, ds: str, name: str) -> dict:  # type: ignore[type-arg]
    return next(f for f in dataset(data, ds)["fields"] if f["name"] == name)


def metric(data: dict, name: str) -> dict:  # type: ignore[type-arg]
    return next(m for m in data["metrics"] if m["name"] == name)


# --- unchanged by people: follow the generator ------------------------------------------------


def test_an_unedited_model_becomes_the_new_generation_exactly() -> None:
    base = gen(shop())
    theirs = gen(shop(note=True, stores=False, segments=["a", "b"]))
    merged, changes = merge_models(base, base, theirs)
    assert dump_yaml(merged) == dump_yaml(theirs)
    found = changes_of(changes)
    assert found[("field", "orders.note")] == "added"
    assert found[("dataset", "stores")] == "removed"
    assert found[("metric", "stores_count")] == "removed"
    assert ("field", "customers.segment") not in found  # new sample values are not news
    assert ("dataset", "orders") not in found
    check(merged)


def test_the_same_generation_changes_nothing() -> None:
    base = gen(shop())
    merged, changes = merge_models(base, base, gen(shop()))
    assert merged == base and changes == []


# --- edited by people: kept -------------------------------------------------------------------


def test_an_edited_metric_is_kept_and_no_longer_marked_generated() -> None:
    base = gen(shop())

    def describe(data: dict) -> None:  # type: ignore[type-arg]
        metric(data, "orders_count")["description"] = "Orders placed, cancelled ones too."

    ours = edit(base, describe)
    theirs = gen(shop()).model_copy(deep=True)
    theirs.metrics[theirs.metrics.index(theirs.metric("orders_count"))] = theirs.metric(  # type: ignore[arg-type]
        "orders_count"
    ).model_copy(update={"label": "Order count"})  # type: ignore[union-attr]
    merged, changes = merge_models(base, ours, theirs)
    kept = merged.metric("orders_count")
    assert kept is not None
    assert kept.description == "Orders placed, cancelled ones too."
    assert kept.label == "Order count"  # what people did not touch follows the generator
    assert kept.generated is False
    [change] = [c for c in changes if c.name == "orders_count"]
    assert change.change == "kept_edit" and change.reason == "edited by you (description)"
    check(merged)


def test_an_edited_field_keeps_the_edit_and_takes_new_sample_values() -> None:
    base = gen(shop())

    def describe(data: dict) -> None:  # type: ignore[type-arg]
        field(data, "customers", "segment")["description"] = "Market segment."

    merged, changes = merge_models(base, edit(base, describe), gen(shop(segments=["a", "b"])))
    segment = merged.dataset("customers").field("segment")  # type: ignore[union-attr]
    assert segment is not None
    assert segment.description == "Market segment." and segment.sample_values == ["a", "b"]
    assert changes_of(changes) == {("field", "customers.segment"): "kept_edit"}


def test_an_edited_dataset_keeps_its_description() -> None:
    base = gen(shop())

    def describe(data: dict) -> None:  # type: ignore[type-arg]
        dataset(data, "orders")["description"] = "Every order, one row each."

    theirs = gen(shop(note=True))
    merged, changes = merge_models(base, edit(base, describe), theirs)
    orders = merged.dataset("orders")
    assert orders is not None and orders.description == "Every order, one row each."
    assert orders.field("note") is not None
    assert changes_of(changes)[("dataset", "orders")] == "kept_edit"


def test_an_edited_derived_field_whose_column_went_is_dropped_with_the_reason() -> None:
    base = gen(shop())

    def describe(data: dict) -> None:  # type: ignore[type-arg]
        field(data, "order_items", "line_amount")["description"] = "Gross."

    theirs = gen(shop()).model_copy(deep=True)
    items = theirs.dataset("order_items")
    assert items is not None
    items.fields = [f for f in items.fields if f.name not in ("unit_price", "line_amount")]
    theirs.metrics = [m for m in theirs.metrics if m.name != "total_line_amount"]
    merged, changes = merge_models(base, edit(base, describe), theirs)
    assert merged.dataset("order_items").field("line_amount") is None  # type: ignore[union-attr]
    [change] = [c for c in changes if c.name == "order_items.line_amount"]
    assert change.change == "dropped" and "unit_price" in (change.reason or "")
    assert changes_of(changes)[("metric", "total_line_amount")] == "removed"
    check(merged)


def test_an_edited_dataset_whose_table_went_is_dropped() -> None:
    base = gen(shop())

    def describe(data: dict) -> None:  # type: ignore[type-arg]
        dataset(data, "stores")["description"] = "Our shops."
        field(data, "stores", "city")["label"] = "Town"

    merged, changes = merge_models(base, edit(base, describe), gen(shop(stores=False)))
    assert merged.dataset("stores") is None
    by_name = {c.name: c for c in changes}
    assert by_name["stores"].change == "dropped"
    assert "main.stores is no longer in the database" in (by_name["stores"].reason or "")
    assert by_name["stores.city"].change == "dropped"
    assert by_name["stores_count"].change == "removed"
    check(merged)


def test_a_dataset_pointed_at_another_table_stays_when_its_old_table_goes() -> None:
    base = gen(shop())

    def repoint(data: dict) -> None:  # type: ignore[type-arg]
        dataset(data, "customers")["source"] = "main.stores"

    theirs = gen(shop()).model_copy(deep=True)
    theirs.datasets = [d for d in theirs.datasets if d.name != "customers"]
    theirs.relationships = [r for r in theirs.relationships if r.to_dataset != "customers"]
    theirs.metrics = [m for m in theirs.metrics if m.dataset != "customers"]
    merged, changes = merge_models(base, edit(base, repoint), theirs)
    customers = merged.dataset("customers")
    assert customers is not None and customers.source == "main.stores"
    # stores has id but neither name nor segment
    assert [f.name for f in customers.fields] == ["id"]
    found = changes_of(changes)
    assert found[("dataset", "customers")] == "kept_edit"
    assert found[("field", "customers.name")] == "dropped"
    check(merged)


# --- deleted by people: stays deleted ---------------------------------------------------------


def test_a_deleted_field_and_metric_stay_deleted() -> None:
    base = gen(shop())

    def delete(data: dict) -> None:  # type: ignore[type-arg]
        items = dataset(data, "order_items")
        items["fields"] = [f for f in items["fields"] if f["name"] != "line_amount"]
        data["metrics"] = [m for m in data["metrics"] if m["name"] != "total_line_amount"]

    ours = edit(base, delete)
    merged, changes = merge_models(base, ours, gen(shop(note=True)))
    assert merged.dataset("order_items").field("line_amount") is None  # type: ignore[union-attr]
    assert merged.metric("total_line_amount") is None
    assert merged.dataset("orders").field("note") is not None  # type: ignore[union-attr]
    found = changes_of(changes)
    assert found[("field", "order_items.line_amount")] == "kept_deletion"
    assert found[("metric", "total_line_amount")] == "kept_deletion"
    check(merged)


def test_a_deleted_dataset_stays_deleted_with_its_new_columns() -> None:
    base = gen(shop())

    def delete(data: dict) -> None:  # type: ignore[type-arg]
        data["datasets"] = [d for d in data["datasets"] if d["name"] != "orders"]
        data["relationships"] = [
            r for r in data["relationships"] if "orders" not in (r["from"], r["to"])
        ]
        data["metrics"] = [m for m in data["metrics"] if m["dataset"] != "orders"]

    merged, changes = merge_models(base, edit(base, delete), gen(shop(note=True)))
    assert merged.dataset("orders") is None
    found = changes_of(changes)
    assert found[("dataset", "orders")] == "kept_deletion"
    assert ("field", "orders.note") not in found
    check(merged)


# --- added by people: kept, unless what it names is gone --------------------------------------


def _with_additions(base: SemanticModel) -> SemanticModel:
    def add(data: dict) -> None:  # type: ignore[type-arg]
        dataset(data, "orders")["fields"].append(
            {"name": "big", "expression": "total > 100", "description": "A big order."}
        )
        dataset(data, "stores")["fields"].append({"name": "town", "expression": "city"})
        data["relationships"].append(
            {
                "name": "orders_store",
                "from": "orders",
                "from_columns": ["store_id"],
                "to": "stores",
                "to_columns": ["id"],
                "source": "manual",
            }
        )
        data["metrics"] += [
            {"name": "big_orders", "dataset": "orders", "aggregation": "count", "filter": "big"},
            {
                "name": "store_count",
                "dataset": "stores",
                "aggregation": "count_distinct",
                "expression": "city",
            },
            {"name": "big_share", "numerator": "big_orders", "denominator": "orders_count"},
            {"name": "per_store", "numerator": "orders_count", "denominator": "store_count"},
        ]

    return edit(base, add)


def test_a_persons_additions_are_kept() -> None:
    base = gen(shop())
    ours = _with_additions(base)
    merged, changes = merge_models(base, ours, gen(shop(note=True)))
    assert merged.dataset("orders").field("big") is not None  # type: ignore[union-attr]
    assert merged.metric("big_orders") is not None and merged.metric("per_store") is not None
    assert [r.name for r in merged.relationships if r.name == "orders_store"] == ["orders_store"]
    assert changes_of(changes) == {("field", "orders.note"): "added"}
    check(merged)


def test_a_persons_additions_on_what_went_are_dropped_with_reasons() -> None:
    base = gen(shop())
    ours = _with_additions(base)
    theirs = gen(shop(stores=False)).model_copy(deep=True)
    orders = theirs.dataset("orders")
    assert orders is not None
    orders.fields = [f for f in orders.fields if f.name != "total"]  # the column went
    theirs.metrics = [m for m in theirs.metrics if m.name != "sum_total"]
    merged, changes = merge_models(base, ours, theirs)
    by_name = {c.name: c for c in changes}
    assert by_name["orders.big"].change == "dropped"
    assert "'total' is not a column of orders" in (by_name["orders.big"].reason or "")
    assert by_name["big_orders"].change == "dropped"  # its filter named the field
    assert by_name["big_share"].change == "dropped"  # and this its part
    assert by_name["big_share"].reason == "its part big_orders is gone"
    assert by_name["orders_store"].change == "dropped"
    assert by_name["orders_store"].reason == "dataset stores is gone"
    assert by_name["store_count"].change == "dropped"
    assert by_name["per_store"].change == "dropped"
    assert by_name["stores.town"].change == "dropped"
    assert by_name["stores"].change == "removed"
    assert by_name["orders.total"].change == "removed"
    assert by_name["sum_total"].change == "removed"
    check(merged)


def test_a_persons_field_on_a_column_that_went_is_dropped() -> None:
    base = gen(shop(note=True))

    def add(data: dict) -> None:  # type: ignore[type-arg]
        dataset(data, "orders")["fields"].append({"name": "remark", "expression": "note"})

    merged, changes = merge_models(base, edit(base, add), gen(shop()))
    assert merged.dataset("orders").field("remark") is None  # type: ignore[union-attr]
    [change] = [c for c in changes if c.name == "orders.remark"]
    assert change.change == "dropped"
    assert change.reason == "column note is no longer in main.orders"


def test_the_same_name_added_by_both_keeps_the_persons() -> None:
    base = gen(shop())

    def add(data: dict) -> None:  # type: ignore[type-arg]
        dataset(data, "orders")["fields"].append(
            {"name": "note", "expression": "'n/a'", "label": "Note (none yet)"}
        )

    merged, changes = merge_models(base, edit(base, add), gen(shop(note=True)))
    note = merged.dataset("orders").field("note")  # type: ignore[union-attr]
    assert note is not None and note.expression == "'n/a'"
    assert changes_of(changes) == {("field", "orders.note"): "kept_edit"}


# --- without a base ---------------------------------------------------------------------------


def test_without_a_base_generated_and_equal_items_follow_the_generator() -> None:
    old = gen(shop(segments=["a"]))

    def edits(data: dict) -> None:  # type: ignore[type-arg]
        # generated: counts as unedited, so the generator's description comes back
        metric(data, "orders_count")["description"] = "Changed, but still marked generated."
        # not generated and not the generator's: a person's
        field(data, "customers", "name")["description"] = "Full name."
        data["metrics"].append({"name": "named", "dataset": "customers", "aggregation": "count"})

    ours = edit(old, edits)
    theirs = gen(shop(note=True, stores=False, segments=["a", "b"]))
    merged, changes = merge_models(None, ours, theirs)
    assert merged.metric("orders_count") == theirs.metric("orders_count")
    customers = merged.dataset("customers")
    assert customers is not None
    assert customers.field("name").description == "Full name."  # type: ignore[union-attr]
    assert customers.field("segment").sample_values == ["a", "b"]  # type: ignore[union-attr]
    assert merged.metric("named") is not None
    assert merged.dataset("stores") is None  # its table went
    found = changes_of(changes)
    assert found[("field", "customers.name")] == "kept_edit"
    assert found[("field", "orders.note")] == "added"
    assert found[("dataset", "stores")] == "removed"
    assert found[("metric", "orders_count")] == "updated"
    check(merged)


def test_without_a_base_an_unedited_model_becomes_the_new_generation() -> None:
    old = gen(shop())
    # models stored before proposals existed had no metrics and no derived fields
    legacy = old.model_copy(deep=True)
    legacy.metrics = []
    items = legacy.dataset("order_items")
    assert items is not None
    items.fields = [f for f in items.fields if not f.generated]
    theirs = gen(shop(note=True))
    merged, changes = merge_models(None, legacy, theirs)
    assert dump_yaml(merged) == dump_yaml(theirs)
    assert {c.change for c in changes} == {"added"}


# --- always -----------------------------------------------------------------------------------


@pytest.mark.parametrize("with_base", [True, False])
def test_merging_again_changes_nothing_more(with_base: bool) -> None:
    base = gen(shop())
    ours = _with_additions(base)
    theirs = gen(shop(note=True, stores=False))
    first, _ = merge_models(base if with_base else None, ours, theirs)
    again, changes = merge_models(theirs if with_base else None, first, theirs)
    assert again == first
    assert {c.change for c in changes} <= {"kept_edit", "kept_deletion"}


def test_a_ratio_metric_edit_that_mixes_forms_keeps_the_persons_whole() -> None:
    base = gen(shop())

    def to_ratio(data: dict) -> None:  # type: ignore[type-arg]
        m = metric(data, "sum_total")
        for key in ("dataset", "aggregation", "expression"):
            m.pop(key)
        m.update({"numerator": "orders_count", "denominator": "customers_count"})

    theirs = gen(shop()).model_copy(deep=True)
    i = theirs.metrics.index(theirs.metric("sum_total"))  # type: ignore[arg-type]
    theirs.metrics[i] = theirs.metrics[i].model_copy(update={"filter": "total > 0"})
    merged, _ = merge_models(base, edit(base, to_ratio), theirs)
    kept = merged.metric("sum_total")
    assert kept is not None and kept.is_ratio and kept.filter is None
    check(merged)


def test_changes_are_plain_data() -> None:
    change = ModelChange(kind="metric", name="m", change="dropped", reason="why")
    assert change.model_dump() == {
        "kind": "metric",
        "name": "m",
        "change": "dropped",
        "reason": "why",
    }
