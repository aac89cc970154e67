"""A synthetic 1,000-table schema with foreign keys: how long do introspection, semantic-model
generation and the ontology build take, how much memory do they need, and how fast is search?

    .venv/bin/python benchmarks/schema_scale_bench.py [--tables 1000] [--postgres URL]

Without --postgres the schema is a SQLite file; with it, a fresh PostgreSQL database is
created next to URL's and dropped afterwards. Results go to stdout and
benchmarks/results/schema_scale.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import sqlite3
import statistics
import tempfile
import time
import tracemalloc
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

from dataagent.config import Settings
from dataagent.llm.minilm import LocalMiniLMProvider
from dataagent.semantic.generation import generate_semantic_model
from dataagent.semantic.yaml_io import dump_yaml
from dataagent.services.context import AppContext
from dataagent.services.ontologies import build_ontology, search
from dataagent.sources.access import AccessPolicy
from dataagent.sources.engines import ConnectionSpec
from dataagent.sources.introspection import introspect
from dataagent.store import ontologies, semantic_models
from dataagent.store.migrations import upgrade
from dataagent.store.models import Ontology, User

T = TypeVar("T")
RESULTS = Path(__file__).parent / "results"
DOMAINS = ["sales", "billing", "inventory", "hr", "marketing", "support", "logistics", "finance"]
NOUNS = [
    "account",
    "invoice",
    "shipment",
    "employee",
    "campaign",
    "ticket",
    "vendor",
    "asset",
    "contract",
    "payment",
    "warehouse",
    "region",
    "product",
    "order",
    "lead",
    "budget",
]


def schema_ddl(n_tables: int, seed: int = 3) -> list[str]:
    """CREATE TABLE statements: every table after the first few references up to 3 earlier ones."""
    rng = random.Random(seed)
    names: list[str] = []
    ddl = []
    for i in range(n_tables):
        name = f"{DOMAINS[i % len(DOMAINS)]}_{NOUNS[(i // len(DOMAINS)) % len(NOUNS)]}_{i}"
        columns = [
            "id INTEGER PRIMARY KEY",
            "name VARCHAR(100)",
            "status VARCHAR(20)",
            "amount NUMERIC(12,2)",
            "created_at TIMESTAMP",
        ]
        fks = []
        for parent in rng.sample(names, k=min(len(names), rng.randint(0, 3))):
            columns.append(f"{parent}_id INTEGER")
            fks.append(f"FOREIGN KEY ({parent}_id) REFERENCES {parent}(id)")
        ddl.append(f"CREATE TABLE {name} ({', '.join(columns + fks)})")
        names.append(name)
    return ddl


def timed(label: str, results: dict[str, Any], fn: Callable[[], T]) -> T:
    """Run fn, recording its wall time and peak Python allocation."""
    tracemalloc.start()
    start = time.perf_counter()
    value = fn()
    results[f"{label}_s"] = round(time.perf_counter() - start, 3)
    results[f"{label}_peak_mb"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
    tracemalloc.stop()
    return value


def make_sqlite(path: Path, n_tables: int) -> dict[str, Any]:
    with sqlite3.connect(path) as db:
        for stmt in schema_ddl(n_tables):
            db.execute(stmt)
    return {"dialect": "sqlite", "parts": {"database": str(path)}}


def make_postgres(url: str, n_tables: int) -> tuple[dict[str, Any], Callable[[], None]]:
    import psycopg

    name = f"da_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    parts = urlsplit(url)
    target = urlunsplit((parts.scheme, parts.netloc, f"/{name}", "", ""))
    with psycopg.connect(target) as conn:
        for stmt in schema_ddl(n_tables):
            conn.execute(stmt.replace("TIMESTAMP", "TIMESTAMPTZ"))

    def drop() -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    spec = {
        "host": parts.hostname,
        "port": parts.port,
        "database": name,
        "username": parts.username,
        "password": parts.password,
    }
    return {"dialect": "postgresql", "parts": spec}, drop


async def build_and_search(tmp: Path, model: Any, results: dict[str, Any]) -> None:
    app_url = f"sqlite:///{tmp / 'app.db'}"
    upgrade(app_url)
    context = AppContext.from_settings(
        Settings(data_dir=tmp / "data", database_url=app_url, _env_file=None)  # type: ignore[call-arg]
    )
    provider = LocalMiniLMProvider()
    provider.embed_query("warm up")  # the model load is a one-off, not part of the build
    try:
        async with context.database.session() as session:
            user = User(email="bench@example.com", password_hash="x", role="admin")
            session.add(user)
            await session.flush()
            record = await semantic_models.add_semantic_model(
                session, user.id, None, "bench", None, model, dump_yaml(model)
            )
            ontology = await ontologies.add_ontology(session, user.id, record.id, "bench", None)
            await session.commit()
        tracemalloc.start()
        start = time.perf_counter()
        await build_ontology(context, ontology.id, provider)
        results["ontology_build_s"] = round(time.perf_counter() - start, 3)
        results["ontology_build_peak_mb"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
        tracemalloc.stop()
        questions = [
            "total invoice amount by vendor",
            "open support tickets per employee",
            "shipments from each warehouse",
            "marketing campaign budget status",
            "payments created last month",
            "contracts by region",
        ] * 5
        latencies = []
        async with context.database.session() as session:
            loaded = await session.get(Ontology, ontology.id)
            assert loaded is not None and loaded.status == "ready", loaded and loaded.error
            for q in questions:
                start = time.perf_counter()
                hits = await search(context, session, loaded, q, k=10, provider=provider)
                latencies.append((time.perf_counter() - start) * 1000)
                assert len(hits) == 10
        results["search_p50_ms"] = round(statistics.median(latencies), 1)
        results["search_p95_ms"] = round(sorted(latencies)[int(len(latencies) * 0.95) - 1], 1)
    finally:
        await context.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--postgres", help="admin libpq URL; the schema goes to a fresh database")
    args = parser.parse_args()
    results: dict[str, Any] = {"tables": args.tables}
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        drop: Callable[[], None] | None = None
        if args.postgres:
            source, drop = make_postgres(args.postgres, args.tables)
        else:
            source = make_sqlite(tmp / "schema.db", args.tables)
        results["dialect"] = source["dialect"]
        try:
            snapshot = timed(
                "introspection",
                results,
                # A benchmark on the machine's own databases: the admin account is allowed.
                lambda: introspect(
                    ConnectionSpec(dialect=source["dialect"], **source["parts"]),
                    AccessPolicy(allow_privileged=True),
                ),
            )
            model = timed(
                "generation",
                results,
                lambda: generate_semantic_model(snapshot, "bench", source["dialect"]),
            )
            results["datasets"] = len(model.datasets)
            results["relationships"] = len(model.relationships)
            asyncio.run(build_and_search(tmp, model, results))
        finally:
            if drop:
                drop()
    results["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"schema_scale_{results['dialect']}.json").write_text(json.dumps(results, indent=2))
    width = max(len(k) for k in results)
    for key, value in results.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
