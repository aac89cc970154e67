"""Retrieval on the demo retailer: the right datasets are in the top 3 for everyday questions."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import LOCAL
from tests.fixtures.retrieval import search, stored_index

from dataagent.demo import DemoData, write_duckdb
from dataagent.llm.minilm import LocalMiniLMProvider
from dataagent.ontology.retrieval import DatasetIndex, dataset_docs
from dataagent.services.semantic_models import introspect_and_generate
from dataagent.sources.engines import ConnectionSpec

# Questions written for this test (not from any benchmark), with the datasets each needs.
QUESTIONS: list[tuple[str, set[str]]] = [
    ("Which stores sell the most?", {"stores"}),
    ("How many customers signed up each month?", {"customers"}),
    ("List all product categories and their departments", {"categories"}),
    ("What is the average unit price of active products?", {"products"}),
    ("How many orders were cancelled last year?", {"orders"}),
    ("What quantity of each product was sold?", {"order_items"}),
    ("Which city has the largest store by square feet?", {"stores"}),
    ("How many corporate segment customers live in Texas?", {"customers"}),
    ("Which products have the highest margin between cost and price?", {"products"}),
    ("What share of orders come through the online channel?", {"orders"}),
    ("What is the average discount on order lines?", {"order_items"}),
    ("Show customer emails and their states", {"customers"}),
    ("When did each store open?", {"stores"}),
    ("Top SKUs by number of units sold", {"order_items", "products"}),
    ("Revenue by product category", {"order_items", "categories"}),
    ("Which customers placed the most orders?", {"customers", "orders"}),
    ("Return rate by store region", {"orders", "stores"}),
    ("Orders per day in December", {"orders"}),
    ("Products in the electronics department", {"products", "categories"}),
    ("Average basket size per order", {"order_items"}),
]


@pytest.fixture(scope="module")
def index_and_provider(
    tmp_path_factory: pytest.TempPathFactory, demo_data: DemoData
) -> tuple[DatasetIndex, LocalMiniLMProvider]:
    path = Path(tmp_path_factory.mktemp("demo")) / "retail.duckdb"
    write_duckdb(demo_data, path)
    spec = ConnectionSpec(dialect="duckdb", database=str(path))
    model = introspect_and_generate(spec, LOCAL, "retail")
    provider = LocalMiniLMProvider()
    return stored_index(provider, dataset_docs(model)), provider


@pytest.mark.parametrize(("question", "gold"), QUESTIONS, ids=[q for q, _ in QUESTIONS])
def test_gold_datasets_in_top_3(
    index_and_provider: tuple[DatasetIndex, LocalMiniLMProvider], question: str, gold: set[str]
) -> None:
    index, provider = index_and_provider
    top = [hit.name for hit in search(index, provider, question, k=3)]
    assert gold <= set(top), (question, top)
