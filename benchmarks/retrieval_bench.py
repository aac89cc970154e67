"""Dataset retrieval recall on pooled real schemas (DESIGN: "Retrieval: what was measured").

Two suites from ../shared/evaldata, each pooling every table of several databases into
one schema (table identity = db.table) and searching it with every question:

- spider: the Spider SQLite files (91 tables with chinook_1 as in DESIGN, 80 with
  --dev-only), the Spider dev questions (1,026 usable of 1,034). DESIGN's baseline.
- defog: the 11 defog PostgreSQL dumps (110 tables, read from their CREATE TABLE
  statements, with defog's column descriptions), 314 questions. Used as a held-out
  check of choices made on Spider.

A question is a hit at k when every table its gold SQL reads (found with sqlglot) is in
the top k. The product's own code builds, embeds and ranks the documents; BM25 alone,
reciprocal-rank fusion and join-graph boosts are computed here for comparison.

    .venv/bin/python benchmarks/retrieval_bench.py [--suite spider|defog|all] [--dev-only]

Prints a table per suite and writes benchmarks/results/retrieval.json.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import sqlglot
from sqlglot import exp

from dataagent.llm.embeddings import Matrix
from dataagent.llm.minilm import LocalMiniLMProvider
from dataagent.ontology.retrieval import (
    KEYWORD_WEIGHT,
    DatasetDoc,
    DatasetIndex,
    KeywordIndex,
    TextStyle,
    dataset_text,
    embed_datasets,
    vector_to_bytes,
)
from dataagent.semantic.generation import generate_semantic_model
from dataagent.semantic.model import Dataset, DataType, Field_, Relationship
from dataagent.semantic.yaml_io import dump_dataset_yaml
from dataagent.sources.access import AccessPolicy
from dataagent.sources.engines import ConnectionSpec
from dataagent.sources.introspection import introspect

REPO = Path(__file__).resolve().parents[1]
EVALDATA = (REPO.parent / "shared" / "evaldata").resolve()
RESULTS = REPO / "benchmarks" / "results"
KS = (1, 3, 5, 10)
NOT_IN_DEV = {"chinook_1"}  # SpiderMan train DB; pooled by default, as DESIGN's 91 tables were
DESCRIPTIONS = {
    "spider": "the descriptions the product's generator writes (templates)",
    "defog": "defog's hand-written column descriptions",
}
DEFOG_QUESTIONS = (
    "questions_gen_postgres.csv",
    "instruct_basic_postgres.csv",
    "instruct_advanced_postgres.csv",
)


@dataclass(frozen=True)
class Table:
    """One pooled table: `db.table`, its semantic dataset and its FK neighbours (both ways)."""

    key: str
    dataset: Dataset
    neighbours: frozenset[str]
    relationships: tuple[Relationship, ...] = ()  # the semantic model's, touching this table


@dataclass(frozen=True)
class Question:
    """One question with the pooled keys of its gold tables."""

    text: str
    gold: frozenset[str]
    usable: bool = True


# --- building the pools ----------------------------------------------------------------------


def _data_type(declared: str) -> DataType:
    t = declared.upper()
    for marker, dtype in (
        ("INT", DataType.INTEGER),
        ("SERIAL", DataType.INTEGER),
        ("CHAR", DataType.VARCHAR),
        ("TEXT", DataType.VARCHAR),
        ("REAL", DataType.FLOAT),
        ("FLOA", DataType.FLOAT),
        ("DOUB", DataType.FLOAT),
        ("DEC", DataType.DECIMAL),
        ("NUMERIC", DataType.DECIMAL),
        ("DATETIME", DataType.TIMESTAMP),
        ("TIMESTAMP", DataType.TIMESTAMP),
        ("DATE", DataType.DATE),
        ("TIME", DataType.TIME),
        ("BOOL", DataType.BOOLEAN),
    ):
        if marker in t:
            return dtype
    return DataType.OTHER


def _name(identifier: str) -> str:
    name = re.sub(r"\W+", "_", identifier).strip("_") or "column"
    return name if re.match(r"[A-Za-z_]", name) else f"_{name}"


def _undirected(tables: list[Table]) -> list[Table]:
    links: dict[str, set[str]] = {t.key: set() for t in tables}
    for t in tables:
        for n in t.neighbours & links.keys():
            links[t.key].add(n)
            links[n].add(t.key)
    return [replace(t, neighbours=frozenset(links[t.key] - {t.key})) for t in tables]


def spider_tables(sqlite_dir: Path, dev_only: bool) -> list[Table]:
    """Every Spider SQLite table, through the product's own introspection and generation."""
    tables: list[Table] = []
    for path in sorted(sqlite_dir.glob("*.sqlite")):
        db = path.stem
        if dev_only and db in NOT_IN_DEV:
            continue
        model = generate_semantic_model(
            introspect(ConnectionSpec(dialect="sqlite", database=str(path)), AccessPolicy()), db
        )
        keys = {d.name: f"{db}.{d.source.split('.', 1)[1]}" for d in model.datasets}
        for d in model.datasets:
            links = {keys[r.to_dataset] for r in model.relationships if r.from_dataset == d.name}
            touching = tuple(
                r for r in model.relationships if d.name in (r.from_dataset, r.to_dataset)
            )
            tables.append(Table(keys[d.name], d, frozenset(links), touching))
    return _undirected(tables)


def defog_tables(databases: Path) -> list[Table]:
    """Every table of the defog dumps, from their CREATE TABLE statements and descriptions."""
    tables: list[Table] = []
    for folder in sorted(p for p in databases.iterdir() if p.is_dir()):
        db = folder.name
        meta = json.loads((folder / f"{db}.json").read_text())["table_metadata"]
        ddl = (folder / f"{db}.sql").read_text()
        for stmt in sqlglot.parse(ddl, read="postgres", error_level=sqlglot.ErrorLevel.IGNORE):
            if not isinstance(stmt, exp.Create) or stmt.kind != "TABLE":
                continue
            table = stmt.find(exp.Table)
            assert table is not None
            described = {
                m["column_name"]: m.get("column_description") for m in meta.get(table.name, [])
            }
            fields, fks = [], set()
            for column in stmt.this.expressions:
                if isinstance(column, exp.ColumnDef):
                    kind = column.args.get("kind")
                    fields.append(
                        Field_(
                            name=_name(column.name),
                            expression=column.name,
                            data_type=_data_type(kind.sql() if kind else ""),
                            native_type=kind.sql("postgres") if kind else None,
                            description=described.get(column.name) or None,
                        )
                    )
                targets = (r.find(exp.Table) for r in column.find_all(exp.Reference))
                fks |= {f"{db}.{t.name}" for t in targets if t is not None}
            dataset = Dataset(
                name=_name(table.name), source=f"{table.db or 'public'}.{table.name}", fields=fields
            )
            tables.append(Table(f"{db}.{table.name}", dataset, frozenset(fks)))
    return _undirected(tables)


def gold_tables(sql: str, db: str, dialect: str, keys: dict[str, str]) -> frozenset[str] | None:
    """The pooled keys of the tables a gold query reads (None when one is unknown)."""
    tree = sqlglot.parse_one(sql, read=dialect)
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    found = set()
    for table in tree.find_all(exp.Table):
        if table.name.lower() in ctes:
            continue
        key = keys.get(f"{db}.{table.name}".lower())
        if key is None:
            return None
        found.add(key)
    return frozenset(found) or None


def spider_questions(evaldata: Path, tables: Sequence[Table]) -> list[Question]:
    """Spider dev questions whose gold tables are all in the pool."""
    keys = {t.key.lower(): t.key for t in tables}
    path = evaldata / "spider_dev" / "questions" / "spider_dev_compact.jsonl"
    out = []
    for line in path.read_text().splitlines():
        r = json.loads(line)
        gold = gold_tables(r["gold_sql"], r["db_id"], "sqlite", keys)
        if gold:
            out.append(Question(r["question"], gold, r["usable"]))
    return out


def defog_questions(questions: Path, tables: Sequence[Table]) -> list[Question]:
    """defog questions; gold tables from the first alternative of each gold query."""
    keys = {t.key.lower(): t.key for t in tables}
    out = []
    for name in DEFOG_QUESTIONS:
        with (questions / name).open(newline="") as f:
            for r in csv.DictReader(f):
                # `{a, b}` lists alternative column sets and `GROUP BY {}` repeats them.
                sql = r["query"].split(";")[0].replace("GROUP BY {}", "GROUP BY 1")
                gold = gold_tables(
                    sql.replace("{", "").replace("}", ""), r["db_name"], "postgres", keys
                )
                if gold:
                    out.append(Question(r["question"], gold))
    return out


# --- methods compared --------------------------------------------------------------------------


def _order(scores: np.ndarray, keys: Sequence[str], depth: int = max(KS)) -> list[str]:
    top = sorted(range(len(keys)), key=lambda i: (-scores[i], keys[i]))
    return [keys[i] for i in top[:depth]]


def _rrf(a: np.ndarray, b: np.ndarray, keys: Sequence[str], c: int = 60) -> list[str]:
    fused: dict[str, float] = {}
    for scores in (a, b):
        for rank, key in enumerate(_order(scores, keys, len(keys))):
            fused[key] = fused.get(key, 0.0) + 1 / (c + rank + 1)
    return sorted(fused, key=lambda key: (-fused[key], key))[: max(KS)]


def _neighbour_boost(scores: np.ndarray, tables: Sequence[Table], beta: float) -> np.ndarray:
    index = {t.key: i for i, t in enumerate(tables)}
    best = [max((scores[index[n]] for n in t.neighbours), default=0.0) for t in tables]
    return scores + beta * np.array(best)


def _recall(rankings: Sequence[list[str]], questions: Sequence[Question]) -> dict[str, float]:
    out = {}
    for k in KS:
        hits = sum(q.gold <= set(r[:k]) for q, r in zip(questions, rankings, strict=True))
        out[f"@{k}"] = round(hits / len(questions), 3)
    return out


def _timing(seconds: Sequence[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in seconds)
    return {
        "mean_ms": round(statistics.fmean(ms), 2),
        "p50_ms": round(ms[len(ms) // 2], 2),
        "p95_ms": round(ms[int(len(ms) * 0.95)], 2),
    }


def _strip(
    tables: Sequence[Table], samples: bool = False, descriptions: bool = False
) -> list[Table]:
    def field(f: Field_) -> Field_:
        update: dict[str, Any] = {}
        if not samples:
            update["sample_values"] = []
        if not descriptions:
            update["description"] = None
        return f.model_copy(update=update)

    return [
        replace(
            t, dataset=t.dataset.model_copy(update={"fields": [field(f) for f in t.dataset.fields]})
        )
        for t in tables
    ]


def run_suite(
    provider: LocalMiniLMProvider,
    tables: list[Table],
    questions: list[Question],
    variants: dict[str, list[str]],
) -> dict[str, Any]:
    """Recall of every method, and latency, for one pooled schema."""
    keys = [t.key for t in tables]
    query_vectors: list[Matrix] = []
    embed_s: list[float] = []
    for q in questions:
        t0 = time.perf_counter()
        query_vectors.append(provider.embed_query(q.text))
        embed_s.append(time.perf_counter() - t0)
    queries = np.stack(query_vectors)

    cosines: dict[str, np.ndarray] = {}
    docs_timing: dict[str, Any] = {}
    product_index: DatasetIndex | None = None
    tokenizer = provider._encoder().tokenizer
    for label, texts in variants.items():
        docs = [DatasetDoc(key, text) for key, text in zip(keys, texts, strict=True)]
        t0 = time.perf_counter()
        docs = embed_datasets(provider, docs)
        elapsed = time.perf_counter() - t0
        lengths = [len(e.ids) for e in tokenizer.encode_batch([d.text for d in docs])]
        docs_timing[label] = {
            "total_s": round(elapsed, 3),
            "per_doc_ms": round(elapsed / len(docs) * 1000, 2),
            "mean_tokens": round(statistics.fmean(lengths)),
            "cut_at_max_tokens": sum(n >= provider.max_tokens for n in lengths),
        }
        if label == "words":
            # The product's text style, loaded from stored rows as the store's search loads it.
            product_index = DatasetIndex.from_rows(
                (d.name, d.text, vector_to_bytes(d.vector), d.vector_key)
                for d in docs
                if d.vector is not None
            )
        cosines[label] = queries @ np.stack([d.vector for d in docs if d.vector is not None]).T

    rankings: dict[str, list[list[str]]] = {
        f"dense:{v}": [_order(r, keys) for r in c] for v, c in cosines.items()
    }
    bm25 = {}
    for v in ("words", "names", "described"):
        keyword_index = KeywordIndex(variants[v])
        bm25[v] = np.stack([keyword_index.scores(q.text) for q in questions])
    rankings["bm25:words"] = [_order(r, keys) for r in bm25["words"]]
    rankings["rrf(dense:words, bm25:words)"] = [
        _rrf(c, b, keys) for c, b in zip(cosines["words"], bm25["words"], strict=True)
    ]
    scaled = {v: b / np.maximum(b.max(axis=1, keepdims=True), 1e-12) for v, b in bm25.items()}
    for weight in (0.1, 0.3):
        rankings[f"dense:words + {weight} bm25:words"] = [
            _order(r, keys) for r in cosines["words"] + weight * scaled["words"]
        ]
    for v in ("names", "described"):
        rankings[f"dense:{v} + {KEYWORD_WEIGHT} bm25:{v}"] = [
            _order(r, keys) for r in cosines[v] + KEYWORD_WEIGHT * scaled[v]
        ]
    fused = cosines["words"] + KEYWORD_WEIGHT * scaled["words"]
    for beta in (0.1, 0.3):
        rankings[f"product + {beta} x best FK neighbour"] = [
            _order(_neighbour_boost(r, tables, beta), keys) for r in fused
        ]

    # The product's path, timed per question: embed the question, search the index.
    assert product_index is not None
    product, search_s = [], []
    for q, vector in zip(questions, query_vectors, strict=True):
        t0 = time.perf_counter()
        hits = product_index.search(q.text, vector, k=max(KS))
        search_s.append(time.perf_counter() - t0)
        product.append([h.name for h in hits])
    rankings[f"product: dense:words + {KEYWORD_WEIGHT} bm25:words"] = product

    usable = [i for i, q in enumerate(questions) if q.usable]
    return {
        "pool": {"tables": len(tables), "databases": len({k.split(".")[0] for k in keys})},
        "questions": {"with_gold_tables": len(questions), "usable": len(usable)},
        "recall_all_gold_tables_in_top_k": {
            method: {
                "usable": _recall([r[i] for i in usable], [questions[i] for i in usable]),
                "all": _recall(r, questions),
            }
            for method, r in rankings.items()
        },
        "latency": {
            "query_embed": _timing(embed_s),
            "index_search": _timing(search_s),
            "query_embed_plus_search": _timing(
                [a + b for a, b in zip(embed_s, search_s, strict=True)]
            ),
            "documents": docs_timing,
        },
    }


def _texts(tables: Sequence[Table], style: TextStyle) -> list[str]:
    return [dataset_text(t.dataset, style) for t in tables]


def run(evaldata: Path, suites: Sequence[str], dev_only: bool) -> dict[str, Any]:
    """Every suite asked for; returns the JSON written to benchmarks/results."""
    from threadpoolctl import threadpool_info

    started = time.perf_counter()
    provider = LocalMiniLMProvider()
    provider.embed_query("warm up")  # loads the weights once, outside every timing below
    report: dict[str, Any] = {
        "model_load_s": round(time.perf_counter() - started, 3),
        "cpus": os.cpu_count(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "blas_threads": [
            i.get("num_threads") for i in threadpool_info() if i.get("user_api") == "blas"
        ],
    }
    if "spider" in suites:
        tables = spider_tables(evaldata / "spider_dev" / "sqlite", dev_only)
        no_samples = _strip(tables, descriptions=True)
        report["spider"] = run_suite(
            provider,
            tables,
            spider_questions(evaldata, tables),
            {
                "names": _texts(tables, "names"),
                "words": _texts(tables, "words"),
                "described": _texts(tables, "described"),
                "yaml": _texts(tables, "yaml"),
                "yaml, no samples": _texts(no_samples, "yaml"),
                "yaml + relationships": [
                    dump_dataset_yaml(t.dataset, t.relationships) for t in tables
                ],
                "names + yaml": [
                    f"{n}\n{y}"
                    for n, y in zip(_texts(tables, "names"), _texts(tables, "yaml"), strict=True)
                ],
            },
        )
    if "defog" in suites:
        tables = defog_tables(evaldata / "defog_postgres" / "databases")
        report["defog"] = run_suite(
            provider,
            tables,
            defog_questions(evaldata / "defog_postgres" / "questions", tables),
            {
                "names": _texts(tables, "names"),
                "words": _texts(tables, "words"),
                "described": _texts(tables, "described"),
                "yaml": _texts(tables, "yaml"),
            },
        )
    report["runtime_s"] = round(time.perf_counter() - started, 1)
    return report


def _print(report: dict[str, Any]) -> None:
    print(
        f"Model load {report['model_load_s']} s; BLAS threads {report['blas_threads']}; "
        f"{report['cpus']} CPUs, load average {report['load_average_at_start']}"
    )
    for suite in ("spider", "defog"):
        if suite not in report:
            continue
        r = report[suite]
        pool, qs = r["pool"], r["questions"]
        print(
            f"\n== {suite}: {pool['tables']} tables pooled from {pool['databases']} databases, "
            f"{qs['usable']} questions. Recall = all gold tables in the top k."
        )
        print(f"(`described` = words + {DESCRIPTIONS[suite]})")
        recall = r["recall_all_gold_tables_in_top_k"]
        width = max(len(m) for m in recall)
        print(f"{'method':<{width}}  " + "  ".join(f"{'@' + str(k):>5}" for k in KS))
        for method, rec in recall.items():
            print(f"{method:<{width}}  " + "  ".join(f"{rec['usable'][f'@{k}']:5.3f}" for k in KS))
        lat = r["latency"]
        for what in ("query_embed", "index_search", "query_embed_plus_search"):
            p = lat[what]
            print(f"{what}: mean {p['mean_ms']} ms, p50 {p['p50_ms']} ms, p95 {p['p95_ms']} ms")
        for label, d in lat["documents"].items():
            print(
                f"  embed {pool['tables']} docs, {label}: {d['total_s']} s "
                f"({d['per_doc_ms']} ms/doc, {d['mean_tokens']} tokens avg, "
                f"{d['cut_at_max_tokens']} cut at the token limit)"
            )


def main(argv: Sequence[str] | None = None) -> None:
    """Run the benchmark, print the tables and write the JSON results."""
    parser = argparse.ArgumentParser(description="Dataset retrieval recall on pooled schemas.")
    parser.add_argument("--evaldata", type=Path, default=EVALDATA)
    parser.add_argument("--suite", choices=("spider", "defog", "all"), default="all")
    parser.add_argument(
        "--dev-only", action="store_true", help="spider without chinook_1 (80 tables)"
    )
    args = parser.parse_args(argv)
    if not (args.evaldata / "spider_dev").is_dir():
        raise SystemExit(f"evaluation data not found at {args.evaldata}")
    suites = ("spider", "defog") if args.suite == "all" else (args.suite,)
    report = run(args.evaldata, suites, args.dev_only)
    _print(report)
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = (
        "retrieval"
        + ("_dev" if args.dev_only else "")
        + ("" if args.suite == "all" else f"_{args.suite}")
    )
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nWrote {path.relative_to(REPO)}")


if __name__ == "__main__":
    main()
