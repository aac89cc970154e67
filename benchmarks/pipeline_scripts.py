"""The scripted model's answers for `pipeline_bench.py`, one question per complexity.

Each is what a capable model would answer at each call the pipeline makes for that question;
the benchmark counts the calls and the prompt tokens the pipeline sends.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.scripted_model import Reply

REVENUE_BY_REGION_2025 = {
    "datasets": ["order_items", "orders", "stores"],
    "metrics": [{"name": "revenue"}],
    "dimensions": [{"field": "stores.region"}],
    "filters": [
        {"field": "orders.order_date", "op": ">=", "value": "2025-01-01"},
        {"field": "orders.order_date", "op": "<", "value": "2026-01-01"},
    ],
    "order": [{"by": "revenue", "direction": "desc"}],
}
MONTHLY_BY_CITY = (
    "SELECT s.city, strftime(o.order_date, '%Y-%m') AS month, "
    "SUM(oi.quantity * oi.unit_price * (1 - oi.discount)) AS revenue "
    "FROM order_items oi JOIN orders o ON o.id = oi.order_id "
    "JOIN stores s ON s.id = o.store_id WHERE o.status = 'completed' "
    "AND o.order_date >= DATE '2025-07-01' GROUP BY s.city, month"
)
GAP_CODE = """```python
monthly = step_1_data.pivot_table(index="month", columns="city", values="revenue")
peers = monthly.drop(columns=["Houston"]).mean(axis=1)
gap = (monthly["Houston"] - peers) / peers
print(gap.round(3).to_string())
```"""


def _plan(**fields: Any) -> str:
    plan: dict[str, Any] = {"complexity": "simple", "intent": "", "steps": []}
    plan.update(fields)
    return json.dumps(plan)


def simple() -> list[Reply]:
    """One step the semantic model expresses: planner, explainer."""
    return [
        Reply(
            text=_plan(
                intent="Revenue by region in 2025",
                metrics=["revenue"],
                dimensions=["stores.region"],
                grain="region",
                steps=[
                    {
                        "id": 1,
                        "description": "Revenue by region in 2025",
                        "strategy": "sql",
                        "datasets": ["order_items", "orders", "stores"],
                        "queryPlan": REVENUE_BY_REGION_2025,
                    }
                ],
            )
        ),
        Reply(text="The South earned the most revenue in 2025."),
    ]


def analytical() -> list[Reply]:
    """SQL the model writes, then Python over its result: planner, SQL builder, the Python
    step's code, explainer."""
    return [
        Reply(
            text=_plan(
                complexity="analytical",
                intent="Houston's monthly revenue against its peers",
                grain="store-month",
                steps=[
                    {
                        "id": 1,
                        "description": "Monthly revenue per store city since July 2025",
                        "strategy": "sql",
                        "datasets": ["order_items", "orders", "stores"],
                    },
                    {
                        "id": 2,
                        "description": "Houston's gap to the other stores' average",
                        "strategy": "python",
                        "dependsOn": [1],
                        "analysis": "Pivot by month and city; Houston against the peers' mean.",
                    },
                ],
            )
        ),
        Reply(text=json.dumps({"sql": MONTHLY_BY_CITY, "expectedColumns": ["city", "month"]})),
        Reply(text=GAP_CODE),
        Reply(text="Houston trails its peers every month since July."),
    ]


def conversational() -> list[Reply]:
    """No data needed: planner, explainer."""
    return [
        Reply(text=_plan(complexity="conversational", intent="Explain a term")),
        Reply(text="Grain is what one row of a result stands for."),
    ]


QUESTIONS = {
    "simple": ("What was revenue by region in 2025?", simple),
    "analytical": ("Why is Houston underperforming?", analytical),
    "conversational": ("What does grain mean?", conversational),
}
