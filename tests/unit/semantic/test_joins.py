"""Join paths over the relationship graph: shortest paths, alternatives, trees, fan-out marks."""

from __future__ import annotations

import pytest
from tests.fixtures.compiler.compiler_golden import retail_model

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.joins import JoinGraph, JoinPath, join_paths, make_path
from dataagent.semantic.model import Cardinality, SemanticModel


@pytest.fixture
def graph() -> JoinGraph:
    return JoinGraph.from_model(retail_model())


def _f(name: str) -> dict[str, str]:
    return {"name": name, "expression": name}


def _chain_model(n: int, extra: list[dict[str, object]] | None = None) -> SemanticModel:
    """Datasets t0..t{n-1}, each t{i+1} many-to-one to t{i}."""
    datasets = [
        {
            "name": f"t{i}",
            "source": f"t{i}",
            "primary_key": ["id"],
            "fields": [_f("id"), _f("parent_id"), _f("code")],
        }
        for i in range(n)
    ]
    relationships = [
        {
            "name": f"t{i + 1}_parent",
            "from": f"t{i + 1}",
            "from_columns": ["parent_id"],
            "to": f"t{i}",
            "to_columns": ["id"],
        }
        for i in range(n - 1)
    ]
    return SemanticModel.model_validate(
        {
            "name": "chain",
            "dialect": "sqlite",
            "datasets": datasets,
            "relationships": relationships + (extra or []),
        }
    )


def test_direct_path_carries_columns_and_cardinality(graph: JoinGraph) -> None:
    [path] = graph.shortest_paths("order_items", "orders", k=1)
    [edge] = path.edges
    assert (edge.from_dataset, edge.to_dataset) == ("order_items", "orders")
    assert edge.from_columns == ("order_id",) and edge.to_columns == ("id",)
    assert edge.cardinality == Cardinality.MANY_TO_ONE
    assert edge.relationship == "order_items_order"
    assert not edge.fan_out and not edge.inferred
    assert not path.fan_out
    # orders rows repeat once per line: an aggregate over orders would fan out.
    assert path.duplicated_datasets == ("orders",)


def test_walking_from_the_one_side_fans_out(graph: JoinGraph) -> None:
    [path] = graph.shortest_paths("customers", "order_items", k=1)
    assert path.datasets == ("customers", "orders", "order_items")
    assert [e.cardinality for e in path.edges] == [Cardinality.ONE_TO_MANY] * 2
    assert [e.from_columns for e in path.edges] == [("id",), ("id",)]
    assert [e.to_columns for e in path.edges] == [("customer_id",), ("order_id",)]
    assert path.fan_out
    assert set(path.duplicated_datasets) == {"customers", "orders"}
    assert not path.duplicates("order_items")


def test_multi_hop_path_through_a_bridge(graph: JoinGraph) -> None:
    [path] = graph.shortest_paths("categories", "stores", k=1)
    assert path.datasets == ("categories", "products", "order_items", "orders", "stores")
    assert path.hops == 4
    assert set(path.duplicated_datasets) == {"categories", "products", "orders", "stores"}


def test_same_dataset_is_an_empty_path(graph: JoinGraph) -> None:
    [path] = graph.shortest_paths("orders", "orders")
    assert path.edges == () and path.datasets == ("orders",) and not path.fan_out


def test_unknown_dataset_is_a_validation_error(graph: JoinGraph) -> None:
    with pytest.raises(DataAgentError) as err:
        graph.shortest_paths("orders", "invoices")
    assert err.value.code == ErrorCode.VALIDATION_ERROR
    assert "invoices" in err.value.message


def test_paths_longer_than_five_hops_are_refused() -> None:
    graph = JoinGraph.from_model(_chain_model(7))
    assert graph.shortest_paths("t0", "t5")[0].hops == 5
    with pytest.raises(DataAgentError) as err:
        graph.shortest_paths("t0", "t6")
    assert err.value.code == ErrorCode.VALIDATION_ERROR
    assert "within 5 hops" in err.value.message
    assert graph.shortest_paths("t0", "t6", max_hops=6)[0].hops == 6


def test_disconnected_datasets_get_a_clear_error() -> None:
    model = _chain_model(2)
    model.datasets.append(model.datasets[0].model_copy(update={"name": "island"}))
    graph = JoinGraph.from_model(model)
    with pytest.raises(DataAgentError, match="not connected"):
        graph.shortest_paths("t0", "island")
    with pytest.raises(DataAgentError, match="cannot all be joined"):
        graph.connecting_tree(["t0", "t1", "island"])


def test_alternatives_prefer_declared_keys_over_inferred_ones() -> None:
    inferred = {
        "name": "t2_guess",
        "from": "t2",
        "from_columns": ["code"],
        "to": "t1",
        "to_columns": ["code"],
        "cardinality": "many_to_many",
        "source": "inferred",
    }
    shortcut = {
        "name": "t3_shortcut",
        "from": "t3",
        "from_columns": ["code"],
        "to": "t0",
        "to_columns": ["id"],
        "source": "manual",
    }
    graph = JoinGraph.from_model(_chain_model(4, [inferred, shortcut]))
    paths = graph.shortest_paths("t2", "t1", k=3)
    # Same length: the foreign key comes first, the inferred relationship second.
    assert [p.edges[0].relationship for p in paths[:2]] == ["t2_parent", "t2_guess"]
    assert paths[1].edges[0].inferred and paths[1].fan_out
    assert paths[2].hops == 3  # t2 -> t3 -> t0 -> t1 via the manual shortcut
    assert paths[2].datasets == ("t2", "t3", "t0", "t1")
    assert len(paths) == 3


def test_at_most_k_paths_and_deterministic(graph: JoinGraph) -> None:
    first = graph.shortest_paths("customers", "stores", k=3)
    again = JoinGraph.from_model(retail_model()).shortest_paths("customers", "stores", k=3)
    assert first == again
    assert 1 <= len(first) <= 3
    assert first[0].datasets == ("customers", "orders", "stores")


def test_composite_keys_and_self_references() -> None:
    model = SemanticModel.model_validate(
        {
            "name": "m",
            "dialect": "duckdb",
            "datasets": [
                {"name": "a", "source": "a", "fields": [_f("x"), _f("y")]},
                {"name": "b", "source": "b", "fields": [_f("x"), _f("y")]},
            ],
            "relationships": [
                {
                    "name": "ab",
                    "from": "b",
                    "from_columns": ["x", "y"],
                    "to": "a",
                    "to_columns": ["x", "y"],
                },
                {
                    "name": "a_self",
                    "from": "a",
                    "from_columns": ["y"],
                    "to": "a",
                    "to_columns": ["x"],
                },
            ],
        }
    )
    [path] = JoinGraph.from_model(model).shortest_paths("a", "b")
    assert path.edges[0].from_columns == ("x", "y")
    assert path.edges[0].cardinality == Cardinality.ONE_TO_MANY


def test_connecting_tree_spans_all_named_datasets(graph: JoinGraph) -> None:
    tree = graph.connecting_tree(["order_items", "categories", "customers", "stores"])
    assert tree.root == "order_items"
    assert set(tree.datasets) == {
        "order_items",
        "products",
        "categories",
        "orders",
        "customers",
        "stores",
    }
    assert tree.hops == 5
    # A join sequence: every edge starts from a dataset already joined.
    joined = {tree.root}
    for edge in tree.edges:
        assert edge.from_dataset in joined and edge.to_dataset not in joined
        joined.add(edge.to_dataset)
    # From the finest grain nothing fans out; every other dataset repeats.
    assert not tree.fan_out
    assert "order_items" not in tree.duplicated_datasets
    assert set(tree.duplicated_datasets) == set(tree.datasets) - {"order_items"}


def test_connecting_tree_is_deterministic_and_rootable(graph: JoinGraph) -> None:
    names = ["stores", "customers", "categories"]
    a = graph.connecting_tree(names)
    b = JoinGraph.from_model(retail_model()).connecting_tree(list(reversed(names)), root="stores")
    assert a == b
    assert a.root == "stores" and a.fan_out


def test_connecting_tree_of_one_or_two(graph: JoinGraph) -> None:
    assert graph.connecting_tree(["orders"]).datasets == ("orders",)
    assert graph.connecting_tree(["orders", "orders"]).hops == 0
    two = graph.connecting_tree(["stores", "customers"])
    assert two.datasets == ("stores", "orders", "customers")
    with pytest.raises(DataAgentError):
        graph.connecting_tree([])


def test_reroot_prunes_to_the_wanted_datasets(graph: JoinGraph) -> None:
    tree = graph.connecting_tree(["order_items", "categories", "customers"])
    sub = tree.reroot("customers", keep=["orders"])
    assert sub.datasets == ("customers", "orders")
    assert sub.fan_out
    whole = tree.reroot("categories")
    assert set(whole.datasets) == set(tree.datasets)
    assert whole.edges[0].from_dataset == "categories"


def test_paths_serialise_with_their_flags(graph: JoinGraph) -> None:
    [path] = graph.shortest_paths("stores", "orders", k=1)
    body = path.model_dump(mode="json")
    assert body["datasets"] == ["stores", "orders"]
    assert body["fan_out"] is True and body["hops"] == 1
    assert body["edges"][0]["cardinality"] == "one_to_many"
    assert body["edges"][0]["fan_out"] is True and body["edges"][0]["inferred"] is False
    assert body["duplicated_datasets"] == ["stores"]


def test_make_path_with_no_edges() -> None:
    assert make_path("x", []) == JoinPath(root="x")


def test_join_paths_answers_pairs_with_alternatives_and_groups_with_a_tree() -> None:
    model = retail_model()
    pair = join_paths(model, ["customers", "stores"])
    assert pair[0].datasets == ("customers", "orders", "stores")
    [tree] = join_paths(model, ["categories", "customers", "stores"])
    assert tree.root == "categories" and set(tree.datasets) >= {"customers", "stores"}
    assert join_paths(model, ["orders"])[0].hops == 0
    with pytest.raises(DataAgentError):
        join_paths(model, ["orders", "nope"])


@pytest.mark.parametrize("size", [10, 400])
def test_a_connecting_tree_ignores_datasets_no_terminal_reaches(size: int) -> None:
    # A large model always has datasets no relationship reaches (the Mehlhorn approximation,
    # used past 300 datasets, failed on them with a KeyError).
    model = _chain_model(size)
    island = model.datasets[0].model_copy(update={"name": "island", "source": "island"})
    graph = JoinGraph.from_model(model.model_copy(update={"datasets": [*model.datasets, island]}))
    tree = graph.connecting_tree(["t0", "t2", "t4"])
    assert set(tree.datasets) == {"t0", "t1", "t2", "t3", "t4"}
