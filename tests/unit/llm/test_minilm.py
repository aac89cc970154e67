"""The bundled MiniLM encoder (NumPy, no torch): reference values, shape, normalisation."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.embeddings import EmbeddingProvider, l2_normalise
from dataagent.llm.minilm import LocalMiniLMProvider, _gelu, bundled_model_dir


@pytest.fixture(scope="module")
def minilm() -> LocalMiniLMProvider:
    """One provider; the weights load once per process whatever the number of providers."""
    return LocalMiniLMProvider()


def test_reproduces_the_published_similarity_matrix(minilm: LocalMiniLMProvider) -> None:
    # The sentence-transformers quickstart prints this matrix for all-MiniLM-L6-v2.
    e = minilm.embed_documents(
        ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    )
    expected = np.array([[1.0, 0.6660, 0.1046], [0.6660, 1.0, 0.1411], [0.1046, 0.1411, 1.0]])
    np.testing.assert_allclose(e @ e.T, expected, atol=1e-3)


def test_reproduces_a_published_vector(minilm: LocalMiniLMProvider) -> None:
    # fastembed's test suite pins the first values of "hello world" for this model.
    vector = minilm.embed_documents(["hello world", "flag embedding"])[0]
    expected = [-0.034478, 0.03102, 0.00673, 0.02611, -0.039362]
    np.testing.assert_allclose(vector[:5], expected, atol=1e-4)


def test_shape_dtype_and_unit_length(minilm: LocalMiniLMProvider) -> None:
    e = minilm.embed_documents(["orders", "customers and their addresses", ""])
    assert e.shape == (3, minilm.dimension) == (3, 384)
    assert e.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-5)
    query = minilm.embed_query("orders")
    assert query.shape == (384,)
    np.testing.assert_allclose(query, e[0], atol=1e-6)


def test_no_texts_gives_an_empty_matrix(minilm: LocalMiniLMProvider) -> None:
    assert minilm.embed_documents([]).shape == (0, 384)


def test_deterministic_and_independent_of_batching(minilm: LocalMiniLMProvider) -> None:
    texts = ["a", "singer: singer id, name, country, age", "x " * 40, "world population"]
    together = minilm.embed_documents(texts)
    alone = np.stack([minilm.embed_query(t) for t in texts])
    # Padding within a batch must not leak into a text's vector.
    np.testing.assert_allclose(together, alone, atol=1e-5)
    np.testing.assert_array_equal(minilm.embed_documents(texts), together)
    small_batches = LocalMiniLMProvider(batch_tokens=1).embed_documents(texts)
    np.testing.assert_allclose(small_batches, together, atol=1e-5)


def test_semantic_sanity(minilm: LocalMiniLMProvider) -> None:
    cat, kitten, revenue = minilm.embed_documents(
        ["a cat sits on the mat", "a kitten is sitting on a rug", "quarterly revenue by region"]
    )
    assert cat @ kitten > 0.6
    assert cat @ revenue < 0.2


def test_truncates_at_the_models_max_sequence_length(minilm: LocalMiniLMProvider) -> None:
    assert minilm.max_tokens == 256  # sentence_bert_config.json's max_seq_length
    long = "the quick brown fox jumps over the lazy dog " * 60  # about 540 word pieces
    longer = long + "an entirely different ending about databases and invoices"
    a, b = minilm.embed_documents([long, longer])
    np.testing.assert_allclose(a, b, atol=1e-6)


async def test_async_variants_match(minilm: LocalMiniLMProvider) -> None:
    texts = ["orders by month", "top customers"]
    np.testing.assert_allclose(
        await minilm.aembed_documents(texts), minilm.embed_documents(texts), atol=1e-6
    )
    np.testing.assert_allclose(
        await minilm.aembed_query(texts[0]), minilm.embed_query(texts[0]), atol=1e-6
    )


def test_concurrent_use_from_threads(minilm: LocalMiniLMProvider) -> None:
    texts = [f"question number {i} about sales" for i in range(8)]
    expected = minilm.embed_documents(texts)
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(minilm.embed_query, texts))
    np.testing.assert_allclose(np.stack(got), expected, atol=1e-5)


def test_satisfies_the_provider_protocol(minilm: LocalMiniLMProvider) -> None:
    assert isinstance(minilm, EmbeddingProvider)
    assert minilm.name == "local/all-MiniLM-L6-v2"


def test_weights_come_from_the_installed_package() -> None:
    model_dir = bundled_model_dir()
    assert (model_dir / "model.safetensors").is_file()
    assert (model_dir / "tokenizer.json").is_file()


def test_a_missing_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DataAgentError) as info:
        LocalMiniLMProvider(model_dir=tmp_path).embed_query("x")
    assert info.value.code is ErrorCode.LLM_UNAVAILABLE


def test_l2_normalise_keeps_zero_rows() -> None:
    rows = l2_normalise(np.array([[3.0, 4.0], [0.0, 0.0]]))
    np.testing.assert_allclose(rows, [[0.6, 0.8], [0.0, 0.0]])
    assert rows.dtype == np.float32


def test_gelu_is_the_exact_erf_form() -> None:
    x = np.linspace(-8, 8, 4001, dtype=np.float32)
    exact = [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64)]
    got = _gelu(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, exact, rtol=0, atol=1e-6)


def test_blas_runs_single_threaded_once_the_model_is_used(minilm: LocalMiniLMProvider) -> None:
    from threadpoolctl import threadpool_info

    minilm.embed_query("x")
    numpy_blas = [
        i["num_threads"]
        for i in threadpool_info()
        if i.get("user_api") == "blas" and "numpy" in i.get("filepath", "")
    ]
    assert numpy_blas and set(numpy_blas) == {1}
