"""Turning the zygote's raw report into an ExecutionResult (error codes, caps, names)."""

from __future__ import annotations

import base64
import binascii
import os
import signal
from typing import Any

from dataagent.errors import ErrorCode
from dataagent.sandbox.result import ExecutionError, ExecutionResult, OutputFile
from dataagent.sandbox.zygote import safe_filename

SETUP_ERROR_CHARS = 300


def internal_error(message: str) -> ExecutionResult:
    """A result for a failure of the sandbox itself (not of the code)."""
    error = ExecutionError(code=ErrorCode.RUNNER_INTERNAL_ERROR, message=message)
    return ExecutionResult(return_code=-1, error=error)


def _return_code(wait_status: int) -> tuple[int, int | None]:
    """(return code, terminating signal): a negative code for a signal, like subprocess."""
    if os.WIFSIGNALED(wait_status):
        signum = os.WTERMSIG(wait_status)
        return -signum, signum
    return os.waitstatus_to_exitcode(wait_status), None


def _files(raw: list[dict[str, Any]], limits: dict[str, Any]) -> list[OutputFile]:
    """The reported files, checked again on the host: names, count and sizes."""
    files: list[OutputFile] = []
    total = 0
    seen: set[str] = set()
    for item in raw[: int(limits["files_max_count"])]:
        name = safe_filename(str(item.get("filename", "")))
        try:
            size = len(base64.b64decode(str(item.get("data", "")), validate=True))
        except (binascii.Error, ValueError):
            continue
        if name in seen or size > int(limits["file_max_bytes"]):
            continue
        if total + size > int(limits["files_max_total_bytes"]):
            break
        total += size
        seen.add(name)
        files.append(OutputFile(filename=name, data=str(item["data"])))
    return files


def result_from_report(report: dict[str, Any], limits: dict[str, Any]) -> ExecutionResult:
    """The ExecutionResult for one zygote report, with timeouts and limits mapped to codes."""
    if "internal_error" in report:
        if setup_error := report.get("setup_error"):
            detail = str(setup_error)[:SETUP_ERROR_CHARS]
            return internal_error(f"The sandbox could not isolate the run; no code ran ({detail}).")
        return internal_error("The sandbox failed to run the code.")
    return_code, signum = _return_code(int(report.get("wait_status", 0)))
    stderr = str(report.get("stderr", ""))
    notes = [f"[sandbox] {note}" for note in report.get("notes", [])]
    error: ExecutionError | None = None
    timeout = float(limits["timeout_s"])
    if report.get("timed_out"):
        return_code = -1
        message = f"Execution timed out after {timeout:g}s."
        error = ExecutionError(code=ErrorCode.RUNNER_TIMEOUT, message=message)
    elif signum == signal.SIGXCPU:
        message = f"CPU time limit exceeded ({float(limits['cpu_s']):g}s)."
        error = ExecutionError(code=ErrorCode.RUNNER_TIMEOUT, message=message)
    elif report.get("memory_error") or signum in (signal.SIGKILL, signal.SIGSEGV):
        message = f"Memory limit exceeded ({int(limits['memory_mb'])} MB)."
        error = ExecutionError(code=ErrorCode.RUNNER_RESOURCE_EXCEEDED, message=message)
    elif signum == signal.SIGXFSZ:
        message = f"File size limit exceeded ({int(limits['fsize_mb'])} MB)."
        error = ExecutionError(code=ErrorCode.RUNNER_RESOURCE_EXCEEDED, message=message)
    elif signum is not None:
        notes.append(f"[sandbox] the code was killed by signal {signal.strsignal(signum)}")
    if error is not None:
        notes.append(f"[sandbox] {error.message}")
    if notes:
        stderr = stderr + ("\n" if stderr and not stderr.endswith("\n") else "") + "\n".join(notes)
    return ExecutionResult(
        stdout=str(report.get("stdout", "")),
        stderr=stderr,
        return_code=return_code,
        files=_files(list(report.get("files", [])), limits),
        value=report.get("value") if report.get("has_value") else None,
        execution_time_ms=int(report.get("elapsed_ms", 0)),
        error=error,
    )
