"""The demo retailer: a deterministic generator and loaders for DuckDB, SQLite and PostgreSQL.

data = generate(seed=7)
write_duckdb(data, Path("data/demo.duckdb"))
load_postgres(data, "postgresql://root@127.0.0.1:5432/demo")
print(facts_markdown(headline_facts(data)))
"""

from dataagent.demo.facts import DemoFacts, HoustonGap, StoreFacts, facts_markdown, headline_facts
from dataagent.demo.generator import DemoData, generate
from dataagent.demo.loaders import load_postgres, write_duckdb, write_sqlite
from dataagent.demo.schema import SCHEMA, TABLES
from dataagent.demo.semantic_model import curated_model_yaml

__all__ = [
    "SCHEMA",
    "TABLES",
    "DemoData",
    "DemoFacts",
    "HoustonGap",
    "StoreFacts",
    "curated_model_yaml",
    "facts_markdown",
    "generate",
    "headline_facts",
    "load_postgres",
    "write_duckdb",
    "write_sqlite",
]
