"""The reports of `dataagent eval`: one JSON document and one markdown page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dataagent.evals.runner import QuestionResult, Summary, summaries_by_kind
from dataagent.evals.scoring import DECIMALS, OUTCOMES, REL_TOL


@dataclass(frozen=True)
class RunInfo:
    """What was measured, and how."""

    questions_file: str
    ontology: str
    mode: str
    provider: str | None
    reference_date: str | None
    started_at: str


def json_report(info: RunInfo, results: Sequence[QuestionResult]) -> dict[str, Any]:
    """Everything: the run, the summary overall and by kind, and each question."""
    summaries = summaries_by_kind(results)
    return {
        "questionsFile": info.questions_file,
        "ontology": info.ontology,
        "mode": info.mode,
        "provider": info.provider,
        "referenceDate": info.reference_date,
        "startedAt": info.started_at,
        "scoring": {"decimals": DECIMALS, "relativeTolerance": REL_TOL},
        "summary": summaries[0].to_json(),
        "byKind": [s.to_json() for s in summaries[1:]],
        "questions": [r.to_json() for r in results],
    }


def _percent(value: float) -> str:
    return f"{value * 100:.1f}%"


def _summary_row(summary: Summary) -> str:
    counts = " | ".join(
        f"{summary.counts.get(o, 0)} ({_percent(summary.rate(o))})" for o in OUTCOMES
    )
    return (
        f"| {summary.label} | {summary.questions} | {counts} | {summary.model_calls} | "
        f"{summary.total_tokens} | {summary.latency_p50_ms:.0f} | {summary.latency_p90_ms:.0f} |"
    )


def _cell(text: str | None, limit: int = 300) -> str:
    """Text fit for a markdown table cell: one line, pipes escaped, cut at `limit`."""
    flat = " ".join((text or "").split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def markdown_report(info: RunInfo, results: Sequence[QuestionResult]) -> str:
    """A page a person reads: the totals, the kinds, and every question not correct."""
    summaries = summaries_by_kind(results)
    lines = [
        f"# dataagent eval: {info.questions_file}",
        "",
        f"Ontology **{info.ontology}**, mode **{info.mode}**"
        + (f", provider **{info.provider}**" if info.provider else "")
        + (f", reference date {info.reference_date}" if info.reference_date else "")
        + f"; started {info.started_at}.",
        "",
        f"Execution accuracy **{_percent(summaries[0].accuracy)}** "
        f"({summaries[0].counts.get('correct', 0)} of {summaries[0].questions}); "
        f"wrong {_percent(summaries[0].rate('wrong'))}, "
        f"abstained {_percent(summaries[0].rate('abstained'))}.",
        "",
        "| kind | questions | correct | wrong | abstained | error | model calls | tokens "
        "| p50 ms | p90 ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *(_summary_row(s) for s in summaries),
        "",
    ]
    missed = [r for r in results if r.outcome != "correct"]
    if missed:
        lines += [
            "## Not correct",
            "",
            "| id | outcome | question | why | SQL run |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {r.question.id} | {r.outcome} | {_cell(r.question.question)} | "
            f"{_cell(r.score.reason)} | {_cell(r.predicted_sql)} |"
            for r in missed
        ]
        lines.append("")
    return "\n".join(lines)
