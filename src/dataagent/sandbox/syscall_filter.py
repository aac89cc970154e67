"""The seccomp filter every sandboxed run executes under, built with the system's libseccomp.

Standalone like `zygote.py` and `runner.py` (bound next to them read-only; imports nothing
from `dataagent`). The zygote builds the filter once at start-up (so a missing library or
an unknown system call shows before any run), and each run's supervisor loads it after
it has built the run's namespaces and dropped its capabilities, just before it forks the
worker: the worker and everything the code starts inherit it, and a seccomp filter can
never be removed.

Everything is allowed except what lets code reach past its namespaces or attack the kernel
through interfaces analysis code never needs: creating or joining namespaces (the run is
already in its own; a nested user namespace would hand the code a full set of capabilities
over it), mounting, keyrings, BPF, perf events, userfaultfd, io_uring, tracing other
processes, loading kernels and modules, and opening files by handle. Those fail with EPERM.
`clone3` fails with ENOSYS instead: its flags sit in memory where a filter cannot read them,
and on ENOSYS the C library falls back to `clone`, whose flags are checked.
"""

from __future__ import annotations

import ctypes
import errno
from typing import Any

LIBRARY = "libseccomp.so.2"

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_ACT_ERRNO = 0x00050000  # | the errno, in the low 16 bits
SCMP_CMP_MASKED_EQ = 7  # (argument & datum_a) == datum_b

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
# clone()'s flags take CLONE_NEWTIME's bit (0x80) for the exit signal: unshare is denied whole.
CLONE_NAMESPACE_FLAGS = (
    CLONE_NEWNS,
    CLONE_NEWCGROUP,
    CLONE_NEWUTS,
    CLONE_NEWIPC,
    CLONE_NEWUSER,
    CLONE_NEWPID,
    CLONE_NEWNET,
)

# Denied outright with EPERM. The first group must exist on every architecture we run on:
# a filter without them is refused (the run fails closed). The rest are skipped where the
# architecture has no such call (kexec_file_load, for one, is missing on some).
REQUIRED_DENIALS = ("unshare", "setns", "mount", "umount2", "pivot_root", "ptrace")
OPTIONAL_DENIALS = (
    # the new mount API
    "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    "chroot",
    # kernel keyrings
    "keyctl", "add_key", "request_key",
    # kernel attack surface analysis code never needs
    "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # other processes' memory and descriptors (the same checks as ptrace)
    "process_vm_readv", "process_vm_writev", "pidfd_getfd",
    # the kernel itself
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "open_by_handle_at",
)  # fmt: skip


class _ArgCmp(ctypes.Structure):
    """libseccomp's `struct scmp_arg_cmp`."""

    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


def _errno_action(code: int) -> int:
    return SCMP_ACT_ERRNO | (code & 0xFFFF)


class SyscallFilter:
    """A built filter, ready to be loaded into the calling process (and so its children)."""

    def __init__(self, library: str = LIBRARY) -> None:
        lib = ctypes.CDLL(library, use_errno=True)
        lib.seccomp_init.argtypes = [ctypes.c_uint32]
        lib.seccomp_init.restype = ctypes.c_void_p
        lib.seccomp_rule_add_array.argtypes = [
            ctypes.c_void_p,
            ctypes.c_uint32,
            ctypes.c_int,
            ctypes.c_uint,
            ctypes.POINTER(_ArgCmp),
        ]
        lib.seccomp_rule_add_array.restype = ctypes.c_int
        lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
        lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
        lib.seccomp_load.argtypes = [ctypes.c_void_p]
        lib.seccomp_load.restype = ctypes.c_int
        self._lib: Any = lib
        self._ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
        if not self._ctx:
            raise OSError("seccomp_init failed")
        self.denied: list[str] = []
        deny = _errno_action(errno.EPERM)
        for name in REQUIRED_DENIALS + OPTIONAL_DENIALS:
            number = self._number(name, required=name in REQUIRED_DENIALS)
            if number is not None:
                self._add(deny, number, name)
        clone = self._number("clone", required=True)
        assert clone is not None
        for flag in CLONE_NAMESPACE_FLAGS:
            self._add(deny, clone, "clone", _ArgCmp(0, SCMP_CMP_MASKED_EQ, flag, flag))
        clone3 = self._number("clone3", required=False)
        if clone3 is not None:
            self._add(_errno_action(errno.ENOSYS), clone3, "clone3")

    def _number(self, name: str, *, required: bool) -> int | None:
        number = int(self._lib.seccomp_syscall_resolve_name(name.encode()))
        if number >= 0:
            return number
        if required:
            raise OSError(f"libseccomp does not know the system call {name}")
        return None

    def _add(self, action: int, number: int, name: str, condition: _ArgCmp | None = None) -> None:
        arguments = ctypes.byref(condition) if condition is not None else None
        result = self._lib.seccomp_rule_add_array(
            self._ctx, action, number, 0 if condition is None else 1, arguments
        )
        if result < 0:
            raise OSError(-result, f"seccomp rule for {name}: {errno.errorcode.get(-result)}")
        if name not in self.denied:
            self.denied.append(name)

    def load(self) -> None:
        """Install the filter in this process; it applies to every process forked after."""
        result = self._lib.seccomp_load(self._ctx)
        if result < 0:
            raise OSError(-result, f"seccomp_load: {errno.errorcode.get(-result)}")
