"""What the prompt is grounded on: the datasets and metrics retrieval finds and the joins
among those datasets."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from dataagent.agent.prompts import JoinHint, PromptDataset, PromptMetric, join_hints_among
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.embeddings import Matrix
from dataagent.ontology.metrics import definition, metric_datasets
from dataagent.ontology.retrieval import Ranking
from dataagent.semantic.model import SemanticModel
from dataagent.services import ontologies
from dataagent.services.context import AppContext
from dataagent.store.shares import OntologyAccess

log = logging.getLogger(__name__)

PROMPT_METRICS = 5
"""The best-matching metrics shown in the prompt (plus the parts of the ratios among them)."""


@dataclass(frozen=True)
class Grounding:
    """The retrieved datasets (YAML included), the joins among them and the matching metrics."""

    datasets: list[PromptDataset]
    joins: list[JoinHint]
    metrics: list[PromptMetric]


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


def prompt_metrics(model: SemanticModel, names: Sequence[str]) -> list[PromptMetric]:
    """These metrics of the model (unknown names skipped), each ratio followed by its parts,
    so the prompt can say how every listed metric is computed."""
    wanted: list[str] = []
    for name in names:
        metric = model.metric(name)
        if metric is not None:
            wanted += [name, *(part.name for part in model.simple_parts(metric))]
    found = []
    for name in dict.fromkeys(wanted):
        metric = model.metric(name)
        if metric is not None:
            found.append(
                PromptMetric(
                    name=metric.name,
                    label=metric.label,
                    description=metric.description,
                    format=metric.format.value,
                    datasets=metric_datasets(model, metric),
                    definition=definition(metric),
                )
            )
    return found


async def ground(
    ctx: AppContext,
    access: OntologyAccess,
    model: SemanticModel,
    question: str,
) -> Grounding:
    """The top datasets for the question (YAML included), the relationships among them and
    the best-matching metrics.

    The question is embedded first, with no database session open, so no connection is held
    while the embedding model works; then one short session reads the index and the YAML.
    An ontology whose embeddings came from another provider cannot be searched until it is
    rebuilt; the answer then starts from nothing retrieved and the model lists datasets.
    """
    ontology = access.ontology
    try:
        query: Matrix | None = await ontologies.embed_question(ctx, ontology, question)
    except DataAgentError as exc:
        if exc.code != ErrorCode.CONFLICT:
            raise
        log.warning("ontology %s: search unavailable (%s)", ontology.id, exc.message)
        query = None
    async with ctx.database.session() as session:
        ranking = Ranking([], [])
        if query is not None:
            k = ctx.settings.agent_top_datasets
            ranking = await ontologies.rank(ctx, session, ontology, question, query, k)
        names = [hit.name for hit in ranking.datasets]
        rows = await ontologies.datasets_by_name(session, access, names)
    datasets = [PromptDataset(row.name, row.description, row.yaml) for row in rows]
    metrics = prompt_metrics(model, [m.name for m in ranking.metrics[:PROMPT_METRICS]])
    joins = join_hints_among([d.name for d in datasets], join_hints(model))
    return Grounding(datasets, joins, metrics)
