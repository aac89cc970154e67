"""The one error taxonomy: a machine code, an HTTP status and a human sentence."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import ValidationError


class ErrorCode(StrEnum):
    """Every error code the product reports, end to end."""

    VALIDATION_ERROR = "VALIDATION_ERROR"
    UNAUTHORIZED = "UNAUTHORIZED"
    FORBIDDEN = "FORBIDDEN"
    NOT_FOUND = "NOT_FOUND"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    CONFLICT = "CONFLICT"
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    RATE_LIMITED = "RATE_LIMITED"
    SQL_POLICY_VIOLATION = "SQL_POLICY_VIOLATION"
    QUERY_TIMEOUT = "QUERY_TIMEOUT"
    QUERY_FAILED = "QUERY_FAILED"
    CONNECTION_FAILED = "CONNECTION_FAILED"
    RUNNER_TIMEOUT = "RUNNER_TIMEOUT"
    RUNNER_RESOURCE_EXCEEDED = "RUNNER_RESOURCE_EXCEEDED"
    RUNNER_INTERNAL_ERROR = "RUNNER_INTERNAL_ERROR"
    LLM_UNAVAILABLE = "LLM_UNAVAILABLE"
    LLM_ERROR = "LLM_ERROR"
    SERVICE_UNAVAILABLE = "SERVICE_UNAVAILABLE"
    CANCELLED = "CANCELLED"
    INTERRUPTED = "INTERRUPTED"
    NOT_STARTED = "NOT_STARTED"
    INTERNAL_ERROR = "INTERNAL_ERROR"


HTTP_STATUS: dict[ErrorCode, int] = {
    ErrorCode.VALIDATION_ERROR: 400,
    ErrorCode.UNAUTHORIZED: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.METHOD_NOT_ALLOWED: 405,
    ErrorCode.CONFLICT: 409,
    ErrorCode.PAYLOAD_TOO_LARGE: 413,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.SQL_POLICY_VIOLATION: 400,
    ErrorCode.QUERY_TIMEOUT: 408,
    ErrorCode.QUERY_FAILED: 400,
    ErrorCode.CONNECTION_FAILED: 502,
    ErrorCode.RUNNER_TIMEOUT: 408,
    ErrorCode.RUNNER_RESOURCE_EXCEEDED: 422,
    ErrorCode.RUNNER_INTERNAL_ERROR: 500,
    ErrorCode.LLM_UNAVAILABLE: 503,
    ErrorCode.LLM_ERROR: 502,
    ErrorCode.SERVICE_UNAVAILABLE: 503,
    # How a run ended, reported in its events and on its message rather than as a response.
    ErrorCode.CANCELLED: 409,
    ErrorCode.INTERRUPTED: 503,
    ErrorCode.NOT_STARTED: 408,
    ErrorCode.INTERNAL_ERROR: 500,
}


class DataAgentError(Exception):
    """An expected failure with a code and a sentence safe to show to a person."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        details: Any = None,
        *,
        retry_after_s: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
        self.retry_after_s = retry_after_s

    @property
    def status(self) -> int:
        """The HTTP status this error maps to."""
        return HTTP_STATUS[self.code]

    def to_body(self) -> dict[str, Any]:
        """The JSON error body every API response uses."""
        body: dict[str, Any] = {"code": self.code.value, "message": self.message}
        if self.details is not None:
            body["details"] = self.details
        return {"error": body}


def rate_limited(message: str, retry_after_s: int | None = None) -> DataAgentError:
    """A 429 with a sentence saying what to wait for (and `Retry-After` when it is known)."""
    return DataAgentError(ErrorCode.RATE_LIMITED, message, retry_after_s=retry_after_s)


def not_found(what: str) -> DataAgentError:
    """A 404 that never says whether the object exists for someone else."""
    return DataAgentError(ErrorCode.NOT_FOUND, f"{what} not found.")


def validation_problems(exc: ValidationError, whole: str) -> str:
    """A Pydantic validation error as one sentence's worth of `place: message` parts, joined
    by semicolons (`whole` names the place of an error about the object itself)."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or whole}: {e['msg']}" for e in exc.errors()
    )
