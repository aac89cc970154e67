"""`dataagent eval QUESTIONS.jsonl`: each question answered by the real agent, in process,
and scored by execution accuracy (`evals.scoring`).

Each question is asked in a chat of its own (`runs.questions.ask`, the web page's chats,
runs and event log), in the mode and with the provider asked for. The answer's result is
the last query it ran successfully (the pipeline's and the offline planner's last SQL step,
the ReAct agent's last `query_database` call), run again through the guarded executor so
that every row is compared, not the preview the message keeps. Its gold queries run on the
gold database (the same database, or a copy in the gold SQL's dialect). Model calls are
counted from the answer's `llm_call_end` events, tokens from its metadata, latency from
the question sent to the answer's end.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from dataagent.errors import DataAgentError, ErrorCode, validation_problems
from dataagent.evals.scoring import (
    OUTCOMES,
    Gold,
    Outcome,
    Prediction,
    ResultSet,
    Score,
    score,
)
from dataagent.runs.questions import AskedAnswer, ask
from dataagent.runs.system import RunSystem
from dataagent.services import chats
from dataagent.services.connections import QueryTarget
from dataagent.sources.access import AccessPolicy
from dataagent.sources.engines import ConnectionSpec
from dataagent.sources.executor import execute_query
from dataagent.vocabulary import AgentMode, LlmProvider

# Rows kept of a gold or predicted result: enough for any answer a person reads.
MAX_ROWS = 100_000
EVAL_CHAT_PREFIX = "eval"

# Runs one query: its result, or the error sentence of a failed run.
QueryRunner = Callable[[str], Awaitable[ResultSet | str]]


class EvalQuestion(BaseModel):
    """One line of a question file (evals/README.md)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    gold_sql: str | None = None
    kind: str = ""
    reference_date: dt.date | None = None
    alternatives: list[str] = Field(default_factory=list)
    answerable: bool = True
    db: str | None = None

    @property
    def golds(self) -> list[str]:
        """Every acceptable gold query: `gold_sql`, then the alternatives."""
        return [sql for sql in (self.gold_sql, *self.alternatives) if sql]


def read_questions(path: Path) -> list[EvalQuestion]:
    """The questions of a JSONL file; VALIDATION_ERROR naming the first bad line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR, f"Cannot read {path}: {exc.strerror}."
        ) from None
    questions: list[EvalQuestion] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = EvalQuestion.model_validate(json.loads(line))
        except (json.JSONDecodeError, ValidationError) as exc:
            reason = (
                str(exc).splitlines()[0]
                if isinstance(exc, json.JSONDecodeError)
                else validation_problems(exc, "")
            )
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR, f"{path}, line {number}: {reason}."
            ) from None
        if item.answerable and not item.golds:
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR,
                f"{path}, line {number}: an answerable question needs gold_sql.",
            )
        questions.append(item)
    if not questions:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, f"{path} holds no question.")
    ids = Counter(q.id for q in questions)
    repeated = sorted(i for i, n in ids.items() if n > 1)
    if repeated:
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR, f"{path}: repeated ids {', '.join(repeated[:5])}."
        )
    return questions


# --- running queries ------------------------------------------------------------------------


def target_runner(target: QueryTarget, *, timeout_s: float = 60.0) -> QueryRunner:
    """Run on a query target (an ontology's connection, limited to its datasets) through the
    guarded executor, keeping no record: the operator measures, nobody asked."""
    return spec_runner(
        target.spec, target.policy, allowed_tables=target.allowed_tables, timeout_s=timeout_s
    )


def spec_runner(
    spec: ConnectionSpec,
    policy: AccessPolicy,
    *,
    allowed_tables: list[str] | None = None,
    timeout_s: float = 60.0,
) -> QueryRunner:
    """Run on a connection spec through the guarded executor."""

    async def run(sql: str) -> ResultSet | str:
        try:
            result = await asyncio.to_thread(
                execute_query,
                spec,
                sql,
                policy=policy,
                allowed_tables=allowed_tables,
                max_rows=MAX_ROWS,
                timeout_s=timeout_s,
                max_bytes=1 << 30,
            )
        except DataAgentError as exc:
            return f"{exc.code.value}: {exc.message}"
        return ResultSet(result.columns, list(result.rows))

    return run


# --- what an answer ran ---------------------------------------------------------------------


@dataclass(frozen=True)
class AnswerQuery:
    """The query behind an answer's main result, as its metadata records it."""

    sql: str | None
    failed: bool = False  # queries ran, none succeeded
    preview: ResultSet | None = None  # the rows the message keeps, when complete


def answer_query(metadata: dict[str, Any]) -> AnswerQuery:
    """The last query the answer ran successfully: the pipeline's (and offline planner's)
    last SQL step with a result, else the ReAct agent's last successful `query_database`."""
    tried = False
    for step in reversed(metadata.get("stepResults") or []):
        result = step.get("sqlResult") if isinstance(step, dict) else None
        if not isinstance(result, dict) or not result.get("sql"):
            continue
        tried = True
        if not step.get("error"):
            preview = None
            if not result.get("truncated"):
                preview = ResultSet(
                    list(result.get("columns") or []), list(result.get("rows") or [])
                )
            return AnswerQuery(str(result["sql"]), preview=preview)
    for call in reversed(metadata.get("toolCalls") or []):
        if not isinstance(call, dict) or call.get("name") != "query_database":
            continue
        args = call.get("args")
        sql = args.get("sql") if isinstance(args, dict) else None
        if not sql:
            continue
        tried = True
        if not call.get("isError"):
            return AnswerQuery(str(sql))
    return AnswerQuery(None, failed=tried)


# --- one question ---------------------------------------------------------------------------


@dataclass
class CallCounter:
    """An `on_event` that counts the answer's model calls and keeps the phases seen."""

    model_calls: int = 0
    phases: list[str] = field(default_factory=list)

    async def __call__(self, event: str, data: dict[str, Any]) -> None:
        if event == "llm_call_end":
            self.model_calls += 1
        elif event == "phase_start" and isinstance(data.get("phase"), str):
            self.phases.append(data["phase"])


@dataclass
class QuestionResult:
    """One question's outcome and what answering it cost."""

    question: EvalQuestion
    score: Score
    status: str
    latency_ms: float
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    predicted_sql: str | None = None
    agent_mode: str | None = None
    answer: str = ""
    error_code: str | None = None

    @property
    def outcome(self) -> Outcome:
        """`correct`, `wrong`, `abstained` or `error`."""
        return self.score.outcome

    def to_json(self) -> dict[str, Any]:
        """The question's line of the JSON report."""
        return {
            "id": self.question.id,
            "question": self.question.question,
            "kind": self.question.kind,
            "answerable": self.question.answerable,
            "outcome": self.outcome,
            "reason": self.score.reason,
            "matchedGold": self.score.matched_gold,
            "status": self.status,
            "agentMode": self.agent_mode,
            "predictedSql": self.predicted_sql,
            "goldSql": self.question.gold_sql,
            "latencyMs": round(self.latency_ms, 1),
            "modelCalls": self.model_calls,
            "tokens": {
                "prompt": self.prompt_tokens,
                "completion": self.completion_tokens,
                "total": self.total_tokens,
            },
            "errorCode": self.error_code,
            "answer": self.answer[:500],
        }


async def gold_results(question: EvalQuestion, run_gold: QueryRunner) -> list[Gold]:
    """Each gold query of the question with its rows, or why it failed."""
    golds: list[Gold] = []
    for sql in question.golds:
        result = await run_gold(sql)
        golds.append(Gold(sql, error=result) if isinstance(result, str) else Gold(sql, result))
    return golds


async def prediction_of(
    answer: AskedAnswer, run_predicted: QueryRunner
) -> tuple[Prediction, str | None]:
    """The answer as the scorer reads it, and the SQL behind it."""
    if answer.status == "failed":
        return Prediction(error=f"{answer.error_code}: {answer.error_message}"), None
    if answer.status == "clarification_needed":
        return Prediction(abstained=True), None
    found = answer_query(answer.metadata)
    if found.sql is None:
        if found.failed:
            return Prediction(error="every query of the answer failed"), None
        return Prediction(abstained=True), None
    result = await run_predicted(found.sql)
    if isinstance(result, str):
        if found.preview is not None:
            return Prediction(result=found.preview), found.sql
        return Prediction(error=f"the answer's query failed when run again: {result}"), found.sql
    return Prediction(result=result), found.sql


@dataclass(frozen=True)
class EvalTarget:
    """Where and how the questions are asked."""

    system: RunSystem
    owner_id: uuid.UUID
    ontology_id: uuid.UUID
    run_gold: QueryRunner
    run_predicted: QueryRunner
    gold_dialect: str = "sqlite"
    mode: AgentMode | None = None
    provider: LlmProvider | None = None
    keep_chats: bool = False


async def evaluate_question(target: EvalTarget, question: EvalQuestion) -> QuestionResult:
    """Ask one question in a chat of its own and score the answer."""
    golds = await gold_results(question, target.run_gold)
    app = target.system.app
    async with app.database.session() as session:
        chat = await chats.create_chat(
            app,
            session,
            target.owner_id,
            f"{EVAL_CHAT_PREFIX} {question.id}"[:200],
            target.ontology_id,
            llm_provider=target.provider,
            agent_mode=target.mode,
        )
    counter = CallCounter()
    started = time.perf_counter()
    try:
        answer = await ask(
            target.system,
            target.owner_id,
            target.ontology_id,
            question.question,
            chat_id=chat.id,
            on_event=counter,
        )
    except DataAgentError as exc:
        # Refused before any answer ran (no model configured, rate limited): this question's
        # error, not the whole run's.
        answer = AskedAnswer(
            chat.id,
            uuid.UUID(int=0),
            uuid.UUID(int=0),
            "failed",
            "",
            error_code=exc.code.value,
            error_message=exc.message,
        )
    latency_ms = (time.perf_counter() - started) * 1000
    prediction, sql = await prediction_of(answer, target.run_predicted)
    result = score(golds, prediction, answerable=question.answerable, dialect=target.gold_dialect)
    tokens = answer.metadata.get("tokensUsed") or {}
    if not target.keep_chats:
        async with app.database.session() as session:
            await chats.delete_chat(session, target.owner_id, chat.id)
    return QuestionResult(
        question,
        result,
        answer.status,
        latency_ms,
        model_calls=counter.model_calls,
        prompt_tokens=int(tokens.get("prompt", 0) or 0),
        completion_tokens=int(tokens.get("completion", 0) or 0),
        total_tokens=int(tokens.get("total", 0) or 0),
        predicted_sql=sql,
        agent_mode=answer.metadata.get("agentMode"),
        answer=answer.content,
        error_code=answer.error_code,
    )


async def evaluate(
    target: EvalTarget,
    questions: Iterable[EvalQuestion],
    on_result: Callable[[QuestionResult], None] | None = None,
) -> list[QuestionResult]:
    """Every question in turn (answers share the runner; one at a time keeps latency honest)."""
    results: list[QuestionResult] = []
    for question in questions:
        result = await evaluate_question(target, question)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


# --- the summary ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Summary:
    """Counts and rates of the outcomes, model calls, tokens and latency, over some questions."""

    label: str
    questions: int
    counts: dict[str, int]
    model_calls: int
    total_tokens: int
    prompt_tokens: int
    completion_tokens: int
    latency_p50_ms: float
    latency_p90_ms: float

    def rate(self, outcome: str) -> float:
        """The share of the questions with this outcome (0 when there are none)."""
        return self.counts.get(outcome, 0) / self.questions if self.questions else 0.0

    @property
    def accuracy(self) -> float:
        """Execution accuracy: the share scored `correct`."""
        return self.rate("correct")

    def to_json(self) -> dict[str, Any]:
        """The summary as the JSON report holds it."""
        return {
            "label": self.label,
            "questions": self.questions,
            **{outcome: self.counts.get(outcome, 0) for outcome in OUTCOMES},
            "rates": {outcome: round(self.rate(outcome), 4) for outcome in OUTCOMES},
            "accuracy": round(self.accuracy, 4),
            "modelCalls": self.model_calls,
            "tokens": {
                "prompt": self.prompt_tokens,
                "completion": self.completion_tokens,
                "total": self.total_tokens,
            },
            "latencyMs": {
                "p50": round(self.latency_p50_ms, 1),
                "p90": round(self.latency_p90_ms, 1),
            },
        }


def percentile(values: Sequence[float], fraction: float) -> float:
    """The `fraction` quantile (inclusive method; the value itself for one value; 0 for none)."""
    if not values:
        return 0.0
    if len(values) == 1:
        return float(values[0])
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return cuts[round(fraction * 100) - 1]


def summarise(results: Sequence[QuestionResult], label: str = "all") -> Summary:
    """The outcomes and costs of these results."""
    latencies = [r.latency_ms for r in results]
    return Summary(
        label=label,
        questions=len(results),
        counts=dict(Counter(r.outcome for r in results)),
        model_calls=sum(r.model_calls for r in results),
        total_tokens=sum(r.total_tokens for r in results),
        prompt_tokens=sum(r.prompt_tokens for r in results),
        completion_tokens=sum(r.completion_tokens for r in results),
        latency_p50_ms=percentile(latencies, 0.5),
        latency_p90_ms=percentile(latencies, 0.9),
    )


def summaries_by_kind(results: Sequence[QuestionResult]) -> list[Summary]:
    """The summary of all questions, then one per kind (in order of first appearance)."""
    kinds = list(dict.fromkeys(r.question.kind or "-" for r in results))
    by_kind = [
        summarise([r for r in results if (r.question.kind or "-") == kind], kind) for kind in kinds
    ]
    return [summarise(results), *by_kind]
