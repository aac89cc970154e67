"""The value index: built and stored with the demo retailer's ontology, replaced on rebuild,
deleted with it, and read by the offline planner."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from sqlalchemy import func, select
from tests.integration.agent.conftest import retail_ontology
from tests.integration.api.conftest import (  # noqa: F401 - fixtures used by these tests
    World,
    database_url,
    settings,
    world,
)

from dataagent.agent.offline import plan_question
from dataagent.demo import DemoData
from dataagent.services import ontologies
from dataagent.store.models import OntologyValue


async def test_build_stores_rebuild_replaces_delete_removes(
    world: World,  # noqa: F811
    demo_data: DemoData,
    tmp_path: Path,
) -> None:
    ctx, owner = world.context, world.contributor
    ontology_id = await retail_ontology(world, demo_data, tmp_path / "retail.db")

    async with world.database.session() as session:
        access = await ontologies.reach(session, owner.id, ontology_id)
        index = await ontologies.value_index(session, access)
        model = ontologies.ready_model(access.ontology)
    assert "Houston" in index.of_field("stores", "city")
    assert "Houston" in index.of_field("customers", "city")  # read from the database
    assert sorted(index.of_field("orders", "channel")) == ["in_store", "online", "phone"]
    assert "Electronics" in index.of_field("categories", "department")
    assert not index.of_field("customers", "email")  # private, and one per row
    assert not index.of_field("products", "name")  # 234 products: more than a list
    assert index.extent("orders.order_date") == (dt.date(2024, 1, 1), dt.date(2025, 12, 31))
    stored = len(index.to_rows())

    # The planner finds the values: a customer's city names the customers.
    result = plan_question(
        "how many customers live in Katy", model, index, today=dt.date(2025, 12, 31)
    )
    assert result.answered, result
    assert result.plan is not None
    assert [f.model_dump() for f in result.plan.filters] == [  # type: ignore[union-attr]
        {"field": "customers.city", "op": "=", "value": "Katy"}
    ]

    # A period the data does not reach is not answered (with an empty result).
    before = plan_question("how many orders in 2023", model, index, today=dt.date(2025, 12, 31))
    assert not before.answered
    assert "2024-01-01" in " ".join(before.notes)

    async with world.database.session() as session:
        await ontologies.rebuild_ontology(ctx, session, owner.id, ontology_id)
        await ctx.builds.wait(ontology_id)
        count = await session.scalar(
            select(func.count()).where(OntologyValue.ontology_id == ontology_id)
        )
        assert count == stored
        await ontologies.delete_ontology(session, owner.id, ontology_id)
        left = await session.scalar(
            select(func.count()).where(OntologyValue.ontology_id == ontology_id)
        )
        assert left == 0
