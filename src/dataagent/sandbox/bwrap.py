"""The bubblewrap command line: what the sandbox sees and how its zygote is started.

The sandbox sees, read-only: /usr (and the /bin, /lib* links or directories), the
base Python install (at its own path: libpython is found through an absolute
RUNPATH) and the environment's site-packages under /opt/site-packages/N, plus the
three standalone files `zygote.py`, `runner.py` and `syscall_filter.py` under
/opt/dataagent. Nothing
else: not /etc, not /root, not the project checkout (the editable install's .pth
is never processed: Python runs with -I -S), not the data directory. It gets a
fresh /proc for its own PID namespace, a minimal /dev and a private tmpfs /tmp.

When the host runs as root, bubblewrap runs without a user namespace (it would
map the sandbox user onto host root, where RLIMIT_NPROC is not enforced) and
`setpriv` switches to the unprivileged uid 65534 with every capability dropped
before Python starts. Otherwise bubblewrap maps uid 65534 onto the calling user.
"""

from __future__ import annotations

import os
import shutil
import site
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

SANDBOX_UID = 65534
RUNNER_DIR = "/opt/dataagent"
SITE_DIR = "/opt/site-packages"
ZYGOTE_TMP_BYTES = 64 * 1024 * 1024


def find_bwrap() -> str | None:
    """The bubblewrap executable, or None when it is not installed."""
    return shutil.which("bwrap")


def runner_files() -> tuple[Path, ...]:
    """The standalone files the sandbox runs: zygote.py (first), runner.py, syscall_filter.py."""
    here = Path(__file__).resolve().parent
    return here / "zygote.py", here / "runner.py", here / "syscall_filter.py"


@dataclass(frozen=True)
class PythonLayout:
    """Where the interpreter, its standard library and the installed packages live."""

    executable: str
    base_prefix: str
    site_packages: tuple[str, ...]

    @classmethod
    def current(cls) -> PythonLayout:
        """The layout of the Python running this process (a venv's packages included)."""
        base_prefix = os.path.realpath(sys.base_prefix)
        executable = os.path.realpath(sys.executable)
        if not executable.startswith(base_prefix + os.sep):
            version = f"python{sys.version_info.major}.{sys.version_info.minor}"
            executable = os.path.join(base_prefix, "bin", version)
        candidates = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
        packages: list[str] = []
        for path in candidates:
            real = os.path.realpath(path)
            if os.path.isdir(real) and real not in packages:
                packages.append(real)
        return cls(executable, base_prefix, tuple(packages))


def sandbox_env() -> dict[str, str]:
    """The whole environment inside the sandbox: nothing from the host."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": "/tmp/.matplotlib",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    return args


def _parent_dirs(destinations: list[str]) -> list[str]:
    """Directories bubblewrap would create with mode 0700 for these mount points."""
    parents: list[str] = []
    for destination in destinations:
        for parent in reversed(Path(destination).parents):
            path = str(parent)
            if path != "/" and not path.startswith("/usr") and path not in parents:
                parents.append(path)
    return [path for path in parents if path not in destinations]


def runner_sources() -> list[tuple[bytes, str]]:
    """(content, path in the sandbox) of the standalone files the sandbox runs."""
    return [(path.read_bytes(), f"{RUNNER_DIR}/{path.name}") for path in runner_files()]


def zygote_options(tmp_mb: int, shm_mb: int) -> list[str]:
    """The zygote's own command-line options (sizes of each run's /tmp and /dev/shm)."""
    return ["--tmp-mb", str(tmp_mb), "--shm-mb", str(shm_mb)]


def bwrap_command(
    bwrap: str, layout: PythonLayout, runner_fds: list[int], options: list[str]
) -> list[str]:
    """The full bubblewrap command that starts one warm zygote.

    `runner_fds` are readable fds holding the files of `runner_files()` (in that order),
    copied into the sandbox read-only, so the sandbox never needs to see the source tree.
    """
    as_root = os.geteuid() == 0 and os.path.exists("/usr/bin/setpriv")
    args = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    args += ["--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname", "sandbox"]
    if as_root:
        # setpriv needs these to switch users; it drops them (and all others) before exec.
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    else:
        args += ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
    args += _system_binds()
    binds: list[tuple[str, str]] = []
    if not layout.base_prefix.startswith("/usr/"):
        binds.append((layout.base_prefix, layout.base_prefix))
    site_dirs = [f"{SITE_DIR}/{index}" for index in range(len(layout.site_packages))]
    binds += list(zip(layout.site_packages, site_dirs, strict=True))
    runner_paths = [destination for _, destination in runner_sources()]
    for directory in _parent_dirs([dest for _, dest in binds] + runner_paths):
        args += ["--perms", "0755", "--dir", directory]
    for source, destination in binds:
        args += ["--ro-bind", source, destination]
    for fd, destination in zip(runner_fds, runner_paths, strict=True):
        args += ["--perms", "0444", "--ro-bind-data", str(fd), destination]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--perms", "1777", "--size", str(ZYGOTE_TMP_BYTES), "--tmpfs", "/dev/shm"]
    args += ["--perms", "1777", "--size", str(ZYGOTE_TMP_BYTES), "--tmpfs", "/tmp"]
    args += ["--chdir", "/tmp", "--clearenv"]
    for key, value in sandbox_env().items():
        args += ["--setenv", key, value]
    python = [layout.executable, "-I", "-S", runner_paths[0], "--isolate", *options]
    python += ["--path", *site_dirs]
    if as_root:
        uid = str(SANDBOX_UID)
        drop = ["--reuid", uid, "--regid", uid, "--clear-groups", "--inh-caps=-all"]
        python = ["/usr/bin/setpriv", *drop, "--bounding-set=-all", *python]
    return args + python


def unsafe_command(
    layout: PythonLayout, scratch: str, options: list[str]
) -> tuple[list[str], dict[str, str]]:
    """The zygote started directly on the host (no isolation) and its environment."""
    zygote = runner_files()[0]
    env = sandbox_env() | {"HOME": scratch, "TMPDIR": scratch, "MPLCONFIGDIR": f"{scratch}/.mpl"}
    command = [layout.executable, "-I", "-S", str(zygote), *options]
    command += ["--path", *layout.site_packages]
    return command, env
