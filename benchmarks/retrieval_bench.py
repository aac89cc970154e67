"""Dataset retrieval recall on the pooled Spider dev schema (DESIGN: "Retrieval: what was measured").

Every table of the Spider SQLite files in ../shared/evaldata is pooled into one schema
(table identity = db.table; 91 tables with chinook_1, 80 without), each Spider dev
question is searched against all of them, and a question counts as a hit at k when
every table its gold SQL reads is in the top k. The product's own code builds the
documents, embeds them and ranks them; BM25 and the fusions are measured here only.

    .venv/bin/python benchmarks/retrieval_bench.py [--dev-only] [--evaldata PATH]

Prints a table and writes benchmarks/results/retrieval[_dev].json.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sqlite3
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import sqlglot
from sqlglot import exp

from dataagent.llm.embeddings import LocalMiniLMProvider
from dataagent.ontology.retrieval import (
    DatasetDoc,
    TextStyle,
    dataset_text,
    embed_datasets,
    identifier_words,
    rank_datasets,
)
from dataagent.semantic.model import DataType, Dataset, Field_

REPO = Path(__file__).resolve().parents[1]
EVALDATA = (REPO.parent / "shared" / "evaldata").resolve()
RESULTS = REPO / "benchmarks" / "results"
KS = (1, 3, 5, 10)
SAMPLES_PER_COLUMN = 3
NOT_IN_DEV = {"chinook_1"}  # SpiderMan train DB; pooled by default as DESIGN's 91 tables were


@dataclass(frozen=True)
class Table:
    """One pooled table: `db.table`, its semantic dataset and its FK neighbours."""

    key: str
    dataset: Dataset
    neighbours: frozenset[str]


@dataclass(frozen=True)
class Question:
    """One Spider dev question with the pooled keys of its gold tables."""

    db: str
    text: str
    gold: frozenset[str]
    usable: bool


# --- the pooled schema -------------------------------------------------------------------


def _data_type(declared: str) -> DataType:
    t = declared.upper()
    for marker, dtype in (
        ("INT", DataType.INTEGER),
        ("CHAR", DataType.VARCHAR),
        ("TEXT", DataType.VARCHAR),
        ("REAL", DataType.FLOAT),
        ("FLOA", DataType.FLOAT),
        ("DOUB", DataType.FLOAT),
        ("DEC", DataType.DECIMAL),
        ("NUMERIC", DataType.DECIMAL),
        ("DATETIME", DataType.TIMESTAMP),
        ("DATE", DataType.DATE),
        ("TIME", DataType.TIMESTAMP),
        ("BOOL", DataType.BOOLEAN),
    ):
        if marker in t:
            return dtype
    return DataType.OTHER


def _field_name(column: str) -> str:
    name = re.sub(r"\W+", "_", column).strip("_") or "column"
    return name if re.match(r"[A-Za-z_]", name) else f"_{name}"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def load_tables(sqlite_dir: Path, dev_only: bool, samples: bool) -> list[Table]:
    """Introspect every table of every Spider SQLite file into a semantic Dataset."""
    tables: list[Table] = []
    for path in sorted(sqlite_dir.glob("*.sqlite")):
        db = path.stem
        if dev_only and db in NOT_IN_DEV:
            continue
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            names = [
                r[0]
                for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' "
                    "AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
                )
            ]
            lower = {n.lower(): n for n in names}
            for name in names:
                fields = []
                for _, col, declared, notnull, pk, _default in conn.execute(
                    f"PRAGMA table_info({_quote(name)})"
                ):
                    values: list[Any] = []
                    if samples:
                        values = [
                            str(v)[:40]
                            for (v,) in conn.execute(
                                f"SELECT DISTINCT {_quote(col)} FROM {_quote(name)} "
                                f"WHERE {_quote(col)} IS NOT NULL LIMIT {SAMPLES_PER_COLUMN}"
                            )
                        ]
                    fields.append(
                        Field_(
                            name=_field_name(col),
                            expression=col,
                            data_type=_data_type(declared or ""),
                            native_type=declared or None,
                            is_primary_key=bool(pk),
                            nullable=not notnull,
                            sample_values=values,
                        )
                    )
                rows = conn.execute(f"SELECT count(*) FROM {_quote(name)}").fetchone()[0]
                fk_targets = {
                    lower.get(str(r[2]).lower(), str(r[2]))
                    for r in conn.execute(f"PRAGMA foreign_key_list({_quote(name)})")
                }
                dataset = Dataset(
                    name=_field_name(name),
                    source=f"main.{name}",
                    row_count=rows,
                    primary_key=[f.name for f in fields if f.is_primary_key],
                    fields=fields,
                )
                tables.append(Table(f"{db}.{name}", dataset, frozenset(f"{db}.{t}" for t in fk_targets)))
        finally:
            conn.close()
    # FKs point one way; a join-graph neighbour is either end.
    back: dict[str, set[str]] = {t.key: set(t.neighbours) for t in tables}
    for t in tables:
        for n in t.neighbours:
            back.setdefault(n, set()).add(t.key)
    return [Table(t.key, t.dataset, frozenset(back[t.key] - {t.key})) for t in tables]


def gold_tables(sql: str, db: str, table_keys: dict[str, str]) -> frozenset[str] | None:
    """The pooled keys of the tables a gold query reads (None when one is unknown)."""
    tree = sqlglot.parse_one(sql, read="sqlite")
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    keys = set()
    for table in tree.find_all(exp.Table):
        name = table.name.lower()
        if name in ctes:
            continue
        key = table_keys.get(f"{db}.{name}".lower())
        if key is None:
            return None
        keys.add(key)
    return frozenset(keys)


def load_questions(evaldata: Path, tables: Sequence[Table]) -> list[Question]:
    """Spider dev questions whose gold tables all exist in the pool."""
    table_keys = {t.key.lower(): t.key for t in tables}
    path = evaldata / "spider_dev" / "questions" / "spider_dev_compact.jsonl"
    out = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        gold = gold_tables(record["gold_sql"], record["db_id"], table_keys)
        if gold:
            out.append(Question(record["db_id"], record["question"], gold, record["usable"]))
    return out


# --- BM25, measured as the alternative ---------------------------------------------------


def _tokens(text: str) -> list[str]:
    words = re.findall(r"[a-z0-9]+", identifier_words(text))
    # A crude plural fold, so that "singers" matches the table `singer`.
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words]


class BM25:
    """Okapi BM25 (k1 = 1.5, b = 0.75) over short documents."""

    def __init__(self, docs: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.docs = [Counter(_tokens(d)) for d in docs]
        self.lengths = np.array([sum(c.values()) for c in self.docs], dtype=np.float64)
        self.avg = float(self.lengths.mean())
        df = Counter(t for c in self.docs for t in c)
        n = len(docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.k1, self.b = k1, b

    def scores(self, query: str) -> np.ndarray:
        """One BM25 score per document."""
        out = np.zeros(len(self.docs))
        norm = self.k1 * (1 - self.b + self.b * self.lengths / self.avg)
        for term in set(_tokens(query)):
            idf = self.idf.get(term)
            if idf is None:
                continue
            tf = np.array([c.get(term, 0) for c in self.docs], dtype=np.float64)
            out += idf * tf * (self.k1 + 1) / (tf + norm)
        return out


def _order(scores: np.ndarray, keys: Sequence[str]) -> list[str]:
    return [keys[i] for i in sorted(range(len(keys)), key=lambda i: (-scores[i], keys[i]))]


def _rrf(*rankings: list[str], c: int = 60) -> list[str]:
    fused: Counter[str] = Counter()
    for ranking in rankings:
        for rank, key in enumerate(ranking):
            fused[key] += 1 / (c + rank + 1)
    return sorted(fused, key=lambda key: (-fused[key], key))


# --- the run ---------------------------------------------------------------------------------


def _recall(rankings: Sequence[list[str]], questions: Sequence[Question]) -> dict[str, float]:
    out = {}
    for k in KS:
        hits = sum(q.gold <= set(r[:k]) for q, r in zip(questions, rankings, strict=True))
        out[f"@{k}"] = round(hits / len(questions), 3)
    return out


def _percentiles(seconds: Sequence[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in seconds)
    return {
        "mean_ms": round(statistics.fmean(ms), 2),
        "p50_ms": round(ms[len(ms) // 2], 2),
        "p95_ms": round(ms[int(len(ms) * 0.95)], 2),
    }


def run(evaldata: Path, dev_only: bool) -> dict[str, Any]:
    """Measure every method; returns the JSON written to benchmarks/results."""
    started = time.perf_counter()
    provider = LocalMiniLMProvider()
    provider.embed_query("warm up")  # loads the weights once, outside every timing below
    load_s = time.perf_counter() - started

    tables = load_tables(evaldata / "spider_dev" / "sqlite", dev_only, samples=True)
    bare = [
        Table(t.key, t.dataset.model_copy(update={"fields": [
            f.model_copy(update={"sample_values": []}) for f in t.dataset.fields
        ]}), t.neighbours)
        for t in tables
    ]
    keys = [t.key for t in tables]
    index = {k: i for i, k in enumerate(keys)}
    questions = load_questions(evaldata, tables)

    query_vectors, embed_s = [], []
    for q in questions:
        t0 = time.perf_counter()
        query_vectors.append(provider.embed_query(q.text))
        embed_s.append(time.perf_counter() - t0)

    variants: dict[str, tuple[Sequence[Table], TextStyle]] = {
        "names": (bare, "names"),
        "words": (bare, "words"),
        "yaml": (bare, "yaml"),
        "yaml+samples": (tables, "yaml"),
        "names+yaml+samples": (tables, "names_yaml"),
    }
    rankings: dict[str, list[list[str]]] = {}
    doc_timing: dict[str, Any] = {}
    search_s: list[float] = []
    dense_scores: dict[str, np.ndarray] = {}
    for label, (source, style) in variants.items():
        docs = [DatasetDoc(t.key, dataset_text(t.dataset, style)) for t in source]
        t0 = time.perf_counter()
        docs = embed_datasets(provider, docs)
        elapsed = time.perf_counter() - t0
        doc_timing[label] = {
            "total_s": round(elapsed, 3),
            "per_doc_ms": round(elapsed / len(docs) * 1000, 2),
            "mean_chars": round(statistics.fmean(len(d.text) for d in docs)),
            "truncated_at_256_tokens": sum(
                len(e.ids) >= provider.max_tokens
                for e in provider._encoder().tokenizer.encode_batch([d.text for d in docs])
            ),
        }
        ranked = []
        for vector in query_vectors:
            t0 = time.perf_counter()
            hits = rank_datasets(docs, vector, k=len(docs))
            if label == "names":
                search_s.append(time.perf_counter() - t0)
            ranked.append([h.name for h in hits])
        rankings[f"dense:{label}"] = ranked
        matrix = np.stack([d.vector for d in docs if d.vector is not None])
        dense_scores[label] = np.stack(query_vectors) @ matrix.T

    # BM25 alone, and the two ways of combining it measured against the dense baseline.
    bm25_names = BM25([dataset_text(t.dataset, "words") for t in bare])
    bm25_yaml = BM25([dataset_text(t.dataset, "yaml") for t in tables])
    bm25_n = [_order(bm25_names.scores(q.text), keys) for q in questions]
    rankings["bm25:names"] = bm25_n
    rankings["bm25:yaml+samples"] = [_order(bm25_yaml.scores(q.text), keys) for q in questions]
    dense = rankings["dense:names"]
    rankings["rrf(dense:names, bm25:names)"] = [_rrf(d, b) for d, b in zip(dense, bm25_n, strict=True)]
    for weight in (0.02, 0.05):
        label = f"dense:names + {weight}*bm25:names"
        rankings[label] = [
            _order(dense_scores["names"][i] + weight * bm25_names.scores(q.text), keys)
            for i, q in enumerate(questions)
        ]

    # Join-graph expansion: a table also scores by its best-scoring FK neighbour.
    neighbour_idx = [[index[n] for n in t.neighbours if n in index] for t in tables]
    for beta in (0.1, 0.3):
        ranked = []
        for row in dense_scores["names"]:
            boost = np.array([max((row[j] for j in nb), default=0.0) for nb in neighbour_idx])
            ranked.append(_order(row + beta * boost, keys))
        rankings[f"dense:names + {beta}*best FK neighbour"] = ranked

    usable = [i for i, q in enumerate(questions) if q.usable]
    results = {
        method: {
            "usable": _recall([r[i] for i in usable], [questions[i] for i in usable]),
            "all": _recall(r, questions),
        }
        for method, r in rankings.items()
    }
    return {
        "pool": {"tables": len(tables), "databases": len({k.split(".")[0] for k in keys})},
        "questions": {"all": len(questions), "usable": len(usable)},
        "recall_all_gold_tables_in_top_k": results,
        "latency": {
            "model_load_s": round(load_s, 3),
            "query_embed": _percentiles(embed_s),
            "rank_over_pool": _percentiles(search_s),
            "query_embed_plus_rank": _percentiles(
                [a + b for a, b in zip(embed_s, search_s, strict=True)]
            ),
            "documents": doc_timing,
        },
        "runtime_s": round(time.perf_counter() - started, 1),
    }


def _print(report: dict[str, Any]) -> None:
    pool, qs = report["pool"], report["questions"]
    print(
        f"Pooled schema: {pool['tables']} tables from {pool['databases']} databases; "
        f"{qs['usable']} usable questions ({qs['all']} with gold tables)."
    )
    print("Recall: all gold tables in the top k (usable questions)")
    width = max(len(m) for m in report["recall_all_gold_tables_in_top_k"])
    print(f"{'method':<{width}}  " + "  ".join(f"{'@' + str(k):>5}" for k in KS))
    for method, r in report["recall_all_gold_tables_in_top_k"].items():
        print(f"{method:<{width}}  " + "  ".join(f"{r['usable'][f'@{k}']:5.3f}" for k in KS))
    lat = report["latency"]
    print(f"\nModel load: {lat['model_load_s']} s")
    for what in ("query_embed", "rank_over_pool", "query_embed_plus_rank"):
        p = lat[what]
        print(f"{what}: mean {p['mean_ms']} ms, p50 {p['p50_ms']} ms, p95 {p['p95_ms']} ms")
    print("Document embedding:")
    for label, d in lat["documents"].items():
        print(
            f"  {label}: {d['total_s']} s for {pool['tables']} docs ({d['per_doc_ms']} ms/doc, "
            f"{d['mean_chars']} chars avg, {d['truncated_at_256_tokens']} cut at 256 tokens)"
        )


def main(argv: Sequence[str] | None = None, out: Callable[[dict[str, Any]], None] = _print) -> None:
    """Run the benchmark, print the table and write the JSON results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--evaldata", type=Path, default=EVALDATA)
    parser.add_argument("--dev-only", action="store_true", help="leave chinook_1 out (80 tables)")
    args = parser.parse_args(argv)
    if not (args.evaldata / "spider_dev").is_dir():
        raise SystemExit(f"evaluation data not found at {args.evaldata}")
    report = run(args.evaldata, args.dev_only)
    out(report)
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / ("retrieval_dev.json" if args.dev_only else "retrieval.json")
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nWrote {path.relative_to(REPO)}")


if __name__ == "__main__":
    main()
