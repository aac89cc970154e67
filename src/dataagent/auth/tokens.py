"""Signed login tokens (JWT, HS256)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import jwt

ALGORITHM = "HS256"
ISSUER = "dataagent"
COOKIE_NAME = "dataagent_session"


def issue_token(user_id: uuid.UUID, secret: str, ttl_minutes: int) -> tuple[str, datetime]:
    """A token for the user and the moment it expires."""
    now = datetime.now(UTC)
    expires = now + timedelta(minutes=ttl_minutes)
    claims = {"sub": str(user_id), "iat": now, "exp": expires, "iss": ISSUER}
    return jwt.encode(claims, secret, algorithm=ALGORITHM), expires


def read_token(token: str, secret: str) -> uuid.UUID | None:
    """The user id in a valid, unexpired token; None for anything else."""
    try:
        claims = jwt.decode(
            token, secret, algorithms=[ALGORITHM], issuer=ISSUER, options={"require": ["exp"]}
        )
        return uuid.UUID(str(claims["sub"]))
    except (jwt.PyJWTError, KeyError, ValueError):
        return None
