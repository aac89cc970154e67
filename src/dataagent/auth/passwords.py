"""Password hashing with argon2id."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()

MIN_PASSWORD_LENGTH = 8

# Verifying against this keeps the time of a login for an unknown email the same.
_DUMMY_HASH = _hasher.hash("not-a-real-password")


def hash_password(password: str) -> str:
    """An argon2id hash of the password."""
    return _hasher.hash(password)


def verify_password(password: str, password_hash: str | None) -> bool:
    """True when the password matches; always spends the same effort."""
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False
