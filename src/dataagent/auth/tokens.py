"""Signed login tokens (JWT, HS256) that carry the user's token version."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import jwt

ALGORITHM = "HS256"
ISSUER = "dataagent"
COOKIE_NAME = "dataagent_session"
# The claim holding the user's token version when the token was issued.
VERSION_CLAIM = "ver"


@dataclass(frozen=True)
class TokenClaims:
    """What a valid token says: whose it is and the token version it was issued at."""

    user_id: uuid.UUID
    version: int


def issue_token(
    user_id: uuid.UUID, version: int, secret: str, ttl_minutes: int
) -> tuple[str, datetime]:
    """A token for the user at their current token version, and the moment it expires."""
    now = datetime.now(UTC)
    expires = now + timedelta(minutes=ttl_minutes)
    claims = {
        "sub": str(user_id),
        VERSION_CLAIM: version,
        "iat": now,
        "exp": expires,
        "iss": ISSUER,
    }
    return jwt.encode(claims, secret, algorithm=ALGORITHM), expires


def read_token(token: str, secret: str) -> TokenClaims | None:
    """The claims of a valid, unexpired token with a version; None for anything else."""
    try:
        claims = jwt.decode(
            token,
            secret,
            algorithms=[ALGORITHM],
            issuer=ISSUER,
            options={"require": ["exp", "sub", VERSION_CLAIM]},
        )
        version = claims[VERSION_CLAIM]
        # bool is an int in Python; only a real integer is a version.
        if type(version) is not int:
            return None
        return TokenClaims(uuid.UUID(str(claims["sub"])), version)
    except (jwt.PyJWTError, KeyError, ValueError):
        return None
