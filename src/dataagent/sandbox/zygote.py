"""The sandbox's zygote: preloads the analysis stack, then forks one isolated child per run.

This file runs *inside* bubblewrap as a standalone script (it imports nothing from
`dataagent`; the host binds it read-only next to `runner.py`). It talks to the host
over its stdin/stdout with length-prefixed frames:

    host -> zygote   JSON header {nonce, code, timeout_s, limits, tables: [{name, nbytes}]}
                     followed by each table's Arrow IPC bytes
    zygote -> host   JSON result {nonce, stdout, stderr, files, value, wait_status, ...}

Per run the zygote forks a supervisor which (in isolated mode) enters a fresh user,
mount, PID, IPC, UTS and network namespace, mounts an empty size-capped tmpfs on
/tmp and /dev/shm, drops every capability, installs the system-call filter and forks
the worker: PID 1 of the new PID namespace, so when it exits or is killed the kernel
kills everything it started.

The zygote starts by closing every descriptor but 0, 1 and 2, whatever its parent left
open (uvloop, for one, leaks copies of the host's ends of the three pipes). The result
frame carries the job's nonce, which only the supervisor ever holds: the worker is forked
before the job arrives and never sees it, so it cannot forge a result the host accepts.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import errno
import gc
import importlib
import json
import os
import re
import resource
import select
import shutil
import signal
import stat
import struct
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from typing import Any

FRAME = struct.Struct(">Q")
MAX_HEADER_BYTES = 64 * 1024 * 1024
FD_CEILING = 1 << 20  # descriptors closed up to here when RLIMIT_NOFILE is unlimited

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOSUID = 2
MS_NODEV = 4
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
LINUX_CAPABILITY_VERSION_3 = 0x20080522

SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
OUTPUT_SUFFIXES = (".png", ".jpg", ".jpeg", ".svg", ".gif", ".csv", ".json", ".txt", ".xlsx")

_libc = ctypes.CDLL(None, use_errno=True)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


# --- framing ---------------------------------------------------------------------------


def read_exact(fd: int, size: int) -> bytes | None:
    """Read exactly `size` bytes, or None at end of input."""
    chunks: list[bytes] = []
    remaining = size
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of `data`."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def send_frame(fd: int, message: dict[str, Any]) -> None:
    """Send one JSON message with its length prefix."""
    body = json.dumps(message).encode()
    write_all(fd, FRAME.pack(len(body)) + body)


def read_job(fd: int) -> tuple[dict[str, Any], bytes] | None:
    """Read one job: its header and its tables' bytes, one after the other; None at end."""
    prefix = read_exact(fd, FRAME.size)
    if prefix is None:
        return None
    (size,) = FRAME.unpack(prefix)
    if size > MAX_HEADER_BYTES:
        raise ValueError("job header too large")
    header_bytes = read_exact(fd, size)
    if header_bytes is None:
        return None
    header: dict[str, Any] = json.loads(header_bytes)
    parts = []
    for table in header.get("tables", []):
        data = read_exact(fd, int(table["nbytes"])) if table["nbytes"] else b""
        if data is None:
            return None
        parts.append(data)
    return header, b"".join(parts)


def job_frame(header: dict[str, Any], tables: bytes) -> bytes:
    """The frame the worker reads: the header (without the nonce) and the tables' bytes."""
    body = json.dumps({key: value for key, value in header.items() if key != "nonce"}).encode()
    return FRAME.pack(len(body)) + body + tables


def unpack_job(raw: bytes) -> dict[str, Any]:
    """The job with each table's bytes under `data` (the worker's view of a raw frame)."""
    (size,) = FRAME.unpack_from(raw)
    offset = FRAME.size + size
    job: dict[str, Any] = json.loads(raw[FRAME.size : offset])
    for table in job.get("tables", []):
        table["data"] = raw[offset : offset + int(table["nbytes"])]
        offset += int(table["nbytes"])
    return job


# --- privileges and namespaces -----------------------------------------------------------


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def close_fds_except(keep: set[int]) -> None:
    """Close every open descriptor not in `keep` (close_range over the gaps between them)."""
    # Up to the hard RLIMIT_NOFILE, which no open descriptor's number reaches unless the
    # limit was lowered after it was opened; os.closerange uses the close_range system
    # call (Linux 5.9+), so a large range costs nothing.
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    ceiling = FD_CEILING if hard == resource.RLIM_INFINITY else hard
    low = 0
    for fd in [*sorted(keep), ceiling]:
        if fd > low:
            os.closerange(low, fd)
        low = fd + 1


def set_no_new_privs() -> None:
    """Make sure no execve in the sandbox can ever gain privileges (setuid binaries)."""
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(NO_NEW_PRIVS)")


def set_dumpable(value: bool) -> None:
    """A non-dumpable process cannot be ptraced or have its /proc files read by its peers."""
    _check(_libc.prctl(PR_SET_DUMPABLE, int(value), 0, 0, 0), "prctl(DUMPABLE)")


def drop_capabilities() -> None:
    """Drop every capability (bounding, ambient, effective, permitted, inheritable)."""
    for cap in range(64):
        if _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break  # EINVAL past the last capability the kernel knows
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = _CapHeader(LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), data), "capset")
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(("CapEff:", "CapPrm:")) and int(line.split()[1], 16) != 0:
                raise RuntimeError(f"capabilities still held: {line.strip()}")


def enter_fresh_namespaces(tmp_mb: int, shm_mb: int) -> None:
    """New user/mount/PID/IPC/UTS/net namespaces and an empty tmpfs on /tmp and /dev/shm."""
    uid, gid = os.getuid(), os.getgid()
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET
    set_dumpable(True)  # a non-dumpable process's /proc/self files belong to root
    _check(_libc.unshare(flags), "unshare")
    maps = (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1"))
    for name, value in maps:
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(value)
    set_dumpable(False)  # the worker must not be able to ptrace or read its supervisor
    _check(_libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "mount(private)")
    options = f"size={tmp_mb}m,mode=1777".encode()
    _check(_libc.mount(b"tmpfs", b"/tmp", b"tmpfs", MS_NOSUID | MS_NODEV, options), "mount(/tmp)")
    if os.path.isdir("/dev/shm"):
        shm = f"size={shm_mb}m,mode=1777".encode()
        _check(
            _libc.mount(b"tmpfs", b"/dev/shm", b"tmpfs", MS_NOSUID | MS_NODEV, shm), "mount(shm)"
        )


def in_throwaway_child(trial: Callable[[], str | None]) -> str | None:
    """Run `trial` in a forked child that then exits: what it returned or raised, as text
    (None when it returned None), so a trial never changes this process."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(reader)
        try:
            message = (trial() or "").encode()
        except BaseException as exc:
            message = f"{type(exc).__name__}: {exc}".encode()
        write_all(writer, message)
        os._exit(0)
    os.close(writer)
    message = read_all(reader)
    os.waitpid(pid, 0)
    return message.decode() or None


def probe_isolation() -> str | None:
    """Try the per-run namespaces once in a throwaway child; the error text when they fail."""

    def trial() -> None:
        enter_fresh_namespaces(1, 1)
        drop_capabilities()

    return in_throwaway_child(trial)


# --- supervising one run -------------------------------------------------------------------


def _drain(streams: dict[int, bytearray], cap: int, deadline: float) -> bool:
    """Read the worker's pipes until they close; False when the deadline passed first."""
    lost = dict.fromkeys(streams, 0)
    open_fds = set(streams)
    while open_fds:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            for fd in open_fds:
                os.close(fd)
            return False
        ready, _, _ = select.select(list(open_fds), [], [], min(remaining, 1.0))
        for fd in ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                open_fds.discard(fd)
                os.close(fd)
                continue
            room = cap - len(streams[fd])
            streams[fd] += chunk[: max(room, 0)]
            lost[fd] += max(len(chunk) - max(room, 0), 0)
    for fd, count in lost.items():
        if count:
            streams[fd] += f"\n[output truncated: {count} more bytes not shown]\n".encode()
    return True


def _decode(data: bytes | bytearray) -> str:
    return bytes(data).decode("utf-8", errors="replace")


def safe_filename(name: str) -> str:
    """A file name with only [A-Za-z0-9._-], no leading dot, at most 100 characters."""
    cleaned = SAFE_NAME.sub("_", name).lstrip(".")[:100]
    return cleaned or "file"


def collect_files(workdir: str, limits: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """Regular files the run left in its working directory, never following links."""
    files: list[dict[str, Any]] = []
    notes: list[str] = []
    total = 0
    try:
        entries = sorted(os.scandir(workdir), key=lambda entry: entry.name)
    except OSError as exc:
        return files, [f"output files not collected: {exc.strerror}"]
    for entry in entries:
        if not entry.name.lower().endswith(OUTPUT_SUFFIXES) or entry.name.startswith("."):
            continue
        if not entry.is_file(follow_symlinks=False):
            notes.append(f"{safe_filename(entry.name)}: skipped (not a regular file)")
            continue
        if len(files) >= int(limits["files_max_count"]):
            notes.append(f"{safe_filename(entry.name)}: skipped (more than {len(files)} files)")
            continue
        try:
            fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            info = os.fstat(fd)
            too_big = info.st_size > int(limits["file_max_bytes"])
            if not stat.S_ISREG(info.st_mode) or too_big:
                notes.append(f"{safe_filename(entry.name)}: skipped ({info.st_size} bytes)")
                continue
            if total + info.st_size > int(limits["files_max_total_bytes"]):
                notes.append(f"{safe_filename(entry.name)}: skipped (total size cap)")
                continue
            data = read_exact(fd, info.st_size) or b""
        finally:
            os.close(fd)
        total += len(data)
        files.append(
            {"filename": safe_filename(entry.name), "data": base64.b64encode(data).decode()}
        )
    return files, notes


class Supervisor:
    """One run's supervisor, forked ahead of its job with the worker already waiting.

    The zygote never reads a job itself, so no run's code or data is ever in the memory
    that later workers are forked from.
    """

    def __init__(
        self,
        isolate: bool,
        tmp_mb: int,
        shm_mb: int,
        runner: Any,
        syscall_filter: Any | None,
        filter_error: str | None,
    ) -> None:
        self.isolate = isolate
        self.setup_error: str | None = None
        self.workdir = "/tmp"
        try:
            if isolate:
                enter_fresh_namespaces(tmp_mb, shm_mb)
                drop_capabilities()
            else:
                self.workdir = tempfile.mkdtemp(prefix="dataagent-run-")
            if filter_error is not None:
                raise RuntimeError(f"the system-call filter is unavailable: {filter_error}")
            if syscall_filter is not None:
                syscall_filter.load()  # inherited by the worker and all it starts
        except Exception as exc:
            self.setup_error = f"{type(exc).__name__}: {exc}"
            return
        self.job_r, self.job_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        res_r, res_w = os.pipe()
        self.pid = os.fork()  # in isolated mode: PID 1 of the run's own PID namespace
        if self.pid == 0:
            # Keep only the run's own pipes: nothing leading to the host (the protocol) or to
            # the zygote; 0, 1 and 2 are replaced by the run's own before any code runs.
            close_fds_except({0, 1, 2, self.job_r, out_w, err_w, res_w})
            raw = read_all(self.job_r)
            if not raw:
                os._exit(0)
            set_dumpable(True)  # the code may read its own /proc/self; its supervisor stays closed
            runner.run_worker(unpack_job(raw), self.workdir, out_w, err_w, res_w)
        for fd in (self.job_r, out_w, err_w, res_w):
            os.close(fd)
        self.out_r, self.err_r, self.res_r = out_r, err_r, res_r

    def serve(self, proto_in: int, proto_out: int, status_w: int) -> None:
        """Read the next job from the host, run it, write the result; never returns."""
        job = read_job(proto_in)
        if job is None:
            write_all(status_w, b"e")
            self._kill()
            os._exit(0)
        write_all(status_w, b"r")  # the zygote may now fork the next supervisor
        os.close(status_w)
        header, tables = job
        try:
            if self.setup_error is not None:
                raise RuntimeError(f"isolation failed: {self.setup_error}")
            result = self.run(header, tables)
        except BaseException:
            self._kill()
            result = {"internal_error": traceback.format_exc(limit=5)}
            result["setup_error"] = self.setup_error
        result["nonce"] = header.get("nonce")  # ties the result to this job (see the docstring)
        send_frame(proto_out, result)
        os._exit(0)

    def run(self, header: dict[str, Any], tables: bytes) -> dict[str, Any]:
        """Hand the job to the waiting worker and supervise it to the end."""
        limits: dict[str, Any] = header["limits"]
        started = time.monotonic()
        with contextlib.suppress(BrokenPipeError):  # a dead worker's exit status tells why
            write_all(self.job_w, job_frame(header, tables))
        os.close(self.job_w)
        streams = {self.out_r: bytearray(), self.err_r: bytearray(), self.res_r: bytearray()}
        deadline = started + float(header["timeout_s"])
        finished = _drain(streams, int(limits["output_max_bytes"]), deadline)
        if not finished:
            self._kill()
        _, wait_status = os.waitpid(self.pid, 0)
        elapsed_ms = int((time.monotonic() - started) * 1000)
        if not self.isolate:
            self._kill()  # without a PID namespace, kill what is left of the process group
        files, notes = collect_files(self.workdir, limits)
        if not self.isolate:
            shutil.rmtree(self.workdir, ignore_errors=True)
        report: dict[str, Any] = {}
        if finished and streams[self.res_r]:
            with contextlib.suppress(ValueError):
                report = json.loads(bytes(streams[self.res_r]))
        return {
            "stdout": _decode(streams[self.out_r]),
            "stderr": _decode(streams[self.err_r]),
            "wait_status": wait_status,
            "timed_out": not finished,
            "elapsed_ms": elapsed_ms,
            "files": files,
            "notes": notes + list(report.get("notes", [])),
            "value": report.get("value"),
            "has_value": bool(report.get("has_value")),
            "memory_error": bool(report.get("memory_error")),
        }

    def _kill(self) -> None:
        if self.setup_error is None:
            for target in (-self.pid, self.pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(target, signal.SIGKILL)


def read_all(fd: int) -> bytes:
    """Everything until end of input."""
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def _option(name: str, default: int) -> int:
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def probe_filter(syscall_filter: Any) -> str | None:
    """Load the filter once in a throwaway child and check it refuses a user namespace."""

    def trial() -> str | None:
        syscall_filter.load()
        if _libc.unshare(CLONE_NEWUSER) == 0 or ctypes.get_errno() != errno.EPERM:
            return "the filter was loaded but unshare(CLONE_NEWUSER) was not refused"
        return None

    return in_throwaway_child(trial)


def main() -> None:
    """Preload, report ready, then keep one supervisor forked ahead of the next job."""
    # First of all: whatever started us may have left descriptors open (uvloop leaks copies
    # of the host's ends of our stdin/stdout/stderr). Only 0, 1 and 2 are ours.
    close_fds_except({0, 1, 2})
    in_bwrap = "--isolate" in sys.argv
    tmp_mb, shm_mb = _option("--tmp-mb", 100), _option("--shm-mb", 64)
    if "--path" in sys.argv:
        sys.path.extend(sys.argv[sys.argv.index("--path") + 1 :])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    proto_in, proto_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)  # stray prints from imports go to the host's log, never into the protocol
    set_no_new_privs()
    set_dumpable(False)
    runner = importlib.import_module("runner")  # the sibling files bound next to this one
    filters = importlib.import_module("syscall_filter")
    started = time.monotonic()
    runner.preload()
    gc.collect()
    gc.freeze()  # forked workers then never walk (and copy-on-write) the preloaded objects
    isolation_error = probe_isolation() if in_bwrap else None
    syscall_filter: Any | None = None
    try:
        syscall_filter = filters.SyscallFilter()
        filter_error = probe_filter(syscall_filter)
    except Exception as exc:
        filter_error = f"{type(exc).__name__}: {exc}"
    if filter_error is not None:
        syscall_filter = None
    ready: dict[str, Any] = {
        "ready": True,
        "preload_ms": int((time.monotonic() - started) * 1000),
        "baseline_vm_kb": runner.vm_size_kb(),
        "isolation_error": isolation_error,
        "filter_error": filter_error,
    }
    send_frame(proto_out, ready)
    isolate = in_bwrap and isolation_error is None
    # Inside bubblewrap no run goes without the filter; unsafe mode uses it when it can.
    required_error = filter_error if in_bwrap else None
    while True:
        status_r, status_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(status_r)
            supervisor = Supervisor(isolate, tmp_mb, shm_mb, runner, syscall_filter, required_error)
            supervisor.serve(proto_in, proto_out, status_w)
        os.close(status_w)
        state = os.read(status_r, 1)
        os.close(status_r)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass  # reap supervisors that have finished
        if state != b"r":
            return  # end of input, or a supervisor died before taking its job


if __name__ == "__main__":
    main()
