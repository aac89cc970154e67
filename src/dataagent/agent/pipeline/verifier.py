"""Phase 5, the verifier: deterministic checks, then the plan's acceptance checks.

Contract: `verify(state, run)` returns `{"verification": VerificationReport}`; on a failure
also `revision_count` (the state's plus one), `revision_diagnosis` and `revision_target`.
The graph sends a failure back to `recommended_target` while `revision_count` is at most
`MAX_REVISIONS`, then on to the explainer with the caveats.

No model call: each step's executed SQL is read with sqlglot and held against what its
plan step promised (`expectations.py`) by the pure checks of `checks.py`; the plan's
acceptance checks then run as Python in the sandbox over the steps' rows. A sandbox that
cannot run a check (unavailable, out of time, or the check's own code broken) passes it
with a caveat; only a failing `assert` fails it.
"""

from __future__ import annotations

import time
from typing import Any

import pandas as pd

from dataagent.agent.pipeline.checks import PASSED, run_checks, totals_disagree
from dataagent.agent.pipeline.expectations import Expectations, from_step
from dataagent.agent.pipeline.state import (
    MAX_REVISIONS,
    AcceptanceCheck,
    Check,
    PipelineRun,
    PipelineState,
    PlanStep,
    RevisionTarget,
    SqlResult,
    StepResult,
    VerificationReport,
)
from dataagent.errors import DataAgentError

PHASE = "verifier"
TOOL = "run_python"
# How much of a sandbox's output a check's message and the tool call keep.
_OUTPUT_CHARS = 2000


def _frame(result: SqlResult) -> pd.DataFrame:
    return pd.DataFrame(result.rows, columns=result.columns)


def _failed_step(result: StepResult) -> Check | None:
    error = result.error or (result.python_result.error if result.python_result else None)
    if error is None:
        return None
    return Check(
        name="step_failed",
        passed=False,
        message=f"Step {result.step_id} failed: {error}",
        step_id=result.step_id,
        target="sql_builder",
    )


def _expectations(step: PlanStep | None, step_id: int, run: PipelineRun) -> Expectations:
    if step is None:
        return Expectations(source="datasets", step_id=step_id)
    return from_step(step, run.model)


def deterministic(state: PipelineState, run: PipelineRun) -> tuple[list[Check], list[str]]:
    """Every deterministic check of every step, and what could not be checked."""
    plan = state.get("plan")
    steps = {s.id: s for s in plan.steps} if plan is not None else {}
    results = state.get("step_results", [])
    checks: list[Check] = []
    caveats: list[str] = []
    ran = {r.step_id for r in results}
    for spec in state.get("query_specs", []):
        if spec.step_id not in ran:
            checks.append(
                Check(
                    name="step_failed",
                    passed=False,
                    message=f"Step {spec.step_id} has SQL but no result: it did not run.",
                    step_id=spec.step_id,
                    target="sql_builder",
                )
            )
    totals: list[tuple[Expectations, SqlResult]] = []
    for result in results:
        failed = _failed_step(result)
        if failed is not None:
            checks.append(failed)
            continue
        if result.sql_result is None:
            continue
        expect = _expectations(steps.get(result.step_id), result.step_id, run)
        step_checks, notes = run_checks(result.sql_result.sql, expect, run.model, result.sql_result)
        checks += step_checks
        caveats += notes
        totals.append((expect, result.sql_result))
    if len(totals) > 1:
        problems = totals_disagree(totals)
        checks += [
            Check(name="totals_disagree", passed=False, message=m, step_id=i, target="sql_builder")
            for i, m in problems
        ]
        if not problems:
            checks.append(
                Check(name="totals_disagree", passed=True, message=PASSED["totals_disagree"])
            )
    return checks, caveats


def _data(state: PipelineState) -> dict[str, pd.DataFrame]:
    data: dict[str, pd.DataFrame] = {}
    for result in state.get("step_results", []):
        if result.sql_result is not None and result.error is None:
            data[f"step_{result.step_id}_data"] = _frame(result.sql_result)
            data["current_data"] = data[f"step_{result.step_id}_data"]
    return data


async def _acceptance(
    number: int, check: AcceptanceCheck, data: dict[str, pd.DataFrame], run: PipelineRun
) -> tuple[Check, str | None]:
    """One acceptance check in the sandbox: the check, and a caveat when it could not run."""
    assert check.python is not None
    args = {"code": check.python, "description": check.description}
    await run.emit("tool_start", {"phase": PHASE, "name": TOOL, "args": args})
    started = time.perf_counter()
    caveat: str | None = None
    passed, message, output = True, check.description, ""
    try:
        result = await run.ctx.sandbox.execute(
            check.python, data=data, owner=str(run.scope.owner_id)
        )
    except DataAgentError as exc:
        caveat, output = f"Not checked ({exc.message}): {check.description}", exc.message
    else:
        output = (result.stdout + result.stderr)[-_OUTPUT_CHARS:]
        if result.error is not None:
            reason = result.error.message
            caveat, output = f"Not checked ({reason}): {check.description}", reason
        elif result.return_code != 0:
            lines = result.stderr.strip().splitlines()
            last = lines[-1] if lines else "the check raised"
            if "AssertionError" in result.stderr:
                passed, message = False, f"{check.description}: failed ({last})."
            else:
                caveat = f"Not checked (its code raised {last}): {check.description}"
    elapsed = round((time.perf_counter() - started) * 1000)
    is_error = caveat is not None or not passed
    event = "tool_error" if is_error else "tool_end"
    payload: dict[str, Any] = {"phase": PHASE, "name": TOOL}
    payload["error" if is_error else "result"] = output or message
    await run.emit(event, payload)
    run.tool_calls.append(
        {
            "phase": PHASE,
            "name": TOOL,
            "args": args,
            "result": output or message,
            "isError": is_error,
            "durationMs": elapsed,
        }
    )
    target: RevisionTarget | None = None if passed else "sql_builder"
    verdict = Check(
        name=f"acceptance_{number}",
        passed=passed,
        message=message if caveat is None else caveat,
        kind="acceptance",
        target=target,
    )
    return verdict, caveat


async def acceptance(state: PipelineState, run: PipelineRun) -> tuple[list[Check], list[str]]:
    """The plan's acceptance checks that carry Python, each run in the sandbox."""
    plan = state.get("plan")
    wanted = [c for c in (plan.acceptance_checks if plan else []) if c.python]
    data = _data(state)
    if not wanted or not data:
        return [], []
    checks: list[Check] = []
    caveats: list[str] = []
    for number, item in enumerate(wanted, start=1):
        check, caveat = await _acceptance(number, item, data, run)
        checks.append(check)
        if caveat is not None:
            caveats.append(caveat)
    return checks, caveats


def report(checks: list[Check], caveats: list[str], revisions_used: int) -> VerificationReport:
    """The verification report: passed, every check, diagnosis, target, caveats."""
    failing = [c for c in checks if not c.passed]
    targets = {c.target for c in failing}
    target: RevisionTarget | None = None
    if failing:
        target = "navigator" if "navigator" in targets else "sql_builder"
    if failing and revisions_used >= MAX_REVISIONS:
        caveats = [
            *caveats,
            *(f"Unresolved after {MAX_REVISIONS} revisions: {c.message}" for c in failing),
        ]
    return VerificationReport(
        passed=not failing,
        checks=checks,
        diagnosis=" ".join(c.message for c in failing),
        recommended_target=target,
        caveats=caveats,
    )


async def verify(state: PipelineState, run: PipelineRun) -> dict[str, Any]:
    """The verification report of the step results."""
    checks, caveats = deterministic(state, run)
    more_checks, more_caveats = await acceptance(state, run)
    revisions = state.get("revision_count", 0)
    verification = report(checks + more_checks, caveats + more_caveats, revisions)
    updates: dict[str, Any] = {"verification": verification}
    if not verification.passed:
        assert verification.recommended_target is not None
        updates["revision_count"] = revisions + 1
        updates["revision_diagnosis"] = verification.diagnosis
        updates["revision_target"] = verification.recommended_target
    return updates
