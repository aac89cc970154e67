"""Run one unit of database work in a child process that has its own memory limit.

DuckDB runs inside whichever process opens it, and its `memory_limit` covers sorts, joins and
aggregates but not the values a query builds in its result: `SELECT repeat('x', 10^8) FROM
range(8)` holds a vector of such strings however the rows are fetched. So DuckDB queries run
in a child forked from a clean fork server (never from the threaded server itself), under
RLIMIT_AS: a query that needs more memory fails in the child, and the server is untouched.
"""

from __future__ import annotations

import multiprocessing
import resource
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.driver_errors import TIMEOUT_MESSAGE

T = TypeVar("T")

# The child's address space beyond the engine's own limit: Python, the drivers, DuckDB's
# reservations. Measured: DuckDB runs `SELECT 1` within 1 GB of address space.
ADDRESS_SPACE_MB = 768
# Seconds the parent waits past the time limit for the child's own watchdog to act.
KILL_GRACE_S = 5.0
# "__main__" first: children then skip re-running the main script (see multiprocessing.spawn).
_PRELOAD = ["__main__", "dataagent.sources.executor"]

_context = multiprocessing.get_context("forkserver")
_context.set_forkserver_preload(_PRELOAD)


def memory_exceeded_message(memory_mb: int) -> str:
    """The sentence for a query stopped by the memory limit."""
    return (
        f"The query needed more memory than the {memory_mb} MB limit and was stopped; "
        "aggregate, filter or select fewer or shorter values."
    )


def run_isolated(work: Callable[..., T], *args: Any, timeout_s: float, memory_mb: int) -> T:
    """`work(*args)` in a fresh child process; its DataAgentErrors are raised here.

    `work` must be a module-level function (it is sent by reference) and return a picklable
    value. The child may use `memory_mb` for its engine plus ADDRESS_SPACE_MB of address space.
    """
    receiver, sender = _context.Pipe(duplex=False)
    child = _context.Process(target=_child_main, args=(sender, memory_mb, work, args), daemon=True)
    child.start()
    sender.close()
    try:
        if not receiver.poll(timeout_s + KILL_GRACE_S):
            raise DataAgentError(ErrorCode.QUERY_TIMEOUT, TIMEOUT_MESSAGE)
        try:
            outcome: tuple[str, Any, Any] = receiver.recv()
        except EOFError:  # the child died before answering: killed for its memory use
            raise DataAgentError(
                ErrorCode.QUERY_FAILED, memory_exceeded_message(memory_mb)
            ) from None
    finally:
        receiver.close()
        child.join(timeout=0.5)
        if child.is_alive():
            child.kill()
            child.join()
        child.close()
    kind, first, second = outcome
    if kind == "error":
        raise DataAgentError(ErrorCode(first), second)
    result: T = first
    return result


def warm_up() -> None:
    """Start the fork server now, so the first query does not pay for it."""
    run_isolated(_nothing, timeout_s=30.0, memory_mb=64)


def _nothing() -> None:
    return None


def _child_main(
    sender: Connection, memory_mb: int, work: Callable[..., Any], args: tuple[Any, ...]
) -> None:
    limit = (memory_mb + ADDRESS_SPACE_MB) << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    outcome: tuple[str, Any, Any]
    try:
        outcome = ("ok", work(*args), None)
    except DataAgentError as exc:
        outcome = ("error", exc.code.value, exc.message)
    except MemoryError:
        outcome = ("error", ErrorCode.QUERY_FAILED.value, memory_exceeded_message(memory_mb))
    except Exception as exc:  # a failure with no place in the taxonomy: say what it was
        outcome = (
            "error",
            ErrorCode.QUERY_FAILED.value,
            f"The query failed ({type(exc).__name__}).",
        )
    sender.send(outcome)
    sender.close()
