"""Metric documents: what retrieval embeds for each metric of a semantic model, and the
datasets a metric reads (a hit on a metric brings them into the dataset results).

Pure: no ORM and no web framework. A metric's text leads with its name as words and its
label (the local model reads only the first 256 word pieces), then what it means
(description, synonyms, format), then what it is computed from (datasets, definition), so a
question may find it by its business name or by the columns it adds up.
"""

from __future__ import annotations

from dataagent.ontology.retrieval import MetricDoc, identifier_words
from dataagent.semantic.expressions import ExpressionError, metric_uses
from dataagent.semantic.model import Metric, SemanticModel


def metric_datasets(model: SemanticModel, metric: Metric) -> list[str]:
    """The datasets a metric reads: its own, then those its expression and filter name.

    A ratio reads what its numerator and denominator read.
    """
    if metric.is_ratio:
        found = [d for part in model.simple_parts(metric) for d in metric_datasets(model, part)]
        return list(dict.fromkeys(found))
    assert metric.dataset is not None
    try:
        uses = [u.dataset.name for u in metric_uses(model, metric)]
    except ExpressionError:  # a loaded model was checked; a hand-made one may not be
        uses = []
    return list(dict.fromkeys([metric.dataset, *uses]))


def definition(metric: Metric) -> str:
    """How a metric is computed, in one line: `sum(quantity * unit_price) where status = 'x'`."""
    if metric.is_ratio:
        return f"{metric.numerator} / {metric.denominator}"
    what = metric.expression or "*"
    aggregation = metric.aggregation or "count"
    text = (
        f"count(distinct {what})" if aggregation == "count_distinct" else f"{aggregation}({what})"
    )
    return f"{text} where {metric.filter}" if metric.filter else text


def metric_text(model: SemanticModel, metric: Metric) -> str:
    """The text embedded for a metric (and scored by BM25).

    `margin pct (Margin %): Gross margin as a share of revenue. Also: margin rate. Format:
    percent. From order items, products: gross_margin / revenue`.
    """
    head = identifier_words(metric.name)
    label = (metric.label or "").strip()
    if label and label.lower() != head:
        head = f"{head} ({label})"
    parts = [f"{head}:"]
    if metric.description and metric.description.strip():
        parts.append(metric.description.strip().rstrip(".") + ".")
    synonyms = [s.strip() for s in metric.synonyms if s.strip()]
    if synonyms:
        parts.append(f"Also: {', '.join(synonyms)}.")
    parts.append(f"Format: {metric.format.value}.")
    over = ", ".join(identifier_words(d) for d in metric_datasets(model, metric))
    parts.append(f"From {over}: {definition(metric)}")
    return " ".join(parts)


def metric_docs(model: SemanticModel) -> list[MetricDoc]:
    """One document (without a vector yet) per metric of a semantic model."""
    return [
        MetricDoc(
            name=m.name,
            text=metric_text(model, m),
            label=m.label,
            description=m.description,
            format=m.format.value,
            datasets=tuple(metric_datasets(model, m)),
        )
        for m in model.metrics
    ]
