"""Metric retrieval: the text of a metric, the datasets it reads, ranking next to datasets,
and a metric hit pulling its datasets into the dataset results."""

from __future__ import annotations

import numpy as np
import pytest
from tests.fixtures.compiler.compiler_golden import retail_model
from tests.fixtures.metrics import with_metrics, without_metrics
from tests.fixtures.retrieval import stored_rows

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.minilm import LocalMiniLMProvider
from dataagent.ontology.metrics import definition, metric_datasets, metric_docs, metric_text
from dataagent.ontology.retrieval import (
    DatasetDoc,
    DatasetIndex,
    MetricDoc,
    Ranking,
    dataset_docs,
    embed_datasets,
)
from dataagent.semantic.model import Metric, SemanticModel


@pytest.fixture(scope="module")
def model() -> SemanticModel:
    """The hand-written retail model with revenue, margin, order and return metrics."""
    return with_metrics(retail_model())


@pytest.fixture(scope="module")
def minilm() -> LocalMiniLMProvider:
    """The real local model (loaded once per process)."""
    return LocalMiniLMProvider()


@pytest.fixture(scope="module")
def index(model: SemanticModel, minilm: LocalMiniLMProvider) -> DatasetIndex:
    """The index a build stores and a search loads, metrics included."""
    datasets = embed_datasets(minilm, dataset_docs(model))
    metrics = embed_datasets(minilm, metric_docs(model))
    return DatasetIndex.from_rows(stored_rows(datasets), metrics)


def rank(index: DatasetIndex, provider: LocalMiniLMProvider, question: str, k: int = 10) -> Ranking:
    """What the store's search does: embed the question, rank datasets and metrics."""
    return index.rank(question, provider.embed_query(question), k)


def metric(model: SemanticModel, name: str) -> Metric:
    found = model.metric(name)
    assert found is not None
    return found


# --- what a metric reads and how it reads --------------------------------------------------------


def test_a_metric_reads_its_dataset_then_those_its_expression_and_filter_name(
    model: SemanticModel,
) -> None:
    assert metric_datasets(model, metric(model, "units_sold")) == ["order_items"]
    assert metric_datasets(model, metric(model, "revenue")) == ["order_items", "orders"]
    assert metric_datasets(model, metric(model, "gross_margin")) == [
        "order_items",
        "products",
        "orders",
    ]


def test_a_ratio_reads_what_its_parts_read(model: SemanticModel) -> None:
    assert metric_datasets(model, metric(model, "margin_pct")) == [
        "order_items",
        "products",
        "orders",
    ]
    assert metric_datasets(model, metric(model, "return_rate")) == ["orders"]


def test_definitions(model: SemanticModel) -> None:
    assert definition(metric(model, "units_sold")) == "sum(quantity)"
    assert definition(metric(model, "returned_orders")) == "count(*) where status = 'returned'"
    assert definition(metric(model, "return_rate")) == "returned_orders / order_count"
    distinct = Metric(
        name="buyers", dataset="orders", aggregation="count_distinct", expression="customer_id"
    )
    assert definition(distinct) == "count(distinct customer_id)"


def test_the_text_leads_with_the_name_and_label_then_meaning_then_computation(
    model: SemanticModel,
) -> None:
    assert metric_text(model, metric(model, "margin_pct")) == (
        "margin pct (Margin %): Gross margin as a share of revenue. Format: percent. "
        "From order items, products, orders: gross_margin / revenue"
    )
    assert metric_text(model, metric(model, "revenue")) == (
        "revenue: Net revenue of order lines after discount, completed orders only. "
        "Also: sales, turnover. Format: currency. From order items, orders: "
        "sum(quantity * unit_price * (1 - discount)) where orders.status = 'completed'"
    )
    # A label that only repeats the name as words is not said twice.
    assert metric_text(model, metric(model, "return_rate")).startswith("return rate: Share")


def test_metric_docs_carry_what_a_hit_shows(model: SemanticModel) -> None:
    docs = {d.name: d for d in metric_docs(model)}
    assert list(docs) == [m.name for m in model.metrics]
    rate = docs["return_rate"]
    assert (rate.label, rate.format, rate.datasets) == ("Return rate", "percent", ("orders",))
    assert rate.description == "Share of orders that were returned." and rate.vector is None
    assert metric_docs(without_metrics(retail_model())) == []


# --- ranking -------------------------------------------------------------------------------------


def test_margin_finds_the_margin_metrics_first_and_their_datasets(
    index: DatasetIndex, minilm: LocalMiniLMProvider
) -> None:
    found = rank(index, minilm, "margin", k=5)
    assert {m.name for m in found.metrics[:2]} == {"gross_margin", "margin_pct"}
    assert {"order_items", "products"} <= {d.name for d in found.datasets[:3]}
    lifted = [d for d in found.datasets if d.via_metric]
    assert lifted and {d.via_metric for d in lifted} <= {"gross_margin", "margin_pct"}
    hit = found.metrics[0]
    assert hit.datasets == ("order_items", "products", "orders") and hit.score > 0


def test_return_rate_finds_the_return_rate_metric(
    index: DatasetIndex, minilm: LocalMiniLMProvider
) -> None:
    found = rank(index, minilm, "return rate", k=5)
    assert found.metrics[0].name == "return_rate"
    assert found.metrics[0].format == "percent" and found.metrics[0].label == "Return rate"
    assert found.datasets[0].name == "orders" and found.datasets[0].via_metric == "return_rate"


def test_a_synonym_finds_its_metric(index: DatasetIndex, minilm: LocalMiniLMProvider) -> None:
    assert rank(index, minilm, "turnover per month", k=3).metrics[0].name == "revenue"


@pytest.mark.parametrize(
    "question", ["customers by city", "Which stores sell the most?", "Revenue by product category"]
)
def test_a_question_about_tables_keeps_its_dataset_ranking(
    model: SemanticModel, index: DatasetIndex, minilm: LocalMiniLMProvider, question: str
) -> None:
    """No metric outscores the best dataset, so the datasets rank as without metrics."""
    plain = DatasetIndex.from_rows(stored_rows(embed_datasets(minilm, dataset_docs(model))))
    vector = minilm.embed_query(question)
    assert index.search(question, vector) == plain.search(question, vector)
    assert index.rank(question, vector).metrics  # metrics are still listed, best first


def doc(name: str, *vector: float) -> DatasetDoc:
    v = np.array(vector, dtype=np.float32)
    return DatasetDoc(name, name, v / np.linalg.norm(v), "hand-made")


def metric_doc(name: str, datasets: tuple[str, ...], *vector: float) -> MetricDoc:
    v = np.array(vector, dtype=np.float32)
    return MetricDoc(name, name, v / np.linalg.norm(v), "hand-made", datasets=datasets)


def test_a_metric_lifts_its_datasets_only_when_it_beats_the_best_dataset() -> None:
    query = np.array([1, 0], dtype=np.float32)
    datasets = [doc("a", 0.9, 0.1), doc("b", 0.1, 0.9), doc("c", 0, 1)]
    strong = metric_doc("strong", ("c",), 1, 0)
    weak = metric_doc("weak", ("b",), 0.5, 0.5)
    found = DatasetIndex(datasets, [strong, weak]).rank("q", query, k=3, keyword_weight=0)
    assert [m.name for m in found.metrics] == ["strong", "weak"]
    assert [(d.name, d.via_metric) for d in found.datasets] == [
        ("c", "strong"),
        ("a", None),
        ("b", None),  # weak scored below `a`: it lifts nothing
    ]
    c = found.datasets[0]
    assert c.score == pytest.approx(found.metrics[0].score) and c.cosine == pytest.approx(0)


def test_k_bounds_metrics_as_it_bounds_datasets() -> None:
    query = np.array([1, 0], dtype=np.float32)
    metrics = [metric_doc(n, ("a",), 1, i) for i, n in enumerate("xyz")]
    found = DatasetIndex([doc("a", 1, 0)], metrics).rank("q", query, k=2)
    assert [m.name for m in found.metrics] == ["x", "y"]
    with pytest.raises(DataAgentError):
        DatasetIndex([doc("a", 1, 0)], metrics).rank("q", query, k=0)


def test_a_model_without_metrics_ranks_no_metrics() -> None:
    query = np.array([1, 0], dtype=np.float32)
    found = DatasetIndex([doc("a", 1, 0), doc("b", 0, 1)]).rank("q", query)
    assert found.metrics == [] and [d.via_metric for d in found.datasets] == [None, None]


def test_a_stored_metric_without_a_vector_is_a_conflict() -> None:
    unembedded = MetricDoc("m", "m", None, None, datasets=("a",))
    with pytest.raises(DataAgentError) as caught:
        DatasetIndex.from_rows(stored_rows([doc("a", 1, 0)]), [unembedded])
    assert caught.value.code == ErrorCode.CONFLICT


def test_metric_names_are_unique_and_vectors_share_a_dimension() -> None:
    with pytest.raises(ValueError, match="metric names"):
        DatasetIndex([doc("a", 1, 0)], [metric_doc("m", (), 1, 0), metric_doc("m", (), 0, 1)])
    with pytest.raises(ValueError, match="dimension"):
        DatasetIndex([doc("a", 1, 0)], [metric_doc("m", (), 1, 0, 0)])
