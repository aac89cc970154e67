"""Metrics and derived fields in the YAML: the two metric forms, and errors at line and path."""

from __future__ import annotations

import pytest
from tests.fixtures.compiler.compiler_golden import HERE

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.model import MetricFormat
from dataagent.semantic.yaml_io import dump_yaml, load_yaml

# The retail model without its own metrics: each test writes the metrics it needs.
BASE = (HERE / "retail_model.yaml").read_text().split("\nmetrics:\n")[0] + "\n"
METRICS = """\
metrics:
  - name: revenue
    label: Revenue
    description: Net revenue of completed orders.
    synonyms: [sales, turnover]
    format: currency
    dataset: order_items
    aggregation: sum
    expression: quantity * unit_price * (1 - discount)
    filter: orders.status = 'completed'
  - name: gross_margin
    format: currency
    dataset: order_items
    aggregation: sum
    expression: revenue - quantity * products.unit_cost
  - name: order_count
    dataset: orders
    aggregation: count
  - name: average_order_value
    format: currency
    numerator: revenue
    denominator: order_count
"""


def _load(metrics: str = METRICS, base: str = BASE) -> object:
    return load_yaml(base + metrics)


def _error(text: str) -> dict[str, object]:
    with pytest.raises(DataAgentError) as caught:
        load_yaml(text)
    assert caught.value.code == ErrorCode.VALIDATION_ERROR
    details = caught.value.details
    assert isinstance(details, list)
    first: dict[str, object] = details[0]
    return first


def _line_of(text: str, needle: str) -> int:
    lines = text.splitlines()
    exact = [i for i, line in enumerate(lines, 1) if line.strip() == needle.strip()]
    return exact[0] if exact else next(i for i, line in enumerate(lines, 1) if needle in line)


def test_both_metric_forms_load_and_round_trip() -> None:
    model = load_yaml(BASE + METRICS)
    revenue = model.metric("revenue")
    assert revenue is not None and revenue.format == MetricFormat.CURRENCY
    assert revenue.synonyms == ["sales", "turnover"] and not revenue.is_ratio
    aov = model.metric("average_order_value")
    assert aov is not None and aov.is_ratio and aov.denominator == "order_count"
    assert load_yaml(dump_yaml(model)) == model


@pytest.mark.parametrize(
    ("old", "new", "path", "needle"),
    [
        (
            "    denominator: order_count",
            "    denominator: nothing",
            "metrics[3].denominator",
            "'nothing' is not a metric",
        ),
        (
            "    denominator: order_count",
            "    denominator: average_order_value",
            "metrics[3].denominator",
            "is a ratio",
        ),
        ("    dataset: orders\n", "    dataset: order\n", "metrics[2].dataset", "does not exist"),
        (
            "    filter: orders.status = 'completed'",
            "    filter: orders.state = 'completed'",
            "metrics[0].filter",
            "has no field 'state'",
        ),
        (
            "    filter: orders.status = 'completed'",
            "    filter: status IN (SELECT 1)",
            "metrics[0].filter",
            "scalar",
        ),
        (
            "    expression: revenue - quantity * products.unit_cost",
            "    expression: SUM(quantity)",
            "metrics[1].expression",
            "aggregate",
        ),
        (
            "  - name: order_count\n    dataset: orders\n    aggregation: count\n",
            "  - name: order_count\n    dataset: orders\n    aggregation: sum\n"
            "    expression: order_items.quantity\n",
            "metrics[2].expression",
            "many rows per orders row",
        ),
        (
            "    expression: quantity * unit_price * (1 - discount)",
            "    expression: quantity * (unit_price",
            "metrics[0].expression",
            "readable",
        ),
    ],
)
def test_metric_problems_point_at_their_line(old: str, new: str, path: str, needle: str) -> None:
    text = BASE + METRICS.replace(old, new)
    assert text != BASE + METRICS
    detail = _error(text)
    assert detail["path"] == path
    assert needle in str(detail["message"])
    key = path.rsplit(".", 1)[-1]
    assert detail["line"] == _line_of(text, new.strip().splitlines()[-1] if key != "name" else key)


def test_a_metric_needs_one_whole_form() -> None:
    text = BASE + "metrics:\n  - name: half\n    numerator: revenue\n"
    detail = _error(text)
    assert detail["path"] == "metrics[0]"
    assert "numerator and denominator" in str(detail["message"])
    detail = _error(BASE + "metrics:\n  - name: total\n    dataset: orders\n    aggregation: sum\n")
    assert "needs an expression" in str(detail["message"])


def test_metric_names_are_unique() -> None:
    text = BASE + METRICS + "  - name: revenue\n    dataset: orders\n    aggregation: count\n"
    detail = _error(text)
    assert detail["path"] == "metrics[4].name" and "appears twice" in str(detail["message"])


def test_derived_fields_use_only_their_own_columns() -> None:
    good = "expression: quantity * unit_price * (1 - discount)"
    assert good in BASE
    outside = BASE.replace(good, "expression: quantity * products.unit_cost")
    detail = _error(outside)
    assert str(detail["path"]).endswith(".expression")
    assert "outside its dataset" in str(detail["message"])
    assert detail["line"] == _line_of(outside, "products.unit_cost")
    unknown = BASE.replace(good, "expression: quantity * list_price")
    assert "'list_price' is not a column of order_items" in str(_error(unknown)["message"])
    statement = BASE.replace(good, "expression: (SELECT MAX(quantity) FROM order_items)")
    assert "scalar" in str(_error(statement)["message"])
