"""`python -m dataagent.demo`: write the demo database and print how long each step took."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from dataagent.demo.facts import facts_markdown, headline_facts
from dataagent.demo.generator import generate
from dataagent.demo.loaders import load_postgres, write_duckdb, write_sqlite


def main(argv: list[str] | None = None) -> None:
    """Generate the demo data and write it wherever the arguments say."""
    parser = argparse.ArgumentParser(prog="python -m dataagent.demo", description=__doc__)
    parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    parser.add_argument("--duckdb", type=Path, help="write a DuckDB file here")
    parser.add_argument("--sqlite", type=Path, help="write a SQLite file here")
    parser.add_argument("--postgres", metavar="URL", help="load into this PostgreSQL database")
    parser.add_argument("--schema", default="public", help="PostgreSQL schema (default public)")
    parser.add_argument("--facts", action="store_true", help="print the headline facts")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    data = generate(args.seed)
    print(f"generated {sum(data.row_counts().values()):,} rows in {_since(started)}")
    steps = (
        (args.duckdb, lambda: write_duckdb(data, args.duckdb), f"wrote {args.duckdb}"),
        (args.sqlite, lambda: write_sqlite(data, args.sqlite), f"wrote {args.sqlite}"),
        (
            args.postgres,
            lambda: load_postgres(data, args.postgres, args.schema),
            f"loaded PostgreSQL schema {args.schema}",
        ),
    )
    for wanted, step, done in steps:
        if wanted:
            started = time.perf_counter()
            step()
            print(f"{done} in {_since(started)}")
    if args.facts:
        print(facts_markdown(headline_facts(data)), end="")


def _since(started: float) -> str:
    return f"{time.perf_counter() - started:.2f} s"


if __name__ == "__main__":
    main()
