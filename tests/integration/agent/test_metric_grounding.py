"""The agent sees the metrics of its semantic model: the best-matching ones in the prompt (a
ratio with its parts), all of them in `list_datasets`, those reading a dataset in
`get_dataset_details`."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage, ToolMessage
from tests.fakes.scripted_model import Reply, call
from tests.fixtures.metrics import RETAIL_METRICS, yaml_with_metrics
from tests.integration.agent.conftest import Retail

from dataagent.services import ontologies, semantic_models
from dataagent.store.models import Ontology


async def _set_metrics(retail: Retail, metrics: list[dict[str, Any]] = RETAIL_METRICS) -> None:
    """Give the chat's semantic model these metrics (and no other) and rebuild its ontology."""
    ctx = retail.world.context
    async with retail.world.database.session() as session:
        ontology = await session.get(Ontology, retail.ontology_id)
        assert ontology is not None and ontology.semantic_model_id is not None
        record = await semantic_models.get_semantic_model(
            session, retail.owner_id, ontology.semantic_model_id
        )
        await semantic_models.update_semantic_model(
            session,
            retail.owner_id,
            record.id,
            None,
            None,
            yaml_with_metrics(record.yaml, metrics),
        )
        await ontologies.rebuild_ontology(ctx, session, retail.owner_id, retail.ontology_id)
    await ctx.builds.wait(retail.ontology_id)


def _system(messages: list[BaseMessage]) -> str:
    assert isinstance(messages[0], SystemMessage)
    return str(messages[0].content)


def _tool_text(messages: list[BaseMessage], call_id: str) -> str:
    return next(
        str(m.content) for m in messages if isinstance(m, ToolMessage) and m.tool_call_id == call_id
    )


async def test_the_prompt_and_the_tools_show_the_matching_metrics(retail: Retail) -> None:
    await _set_metrics(retail)
    asked = await retail.ask(
        "What is the return rate by store region?",
        [
            Reply(
                tool_calls=[
                    call("list_datasets", "l"),
                    call("get_dataset_details", "d", datasetNames=["stores", "products"]),
                ]
            ),
            Reply(text="Here it is."),
        ],
    )
    prompt = _system(asked.model.calls[0])
    metrics = prompt.split("## Metrics", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in metrics.splitlines() if line.startswith("- **")]
    assert lines[0] == (
        "- **return_rate** (Return rate; percent): Share of orders that were returned. "
        "Datasets: orders. Definition: `returned_orders / order_count`"
    )
    # The ratio's parts follow it, so the model can compute it.
    assert lines[1].startswith("- **returned_orders** (Returned orders; number):")
    assert "Definition: `count(*) where status = 'returned'`" in lines[1]
    assert lines[2].startswith("- **order_count** (Orders; number):")
    # The metric pulled its dataset into the prompt.
    assert "### orders\n" in prompt and "### stores\n" in prompt

    second = asked.model.calls[1]
    listing = _tool_text(second, "l")
    assert "Metrics defined (7):" in listing and "- **margin_pct** (Margin %; percent)" in listing
    details = _tool_text(second, "d")
    reading = details.split("Metrics reading these datasets", 1)[1]
    assert "**gross_margin**" in reading and "**margin_pct**" in reading
    assert "**return_rate**" not in reading  # reads orders only
    assert asked.answer.content == "Here it is."


async def test_without_metrics_nothing_about_metrics_is_said(retail: Retail) -> None:
    await _set_metrics(retail, [])  # generation may propose some
    asked = await retail.ask(
        "Which tables are there?",
        [Reply(tool_calls=[call("list_datasets", "l")]), Reply(text="Six.")],
    )
    assert "## Metrics" not in _system(asked.model.calls[0])
    assert "Metrics" not in _tool_text(asked.model.calls[1], "l")
