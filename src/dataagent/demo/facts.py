"""Headline facts of the demo data, computed from the generated tables.

The definitions match what a person would ask in SQL:
- line revenue = quantity * unit_price * (1 - discount);
- net revenue = line revenue summed over *completed* orders (returns and cancellations
  earn nothing);
- average order value (AOV) = net revenue / number of completed orders;
- return rate = returned orders / all orders;
- revenue per square foot = two-year net revenue / stores.square_feet;
- gross margin = (net revenue - quantity * products.unit_cost) / net revenue.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from dataagent.demo.catalog import HOUSTON
from dataagent.demo.generator import DemoData


@dataclass(frozen=True)
class StoreFacts:
    """How one store performed over the two years."""

    store_id: int
    name: str
    city: str
    square_feet: int
    orders: int
    net_revenue: float
    average_order_value: float
    return_rate: float
    revenue_per_square_foot: float
    revenue_2024: float
    revenue_2025: float

    @property
    def growth(self) -> float:
        """Net revenue change from 2024 to 2025, as a fraction."""
        return self.revenue_2025 / self.revenue_2024 - 1


@dataclass(frozen=True)
class HoustonGap:
    """Houston against the average of the other stores (the "peers")."""

    average_order_value: float
    peer_average_order_value: float
    return_rate: float
    peer_return_rate: float
    revenue_per_square_foot: float
    peer_revenue_per_square_foot: float
    growth: float
    peer_growth: float
    revenue_rank: int  # 1 = highest net revenue

    @property
    def aov_gap(self) -> float:
        """How much lower Houston's AOV is than its peers', as a fraction."""
        return 1 - self.average_order_value / self.peer_average_order_value

    @property
    def revenue_per_square_foot_gap(self) -> float:
        """How much lower Houston's revenue per square foot is, as a fraction."""
        return 1 - self.revenue_per_square_foot / self.peer_revenue_per_square_foot


@dataclass(frozen=True)
class DemoFacts:
    """The figures the demo data is known to produce."""

    row_counts: dict[str, int]
    first_order: str
    last_order: str
    net_revenue: float
    revenue_by_year: dict[int, float]
    gross_margin: float
    stores: list[StoreFacts]
    houston: HoustonGap
    top_category: str
    peak_month: str
    products_with_positive_margin: float


def _line_revenue(data: DemoData) -> pd.DataFrame:
    items = data.order_items.merge(
        data.orders, left_on="order_id", right_on="id", suffixes=("", "_order")
    )
    items = items.merge(
        data.products[["id", "category_id", "unit_cost"]],
        left_on="product_id",
        right_on="id",
        suffixes=("", "_product"),
    )
    items["revenue"] = items["quantity"] * items["unit_price"] * (1 - items["discount"])
    items["cost"] = items["quantity"] * items["unit_cost"]
    items["year"] = items["order_date"].dt.year
    return items


def headline_facts(data: DemoData) -> DemoFacts:
    """Compute the headline facts (revenue, margin, Houston's gap) from generated data."""
    lines = _line_revenue(data)
    sold = lines[lines["status"] == "completed"]
    orders = data.orders
    completed = orders[orders["status"] == "completed"]

    store_facts: list[StoreFacts] = []
    for store in data.stores.itertuples(index=False):
        mine = sold[sold["store_id"] == store.id]
        revenue = float(mine["revenue"].sum())
        n_completed = int((completed["store_id"] == store.id).sum())
        all_orders = orders[orders["store_id"] == store.id]
        by_year = mine.groupby("year")["revenue"].sum()
        store_facts.append(
            StoreFacts(
                store_id=int(store.id),
                name=str(store.name),
                city=str(store.city),
                square_feet=int(store.square_feet),
                orders=len(all_orders),
                net_revenue=round(revenue, 2),
                average_order_value=round(revenue / n_completed, 2),
                return_rate=round(float((all_orders["status"] == "returned").mean()), 4),
                revenue_per_square_foot=round(revenue / int(store.square_feet), 2),
                revenue_2024=round(float(by_year.get(2024, 0.0)), 2),
                revenue_2025=round(float(by_year.get(2025, 0.0)), 2),
            )
        )

    houston = next(s for s in store_facts if s.city == HOUSTON)
    peers = [s for s in store_facts if s.city != HOUSTON]
    ranked = sorted(store_facts, key=lambda s: s.net_revenue, reverse=True)

    def peer_mean(values: list[float]) -> float:
        return sum(values) / len(values)

    gap = HoustonGap(
        average_order_value=houston.average_order_value,
        peer_average_order_value=round(peer_mean([s.average_order_value for s in peers]), 2),
        return_rate=houston.return_rate,
        peer_return_rate=round(peer_mean([s.return_rate for s in peers]), 4),
        revenue_per_square_foot=houston.revenue_per_square_foot,
        peer_revenue_per_square_foot=round(
            peer_mean([s.revenue_per_square_foot for s in peers]), 2
        ),
        growth=round(houston.growth, 4),
        peer_growth=round(peer_mean([s.growth for s in peers]), 4),
        revenue_rank=ranked.index(houston) + 1,
    )

    by_category = sold.groupby("category_id")["revenue"].sum()
    top_category_id = int(by_category.idxmax())
    categories = data.categories.set_index("id")["name"]
    by_month = sold.groupby(sold["order_date"].dt.strftime("%Y-%m"))["revenue"].sum()
    products = data.products
    net_revenue = float(sold["revenue"].sum())
    return DemoFacts(
        row_counts=data.row_counts(),
        first_order=str(orders["order_date"].min()),
        last_order=str(orders["order_date"].max()),
        net_revenue=round(net_revenue, 2),
        revenue_by_year={
            int(year): round(float(value), 2)
            for year, value in sold.groupby("year")["revenue"].sum().items()
        },
        gross_margin=round((net_revenue - float(sold["cost"].sum())) / net_revenue, 4),
        stores=store_facts,
        houston=gap,
        top_category=str(categories[top_category_id]),
        peak_month=str(by_month.idxmax()),
        products_with_positive_margin=round(
            float((products["unit_price"] > products["unit_cost"]).mean()), 4
        ),
    )


def facts_markdown(facts: DemoFacts) -> str:
    """The facts as the Markdown block published in docs/demo-data.md."""
    gap = facts.houston
    lines = [
        "| table | rows |",
        "|---|---:|",
        *(f"| {name} | {count:,} |" for name, count in facts.row_counts.items()),
        "",
        f"- Orders from {facts.first_order} to {facts.last_order}.",
        f"- Net revenue: ${facts.net_revenue:,.2f} "
        + "("
        + ", ".join(f"{year}: ${value:,.2f}" for year, value in facts.revenue_by_year.items())
        + ").",
        f"- Gross margin: {facts.gross_margin:.2%}; "
        f"{facts.products_with_positive_margin:.1%} of products sell above cost.",
        f"- Top category by net revenue: {facts.top_category}; peak month: {facts.peak_month}.",
        f"- Houston's average order value is ${gap.average_order_value:,.2f} against "
        f"${gap.peer_average_order_value:,.2f} for the other stores ({gap.aov_gap:.1%} lower).",
        f"- Houston's return rate is {gap.return_rate:.2%} against {gap.peer_return_rate:.2%}.",
        f"- Houston's revenue per square foot is ${gap.revenue_per_square_foot:,.2f} against "
        f"${gap.peer_revenue_per_square_foot:,.2f} ({gap.revenue_per_square_foot_gap:.1%} lower).",
        f"- Houston's net revenue changed {gap.growth:+.1%} from 2024 to 2025; the other "
        f"stores averaged {gap.peer_growth:+.1%}. Houston ranks {gap.revenue_rank} of "
        f"{len(facts.stores)} stores by net revenue.",
        "",
        "| store | city | sq ft | orders | net revenue | AOV | return rate | revenue / sq ft "
        "| 2024 → 2025 |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines.extend(
        f"| {s.name} | {s.city} | {s.square_feet:,} | {s.orders:,} | ${s.net_revenue:,.2f} "
        f"| ${s.average_order_value:,.2f} | {s.return_rate:.2%} "
        f"| ${s.revenue_per_square_foot:,.2f} | {s.growth:+.1%} |"
        for s in facts.stores
    )
    return "\n".join(lines) + "\n"
