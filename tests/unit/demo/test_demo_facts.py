"""The headline facts: Houston's gap, and the figures the docs publish."""

from __future__ import annotations

from pathlib import Path

from dataagent.demo import DemoFacts, facts_markdown

DOCS = Path(__file__).resolve().parents[3] / "docs" / "demo-data.md"


def test_houston_underperforms_its_peers(demo_facts: DemoFacts) -> None:
    gap = demo_facts.houston
    assert gap.aov_gap > 0.15
    assert gap.return_rate > 2 * gap.peer_return_rate
    assert gap.revenue_per_square_foot_gap > 0.4
    assert gap.growth < 0 < gap.peer_growth
    assert gap.revenue_rank == len(demo_facts.stores)
    houston = next(s for s in demo_facts.stores if s.city == "Houston")
    others = [s for s in demo_facts.stores if s.city != "Houston"]
    assert houston.square_feet > max(s.square_feet for s in others)
    assert houston.average_order_value < min(s.average_order_value for s in others)
    assert houston.return_rate > max(s.return_rate for s in others)
    assert houston.revenue_per_square_foot < min(s.revenue_per_square_foot for s in others)


def test_revenue_adds_up(demo_facts: DemoFacts) -> None:
    assert abs(sum(demo_facts.revenue_by_year.values()) - demo_facts.net_revenue) < 0.05
    assert abs(sum(s.net_revenue for s in demo_facts.stores) - demo_facts.net_revenue) < 0.05
    assert 0.2 < demo_facts.gross_margin < 0.5
    assert demo_facts.peak_month.endswith("-12")


def test_docs_publish_the_current_facts(demo_facts: DemoFacts) -> None:
    # Regenerate with: .venv/bin/python -m dataagent.demo --facts
    assert facts_markdown(demo_facts) in DOCS.read_text(encoding="utf-8")
