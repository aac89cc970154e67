"""The bubblewrap command line: what the sandbox sees and how its zygote is started.

The sandbox sees, read-only: /usr (and the /bin, /lib* links or directories), the
base Python install (at its own path: libpython is found through an absolute
RUNPATH) and the environment's site-packages under /opt/site-packages/N, plus the
two standalone files `zygote.py` and `runner.py` under /opt/dataagent. Nothing
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


def runner_files() -> tuple[Path, Path]:
    """The two standalone files the sandbox runs: zygote.py and runner.py."""
    here = Path(__file__).resolve().parent
    return here / "zygote.py", here / "runner.py"


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


def bwrap_command(bwrap: str, layout: PythonLayout) -> list[str]:
    """The full bubblewrap command that starts one warm zygote."""
    as_root = os.geteuid() == 0 and os.path.exists("/usr/bin/setpriv")
    args = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    args += ["--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname", "sandbox"]
    if as_root:
        # setpriv needs these to switch users; it drops them (and all others) before exec.
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    else:
        args += ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID)]
    args += _system_binds()
    if not layout.base_prefix.startswith("/usr/"):
        args += ["--ro-bind", layout.base_prefix, layout.base_prefix]
    site_dirs = []
    for index, path in enumerate(layout.site_packages):
        site_dirs.append(f"{SITE_DIR}/{index}")
        args += ["--ro-bind", path, site_dirs[-1]]
    zygote, runner = runner_files()
    args += ["--ro-bind", str(zygote), f"{RUNNER_DIR}/zygote.py"]
    args += ["--ro-bind", str(runner), f"{RUNNER_DIR}/runner.py"]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--perms", "1777", "--size", str(ZYGOTE_TMP_BYTES), "--tmpfs", "/tmp"]
    args += ["--chdir", "/tmp", "--clearenv"]
    for key, value in sandbox_env().items():
        args += ["--setenv", key, value]
    python = [layout.executable, "-I", "-S", f"{RUNNER_DIR}/zygote.py", "--path", *site_dirs]
    if as_root:
        uid = str(SANDBOX_UID)
        drop = ["--reuid", uid, "--regid", uid, "--clear-groups", "--inh-caps=-all"]
        python = ["/usr/bin/setpriv", *drop, "--bounding-set=-all", *python]
    return args + python


def unsafe_command(layout: PythonLayout, scratch: str) -> tuple[list[str], dict[str, str]]:
    """The zygote started directly on the host (no isolation) and its environment."""
    zygote, _ = runner_files()
    env = sandbox_env() | {"HOME": scratch, "TMPDIR": scratch, "MPLCONFIGDIR": f"{scratch}/.mpl"}
    command = [layout.executable, "-I", "-S", str(zygote), "--path", *layout.site_packages]
    return command, env
