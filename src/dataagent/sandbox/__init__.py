"""The Python sandbox: bubblewrap isolation, a warm pool, and an HTTP service mode."""

from dataagent.sandbox.backend import Sandbox, sandbox_from_settings
from dataagent.sandbox.pool import LocalSandbox
from dataagent.sandbox.remote import RemoteSandbox
from dataagent.sandbox.result import ExecutionError, ExecutionResult, OutputFile, SandboxLimits

__all__ = [
    "ExecutionError",
    "ExecutionResult",
    "LocalSandbox",
    "OutputFile",
    "RemoteSandbox",
    "Sandbox",
    "SandboxLimits",
    "sandbox_from_settings",
]
