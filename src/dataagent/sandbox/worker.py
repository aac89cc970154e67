"""One warm zygote process and the host's side of its framed protocol."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
import shutil
import struct
from collections import deque
from typing import Any

from dataagent.sandbox.process import SandboxProcess

logger = logging.getLogger(__name__)

FRAME = struct.Struct(">Q")
NONCE_BYTES = 16
STDERR_TAIL_LINES = 40


class WorkerError(Exception):
    """The zygote could not be started, broke its protocol, or died."""


class WorkerTimeout(WorkerError):
    """The zygote did not answer in time (the host's backstop behind the sandbox's own timer)."""


class Worker:
    """A zygote with the analysis stack imported, serving one job at a time.

    Each job carries a fresh random nonce that only the run's supervisor sees; a result
    frame without it, or any byte outside a frame, means something other than the
    supervisor wrote to the protocol: the zygote is then discarded (WorkerError).
    """

    def __init__(self, process: SandboxProcess, ready: dict[str, Any]) -> None:
        self.process = process
        self.ready = ready
        self.isolated = ready.get("isolation_error") is None
        self.scratch: str | None = None
        self._stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._stderr_task: asyncio.Task[None] | None = None

    @property
    def baseline_vm_kb(self) -> int:
        """The zygote's virtual memory size after preloading."""
        return int(self.ready.get("baseline_vm_kb", 0))

    @property
    def stderr_tail(self) -> str:
        """The last lines the zygote or bubblewrap wrote to stderr (for diagnostics)."""
        return "\n".join(self._stderr_tail)

    @property
    def usable(self) -> bool:
        """Still running, and nothing written to the protocol since its last result."""
        return self.process.returncode is None and self.process.frames.pending == 0

    @classmethod
    async def start(
        cls,
        command: list[str],
        env: dict[str, str],
        timeout_s: float = 120.0,
        pass_fds: tuple[int, ...] = (),
    ) -> Worker:
        """Start a zygote and wait until it has preloaded the stack."""
        try:
            process = await SandboxProcess.spawn(command, env, pass_fds)
        except OSError as exc:
            raise WorkerError(f"the sandbox did not start: {exc}") from exc
        tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        stderr_task = asyncio.create_task(_collect_stderr(process.stderr, tail))
        try:
            ready = await asyncio.wait_for(process.frames.read_frame(), timeout_s)
        except BaseException as exc:
            await process.kill()
            await stderr_task
            if isinstance(exc, Exception):
                detail = "\n".join(tail) or f"{type(exc).__name__}: {exc}"
                raise WorkerError(f"the sandbox did not start: {detail}") from exc
            raise
        worker = cls(process, ready)
        worker._stderr_tail = tail
        worker._stderr_task = stderr_task
        return worker

    async def run(
        self, header: dict[str, Any], blobs: list[bytes], timeout_s: float
    ) -> dict[str, Any]:
        """Send one job and wait for its result (WorkerTimeout past `timeout_s`)."""
        stdin = self.process.stdin
        if stdin is None or self.process.returncode is not None:
            raise WorkerError("the sandbox process is not running")
        if self.process.frames.pending:
            raise WorkerError("the sandbox wrote to the protocol between jobs")
        nonce = secrets.token_hex(NONCE_BYTES)
        body = json.dumps({**header, "nonce": nonce}).encode()
        try:
            stdin.write(FRAME.pack(len(body)) + body)
            for blob in blobs:
                stdin.write(blob)
            await stdin.drain()
            result = await asyncio.wait_for(self.process.frames.read_frame(), timeout_s)
        except TimeoutError as exc:
            raise WorkerTimeout("the sandbox did not answer in time") from exc
        except (OSError, EOFError, ValueError) as exc:
            raise WorkerError(f"the sandbox process failed: {type(exc).__name__}") from exc
        if not hmac.compare_digest(str(result.get("nonce")), nonce):
            raise WorkerError("a result frame without this job's nonce (forged or stale)")
        if self.process.frames.pending:
            raise WorkerError("unexpected bytes after the result frame")
        return result

    async def close(self) -> None:
        """Ask the zygote to exit (end of input), killing it if it does not."""
        self.process.close_stdin()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), 5.0)
        await self.kill()

    async def kill(self) -> None:
        """Kill the whole sandbox (its process group; bubblewrap then ends its PID namespace)."""
        await self.process.kill()
        if self._stderr_task is not None:
            await self._stderr_task
        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)


async def _collect_stderr(stderr: asyncio.StreamReader, tail: deque[str]) -> None:
    while line := await stderr.readline():
        text = line.decode(errors="replace").rstrip()
        tail.append(text)
        logger.debug("sandbox stderr: %s", text)
