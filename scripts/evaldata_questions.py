"""Turn the third-party question sets of ../shared/evaldata into `dataagent eval` files.

Run-time only: the files are written where `--out` says (default /tmp) and never committed
(evaldata's README: these questions must not enter the product). One JSONL file per
database, each line `{"id", "question", "gold_sql", "alternatives", "kind", "db"}`
(evals/README.md), `db` naming the database the questions are about.

    python scripts/evaldata_questions.py spider --db concert_singer
    dataagent eval /tmp/spider_concert_singer.jsonl \\
        --database ../shared/evaldata/spider_dev/sqlite/concert_singer.sqlite --mode offline

    python scripts/evaldata_questions.py defog --db broker
    # load the database first (docs/cli.md#spider-and-defog), then
    dataagent eval /tmp/defog_broker.jsonl --database postgresql://reader@127.0.0.1:5432/broker

Spider: `spider_dev/questions/spider_dev_compact.jsonl`; the official gold SQL (SQLite),
SpiderMan's corrected gold as an alternative when the two differ; questions marked not
usable are left out. defog: `defog_postgres/questions/*.csv`; a gold `query` holds several
acceptable queries separated by `;`, and `{a, b}` lists alternative column sets: every
non-empty subset of the first `{...}` is an acceptable query (`GROUP BY {}` takes the same
columns), as defog's sql-eval expands them. `idk.csv` questions are unanswerable
(`answerable: false`). defog's `instructions` are not given to the agent (it has no place
for them); its questions that need them are harder for it than for the models defog ran.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import re
from pathlib import Path
from typing import Any

EVALDATA = Path(__file__).resolve().parents[2] / "shared" / "evaldata"
DEFOG_FILES = (
    "questions_gen_postgres.csv",
    "instruct_basic_postgres.csv",
    "instruct_advanced_postgres.csv",
    "idk.csv",
)
_BRACES = re.compile(r"\{([^{}]*)\}")


def split_statements(text: str) -> list[str]:
    """The statements of `text` separated by `;` outside quotes."""
    statements, current, quote = [], [], ""
    for char in text:
        if quote:
            current.append(char)
            if char == quote:
                quote = ""
        elif char in ("'", '"'):
            quote = char
            current.append(char)
        elif char == ";":
            statements.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    statements.append("".join(current).strip())
    return [s for s in statements if s]


def expand_columns(query: str) -> list[str]:
    """Every query a `{a, b}` column list stands for: each non-empty subset of the first
    list's columns, with `{}` elsewhere taking the same columns."""
    found = _BRACES.search(query)
    if found is None or not found.group(1).strip():
        return [query]
    options = [o.strip() for o in found.group(1).split(",") if o.strip()]
    expanded = []
    for size in range(1, len(options) + 1):
        for subset in itertools.combinations(options, size):
            columns = ", ".join(subset)
            text = query[: found.start()] + columns + query[found.end() :]
            expanded.append(text.replace("{}", columns))
    return expanded


def defog_golds(query: str) -> list[str]:
    """Every acceptable query of a defog gold, in order, without repeats."""
    golds: list[str] = []
    for statement in split_statements(query):
        for expanded in expand_columns(statement):
            if expanded not in golds:
                golds.append(expanded)
    return golds


def spider_items(source: Path, databases: set[str] | None) -> dict[str, list[dict[str, Any]]]:
    """Spider dev questions by database."""
    by_db: dict[str, list[dict[str, Any]]] = {}
    sqlite_root = source.parent.parent
    for line in source.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        db = record["db_id"]
        if not record.get("usable", True) or (databases and db not in databases):
            continue
        alternatives = []
        corrected = record.get("spiderman_gold_sql")
        if corrected and corrected != record["gold_sql"]:
            alternatives.append(corrected)
        by_db.setdefault(db, []).append(
            {
                "id": record["id"],
                "question": record["question"],
                "gold_sql": record["gold_sql"],
                "alternatives": alternatives,
                "kind": "spider",
                "db": str((sqlite_root / record["sqlite_file"]).resolve()),
            }
        )
    return by_db


def defog_items(folder: Path, databases: set[str] | None) -> dict[str, list[dict[str, Any]]]:
    """defog questions by database, from every question file."""
    by_db: dict[str, list[dict[str, Any]]] = {}
    for name in DEFOG_FILES:
        stem = Path(name).stem.removesuffix("_postgres")
        with (folder / name).open(encoding="utf-8", newline="") as handle:
            for number, row in enumerate(csv.DictReader(handle), start=1):
                db = row["db_name"]
                if databases and db not in databases:
                    continue
                unanswerable = name == "idk.csv"
                golds = [] if unanswerable else defog_golds(row["query"])
                item: dict[str, Any] = {
                    "id": f"defog-{stem}-{number:03d}",
                    "question": row["question"],
                    "gold_sql": golds[0] if golds else None,
                    "alternatives": golds[1:],
                    "kind": f"{stem}:{row.get('query_category', '')}",
                    "db": db,
                }
                if unanswerable:
                    item["answerable"] = False
                by_db.setdefault(db, []).append(item)
    return by_db


def write(by_db: dict[str, list[dict[str, Any]]], prefix: str, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for db, items in sorted(by_db.items()):
        path = out / f"{prefix}_{db}.jsonl"
        path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
        print(f"{path}: {len(items)} questions")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", choices=("spider", "defog"))
    parser.add_argument("--db", action="append", help="only this database (repeatable)")
    parser.add_argument("--evaldata", type=Path, default=EVALDATA)
    parser.add_argument("--out", type=Path, default=Path("/tmp"))
    args = parser.parse_args(argv)
    databases = set(args.db) if args.db else None
    if args.source == "spider":
        source = args.evaldata / "spider_dev" / "questions" / "spider_dev_compact.jsonl"
        write(spider_items(source, databases), "spider", args.out)
    else:
        folder = args.evaldata / "defog_postgres" / "questions"
        write(defog_items(folder, databases), "defog", args.out)


if __name__ == "__main__":
    main()
