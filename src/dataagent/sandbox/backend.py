"""The sandbox interface the agent calls, and the choice between local pool and service."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import pandas as pd

from dataagent.config import Settings
from dataagent.sandbox.result import ExecutionResult


class Sandbox(Protocol):
    """Runs untrusted Python with named tables in, and output, charts and a value out."""

    async def execute(
        self,
        code: str,
        data: Mapping[str, pd.DataFrame] | None = None,
        timeout_s: float | None = None,
        owner: str | None = None,
    ) -> ExecutionResult:
        """Run `code`; each table in `data` is a DataFrame variable of that name.

        `owner` (the person the run is for) gets a fair share: at most
        `sandbox_max_per_user` of one owner's executions run at once, the rest wait
        behind other people's. Executions without an owner share one anonymous share.
        """
        ...

    def warm_up(self) -> None:
        """Start getting ready in the background and return at once (called at app start)."""
        ...

    async def aclose(self) -> None:
        """Release processes and connections."""
        ...


def sandbox_from_settings(settings: Settings) -> Sandbox:
    """The remote service when `sandbox_url` is set, else the local warm pool."""
    if settings.sandbox_url:
        from dataagent.sandbox.remote import RemoteSandbox

        return RemoteSandbox.from_settings(settings)
    from dataagent.sandbox.pool import LocalSandbox

    return LocalSandbox.from_settings(settings)
