"""Dataset retrieval: document text, vectors and their storage, ranking, scoping."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from tests.fixtures.retrieval import search, stored_index, stored_rows

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.minilm import LocalMiniLMProvider
from dataagent.ontology.retrieval import (
    DEFAULT_TEXT_STYLE,
    DatasetDoc,
    DatasetIndex,
    KeywordIndex,
    dataset_docs,
    dataset_text,
    embed_datasets,
    embedding_key,
    identifier_words,
    is_current,
    keyword_terms,
    vector_from_bytes,
    vector_to_bytes,
)
from dataagent.semantic.model import Dataset, DataType, Field_, SemanticModel


@pytest.fixture(scope="module")
def minilm() -> LocalMiniLMProvider:
    """The real local model (loaded once per process)."""
    return LocalMiniLMProvider()


def table(name: str, *columns: str, description: str | None = None) -> Dataset:
    """A dataset with varchar columns."""
    fields = [Field_(name=c, expression=c, data_type=DataType.VARCHAR) for c in columns]
    return Dataset(name=name, source=f"public.{name}", fields=fields, description=description)


def doc(name: str, *vector: float) -> DatasetDoc:
    """A doc with a hand-made unit vector (the ranker is pure: no provider needed)."""
    v = np.array(vector, dtype=np.float32)
    return DatasetDoc(name, name, v / np.linalg.norm(v), "hand-made")


# --- text ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("identifier", "words"),
    [
        ("CountryCode", "country code"),
        ("country_code", "country code"),
        ("AREA_CODE_STATE", "area code state"),
        ("GNPOld", "gnp old"),
        ("Treatment_Types", "treatment types"),
        ("player2id", "player2id"),
        ("orders", "orders"),
    ],
)
def test_identifier_words(identifier: str, words: str) -> None:
    assert identifier_words(identifier) == words


def test_text_styles() -> None:
    ds = table("OrderItems", "orderId", "unit_price", description="Lines of an order.")
    ds.fields[1].description = "Price of one unit."
    assert DEFAULT_TEXT_STYLE == "words"
    assert dataset_text(ds) == "order items: order id, unit price"
    assert dataset_text(ds, "names") == "OrderItems: orderId, unit_price"
    assert dataset_text(ds, "described") == (
        "order items: order id, unit price\nLines of an order. Price of one unit."
    )
    parsed = yaml.safe_load(dataset_text(ds, "yaml"))
    assert parsed["name"] == "OrderItems"
    assert [f["name"] for f in parsed["fields"]] == ["orderId", "unit_price"]
    with pytest.raises(ValueError, match="unknown text style"):
        dataset_text(ds, "bogus")  # type: ignore[arg-type]


def test_dataset_docs_from_a_semantic_model() -> None:
    model = SemanticModel(
        name="shop", dialect="sqlite", datasets=[table("orders", "id"), table("customers", "id")]
    )
    docs = dataset_docs(model)
    assert [(d.name, d.text, d.vector) for d in docs] == [
        ("orders", "orders: id", None),
        ("customers", "customers: id", None),
    ]


# --- vectors and their storage -----------------------------------------------------------------


def test_vector_bytes_round_trip() -> None:
    v = np.array([1.0, -0.5, 0.25], dtype=np.float32)
    data = vector_to_bytes(v)
    assert data[:4] == b"\x00\x00\x80?"  # float32 little-endian 1.0
    back = vector_from_bytes(data)
    np.testing.assert_array_equal(back, v)
    assert back.dtype == np.float32 and back.flags.writeable
    with pytest.raises(ValueError, match="multiple of 4"):
        vector_from_bytes(b"\x00\x01\x02")


def test_embed_datasets_embeds_only_what_is_stale(minilm: LocalMiniLMProvider) -> None:
    docs = embed_datasets(minilm, [DatasetDoc("orders", "orders: id"), DatasetDoc("a", "a: b")])
    assert all(is_current(d, minilm) for d in docs)
    assert docs[0].vector_key == embedding_key(minilm.name, "orders: id")

    edited = DatasetDoc("a", "a: b, c", docs[1].vector, docs[1].vector_key)
    assert not is_current(edited, minilm)
    again = embed_datasets(minilm, [docs[0], edited])
    assert again[0].vector is docs[0].vector  # current: kept as is
    assert again[1].vector is not docs[1].vector
    assert is_current(again[1], minilm)
    forced = embed_datasets(minilm, again, force=True)
    assert forced[0].vector is not again[0].vector


def test_embedding_key_names_provider_and_text() -> None:
    assert embedding_key("p", "t") == embedding_key("p", "t")
    assert embedding_key("p", "t") != embedding_key("q", "t")
    assert embedding_key("p", "t") != embedding_key("p", "u")
    assert embedding_key("local/x", "t").startswith("local/x:")


# --- ranking -----------------------------------------------------------------------------------


def test_ranks_by_cosine_and_breaks_ties_by_name() -> None:
    index = DatasetIndex(
        [doc("zeta", 1, 0), doc("alpha", 1, 0), doc("mid", 1, 1), doc("far", 0, 1)]
    )
    hits = index.search("unrelated words", np.array([1, 0], dtype=np.float32), keyword_weight=0)
    assert [h.name for h in hits] == ["alpha", "zeta", "mid", "far"]
    assert hits[0].score == pytest.approx(1.0)
    assert hits[2].cosine == pytest.approx(2**-0.5)
    assert hits == index.search(
        "unrelated words", np.array([1, 0], dtype=np.float32), k=10, keyword_weight=0
    )


def test_k_limits_and_validation() -> None:
    index = DatasetIndex([doc("a", 1, 0), doc("b", 0, 1), doc("c", 1, 1)])
    query = np.array([1, 0], dtype=np.float32)
    assert [h.name for h in index.search("q", query, k=2)] == ["a", "c"]
    assert len(index.search("q", query, k=50)) == 3
    for k in (0, -1, 101):
        with pytest.raises(DataAgentError) as info:
            index.search("q", query, k=k)
        assert info.value.code is ErrorCode.VALIDATION_ERROR


def test_index_refuses_inconsistent_docs() -> None:
    with pytest.raises(ValueError, match="unique"):
        DatasetIndex([doc("a", 1, 0), doc("a", 0, 1)])
    with pytest.raises(ValueError, match="needs a vector"):
        DatasetIndex([DatasetDoc("a", "a")])
    with pytest.raises(ValueError, match="dimension"):
        DatasetIndex([doc("a", 1, 0), doc("b", 1, 0, 0)])
    with pytest.raises(ValueError, match="re-embed"):
        DatasetIndex([doc("a", 1, 0)]).search("q", np.ones(3, dtype=np.float32))
    assert DatasetIndex([]).search("q", np.ones(3, dtype=np.float32)) == []


def test_keyword_score_breaks_a_cosine_tie() -> None:
    docs = [
        DatasetDoc("invoices", "invoices: total", np.array([1, 0], dtype=np.float32), "k"),
        DatasetDoc("albums", "albums: title", np.array([1, 0], dtype=np.float32), "k"),
    ]
    hits = DatasetIndex(docs).search("total of all invoices", np.array([1, 0], dtype=np.float32))
    assert [h.name for h in hits] == ["invoices", "albums"]
    assert (hits[0].keyword, hits[1].keyword) == (1.0, 0.0)
    assert hits[0].score == pytest.approx(hits[0].cosine + 0.2)


def test_keyword_terms_and_bm25() -> None:
    terms = keyword_terms("How many Singers? CountryCode, class")
    assert terms == ["how", "many", "singer", "country", "code", "class"]
    index = KeywordIndex(["singer: name, country", "concert: year", "stadium: name, capacity"])
    scores = index.scores("singers by country")
    assert scores[0] > 0 and scores[1] == 0 and scores[2] == 0
    # "name" is in two of three docs, "capacity" in one: the rarer term weighs more.
    assert index.scores("capacity")[2] > index.scores("name")[2] > 0
    assert KeywordIndex([]).scores("anything").shape == (0,)


def test_the_index_loads_from_stored_rows() -> None:
    docs = [doc("a", 1, 0), doc("b", 0, 1)]
    index = DatasetIndex.from_rows(stored_rows(docs))
    query = np.array([1, 0], dtype=np.float32)
    assert index.search("q", query) == DatasetIndex(docs).search("q", query)
    assert DatasetIndex.from_rows([]).search("q", query) == []


def test_stored_rows_without_a_vector_are_a_conflict() -> None:
    # A search never embeds on the fly: the ontology is rebuilt or backfilled first.
    with pytest.raises(DataAgentError) as info:
        DatasetIndex.from_rows([*stored_rows([doc("a", 1, 0)]), ("b", "b", None, None)])
    assert info.value.code is ErrorCode.CONFLICT


# --- search with the real model ---------------------------------------------------------------


def test_search_sees_only_the_docs_of_one_ontology(minilm: LocalMiniLMProvider) -> None:
    shop = [
        DatasetDoc("orders", "orders: order id, order date, total amount"),
        DatasetDoc("customers", "customers: customer id, name, email"),
    ]
    music = [DatasetDoc("singers", "singers: singer id, name, country, age")]
    hits = search(stored_index(minilm, shop), minilm, "Which singers are from France?")
    assert {h.name for h in hits} == {"orders", "customers"}
    pooled = search(stored_index(minilm, music + shop), minilm, "Which singers are from France?")
    assert pooled[0].name == "singers"


def test_search_ranks_the_obvious_table_first(minilm: LocalMiniLMProvider) -> None:
    model = SemanticModel(
        name="shop",
        dialect="sqlite",
        datasets=[
            table("orders", "order_id", "customer_id", "order_date", "status"),
            table("customers", "customer_id", "first_name", "last_name", "email", "city"),
            table("products", "product_id", "product_name", "unit_price", "category"),
            table("employees", "employee_id", "full_name", "hire_date", "salary"),
        ],
    )
    index = stored_index(minilm, dataset_docs(model))
    for question, expected in [
        ("How many orders were placed last month?", "orders"),
        ("Which city do most of our customers live in?", "customers"),
        ("What is the most expensive product?", "products"),
        ("Who was hired most recently?", "employees"),
    ]:
        hits = search(index, minilm, question, k=2)
        assert hits[0].name == expected, (question, hits)
        assert len(hits) == 2 and hits[0].score >= hits[1].score
