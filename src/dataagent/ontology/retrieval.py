"""Dataset retrieval: embed each dataset once, then rank them by cosine to the question.

Pure: no ORM and no web framework. The caller passes the datasets of exactly one
ontology, so a search can never see another ontology's datasets; vectors are stored
with the dataset records (see `vector_to_bytes`) and re-made only when stale.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
import yaml

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.embeddings import EmbeddingProvider, Matrix
from dataagent.semantic.model import Dataset, SemanticModel

TextStyle = Literal["names", "words", "yaml", "names_yaml"]

DEFAULT_TEXT_STYLE: TextStyle = "names"
"""Measured best on the pooled Spider benchmark (docs/retrieval.md, benchmarks/retrieval_bench.py)."""

DEFAULT_K = 10
MAX_K = 100


@dataclass(frozen=True)
class DatasetDoc:
    """One dataset as retrieval sees it: its name, the text embedded, and the stored vector."""

    name: str
    text: str
    vector: Matrix | None = None
    vector_key: str | None = None  # `embedding_key` of the provider and text that made `vector`


@dataclass(frozen=True)
class ScoredDataset:
    """A search hit: the dataset's name and its cosine similarity to the question."""

    name: str
    score: float


# --- what gets embedded --------------------------------------------------------------------

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def identifier_words(identifier: str) -> str:
    """`CountryCode` and `country_code` both become `country code`."""
    spaced = _CAMEL_BOUNDARY.sub(" ", identifier).replace("_", " ")
    return " ".join(spaced.lower().split())


def _names_text(dataset: Dataset) -> str:
    return f"{dataset.name}: " + ", ".join(f.name for f in dataset.fields)


def _words_text(dataset: Dataset) -> str:
    fields = ", ".join(identifier_words(f.name) for f in dataset.fields)
    return f"{identifier_words(dataset.name)}: {fields}"


def dataset_yaml(dataset: Dataset) -> str:
    """The dataset's YAML definition (seed 000's embedding text), without empty or default keys."""
    data = dataset.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120)


def _names_yaml_text(dataset: Dataset) -> str:
    # Names first: the local model reads only the first 256 word pieces of a text.
    return _names_text(dataset) + "\n" + dataset_yaml(dataset)


_STYLES: dict[str, Callable[[Dataset], str]] = {
    "names": _names_text,
    "words": _words_text,
    "yaml": dataset_yaml,
    "names_yaml": _names_yaml_text,
}


def dataset_text(dataset: Dataset, style: TextStyle = DEFAULT_TEXT_STYLE) -> str:
    """The text embedded for a dataset; `names` is `table: column, column, ...`."""
    if style not in _STYLES:
        raise ValueError(f"unknown text style {style!r}; expected one of {sorted(_STYLES)}")
    return _STYLES[style](dataset)


def dataset_docs(model: SemanticModel, style: TextStyle = DEFAULT_TEXT_STYLE) -> list[DatasetDoc]:
    """One document (without a vector yet) per dataset of a semantic model."""
    return [DatasetDoc(name=d.name, text=dataset_text(d, style)) for d in model.datasets]


# --- vectors ---------------------------------------------------------------------------------


def embedding_key(provider_name: str, text: str) -> str:
    """Identifies the provider and text a vector was made from; a changed key means stale."""
    digest = hashlib.sha256(f"{provider_name}\n{text}".encode()).hexdigest()[:32]
    return f"{provider_name}:{digest}"


def is_current(doc: DatasetDoc, provider: EmbeddingProvider) -> bool:
    """True when the doc's vector was made by this provider from this exact text."""
    return doc.vector is not None and doc.vector_key == embedding_key(provider.name, doc.text)


def embed_datasets(
    provider: EmbeddingProvider, docs: Sequence[DatasetDoc], *, force: bool = False
) -> list[DatasetDoc]:
    """The docs with current vectors; only stale or missing ones are embedded unless `force`."""
    todo = [i for i, d in enumerate(docs) if force or not is_current(d, provider)]
    vectors = provider.embed_documents([docs[i].text for i in todo]) if todo else None
    return _with_vectors(provider, docs, todo, vectors)


async def aembed_datasets(
    provider: EmbeddingProvider, docs: Sequence[DatasetDoc], *, force: bool = False
) -> list[DatasetDoc]:
    """`embed_datasets` without blocking the event loop."""
    todo = [i for i, d in enumerate(docs) if force or not is_current(d, provider)]
    vectors = await provider.aembed_documents([docs[i].text for i in todo]) if todo else None
    return _with_vectors(provider, docs, todo, vectors)


def _with_vectors(
    provider: EmbeddingProvider,
    docs: Sequence[DatasetDoc],
    todo: list[int],
    vectors: Matrix | None,
) -> list[DatasetDoc]:
    out = list(docs)
    for row, i in enumerate(todo):
        assert vectors is not None
        key = embedding_key(provider.name, docs[i].text)
        out[i] = replace(docs[i], vector=vectors[row], vector_key=key)
    return out


def vector_to_bytes(vector: Matrix) -> bytes:
    """A vector as float32 little-endian bytes, for a BLOB/BYTEA column."""
    return np.asarray(vector, dtype="<f4").tobytes()


def vector_from_bytes(data: bytes) -> Matrix:
    """The vector `vector_to_bytes` stored."""
    if len(data) % 4:
        raise ValueError(f"a float32 vector needs a multiple of 4 bytes, got {len(data)}")
    return np.frombuffer(data, dtype="<f4").astype(np.float32)


# --- ranking ---------------------------------------------------------------------------------


def _check_k(k: int) -> None:
    if not 1 <= k <= MAX_K:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, f"k must be between 1 and {MAX_K}.")


def rank_datasets(
    docs: Sequence[DatasetDoc], query_vector: Matrix, k: int = DEFAULT_K
) -> list[ScoredDataset]:
    """The k docs closest to the query by cosine; ties go to the name first alphabetically."""
    _check_k(k)
    names = [d.name for d in docs]
    if len(set(names)) != len(names):
        raise ValueError("dataset names must be unique within one search")
    if not docs:
        return []
    if any(d.vector is None for d in docs):
        raise ValueError("every doc needs a vector; call embed_datasets first")
    matrix = np.stack([np.asarray(d.vector, dtype=np.float32) for d in docs])
    if matrix.shape[1] != query_vector.shape[-1]:
        raise ValueError(
            f"doc vectors have {matrix.shape[1]} dimensions, the query {query_vector.shape[-1]}"
        )
    scores = matrix @ np.asarray(query_vector, dtype=np.float32)
    order = sorted(range(len(docs)), key=lambda i: (-float(scores[i]), names[i]))
    return [ScoredDataset(names[i], float(scores[i])) for i in order[:k]]


def search_datasets(
    docs: Sequence[DatasetDoc],
    question: str,
    provider: EmbeddingProvider,
    k: int = DEFAULT_K,
) -> list[ScoredDataset]:
    """The k datasets most similar to the question, best first, among `docs` only.

    Docs whose vector is missing or stale are embedded for this search (and not kept);
    run the backfill so that searches do not pay for it.
    """
    _check_k(k)
    if not docs:
        return []
    current = embed_datasets(provider, docs)
    return rank_datasets(current, provider.embed_query(question), k)


async def asearch_datasets(
    docs: Sequence[DatasetDoc],
    question: str,
    provider: EmbeddingProvider,
    k: int = DEFAULT_K,
) -> list[ScoredDataset]:
    """`search_datasets` without blocking the event loop."""
    _check_k(k)
    if not docs:
        return []
    current = await aembed_datasets(provider, docs)
    return rank_datasets(current, await provider.aembed_query(question), k)
