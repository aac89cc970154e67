"""Dataset retrieval: rank one ontology's datasets (and metrics) for a question.

Embeddings are the primary signal (cosine between the question and each dataset's
text); a small BM25 score over the same text is added because the benchmark
(benchmarks/retrieval_bench.py, docs/retrieval.md) measured a gain from it on both
Spider and defog. Metrics (`dataagent.ontology.metrics` writes their text) are scored the
same way, side by side with the datasets, and a metric that matches brings the datasets it
reads into the dataset results. Pure: no ORM and no web framework. The caller passes the
docs of exactly one ontology, so a search never sees another ontology's datasets.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, TypeVar

import numpy as np
from numpy.typing import NDArray

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.embeddings import EmbeddingProvider, Matrix
from dataagent.semantic.model import Dataset, SemanticModel
from dataagent.semantic.yaml_io import dump_dataset_yaml

TextStyle = Literal["words", "described", "names", "yaml"]

DEFAULT_TEXT_STYLE: TextStyle = "words"
"""What gets embedded: measured best on both benchmark suites (docs/retrieval.md)."""

KEYWORD_WEIGHT = 0.2
"""Weight of the BM25 score (scaled to 0..1 per question) added to the cosine."""

DEFAULT_K = 10
MAX_K = 100


@dataclass(frozen=True, eq=False)  # eq would compare arrays element-wise
class DatasetDoc:
    """One dataset as retrieval sees it: its name, the text embedded, and the stored vector."""

    name: str
    text: str
    vector: Matrix | None = None
    vector_key: str | None = None  # `embedding_key` of the provider and text that made `vector`


@dataclass(frozen=True, eq=False)
class MetricDoc(DatasetDoc):
    """One metric as retrieval sees it: a searchable doc, and what a hit on it shows."""

    label: str | None = None
    description: str | None = None
    format: str = "number"
    datasets: tuple[str, ...] = ()  # the datasets it reads, its own first


Doc = TypeVar("Doc", bound=DatasetDoc)


@dataclass(frozen=True)
class ScoredDataset:
    """A search hit: `score` = `cosine` + keyword weight x `keyword` (BM25 scaled to 0..1).

    When `via_metric` is set, a metric reading this dataset scored better than the dataset
    itself, and `score` is that metric's (`cosine` and `keyword` stay the dataset's own).
    """

    name: str
    score: float
    cosine: float
    keyword: float
    via_metric: str | None = None


@dataclass(frozen=True)
class ScoredMetric:
    """A metric hit, scored as datasets are; `datasets` are the ones it reads."""

    name: str
    label: str | None
    description: str | None
    format: str
    datasets: tuple[str, ...]
    score: float
    cosine: float
    keyword: float


@dataclass(frozen=True)
class Ranking:
    """A search's answer: the best datasets and, for a model with metrics, the best metrics."""

    datasets: list[ScoredDataset]
    metrics: list[ScoredMetric]


# --- what gets embedded --------------------------------------------------------------------

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def identifier_words(identifier: str) -> str:
    """`CountryCode` and `country_code` both become `country code`."""
    spaced = _CAMEL_BOUNDARY.sub(" ", identifier).replace("_", " ")
    return " ".join(spaced.lower().split())


def _words_text(dataset: Dataset) -> str:
    fields = ", ".join(identifier_words(f.name) for f in dataset.fields)
    return f"{identifier_words(dataset.name)}: {fields}"


def _described_text(dataset: Dataset) -> str:
    # Names first: the local model reads only the first 256 word pieces of a text.
    notes = [dataset.description, *(f.description for f in dataset.fields)]
    described = " ".join(n.strip() for n in notes if n and n.strip())
    head = _words_text(dataset)
    return f"{head}\n{described}" if described else head


def _names_text(dataset: Dataset) -> str:
    return f"{dataset.name}: " + ", ".join(f.name for f in dataset.fields)


_STYLES: dict[str, Callable[[Dataset], str]] = {
    "words": _words_text,
    "described": _described_text,
    "names": _names_text,
    "yaml": dump_dataset_yaml,  # seed 000's choice: the dataset's stored YAML
}


def dataset_text(dataset: Dataset, style: TextStyle = DEFAULT_TEXT_STYLE) -> str:
    """The text embedded for a dataset; `words` gives `order items: order id` for OrderItems."""
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
    provider: EmbeddingProvider, docs: Sequence[Doc], *, force: bool = False
) -> list[Doc]:
    """The docs (of datasets or of metrics) with current vectors; only stale or missing ones
    are embedded unless `force`."""
    todo = [i for i, d in enumerate(docs) if force or not is_current(d, provider)]
    out = list(docs)
    if not todo:
        return out
    vectors = provider.embed_documents([docs[i].text for i in todo])
    for row, i in enumerate(todo):
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


# --- keyword scores --------------------------------------------------------------------------


def keyword_terms(text: str) -> list[str]:
    """BM25 terms: identifier words, lower-cased, with a plain plural `s` folded away."""
    words = re.findall(r"[a-z0-9]+", identifier_words(text))
    # Folding "singers" onto "singer" is crude, and measured to help (docs/retrieval.md).
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words]


class KeywordIndex:
    """Okapi BM25 (k1 = 1.5, b = 0.75) over a handful to a few thousand short texts."""

    def __init__(self, texts: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        counts = [Counter(keyword_terms(t)) for t in texts]
        lengths = np.array([sum(c.values()) for c in counts], dtype=np.float64)
        mean_length = float(lengths.mean()) if len(texts) and lengths.any() else 1.0
        self._norm = k1 * (1 - b + b * lengths / mean_length)
        self._k1 = k1
        df = Counter(term for c in counts for term in c)
        n = len(texts)
        self._idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self._postings: dict[str, list[tuple[int, int]]] = {}
        for i, c in enumerate(counts):
            for term, tf in c.items():
                self._postings.setdefault(term, []).append((i, tf))
        self._size = n

    def scores(self, query: str) -> NDArray[np.float64]:
        """One BM25 score per text, in the order given."""
        out = np.zeros(self._size)
        for term in set(keyword_terms(query)):
            for i, tf in self._postings.get(term, ()):
                out[i] += self._idf[term] * tf * (self._k1 + 1) / (tf + self._norm[i])
        return out


# --- ranking ---------------------------------------------------------------------------------


def _scaled(index: KeywordIndex, question: str, size: int, weight: float) -> NDArray[np.float64]:
    """BM25 scores divided by the question's best one (0..1); zeros when unweighted."""
    if not weight or not size:
        return np.zeros(size)
    scores = index.scores(question)
    best = scores.max()
    return scores / best if best > 0 else scores


def _stack(vectors: Sequence[Matrix], dimension: int) -> Matrix:
    return np.stack(vectors) if vectors else np.zeros((0, dimension), dtype=np.float32)


def _check_k(k: int) -> None:
    if not 1 <= k <= MAX_K:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, f"k must be between 1 and {MAX_K}.")


StoredDoc = tuple[str, str, bytes | None, str | None]
"""A dataset as the store keeps it for search: name, text, `vector_to_bytes` vector, key."""


class DatasetIndex:
    """One ontology's embedded docs, ready to search many times (cache it per ontology).

    Datasets and metrics are scored alike but apart (each has its own BM25 corpus), so the
    datasets' own scores are exactly what they would be in a model without metrics.
    """

    def __init__(self, docs: Sequence[DatasetDoc], metrics: Sequence[MetricDoc] = ()) -> None:
        self.names = [d.name for d in docs]
        if len(set(self.names)) != len(self.names):
            raise ValueError("dataset names must be unique within one index")
        self.metrics = list(metrics)
        if len({m.name for m in self.metrics}) != len(self.metrics):
            raise ValueError("metric names must be unique within one index")
        everything = [*docs, *self.metrics]
        if any(d.vector is None for d in everything):
            raise ValueError("every doc needs a vector; call embed_datasets first")
        vectors = [np.asarray(d.vector, dtype=np.float32) for d in everything]
        if len({v.shape for v in vectors}) > 1:
            raise ValueError("doc vectors differ in dimension; re-embed with one provider")
        self._dimension = vectors[0].shape[-1] if vectors else 0
        # Two matrices: one product over datasets and metrics together rounds the datasets'
        # cosines differently in the last bits, and their scores should not move at all.
        self._matrix = _stack(vectors[: len(docs)], self._dimension)
        self._metric_matrix = _stack(vectors[len(docs) :], self._dimension)
        self._keywords = KeywordIndex([d.text for d in docs])
        self._metric_keywords = KeywordIndex([m.text for m in self.metrics])

    @classmethod
    def from_rows(
        cls, rows: Iterable[StoredDoc], metrics: Iterable[MetricDoc] = ()
    ) -> DatasetIndex:
        """The index over one ontology's stored rows: what every search runs on.

        A dataset or metric without a vector is a CONFLICT: a search never embeds documents.
        """
        docs = [
            DatasetDoc(name, text, vector_from_bytes(vector) if vector else None, key)
            for name, text, vector, key in rows
        ]
        metric_docs = list(metrics)
        if any(d.vector is None for d in [*docs, *metric_docs]):
            raise DataAgentError(
                ErrorCode.CONFLICT,
                "Some datasets or metrics have no embedding: rebuild the ontology "
                "(or run `dataagent ontology backfill`).",
            )
        return cls(docs, metric_docs)

    def __len__(self) -> int:
        return len(self.names)

    def search(
        self,
        question: str,
        query_vector: Matrix,
        k: int = DEFAULT_K,
        keyword_weight: float = KEYWORD_WEIGHT,
    ) -> list[ScoredDataset]:
        """The k best datasets for the question (see `rank`, which also gives metrics)."""
        return self.rank(question, query_vector, k, keyword_weight).datasets

    def rank(
        self,
        question: str,
        query_vector: Matrix,
        k: int = DEFAULT_K,
        keyword_weight: float = KEYWORD_WEIGHT,
    ) -> Ranking:
        """The k best datasets and the k best metrics; equal scores go to the name first
        alphabetically.

        A metric among the k best that scores at least as well as the best dataset (the
        question is about the metric more than about any one table) lifts the datasets it
        reads to its own score, so "margin" finds the datasets of the margin metrics.
        """
        _check_k(k)
        if not self._dimension:
            return Ranking([], [])
        if self._dimension != query_vector.shape[-1]:
            raise ValueError(
                f"doc vectors have {self._dimension} dimensions, "
                f"the query {query_vector.shape[-1]}; re-embed with one provider"
            )
        query = np.asarray(query_vector, dtype=np.float32)
        cosine = np.concatenate([self._matrix @ query, self._metric_matrix @ query])
        keyword = np.concatenate(
            [
                _scaled(self._keywords, question, len(self.names), keyword_weight),
                _scaled(self._metric_keywords, question, len(self.metrics), keyword_weight),
            ]
        )
        fused = cosine.astype(np.float64) + keyword_weight * keyword
        metrics = self._top_metrics(fused, cosine, keyword, k)
        return Ranking(self._top_datasets(fused, cosine, keyword, metrics, k), metrics)

    def _top_metrics(
        self, fused: NDArray[np.float64], cosine: Matrix, keyword: NDArray[np.float64], k: int
    ) -> list[ScoredMetric]:
        start = len(self.names)
        order = sorted(
            range(len(self.metrics)), key=lambda i: (-fused[start + i], self.metrics[i].name)
        )[:k]
        return [
            ScoredMetric(
                m.name,
                m.label,
                m.description,
                m.format,
                m.datasets,
                float(fused[start + i]),
                float(cosine[start + i]),
                float(keyword[start + i]),
            )
            for i, m in ((i, self.metrics[i]) for i in order)
        ]

    def _top_datasets(
        self,
        fused: NDArray[np.float64],
        cosine: Matrix,
        keyword: NDArray[np.float64],
        metrics: Sequence[ScoredMetric],
        k: int,
    ) -> list[ScoredDataset]:
        scores = {name: float(fused[i]) for i, name in enumerate(self.names)}
        best = max(scores.values(), default=0.0)
        via: dict[str, str] = {}
        for metric in metrics:  # best first: a dataset keeps the first metric that lifts it
            if metric.score < best:
                break
            for name in metric.datasets:
                if name in scores and metric.score > scores[name]:
                    scores[name], via[name] = metric.score, metric.name
        order = sorted(range(len(self)), key=lambda i: (-scores[self.names[i]], self.names[i]))
        return [
            ScoredDataset(
                self.names[i],
                scores[self.names[i]],
                float(cosine[i]),
                float(keyword[i]),
                via.get(self.names[i]),
            )
            for i in order[:k]
        ]
