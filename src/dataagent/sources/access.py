"""What one opening of a user database may reach: files and accounts, checked at every open.

The caller decides the policy (from the settings and from what the user owns); the opener
applies it each time it opens a database, never only when a connection is created, so a file
swapped for a symlink after creation, or an account granted superuser later, is refused then.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from dataagent.errors import DataAgentError, ErrorCode

ACCOUNT_RECIPE = "docs/sql-safety.md, section “Recommended database accounts”"
OPEN_FAILED_MESSAGE = (
    "Could not open the database file: it may not exist, not be readable, or not be a "
    "database of this kind."
)


@dataclass(frozen=True)
class AccessPolicy:
    """Which database files and accounts a session may use.

    `file_roots=None` means any file (trusted local use: the command line, benchmarks,
    tests); the server always passes the admin's roots (`DATAAGENT_FILE_ROOTS`). Files under
    `private_roots` (the data directory) are refused even inside a root, except the exact
    `own_files` a caller vouches for (a user's own upload, through its dataset connection).
    `database_role` is checked at every open too: it exists, the account may assume it, and
    it is neither a superuser nor otherwise privileged.
    """

    file_roots: tuple[Path, ...] | None = None
    private_roots: tuple[Path, ...] = ()
    own_files: tuple[Path, ...] = ()
    allow_privileged: bool = False
    # PostgreSQL only: the role each transaction runs under (`SET LOCAL ROLE`), so the
    # database's grants and row-level security decide what it sees (a grantee's share).
    database_role: str | None = None

    @classmethod
    def server(
        cls,
        *,
        file_roots: Iterable[Path],
        private_roots: Iterable[Path],
        own_files: Iterable[Path] = (),
        allow_privileged: bool = False,
    ) -> AccessPolicy:
        """The policy of a multi-user server: admin roots only, its own files private."""
        return cls(
            file_roots=tuple(real_path(p) for p in file_roots),
            private_roots=tuple(real_path(p) for p in private_roots),
            own_files=tuple(real_path(p) for p in own_files),
            allow_privileged=allow_privileged,
        )

    def check_file(self, database: str) -> Path:
        """The real path of a database file this policy allows; FORBIDDEN otherwise.

        The answer depends only on where the path leads, never on whether a file is there,
        so a refusal does not tell anyone which server paths exist.
        """
        path = real_path(Path(database))
        if path in self.own_files:
            return path
        if any(_inside(path, root) for root in self.private_roots):
            raise DataAgentError(
                ErrorCode.FORBIDDEN,
                "That file belongs to Data Agent itself (its data directory); uploaded files "
                "are reached through their dataset's own connection.",
            )
        if self.file_roots is not None and not any(_inside(path, r) for r in self.file_roots):
            where = (
                "no folders are allowed (DATAAGENT_FILE_ROOTS is empty), so only uploaded "
                "files can be queried"
                if not self.file_roots
                else "it is outside the folders an admin allows (DATAAGENT_FILE_ROOTS)"
            )
            raise DataAgentError(
                ErrorCode.FORBIDDEN, f"SQLite and DuckDB files cannot be opened here: {where}."
            )
        return path

    def confirm_opened(self, path: Path) -> None:
        """After opening `path`: refuse when it no longer leads to itself (swapped meanwhile)."""
        if real_path(path) != path:
            raise DataAgentError(ErrorCode.CONNECTION_FAILED, OPEN_FAILED_MESSAGE)


def real_path(path: Path) -> Path:
    """The absolute path with every symlink and `..` resolved (the file need not exist)."""
    text = str(path)
    if "\x00" in text:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, "A file path cannot contain NUL.")
    return Path(os.path.realpath(os.path.expanduser(text)))


def privileged_account_error(what: str) -> DataAgentError:
    """FORBIDDEN for an account whose privileges reach past a read-only session."""
    return DataAgentError(
        ErrorCode.FORBIDDEN,
        f"The database account {what}, so a read-only session cannot contain it. Connect "
        f"with an account that can only read (see {ACCOUNT_RECIPE}); an admin can allow "
        "such accounts with DATAAGENT_ALLOW_PRIVILEGED_ACCOUNTS.",
    )


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
