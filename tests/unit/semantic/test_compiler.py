"""The QueryPlan compiler: joins, fan-out handling, literals, dialect details, determinism."""

from __future__ import annotations

from typing import Any

import pytest
import sqlglot
from sqlglot import exp
from tests.fixtures.compiler.compiler_golden import DIALECTS, retail_model

from dataagent.dialects import sqlglot_name as sqlglot_dialect
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.compiler import CompiledQuery, compile_plan
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.plan import QueryPlan
from dataagent.semantic.time_grains import truncate


def _compile(
    dialect: str = "postgresql", fan_out: Any = "pre_aggregate", **body: Any
) -> CompiledQuery:
    return compile_plan(QueryPlan.model_validate(body), retail_model(dialect), dialect, fan_out)


def _tables(sql: str, dialect: str = "postgresql") -> set[str]:
    return {
        t.name for t in sqlglot.parse_one(sql, read=sqlglot_dialect(dialect)).find_all(exp.Table)
    }


def test_single_dataset_has_no_joins() -> None:
    q = _compile(measures=[{"field": "orders.*", "aggregation": "count"}])
    assert "JOIN" not in q.sql
    assert q.join_path.datasets == ("orders",)
    assert q.columns == ["row_count"] and not q.pre_aggregated and q.notes == []


def test_joins_follow_the_connecting_tree_from_the_first_measure() -> None:
    q = _compile(
        measures=[{"field": "order_items.revenue", "aggregation": "sum"}],
        dimensions=[{"field": "categories.name"}, {"field": "stores.region"}],
    )
    assert q.join_path.root == "order_items"
    assert set(q.join_path.datasets) == {
        "order_items",
        "products",
        "categories",
        "orders",
        "stores",
    }
    assert q.sql.count("LEFT JOIN") == 4
    assert not q.pre_aggregated


def test_sum_across_a_fan_out_is_refused_with_a_reason_when_asked() -> None:
    with pytest.raises(DataAgentError) as err:
        _compile(
            fan_out="refuse",
            measures=[{"field": "stores.square_feet", "aggregation": "sum"}],
            dimensions=[{"field": "orders.channel"}],
        )
    assert err.value.code == ErrorCode.VALIDATION_ERROR
    assert "stores → orders is one_to_many" in err.value.message
    assert "would be inflated" in err.value.message
    assert err.value.details["join_path"]["datasets"] == ["stores", "orders"]


def test_sum_across_a_fan_out_is_pre_aggregated_by_default() -> None:
    q = _compile(
        measures=[{"field": "stores.square_feet", "aggregation": "sum"}],
        dimensions=[{"field": "orders.channel"}],
    )
    assert q.pre_aggregated
    assert "SELECT DISTINCT" in q.sql and '"orders_distinct"' in q.sql
    assert any("would be inflated" in n for n in q.notes)


@pytest.mark.parametrize("aggregation", ["min", "max", "count_distinct"])
def test_repetition_safe_aggregates_never_pre_aggregate(aggregation: str) -> None:
    q = _compile(
        fan_out="refuse",
        measures=[{"field": "stores.square_feet", "aggregation": aggregation}],
        dimensions=[{"field": "orders.channel"}],
    )
    assert not q.pre_aggregated
    assert any("unaffected" in n for n in q.notes)


def test_row_count_of_a_repeated_dataset_counts_its_key() -> None:
    q = _compile(
        fan_out="refuse",
        measures=[{"field": "stores.*", "aggregation": "count"}],
        dimensions=[{"field": "orders.channel"}],
    )
    assert 'COUNT(DISTINCT "stores"."id")' in q.sql
    assert not q.pre_aggregated
    q = _compile(
        measures=[{"field": "stores.id", "aggregation": "count"}],
        dimensions=[{"field": "orders.channel"}],
    )
    assert 'COUNT(DISTINCT "stores"."id")' in q.sql


def test_measures_from_two_datasets_without_dimensions_cross_join() -> None:
    q = _compile(
        measures=[
            {"field": "stores.square_feet", "aggregation": "sum"},
            {"field": "order_items.quantity", "aggregation": "sum"},
        ]
    )
    assert q.pre_aggregated
    assert "CROSS JOIN" in q.sql
    assert q.columns == ["sum_square_feet", "sum_quantity"]


def test_measures_from_two_datasets_join_on_dimensions_null_safely() -> None:
    for dialect, operator in [
        ("postgresql", "IS NOT DISTINCT FROM"),
        ("duckdb", "IS NOT DISTINCT FROM"),
        ("sqlite", " IS "),
        ("mysql", "<=>"),
    ]:
        q = _compile(
            dialect,
            measures=[
                {"field": "stores.square_feet", "aggregation": "avg"},
                {"field": "order_items.quantity", "aggregation": "sum"},
            ],
            dimensions=[{"field": "stores.region"}, {"field": "orders.channel"}],
        )
        assert q.pre_aggregated
        assert operator in q.sql
        assert "UNION" in q.sql


def test_filters_are_literals_not_text() -> None:
    nasty = "x' OR 1=1; DROP TABLE orders; --"
    for dialect in DIALECTS:
        q = _compile(
            dialect,
            dimensions=[{"field": "customers.segment"}],
            filters=[
                {"field": "customers.last_name", "op": "=", "value": nasty},
                {"field": "customers.email", "op": "like", "value": "back\\slash'%"},
            ],
        )
        parsed = sqlglot.parse(q.sql, read=sqlglot_dialect(dialect))
        assert len(parsed) == 1
        literals = {lit.this for lit in parsed[0].find_all(exp.Literal) if lit.is_string}
        assert nasty in literals
        assert "back\\slash'%" in literals
        assert _tables(q.sql, dialect) == {"customers"}


def test_identifiers_are_quoted() -> None:
    q = _compile("mysql", dimensions=[{"field": "orders.status"}])
    assert "`orders`.`status` AS `status`" in q.sql
    assert "FROM `orders` AS `orders`" in q.sql


def test_every_operator_compiles() -> None:
    q = _compile(
        dimensions=[{"field": "orders.id"}],
        filters=[
            {"field": "orders.id", "op": "!=", "value": 1},
            {"field": "orders.id", "op": "<=", "value": -2.5},
            {"field": "orders.id", "op": "between", "value": [1, 9]},
            {"field": "orders.status", "op": "not_in", "value": ["a", "b"]},
            {"field": "orders.status", "op": "is_null"},
            {"field": "orders.channel", "op": "is_not_null"},
        ],
    )
    for fragment in [
        '"orders"."id" <> 1',
        '"orders"."id" <= -2.5',
        '"orders"."id" BETWEEN 1 AND 9',
        "NOT \"orders\".\"status\" IN ('a', 'b')",
        '"orders"."status" IS NULL',
        'NOT "orders"."channel" IS NULL',
    ]:
        assert fragment in q.sql


def test_derived_fields_are_qualified() -> None:
    q = _compile(measures=[{"field": "products.margin", "aggregation": "sum"}])
    assert 'SUM("products"."unit_price" - "products"."unit_cost")' in q.sql


def test_limit_without_order_orders_by_dimensions() -> None:
    q = _compile(dimensions=[{"field": "stores.region"}, {"field": "stores.state"}], limit=3)
    assert 'ORDER BY\n  "region" ASC,\n  "state" ASC\nLIMIT 3' in q.sql


def test_explicit_order_is_completed_by_the_other_dimensions() -> None:
    q = _compile(
        "duckdb",
        measures=[{"field": "stores.square_feet", "aggregation": "sum", "alias": "space"}],
        dimensions=[{"field": "stores.region"}, {"field": "stores.state"}],
        order=[{"by": "space", "direction": "desc"}, {"by": "state"}],
    )
    # DuckDB sorts NULLs last in both directions already; PostgreSQL needs it said.
    assert 'ORDER BY\n  "space" DESC,\n  "state" ASC,\n  "region" ASC' in q.sql


@pytest.mark.parametrize("grain", ["day", "week", "month", "quarter", "year"])
@pytest.mark.parametrize("dialect", DIALECTS)
def test_time_grains_round_trip_through_the_parser(dialect: str, grain: str) -> None:
    name = sqlglot_dialect(dialect)
    sql = truncate(exp.column("d", table="t", quoted=True), grain, name).sql(dialect=name)
    assert sqlglot.parse_one(sql, read=name).sql(dialect=name) == sql
    assert '"t"."d"' in sql or "`t`.`d`" in sql


def test_unknown_dialect_is_refused() -> None:
    with pytest.raises(DataAgentError, match="Unsupported dialect 'oracle'"):
        compile_plan(QueryPlan(dimensions=[{"field": "orders.status"}]), retail_model(), "oracle")


def test_compilation_is_deterministic() -> None:
    body = {
        "measures": [
            {"field": "stores.square_feet", "aggregation": "sum"},
            {"field": "order_items.revenue", "aggregation": "sum"},
            {"field": "customers.*", "aggregation": "count"},
        ],
        "dimensions": [
            {"field": "categories.department"},
            {"field": "orders.order_date", "time_grain": "month"},
        ],
        "filters": [{"field": "customers.segment", "op": "in", "value": ["consumer"]}],
    }
    first = [_compile(d, **body).sql for d in DIALECTS]
    assert first == [_compile(d, **body).sql for d in DIALECTS]


def test_unused_plan_datasets_are_noted_not_joined() -> None:
    q = _compile(datasets=["orders", "stores"], dimensions=[{"field": "orders.status"}])
    assert _tables(q.sql) == {"orders"}
    assert any("stores is listed" in n for n in q.notes)


def _model_with(**changes: Any) -> SemanticModel:
    raw = retail_model().model_dump(by_alias=True)
    for dataset in raw["datasets"]:
        if dataset["name"] == "orders":
            dataset.update(changes.get("orders", {}))
            for field in dataset["fields"]:
                if field["name"] == "status":
                    field.update(changes.get("status", {}))
    return SemanticModel.model_validate(raw)


def test_field_expressions_may_not_hide_queries() -> None:
    model = _model_with(status={"expression": "(SELECT password FROM users)"})
    with pytest.raises(DataAgentError, match="is not a scalar"):
        compile_plan(QueryPlan(dimensions=[{"field": "orders.status"}]), model, "postgresql")
    model = _model_with(status={"expression": "status +"})
    with pytest.raises(DataAgentError, match="unreadable expression"):
        compile_plan(QueryPlan(dimensions=[{"field": "orders.status"}]), model, "postgresql")


def test_quoted_sources_and_case_are_kept() -> None:
    model = _model_with(orders={"source": '"Sales"."Orders"'}, status={"expression": '"Status"'})
    q = compile_plan(QueryPlan(dimensions=[{"field": "orders.status"}]), model, "postgresql")
    assert 'FROM "Sales"."Orders" AS "orders"' in q.sql
    assert '"orders"."Status" AS "status"' in q.sql


def test_generated_names_never_shadow_a_table() -> None:
    raw = retail_model("mysql").model_dump(by_alias=True)
    raw["datasets"].append(
        {"name": "stores_agg", "source": "stores_agg", "fields": [{"name": "x", "expression": "x"}]}
    )
    model = SemanticModel.model_validate(raw)
    plan = QueryPlan.model_validate(
        {
            "measures": [
                {"field": "stores.square_feet", "aggregation": "sum"},
                {"field": "order_items.quantity", "aggregation": "sum"},
            ],
            "dimensions": [{"field": "stores.region"}],
        }
    )
    q = compile_plan(plan, model, "mysql")
    assert "`stores_agg_` AS (" in q.sql


def test_compiled_query_serialises() -> None:
    q = _compile(
        measures=[{"field": "orders.*", "aggregation": "count"}],
        dimensions=[{"field": "stores.region"}],
    )
    body = q.model_dump(mode="json")
    assert body["join_path"]["edges"][0]["relationship"] == "orders_store"
    assert body["columns"] == ["region", "row_count"]
    assert body["pre_aggregated"] is False
