"""Seed 000's system prompt: golden rendering, the fallback, join hints among retrieved datasets.

Run with DATAAGENT_UPDATE_GOLDEN=1 to rewrite the golden prompt after an intended change
(and read the diff); CI refuses that mode (see `update_golden`).
"""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.compiler.compiler_golden import retail_model, update_golden
from tests.fixtures.metrics import with_metrics

from dataagent.agent.grounding import prompt_metrics
from dataagent.agent.prompts import (
    JoinHint,
    PromptDataset,
    PromptLimits,
    PromptMetric,
    join_hints_among,
    metric_line,
    system_prompt,
)

GOLDEN = Path(__file__).parents[2] / "fixtures" / "prompts" / "system_prompt.md"

ORDERS = PromptDataset(
    "orders",
    "Customer orders.",
    "name: orders\nsource: main.orders\nfields:\n- name: id\n  data_type: integer\n"
    "- name: store_id\n  data_type: integer\n",
)
STORES = PromptDataset(
    "stores", None, "name: stores\nsource: main.stores\nfields:\n- name: id\n  data_type: integer\n"
)
HINTS = [
    JoinHint("orders_store", "orders", ("store_id",), "stores", ("id",), "many_to_one"),
    JoinHint("orders_customer", "orders", ("customer_id",), "customers", ("id",), "many_to_one"),
]
LIMITS = PromptLimits(max_rows=500, timeout_s=30.0, calls_per_turn=10, result_chars=20_000)


def test_golden_prompt() -> None:
    text = system_prompt(
        [ORDERS, STORES],
        join_hints_among(["orders", "stores"], HINTS),
        "sqlite",
        LIMITS,
        "User: How many orders?\n\nAssistant: 12.\n  - tool query_database(...) -> ...",
    )
    if update_golden():
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text()


def test_join_hints_need_both_ends_retrieved() -> None:
    assert join_hints_among(["orders", "stores"], HINTS) == [HINTS[0]]
    assert join_hints_among(["orders"], HINTS) == []


def test_nothing_retrieved_points_at_list_datasets() -> None:
    text = system_prompt([], [], "postgresql", LIMITS)
    assert "found nothing" in text and "`list_datasets`" in text
    assert "## Relationships" not in text and "## Previous Conversation" not in text
    assert "The database is PostgreSQL" in text


def test_prompt_grows_with_the_datasets_given_only() -> None:
    one = system_prompt([ORDERS], [], "duckdb", LIMITS)
    two = system_prompt([ORDERS, STORES], [], "duckdb", LIMITS)
    assert len(two) - len(one) < len(STORES.yaml) + 100
    assert ORDERS.yaml.strip() in one and "stores" not in one.split("## Database")[0]


RATE = PromptMetric(
    "return_rate",
    "Return rate",
    "Share of orders that were returned",
    "percent",
    ["orders"],
    "returned_orders / order_count",
)


def test_a_metric_is_one_line() -> None:
    assert metric_line(RATE) == (
        "- **return_rate** (Return rate; percent): Share of orders that were returned. "
        "Datasets: orders. Definition: `returned_orders / order_count`"
    )
    bare = PromptMetric("units", None, None, "number", ["order_items"], "sum(quantity)")
    assert metric_line(bare) == (
        "- **units** (number): Datasets: order_items. Definition: `sum(quantity)`"
    )


def test_metrics_come_after_the_datasets_and_only_when_found() -> None:
    text = system_prompt([ORDERS], [], "sqlite", LIMITS, metrics=[RATE])
    assert (
        text.index("## Available Datasets") < text.index("## Metrics") < text.index("## Database")
    )
    assert metric_line(RATE) in text
    assert "## Metrics" not in system_prompt([ORDERS], [], "sqlite", LIMITS)


def test_prompt_metrics_follow_each_ratio_with_its_parts() -> None:
    model = with_metrics(retail_model())
    listed = prompt_metrics(model, ["return_rate", "nothing", "order_count", "units_sold"])
    assert [m.name for m in listed] == [
        "return_rate",
        "returned_orders",
        "order_count",
        "units_sold",
    ]
    assert listed[1].definition == "count(*) where status = 'returned'"
    assert listed[0].datasets == ["orders"] and listed[0].format == "percent"
