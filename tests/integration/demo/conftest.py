"""The demo data, generated once per test session."""

from __future__ import annotations

import pytest

from dataagent.demo import DemoData, DemoFacts, generate, headline_facts


@pytest.fixture(scope="session")
def demo_data() -> DemoData:
    """The demo data for the default seed."""
    return generate()


@pytest.fixture(scope="session")
def demo_facts(demo_data: DemoData) -> DemoFacts:
    """The headline facts of the default demo data."""
    return headline_facts(demo_data)
