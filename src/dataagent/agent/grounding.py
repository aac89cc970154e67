"""What the prompt is grounded on: the datasets retrieval finds and the joins among them."""

from __future__ import annotations

import logging

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.agent.prompts import JoinHint, PromptDataset, join_hints_among
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.model import SemanticModel
from dataagent.services import ontologies
from dataagent.services.context import AppContext
from dataagent.store.models import Ontology

log = logging.getLogger(__name__)


def join_hints(model: SemanticModel) -> list[JoinHint]:
    """Every relationship of the model as a join hint."""
    return [
        JoinHint(
            name=r.name,
            from_dataset=r.from_dataset,
            from_columns=tuple(r.from_columns),
            to_dataset=r.to_dataset,
            to_columns=tuple(r.to_columns),
            cardinality=r.cardinality.value,
        )
        for r in model.relationships
    ]


async def ground(
    ctx: AppContext,
    session: AsyncSession,
    ontology: Ontology,
    model: SemanticModel,
    question: str,
) -> tuple[list[PromptDataset], list[JoinHint]]:
    """The top datasets for the question (YAML included) and the relationships among them.

    An ontology whose embeddings came from another provider cannot be searched until it is
    rebuilt; the answer then starts from nothing retrieved and the model lists datasets.
    """
    try:
        hits = (
            await ontologies.search(
                ctx, session, ontology, question, k=ctx.settings.agent_top_datasets
            )
        ).datasets
    except DataAgentError as exc:
        if exc.code != ErrorCode.CONFLICT:
            raise
        log.warning("ontology %s: search unavailable (%s)", ontology.id, exc.message)
        hits = []
    names = [hit.name for hit in hits]
    rows = await ontologies.datasets_by_name(session, ontology, names)
    datasets = [PromptDataset(row.name, row.description, row.yaml) for row in rows]
    return datasets, join_hints_among([d.name for d in datasets], join_hints(model))
