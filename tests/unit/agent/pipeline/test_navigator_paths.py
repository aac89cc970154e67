"""The navigator's deterministic part over the demo model: names resolved, join trees per
connected group, another path on a revision."""

from __future__ import annotations

from tests.fixtures.compiler.compiler_golden import demo_model

from dataagent.agent.pipeline.navigator import (
    Resolver,
    connect,
    groups_of,
    query_plan_datasets,
    relevant,
)
from dataagent.semantic.model import Cardinality, Relationship, SemanticModel
from dataagent.semantic.plan import QueryPlan

MODEL = demo_model("sqlite")


def test_names_resolve_by_name_or_source_whatever_the_case() -> None:
    resolve = Resolver(MODEL)
    assert resolve("Orders") == "orders"
    assert resolve("main.ORDER_ITEMS") == "order_items"
    assert resolve('"stores"') == "stores"
    assert resolve("sales") is None


def test_a_query_plan_references_its_fields_metrics_and_window_datasets() -> None:
    plan = QueryPlan.model_validate(
        {
            "metrics": [{"name": "revenue"}],
            "dimensions": [{"field": "stores.region"}],
            "filters": [{"any": [{"field": "customers.segment", "op": "=", "value": "x"}]}],
            "time_window": {"field": "orders.order_date", "period": "last", "grain": "month"},
        }
    )
    assert query_plan_datasets(plan, MODEL) == ["stores", "customers", "orders", "order_items"]


def test_connected_datasets_get_one_tree_with_its_fan_out_marks() -> None:
    paths, notes = connect(MODEL, ["customers", "order_items"])
    [path] = paths
    assert path.datasets == ("customers", "orders", "order_items")
    assert "customers" in path.duplicated_datasets
    assert notes == []
    assert [d.name for d in relevant(MODEL, paths)] == ["customers", "orders", "order_items"]
    assert "name: orders" in relevant(MODEL, paths)[1].yaml


def test_datasets_no_relationship_connects_get_a_note_and_a_tree_each() -> None:
    cut = SemanticModel.model_validate(
        {
            **MODEL.model_dump(),
            "relationships": [
                r.model_dump() for r in MODEL.relationships if "stores" not in r.name
            ],
        }
    )
    assert groups_of(cut, ["orders", "stores", "customers"]) == [
        ["orders", "customers"],
        ["stores"],
    ]
    paths, notes = connect(cut, ["orders", "stores", "customers"])
    assert [p.datasets for p in paths] == [("orders", "customers"), ("stores",)]
    assert "No relationship connects {orders, customers} and {stores}" in notes[0]


def test_a_revision_about_a_fan_out_takes_another_path() -> None:
    # A second way from customers to stores: a customer's home store (many-to-one).
    home = Relationship(
        name="customers_home_store",
        from_dataset="customers",
        from_columns=["city"],
        to_dataset="stores",
        to_columns=["city"],
        cardinality=Cardinality.MANY_TO_ONE,
    )
    model = MODEL.model_copy(update={"relationships": [*MODEL.relationships, home]})
    [first], _ = connect(model, ["customers", "stores"])
    assert first.datasets == ("customers", "stores")
    paths, notes = connect(
        model,
        ["customers", "stores"],
        diagnosis="fan_out: the join duplicates customers' rows",
        previous=[first],
    )
    assert paths[0].datasets == ("customers", "orders", "stores")
    assert notes[0].startswith("Revision: customers and stores are joined along another path")
