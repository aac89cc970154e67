"""Embedding providers: the interface every provider meets.

The implementations live one per module: the bundled MiniLM (`minilm.py`) and
OpenAI-compatible servers (`openai_embeddings.py`); `embedding_factory.py` picks the one the
settings ask for. This module imports none of them (they import it). Every provider returns
L2-normalised float32 rows, so a dot product is a cosine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

Matrix = NDArray[np.float32]
"""Embeddings, one L2-normalised float32 row per text."""


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Turns texts into L2-normalised float32 vectors of one fixed dimension."""

    @property
    def name(self) -> str:
        """Provider and model, e.g. `local/all-MiniLM-L6-v2`; stored with every vector."""
        ...

    @property
    def dimension(self) -> int:
        """Length of every vector this provider returns."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        """One normalised row per text, in order; shape (len(texts), dimension)."""
        ...

    def embed_query(self, text: str) -> Matrix:
        """One normalised vector, shape (dimension,)."""
        ...

    async def aembed_documents(self, texts: Sequence[str]) -> Matrix:
        """`embed_documents` without blocking the event loop."""
        ...

    async def aembed_query(self, text: str) -> Matrix:
        """`embed_query` without blocking the event loop."""
        ...


def l2_normalise(rows: NDArray[Any]) -> Matrix:
    """Rows scaled to unit length as float32 (all-zero rows stay zero)."""
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    return (rows / np.maximum(norms, np.float32(1e-12))).astype(np.float32, copy=False)
