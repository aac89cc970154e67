"""Typed FastAPI dependencies for the app-wide objects routes need: cipher and query pool."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from dataagent.sources.credentials import CredentialCipher
from dataagent.sources.pool import QueryPool


def cipher_of(request: Request) -> CredentialCipher:
    """The credential cipher of this app (key derived from the secret key)."""
    cipher: CredentialCipher = request.app.state.cipher
    return cipher


def query_pool_of(request: Request) -> QueryPool:
    """The pool that runs work against users' databases, shared fairly between users."""
    pool: QueryPool = request.app.state.query_pool
    return pool


CipherDep = Annotated[CredentialCipher, Depends(cipher_of)]
QueryPoolDep = Annotated[QueryPool, Depends(query_pool_of)]
