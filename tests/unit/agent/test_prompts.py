"""Seed 000's system prompt: golden rendering, the fallback, join hints among retrieved datasets.

Run with DATAAGENT_UPDATE_GOLDEN=1 to rewrite the golden prompt after an intended change
(and read the diff).
"""

from __future__ import annotations

import os
from pathlib import Path

from dataagent.agent.prompts import (
    JoinHint,
    PromptDataset,
    PromptLimits,
    join_hints_among,
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
LIMITS = PromptLimits(max_rows=500, timeout_s=30.0)


def test_golden_prompt() -> None:
    text = system_prompt(
        [ORDERS, STORES],
        join_hints_among(["orders", "stores"], HINTS),
        "sqlite",
        LIMITS,
        "User: How many orders?\n\nAssistant: 12.\n  - tool query_database(...) -> ...",
    )
    if os.environ.get("DATAAGENT_UPDATE_GOLDEN") == "1":
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
