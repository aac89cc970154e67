"""Escape suite: untrusted code tries to get out; each test proves it is contained.

Every test runs against the real bubblewrap sandbox, and after each one the pool
must still run code (the backend survives every attempt).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from dataagent.errors import ErrorCode
from dataagent.sandbox import ExecutionResult, LocalSandbox

from .conftest import SECRET_VALUE

pytestmark = [pytest.mark.sandbox, pytest.mark.asyncio(loop_scope="module")]

REPO = Path(__file__).resolve().parents[3]


@pytest_asyncio.fixture(autouse=True, loop_scope="module")
async def survives(sandbox: LocalSandbox) -> AsyncIterator[None]:
    """After each attack the backend still runs code normally."""
    yield
    result = await sandbox.execute("print('alive')", timeout_s=10)
    assert result.ok and result.stdout == "alive\n", result


async def run(sandbox: LocalSandbox, code: str, timeout_s: float = 5) -> ExecutionResult:
    return await sandbox.execute(code, timeout_s=timeout_s)


def report(result: ExecutionResult) -> dict:
    assert result.return_code == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


# --- network -------------------------------------------------------------------------


def _host_address() -> str | None:
    """A non-loopback IPv4 address of this host (the one its default route leaves from), or
    None when it has none. A UDP "connect" sends nothing; it only picks the route."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: only the route is looked up
        address = str(probe.getsockname()[0])
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") or address == "0.0.0.0" else address


@pytest.fixture
def listeners() -> Iterator[list[tuple[str, int]]]:
    """TCP listeners of the host that anyone outside a sandbox can connect to: one on
    loopback, and one on the host's own network address when it has one. A listening
    socket completes the handshake by itself (the backlog), so nothing needs to accept."""
    sockets = []
    for address in ("127.0.0.1", _host_address()):
        if address is None:
            continue
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind((address, 0))
        listener.listen(16)
        sockets.append(listener)
    try:
        yield [listener.getsockname() for listener in sockets]
    finally:
        for listener in sockets:
            listener.close()


def _connect_probe(targets: list[tuple[str, int]]) -> str:
    """Code that tries a TCP connection to each target and prints what happened to each."""
    return f"""
import socket, json
outcome = {{}}
for host, port in {targets!r}:
    try:
        socket.create_connection((host, port), timeout=2).close()
        outcome[host] = "connected"
    except OSError as exc:
        outcome[host] = type(exc).__name__
print(json.dumps(outcome))
"""


async def test_no_tcp_to_the_hosts_listeners(
    sandbox: LocalSandbox, listeners: list[tuple[str, int]]
) -> None:
    """The same probe connects to the host's listeners from a plain process (so the check can
    fail) and cannot from the sandbox."""
    code = _connect_probe(listeners)
    control = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, stdout=asyncio.subprocess.PIPE
    )
    stdout, _ = await asyncio.wait_for(control.communicate(), timeout=60)  # a hang guard only
    assert control.returncode == 0
    outside = json.loads(stdout.decode().strip().splitlines()[-1])
    assert outside == {host: "connected" for host, _ in listeners}, outside
    inside = report(await run(sandbox, code))
    assert set(inside) == {host for host, _ in listeners}
    assert "connected" not in inside.values(), inside


async def test_no_dns(sandbox: LocalSandbox) -> None:
    code = """
import socket, json
try:
    socket.getaddrinfo("example.com", 443)
    print(json.dumps("resolved"))
except OSError as exc:
    print(json.dumps("failed"))
"""
    assert report(await run(sandbox, code)) == "failed"


async def test_only_loopback_interface(sandbox: LocalSandbox) -> None:
    code = "import socket, json\nprint(json.dumps([n for _, n in socket.if_nameindex()]))"
    assert report(await run(sandbox, code)) == ["lo"]


async def test_no_host_unix_sockets(sandbox: LocalSandbox) -> None:
    code = """
import os, json
paths = ["/var/run/postgresql", "/run/mysqld", "/var/run/docker.sock", "/run"]
print(json.dumps([p for p in paths if os.path.exists(p)]))
"""
    assert report(await run(sandbox, code)) == []


# --- host files ------------------------------------------------------------------------


async def test_cannot_read_etc_shadow(sandbox: LocalSandbox) -> None:
    code = """
import json
try:
    print(json.dumps(open("/etc/shadow").read()[:10]))
except OSError as exc:
    print(json.dumps(type(exc).__name__))
"""
    assert report(await run(sandbox, code)) in ("FileNotFoundError", "PermissionError")


async def test_no_host_etc_or_home(sandbox: LocalSandbox) -> None:
    code = """
import os, json
paths = ["/etc/passwd", "/etc/hosts", "/home", "/root/.ssh"]
print(json.dumps({p: os.path.exists(p) for p in paths}))
"""
    assert not any(report(await run(sandbox, code)).values())


async def test_cannot_see_data_dir(sandbox: LocalSandbox, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "dataagent.db").write_text("secret")
    code = f"import os, json\nprint(json.dumps(os.path.exists({str(data_dir)!r})))"
    assert report(await run(sandbox, code)) is False


async def test_cannot_see_project_checkout(sandbox: LocalSandbox) -> None:
    paths = [str(REPO / "pyproject.toml"), str(REPO / "src" / "dataagent"), str(REPO / ".git")]
    code = f"""
import os, json, importlib.util
print(json.dumps([[p for p in {paths!r} if os.path.exists(p)],
                  importlib.util.find_spec("dataagent") is not None]))
"""
    assert report(await run(sandbox, code)) == [[], False]


async def test_proc_environ_has_no_secrets(sandbox: LocalSandbox) -> None:
    assert os.environ.get("DATAAGENT_ESCAPE_TEST_SECRET") == SECRET_VALUE
    code = """
import os
found = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            found.append(open(f"/proc/{pid}/environ", "rb").read().decode(errors="replace"))
        except OSError:
            pass
print(repr(dict(os.environ)))
print("\\n".join(found))
"""
    result = await run(sandbox, code)
    assert result.ok
    assert SECRET_VALUE not in result.stdout and "DATAAGENT" not in result.stdout


async def test_environment_is_minimal(sandbox: LocalSandbox) -> None:
    result = await run(sandbox, "import os, json\nprint(json.dumps(sorted(os.environ)))")
    names = set(report(result))
    assert names <= {
        "PATH", "HOME", "TMPDIR", "LANG", "MPLBACKEND", "MPLCONFIGDIR",
        "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "PYTHONDONTWRITEBYTECODE",
        "PWD", "KMP_INIT_AT_FORK", "KMP_DUPLICATE_LIB_OK",  # set by bwrap --chdir, scikit-learn
    }  # fmt: skip


async def test_no_host_processes_visible(sandbox: LocalSandbox) -> None:
    code = """
import os, json
cmds = []
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            cmds.append(open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\\0", b" ").decode())
        except OSError:
            pass
print(json.dumps(cmds))
"""
    commands = report(await run(sandbox, code))
    assert len(commands) < 10
    assert not any("pytest" in command or "postgres" in command for command in commands)


# --- privileges and writes ------------------------------------------------------------------


async def test_runs_unprivileged(sandbox: LocalSandbox) -> None:
    code = """
import os, json
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
ids = [os.getuid(), os.geteuid()]
print(json.dumps(ids + [status["CapEff"].strip(), status["NoNewPrivs"].strip()]))
"""
    uid, euid, caps, no_new_privs = report(await run(sandbox, code))
    assert uid != 0 and euid != 0 and int(caps, 16) == 0 and no_new_privs == "1"


async def test_cannot_write_outside_tmp(sandbox: LocalSandbox) -> None:
    code = """
import json
written = []
for path in ["/usr/x", "/x", "/opt/x", "/opt/site-packages/0/x", "/proc/x", "/dev/x"]:
    try:
        open(path, "w").write("x")
        written.append(path)
    except OSError:
        pass
print(json.dumps(written))
"""
    assert report(await run(sandbox, code)) == []


async def test_cannot_modify_installed_packages(sandbox: LocalSandbox) -> None:
    code = """
import json, pandas, os
try:
    with open(pandas.__file__, "a") as handle:
        handle.write("# pwned")
    print(json.dumps("modified"))
except OSError as exc:
    print(json.dumps(exc.errno))
"""
    assert report(await run(sandbox, code)) != "modified"


async def test_subprocess_allowed_but_contained(sandbox: LocalSandbox) -> None:
    code = """
import subprocess, os, json
who = subprocess.run(["id", "-u"], capture_output=True, text=True).stdout.strip()
status = os.system("cat /etc/shadow > /dev/null 2>&1")
listing = subprocess.run(["ls", "/"], capture_output=True, text=True).stdout.split()
print(json.dumps([who, status, sorted(listing)]))
"""
    who, status, listing = report(await run(sandbox, code))
    assert who != "0" and status != 0
    assert set(listing) <= {"bin", "dev", "lib", "lib32", "lib64", "libx32", "opt", "proc",
                            "root", "sbin", "tmp", "usr"}  # fmt: skip


# --- the system-call filter ------------------------------------------------------------------


async def test_no_nested_user_namespace(sandbox: LocalSandbox) -> None:
    # A user namespace of its own would give the code every capability inside it.
    code = """
import ctypes, errno, json, os, signal
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET = 0x10000000, 0x00020000, 0x40000000
SYS_CLONE, SYS_CLONE3, SYS_SETNS = 56, 435, 308

def call(result):
    return "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]

outcome = {
    "user": call(libc.unshare(CLONE_NEWUSER)),
    "user+mount": call(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS)),
    "net": call(libc.unshare(CLONE_NEWNET)),
    "setns": call(libc.syscall(SYS_SETNS, 0, 0)),
    "mount": call(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)),
}
pid = libc.syscall(SYS_CLONE, CLONE_NEWUSER | signal.SIGCHLD, 0, 0, 0, 0)
if pid == 0:
    os._exit(0)
outcome["clone"] = call(pid)
outcome["clone3"] = call(libc.syscall(SYS_CLONE3, None, 0))
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
outcome["seccomp"] = status["Seccomp"].strip()
print(json.dumps(outcome))
"""
    outcome = report(await run(sandbox, code))
    assert outcome == {
        "user": "EPERM",
        "user+mount": "EPERM",
        "net": "EPERM",
        "setns": "EPERM",
        "mount": "EPERM",
        "clone": "EPERM",
        "clone3": "ENOSYS",  # so the C library falls back to clone, whose flags are checked
        "seccomp": "2",  # a filter is installed
    }


async def test_kernel_interfaces_are_refused(sandbox: LocalSandbox) -> None:
    code = """
import ctypes, errno, json
libc = ctypes.CDLL(None, use_errno=True)
calls = {"ptrace": (101, 16, 1, 0, 0), "keyctl": (250, 0, 0, 0, 0), "bpf": (321, 0, 0, 0),
         "perf_event_open": (298, 0, 0, -1, -1, 0), "userfaultfd": (323, 0),
         "io_uring_setup": (425, 1, 0), "init_module": (175, 0, 0, 0),
         "open_by_handle_at": (304, 0, 0, 0), "kexec_load": (246, 0, 0, 0, 0)}
outcome = {}
for name, (number, *args) in calls.items():
    result = libc.syscall(number, *args)
    outcome[name] = "ok" if result >= 0 else errno.errorcode[ctypes.get_errno()]
print(json.dumps(outcome))
"""
    outcome = report(await run(sandbox, code))
    assert outcome == dict.fromkeys(outcome, "EPERM") and len(outcome) == 9


async def test_the_analysis_stack_works_under_the_filter(sandbox: LocalSandbox) -> None:
    code = """
import json, os, subprocess, threading
import multiprocessing
import numpy as np
import matplotlib.pyplot as plt
from sklearn.linear_model import LinearRegression

outcome = {}
pid = os.fork()
if pid == 0:
    os._exit(7)
outcome["fork"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
thread = threading.Thread(target=lambda: outcome.setdefault("thread", True))
thread.start()
thread.join()
outcome["subprocess"] = subprocess.run(["/usr/bin/sort"], input="b\\na\\n", capture_output=True,
                                       text=True).stdout
with multiprocessing.Pool(2) as pool:
    outcome["pool"] = pool.map(abs, [-1, -2])
model = LinearRegression().fit(np.arange(6).reshape(-1, 1), np.arange(6) * 3.0)
outcome["slope"] = round(float(model.coef_[0]), 6)
plt.plot([1, 2, 3])
print(json.dumps(outcome))
"""
    result = await run(sandbox, code, timeout_s=20)
    assert report(result) == {
        "fork": 7,
        "thread": True,
        "subprocess": "a\nb\n",
        "pool": [1, 2],
        "slope": 3.0,
    }
    assert [chart.filename for chart in result.charts] == ["figure_1.png"]


# --- resources --------------------------------------------------------------------------------


async def test_fork_bomb_is_capped_and_cleaned_up(sandbox: LocalSandbox) -> None:
    code = """
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
"""
    result = await run(sandbox, code, timeout_s=3)
    assert result.error is not None
    assert result.error.code in (ErrorCode.RUNNER_TIMEOUT, ErrorCode.RUNNER_RESOURCE_EXCEEDED)


async def test_fork_count_hits_the_process_cap(sandbox: LocalSandbox) -> None:
    code = """
import os, json, time
children = 0
try:
    for _ in range(1000):
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        children += 1
except OSError:
    pass
print(json.dumps(children))
"""
    children = report(await run(sandbox, code))
    assert children < sandbox.limits.nproc


async def test_memory_bomb(sandbox: LocalSandbox) -> None:
    result = await run(sandbox, "blob = bytearray(2 * 1024 ** 3)")
    assert result.error is not None and result.error.code == ErrorCode.RUNNER_RESOURCE_EXCEEDED
    assert "MemoryError" in result.stderr


async def test_growing_memory(sandbox: LocalSandbox) -> None:
    result = await run(sandbox, "chunks = []\nwhile True:\n    chunks.append(bytearray(10**7))")
    assert result.error is not None and result.error.code == ErrorCode.RUNNER_RESOURCE_EXCEEDED


async def test_cpu_spin_times_out(sandbox: LocalSandbox) -> None:
    result = await run(sandbox, "while True:\n    pass", timeout_s=2)
    assert result.error is not None and result.error.code == ErrorCode.RUNNER_TIMEOUT


async def test_disk_fill_is_capped(sandbox: LocalSandbox) -> None:
    code = """
import json
written = 0
try:
    for index in range(1000):
        with open(f"/tmp/fill_{index}.bin", "wb") as handle:
            for _ in range(100):
                handle.write(b"x" * 1024 * 1024)
                written += 1
except OSError as exc:
    print(json.dumps([written, exc.errno]))
"""
    written_mb, errno = report(await run(sandbox, code))
    assert written_mb <= sandbox.limits.tmp_mb and errno in (27, 28)  # EFBIG, ENOSPC


async def test_stdout_flood_is_truncated(sandbox: LocalSandbox) -> None:
    result = await run(sandbox, "for _ in range(200000):\n    print('x' * 100)")
    assert result.ok
    assert len(result.stdout) < sandbox.limits.output_max_bytes + 200
    assert "output truncated" in result.stdout


async def test_very_long_single_line(sandbox: LocalSandbox) -> None:
    code = "import sys\nsys.stdout.write('y' * 20_000_000)\nsys.stderr.write('z' * 5_000_000)"
    result = await run(sandbox, code)
    assert len(result.stdout) < sandbox.limits.output_max_bytes + 200
    assert len(result.stderr) < sandbox.limits.output_max_bytes + 200
    assert "output truncated" in result.stdout and "output truncated" in result.stderr


async def test_signals_to_parent_and_everyone(sandbox: LocalSandbox) -> None:
    code = """
import os, signal
for target in (os.getppid(), 1, -1):
    try:
        os.kill(target, signal.SIGKILL)
    except OSError:
        pass
print("still here")
"""
    result = await run(sandbox, code)
    assert result.error is None or result.error.code != ErrorCode.RUNNER_INTERNAL_ERROR


async def test_symlink_and_fifo_outputs_are_not_followed(sandbox: LocalSandbox) -> None:
    code = """
import os
os.symlink("/proc/self/environ", "leak.png")
os.symlink("/opt/dataagent/zygote.py", "source.txt")
os.mkfifo("pipe.png")
open("real.png", "wb").write(b"\\x89PNG")
"""
    result = await run(sandbox, code)
    assert [item.filename for item in result.files] == ["real.png"]


async def test_output_file_caps_and_names(sandbox: LocalSandbox) -> None:
    code = """
for index in range(30):
    open(f"chart {index:02d};$(rm -rf).png", "wb").write(b"\\x89PNG")
open("huge.csv", "wb").write(b"x" * 11_000_000)
"""
    result = await run(sandbox, code)
    assert len(result.files) == sandbox.limits.files_max_count
    assert all(
        set(item.filename) <= set("abcdefghijklmnopqrstuvwxyz0123456789._-")
        for item in result.files
    )
    assert "huge.csv" not in [item.filename for item in result.files]


async def test_no_leftover_state_between_runs(sandbox: LocalSandbox) -> None:
    first = """
import os, subprocess
open("/tmp/marker", "w").write("run 1")
open("/dev/shm/marker", "w").write("run 1")
os.environ["LEFTOVER"] = "1"
subprocess.Popen(["sleep", "977"], start_new_session=True)
"""
    assert (await run(sandbox, first)).ok
    second = """
import os, json
cmds = [open(f"/proc/{p}/cmdline", "rb").read() for p in os.listdir("/proc") if p.isdigit()]
print(json.dumps([os.listdir("/tmp"), os.listdir("/dev/shm"), "LEFTOVER" in os.environ,
                  any(b"977" in c for c in cmds)]))
"""
    assert report(await run(sandbox, second)) == [[], [], False, False]


async def test_daemon_does_not_outlive_the_run(sandbox: LocalSandbox) -> None:
    code = """
import os, subprocess
if os.fork() == 0:
    os.setsid()
    subprocess.Popen(["sleep", "983"])
    os._exit(0)
"""
    assert (await run(sandbox, code)).ok
    assert _host_processes_with(b"983") == []


def _host_processes_with(marker: bytes) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if marker in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.append(pid)
            except OSError:
                pass
    return found


async def test_cannot_import_host_project(sandbox: LocalSandbox) -> None:
    result = await run(sandbox, "import dataagent")
    assert result.return_code == 1 and "ModuleNotFoundError" in result.stderr
