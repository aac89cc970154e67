"""The planner's and the SQL builder's prompts: golden renderings, and what each holds.

Run with DATAAGENT_UPDATE_GOLDEN=1 to rewrite the golden prompts after an intended change
(and read the diff); CI refuses that mode (see `update_golden`).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from tests.fixtures.compiler.compiler_golden import demo_model, update_golden

from dataagent.agent.grounding import prompt_metrics
from dataagent.agent.pipeline.navigator import connect, relevant
from dataagent.agent.pipeline.prompts import navigator_prompt, planner_prompt, sql_prompt
from dataagent.agent.prompts import JoinHint, PromptDataset

FIXTURES = Path(__file__).parents[3] / "fixtures" / "prompts"
MODEL = demo_model("sqlite")
TODAY = dt.date(2025, 6, 30)

ORDERS = PromptDataset(
    "orders",
    "Customer orders.",
    "name: orders\nsource: main.orders\nfields:\n- name: id\n  data_type: integer\n"
    "- name: store_id\n  data_type: integer\n- name: status\n  data_type: varchar\n",
)
STORES = PromptDataset(
    "stores", None, "name: stores\nsource: main.stores\nfields:\n- name: id\n  data_type: integer\n"
)
HINTS = [JoinHint("orders_store", "orders", ("store_id",), "stores", ("id",), "many_to_one")]


def golden(name: str, text: str) -> None:
    path = FIXTURES / name
    if update_golden():
        path.write_text(text)
    assert text == path.read_text()


def test_golden_planner_prompt() -> None:
    text = planner_prompt(
        [ORDERS, STORES],
        HINTS,
        prompt_metrics(MODEL, ["completed_orders"]),
        "sqlite",
        TODAY,
        conversation="User: How many stores?\n\nAssistant: 10.",
        preferences={"default_time_window": "last 12 months", "currency_format": "USD"},
        answered_clarification=[
            {
                "question": "Which time window?",
                "assumption": "The last 12 months",
                "preferenceKey": "default_time_window",
            }
        ],
    )
    golden("planner_prompt.md", text)


def test_the_planner_prompt_leaves_out_what_is_not_given() -> None:
    text = planner_prompt([ORDERS], [], [], "postgresql", TODAY)
    assert "## Datasets" in text and "### orders" in text
    for absent in ("## Metrics", "## Relationships", "## User Preferences", "## Clarification"):
        assert absent not in text
    assert "The database is PostgreSQL. Today is 2025-06-30." in text
    nothing = planner_prompt([], [], [], "duckdb", TODAY)
    assert "found nothing" in nothing


def test_the_planner_prompt_grows_with_what_was_retrieved_only() -> None:
    # The same retrieval over a model of 6 datasets or 1,000 gives the same prompt: the
    # model itself never enters it.
    one = planner_prompt([ORDERS], HINTS, [], "sqlite", TODAY)
    two = planner_prompt([ORDERS, STORES], HINTS, [], "sqlite", TODAY)
    assert len(two) - len(one) == len("\n\n### stores\n\n```yaml\n" + STORES.yaml.strip() + "\n```")


def test_golden_sql_prompt() -> None:
    paths, _ = connect(MODEL, ["customers", "order_items"])
    datasets = [PromptDataset(d.name, d.description, d.yaml) for d in relevant(MODEL, paths)]
    text = sql_prompt(
        "sqlite",
        "Step 1: Units per customer segment\nExpected output: segment, units",
        "Intent: Units by segment\nGrain: segment",
        paths,
        datasets[:1],  # one YAML block is enough to pin the form
        diagnosis="fan_out: SUM(quantity) over a join that repeats order_items rows",
        problem="the SQL reads a column the semantic model does not have (Unknown column: x)",
        previous_sql="SELECT x FROM customers",
    )
    golden("sql_prompt.md", text)
    assert "customers.id = orders.customer_id (one-to-many; orders_customer_id_customers)" in text
    assert "These joins repeat rows of customers, orders" in text


def test_the_navigator_prompt_names_the_steps_and_what_is_missing() -> None:
    text = navigator_prompt("Sales per store?", [(1, "Sales per store", ["sales"])], ["sales"], 8)
    assert "1. Sales per store (named: sales)" in text
    assert "which do not exist: sales" in text and "At most 8 rounds" in text


def test_past_six_retrieved_datasets_the_planner_reads_one_line_each() -> None:
    many = [
        PromptDataset(f"table_{n}", f"Table number {n}.", f"name: table_{n}\nfields: []\n")
        for n in range(10)
    ]
    text = planner_prompt(many, [], [], "sqlite", TODAY)
    assert "These 10 datasets" in text
    assert "### table_5" in text and "### table_6" not in text
    assert "- **table_6**: Table number 6." in text and "- **table_9**: Table number 9." in text
