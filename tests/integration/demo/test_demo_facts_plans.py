"""The demo's headline facts, each reproduced by one QueryPlan over the curated metrics.

`dataagent.demo.facts` computes the facts with pandas; here each is asked the way a person
(or the agent) would ask it — one plan, compiled from the curated semantic model the demo
ships, run on the demo DuckDB file — and must give the same figure. Houston is compared with
its peers as the facts do: the mean of the other stores' values.
"""

from __future__ import annotations

import contextlib
import math
from pathlib import Path
from typing import Any

import duckdb
import pytest

from dataagent.demo import curated_model_yaml
from dataagent.demo.catalog import HOUSTON
from dataagent.demo.facts import DemoFacts
from dataagent.demo.generator import DemoData
from dataagent.demo.loaders import write_duckdb
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.plan import QueryPlan
from dataagent.semantic.yaml_io import load_yaml

Rows = list[dict[str, Any]]


@pytest.fixture(scope="module")
def model() -> SemanticModel:
    return load_yaml(curated_model_yaml())


@pytest.fixture(scope="module")
def duckdb_path(tmp_path_factory: pytest.TempPathFactory, demo_data: DemoData) -> Path:
    path = tmp_path_factory.mktemp("facts") / "retail.duckdb"
    write_duckdb(demo_data, path)
    return path


@pytest.fixture(scope="module")
def ask(model: SemanticModel, duckdb_path: Path) -> Any:
    def run(plan: dict[str, Any]) -> Rows:
        compiled = compile_plan(QueryPlan.model_validate(plan), model, "duckdb")
        with contextlib.closing(duckdb.connect(str(duckdb_path), read_only=True)) as db:
            rows = db.execute(compiled.sql).fetchall()
        return [dict(zip(compiled.columns, row, strict=True)) for row in rows]

    return run


def _by_city(rows: Rows, column: str) -> tuple[float, float]:
    """Houston's value and the mean of the other stores' values."""
    houston = next(float(r[column]) for r in rows if r["city"] == HOUSTON)
    peers = [float(r[column]) for r in rows if r["city"] != HOUSTON]
    return houston, sum(peers) / len(peers)


@pytest.mark.parametrize(
    ("metric", "value", "peer_value", "digits"),
    [
        ("average_order_value", "average_order_value", "peer_average_order_value", 2),
        ("return_rate", "return_rate", "peer_return_rate", 4),
        ("revenue_per_square_foot", "revenue_per_square_foot", "peer_revenue_per_square_foot", 2),
    ],
)
def test_houston_against_its_peers(
    ask: Any, demo_facts: DemoFacts, metric: str, value: str, peer_value: str, digits: int
) -> None:
    rows = ask({"metrics": [{"name": metric}], "dimensions": [{"field": "stores.city"}]})
    assert len(rows) == len(demo_facts.stores)
    houston, peers = _by_city(rows, metric)
    assert round(houston, digits) == getattr(demo_facts.houston, value)
    # The facts average the stores' rounded figures: allow one unit of the last digit.
    assert math.isclose(peers, getattr(demo_facts.houston, peer_value), abs_tol=10**-digits)


def test_houston_growth_is_a_year_to_date_comparison(ask: Any, demo_facts: DemoFacts) -> None:
    rows = ask(
        {
            "metrics": [{"name": "revenue"}],
            "dimensions": [{"field": "stores.city"}],
            "time_window": {"field": "orders.order_date", "period": "to_date", "grain": "year"},
            "reference_date": "2025-12-31",
            "compare": "previous_period",
        }
    )
    houston, peers = _by_city(rows, "revenue_change_pct")
    assert round(houston, 4) == demo_facts.houston.growth
    assert math.isclose(peers, demo_facts.houston.peer_growth, abs_tol=1e-4)


def test_overall_gross_margin_and_revenue(ask: Any, demo_facts: DemoFacts) -> None:
    [row] = ask({"metrics": [{"name": "margin_pct"}, {"name": "revenue"}]})
    assert round(float(row["margin_pct"]), 4) == demo_facts.gross_margin
    assert math.isclose(float(row["revenue"]), demo_facts.net_revenue, abs_tol=0.01)


def test_houston_revenue_rank(ask: Any, demo_facts: DemoFacts) -> None:
    rows = ask(
        {
            "metrics": [{"name": "revenue"}],
            "dimensions": [{"field": "stores.city"}],
            "order": [{"by": "revenue", "direction": "desc"}],
        }
    )
    assert [r["city"] for r in rows].index(HOUSTON) + 1 == demo_facts.houston.revenue_rank
