"""A client for a sandbox running as its own service (`dataagent sandbox serve`)."""

from __future__ import annotations

import base64
import logging
from collections.abc import Mapping
from typing import Any

import httpx
import pandas as pd
from pydantic import ValidationError

from dataagent.config import Settings
from dataagent.sandbox.outcome import internal_error
from dataagent.sandbox.result import ExecutionResult
from dataagent.sandbox.tables import encode_tables

logger = logging.getLogger(__name__)

NETWORK_GRACE_S = 30.0


class RemoteSandbox:
    """Sends executions to `POST {url}/execute`; tables travel as base64 Arrow IPC."""

    def __init__(
        self,
        url: str,
        *,
        default_timeout_s: float = 30.0,
        token: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.default_timeout_s = default_timeout_s
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._client = httpx.AsyncClient(base_url=self.url, headers=headers, transport=transport)

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> RemoteSandbox:
        """A client for `settings.sandbox_url`."""
        if not settings.sandbox_url:
            raise ValueError("sandbox_url is not set")
        options: dict[str, Any] = {"default_timeout_s": settings.sandbox_timeout_s}
        options.update(overrides)
        return cls(settings.sandbox_url, **options)

    async def execute(
        self,
        code: str,
        data: Mapping[str, pd.DataFrame] | None = None,
        timeout_s: float | None = None,
        owner: str | None = None,
    ) -> ExecutionResult:
        """Run code on the service (which schedules it by `owner`); failures of the service
        itself give RUNNER_INTERNAL_ERROR."""
        timeout = timeout_s if timeout_s is not None else self.default_timeout_s
        tables = {
            name: {"arrow": base64.b64encode(blob).decode()} for name, blob in encode_tables(data)
        }
        body: dict[str, Any] = {"code": code, "timeout": timeout}
        if tables:
            body["data"] = tables
        if owner is not None:
            body["owner"] = owner
        try:
            response = await self._client.post(
                "/execute", json=body, timeout=timeout + NETWORK_GRACE_S
            )
            payload = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            logger.error("sandbox service %s failed: %s", self.url, type(exc).__name__)
            return internal_error("The sandbox service could not be reached.")
        try:
            return ExecutionResult.model_validate(payload)
        except ValidationError:
            message = payload.get("error", {}).get("message") if isinstance(payload, dict) else None
            return internal_error(
                f"The sandbox service refused the request: {message or response.status_code}"
            )

    def warm_up(self) -> None:
        """Nothing to do: the service keeps its own warm pool."""

    async def health(self) -> bool:
        """True when the service answers its health check."""
        try:
            response = await self._client.get("/health", timeout=5.0)
        except httpx.HTTPError:
            return False
        return response.status_code == 200

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._client.aclose()
