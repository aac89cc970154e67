"""Fault injection for the verifier: `dataagent eval faults FILE.jsonl`.

Each case is a question over one database, its gold SQL, a faulty variant and the kind of
fault (`KINDS`). Both queries run through the guarded executor; the expectations a good
planner would have (datasets, grain, filters, aggregations) are read from the gold query's
syntax tree, with no model; the verifier's deterministic checks then run on each query.
A good verifier flags every faulty query and no gold one. The figures are the result:
nothing here fails on a low score.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from dataagent.agent.pipeline.checks import run_checks
from dataagent.agent.pipeline.expectations import Expectations, from_sql
from dataagent.agent.pipeline.state import SqlResult
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.model import SemanticModel
from dataagent.services.connections import QueryTarget
from dataagent.services.context import AppContext
from dataagent.services.queries import run_and_record
from dataagent.sources.access import AccessPolicy
from dataagent.sources.engines import ConnectionSpec
from dataagent.sources.executor import execute_query
from dataagent.sources.results import QueryResult

FaultKind = Literal[
    "fan_out",
    "wrong_join_key",
    "dropped_filter",
    "hallucinated_column",
    "wrong_grain",
    "null_key_loss",
    "wrong_aggregate",
]
# The check that names each kind of fault (a flag by another check still counts as caught).
KINDS: dict[str, str] = {
    "fan_out": "fan_out",
    "wrong_join_key": "join_key",
    "dropped_filter": "dropped_filter",
    "hallucinated_column": "unknown_column",
    "wrong_grain": "grain",
    "null_key_loss": "null_key_loss",
    "wrong_aggregate": "wrong_aggregate",
}
# A query that failed to run is a failing check of the verifier too.
STEP_FAILED = "step_failed"

# What runs one query: its result, or the error message of a failed run.
QueryRunner = Callable[[str], Awaitable[SqlResult | str]]


class FaultCase(BaseModel):
    """One line of a faults file."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1)
    gold_sql: str = Field(min_length=1)
    faulty_sql: str = Field(min_length=1)
    kind: FaultKind


@dataclass
class CaseResult:
    """The verifier's flags on one case's gold and faulty queries."""

    case: FaultCase
    gold_flags: list[str] = field(default_factory=list)
    faulty_flags: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The JSON line the command prints."""
        return {
            "kind": self.case.kind,
            "question": self.case.question,
            "gold_flags": self.gold_flags,
            "faulty_flags": self.faulty_flags,
        }


@dataclass(frozen=True)
class KindSummary:
    """One row of the table by kind."""

    kind: str
    cases: int
    faulty_flagged: int
    named: int  # flagged by the check named after the kind
    gold_flagged: int

    def to_json(self) -> dict[str, Any]:
        """The row as JSON."""
        return {
            "kind": self.kind,
            "cases": self.cases,
            "faultyFlagged": self.faulty_flagged,
            "flaggedByItsCheck": self.named,
            "goldFlagged": self.gold_flagged,
        }


def read_cases(path: Path) -> list[FaultCase]:
    """The cases of a JSONL file (blank lines skipped); VALIDATION_ERROR names a bad line."""
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            cases.append(FaultCase.model_validate_json(line))
        except ValidationError as exc:
            reason = exc.errors()[0]["msg"]
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR, f"{path.name} line {number}: {reason}."
            ) from None
    return cases


def sql_result(result: QueryResult) -> SqlResult:
    """A query result as a pipeline step keeps it."""
    return SqlResult(
        sql=result.sql,
        columns=result.columns,
        rows=result.rows,
        row_count=result.row_count,
        truncated=result.truncated,
        exec_time_ms=result.execution_ms,
    )


def _flags(
    sql: str, expect: Expectations, model: SemanticModel, ran: SqlResult | str
) -> tuple[list[str], list[str]]:
    result = ran if isinstance(ran, SqlResult) else None
    checks, _ = run_checks(sql, expect, model, result)
    failed = [c for c in checks if not c.passed]
    flags = list(dict.fromkeys(c.name for c in failed))
    messages = [c.message for c in failed]
    if isinstance(ran, str):
        flags.append(STEP_FAILED)
        messages.append(ran)
    return flags, messages


async def evaluate(
    cases: Iterable[FaultCase], model: SemanticModel, run: QueryRunner
) -> list[CaseResult]:
    """Run each case's gold and faulty queries and the verifier's checks on both."""
    results = []
    for case in cases:
        outcome = CaseResult(case)
        try:
            expect = from_sql(case.gold_sql, model)
        except DataAgentError as exc:
            outcome.gold_flags = ["gold_unusable"]
            outcome.messages = [exc.message]
            results.append(outcome)
            continue
        gold = await run(case.gold_sql)
        outcome.gold_flags, gold_messages = _flags(case.gold_sql, expect, model, gold)
        faulty = await run(case.faulty_sql)
        outcome.faulty_flags, outcome.messages = _flags(case.faulty_sql, expect, model, faulty)
        outcome.messages = gold_messages + outcome.messages
        results.append(outcome)
    return results


def summarise(results: Iterable[CaseResult]) -> list[KindSummary]:
    """The table by kind, in `KINDS` order, then a total row (`all`)."""
    rows: dict[str, list[int]] = {}
    for r in results:
        counts = rows.setdefault(r.case.kind, [0, 0, 0, 0])
        counts[0] += 1
        counts[1] += bool(r.faulty_flags)
        counts[2] += KINDS[r.case.kind] in r.faulty_flags
        counts[3] += bool(r.gold_flags)
    table = [KindSummary(k, *rows[k]) for k in KINDS if k in rows]
    total = [sum(row[i] for row in rows.values()) for i in range(4)]
    return [*table, KindSummary("all", *total)]


# --- where the queries run -------------------------------------------------------------------


def ontology_runner(
    ctx: AppContext, owner_id: uuid.UUID, target: QueryTarget, question: str | None = None
) -> QueryRunner:
    """Run on an ontology's connection through `services.queries.run_and_record` (guarded,
    limited to the ontology's tables, recorded)."""

    async def run(sql: str) -> SqlResult | str:
        async with ctx.database.session() as session:
            try:
                recorded = await run_and_record(
                    ctx, session, owner_id, target, sql, question=question
                )
            except DataAgentError as exc:
                return exc.message
        return sql_result(recorded.result)

    return run


def database_runner(spec: ConnectionSpec, allowed_tables: list[str] | None = None) -> QueryRunner:
    """Run on a database file given on the command line, through the same guarded executor
    (trusted local use: the operator names the file; nothing is recorded)."""

    async def run(sql: str) -> SqlResult | str:
        try:
            result = await asyncio.to_thread(
                execute_query, spec, sql, policy=AccessPolicy(), allowed_tables=allowed_tables
            )
        except DataAgentError as exc:
            return exc.message
        return sql_result(result)

    return run


def report_lines(results: list[CaseResult]) -> list[str]:
    """One JSON line per case."""
    return [json.dumps(r.to_json(), ensure_ascii=False) for r in results]
