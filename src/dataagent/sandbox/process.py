"""A zygote's process as the host holds it: started the same way under any event loop.

`asyncio.create_subprocess_exec` leaves what the child inherits to the event loop, and
uvloop (which uvicorn picks) marks its own copies of the child's ends of the three pipes
inheritable: they reach the child as extra descriptors that survive `exec`, and ignore
`close_fds`. So the process is started by `subprocess.Popen` (`close_fds`: the child gets
its three pipes and `pass_fds`, nothing else), its pipes are attached to the running
loop, and its exit is watched through a pidfd. The zygote closes everything but 0, 1 and
2 itself as well; this side makes sure the host does not hand it more in the first place.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import threading
from subprocess import Popen
from typing import Any

FRAME_HEADER_BYTES = 8
MAX_FRAME_BYTES = 256 * 1024 * 1024


class FrameReader(asyncio.Protocol):
    """The zygote's stdout: length-prefixed JSON frames (8-byte big-endian length), nothing else.

    Bytes that arrive when no frame is expected stay in the buffer, where `pending` shows
    them: the host treats any as a broken protocol.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._eof = False
        self._waiter: asyncio.Future[None] | None = None
        self._transport: Any = None  # uvloop's pipe transports are not asyncio.ReadTransport

    @property
    def pending(self) -> int:
        """Bytes received and not (yet) read as part of a frame."""
        return len(self._buffer)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        if len(self._buffer) > MAX_FRAME_BYTES + FRAME_HEADER_BYTES and self._transport is not None:
            self._transport.pause_reading()  # read_frame refuses it; stop buffering more
        self._wake()

    def eof_received(self) -> bool:
        self._eof = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._eof = True
        self._wake()

    def close(self) -> None:
        """Stop reading (the process is gone or being discarded)."""
        if self._transport is not None:
            self._transport.close()

    async def read_frame(self) -> dict[str, Any]:
        """The next frame as a JSON object (ValueError or EOFError when there is none)."""
        while True:
            if len(self._buffer) >= FRAME_HEADER_BYTES:
                size = int.from_bytes(self._buffer[:FRAME_HEADER_BYTES], "big")
                if size > MAX_FRAME_BYTES:
                    raise ValueError("frame too large")
                end = FRAME_HEADER_BYTES + size
                if len(self._buffer) >= end:
                    body = bytes(self._buffer[FRAME_HEADER_BYTES:end])
                    del self._buffer[:end]
                    message = json.loads(body)
                    if not isinstance(message, dict):
                        raise ValueError("a frame that is not a JSON object")
                    return message
            if self._eof:
                raise EOFError("the sandbox process closed its output")
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)


class SandboxProcess:
    """A child process with its stdin, stdout (frames) and stderr attached to the loop."""

    def __init__(self, popen: Popen[bytes]) -> None:
        self._popen = popen
        self.pid = popen.pid
        self._loop = asyncio.get_running_loop()
        self._exited: asyncio.Future[int] = self._loop.create_future()
        self._pidfd: int | None = None
        self.stdin: asyncio.StreamWriter | None = None
        self.frames = FrameReader()
        self.stderr = asyncio.StreamReader()
        self._transports: list[asyncio.BaseTransport] = []
        self._unattached = [pipe for pipe in (popen.stdin, popen.stdout, popen.stderr) if pipe]
        self._watch_exit()

    @classmethod
    async def spawn(
        cls, command: list[str], env: dict[str, str], pass_fds: tuple[int, ...] = ()
    ) -> SandboxProcess:
        """Start `command` in its own session; only its pipes and `pass_fds` are inherited."""
        process = cls(_popen(command, env, pass_fds))
        try:
            await process._attach_pipes()
        except BaseException:
            await process.kill()
            raise
        return process

    @property
    def returncode(self) -> int | None:
        """The exit code (negative: the signal), or None while it runs."""
        return self._popen.returncode

    async def wait(self) -> int:
        """Wait for the process to exit (it is reaped here) and return its code."""
        return await asyncio.shield(self._exited)

    def close_stdin(self) -> None:
        """End of input: the zygote exits when it sees it."""
        if self.stdin is not None:
            self.stdin.close()

    async def kill(self) -> None:
        """Kill the process and its group, wait for it, and close every pipe."""
        if self.returncode is None:
            # The process leads its own group (start_new_session), so this kills it too.
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            except PermissionError:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
        self.close_stdin()
        await self.wait()
        for transport in self._transports:
            transport.close()
        for pipe in self._unattached:
            pipe.close()  # a start cancelled before the loop took the pipe over

    async def _attach_pipes(self) -> None:
        loop = self._loop
        stdin, stdout, stderr = self._popen.stdin, self._popen.stdout, self._popen.stderr
        assert stdin is not None and stdout is not None and stderr is not None
        read, _ = await loop.connect_read_pipe(lambda: self.frames, stdout)
        self._transports.append(read)
        self._unattached.remove(stdout)
        read, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(self.stderr), stderr
        )
        self._transports.append(read)
        self._unattached.remove(stderr)
        write, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, stdin)
        self._transports.append(write)
        self._unattached.remove(stdin)
        self.stdin = asyncio.StreamWriter(write, protocol, None, loop)

    def _watch_exit(self) -> None:
        try:
            self._pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            # No pidfds (Linux before 5.3): a thread waits instead, as asyncio's own
            # ThreadedChildWatcher does.
            threading.Thread(target=self._wait_in_thread, daemon=True).start()
            return
        self._loop.add_reader(self._pidfd, self._reap)

    def _reap(self) -> None:
        if self._popen.poll() is None:
            return
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None
        if not self._exited.done():
            self._exited.set_result(self._popen.returncode)

    def _wait_in_thread(self) -> None:
        self._popen.wait()
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting
            self._loop.call_soon_threadsafe(self._reap)


def _popen(command: list[str], env: dict[str, str], pass_fds: tuple[int, ...]) -> Popen[bytes]:
    """Fork and exec `command` (the loop's thread waits only for the exec, a few ms, so a
    cancelled start can never leave a process nobody owns)."""
    return subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
        env=env,
        close_fds=True,
        pass_fds=pass_fds,
        start_new_session=True,
    )
