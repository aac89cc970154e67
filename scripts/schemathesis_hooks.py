"""Schemathesis hooks for scripts/schemathesis_run.py: sign every request in as the admin.

Loaded by `st` (SCHEMATHESIS_HOOKS), in schemathesis's own Python: only the standard library
and schemathesis. A static `-H "Authorization: Bearer ..."` would not last the run: the
fuzzer signs the admin out (`POST /api/auth/logout`, `POST /api/users/{id}/sign-out`), and
once it has made another admin it may demote, deactivate or re-password this one. A 401 or
403 makes schemathesis fetch a new token; when this account can no longer sign in as an
active admin, another admin is made with the command line and signed in.
"""

from __future__ import annotations

import json
import os
import subprocess
import urllib.error
import urllib.request
import uuid
from typing import Any

import schemathesis

URL = os.environ["DATAAGENT_ST_URL"]
PASSWORD = os.environ["DATAAGENT_ST_PASSWORD"]
MINT_ADMIN = os.environ["DATAAGENT_ST_MINT_ADMIN"]


def _call(request: urllib.request.Request) -> Any:
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)["data"]


def _admin_token(email: str) -> str | None:
    """A token of `email` when it signs in as an active admin, else None."""
    request = urllib.request.Request(
        f"{URL}/api/auth/login",
        data=json.dumps({"email": email, "password": PASSWORD}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        token: str = _call(request)["accessToken"]
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 429):  # a new password, deactivated; too many failures
            return None
        raise
    me = urllib.request.Request(f"{URL}/api/auth/me", headers={"Authorization": f"Bearer {token}"})
    user = _call(me)
    return token if user["role"] == "admin" and user["isActive"] else None


@schemathesis.auth(refresh_interval=600, retry_on=[401, 403])
class AdminToken:
    """A bearer token of the admin the runner made (or of a new one, see the module)."""

    email = os.environ["DATAAGENT_ST_EMAIL"]

    def get(self, case: Any, context: Any) -> str:
        token = _admin_token(self.email)
        if token is None:
            self.email = f"st-admin-{uuid.uuid4().hex[:8]}@example.com"
            subprocess.run(
                [MINT_ADMIN, self.email], input=PASSWORD, text=True, check=True, timeout=120
            )
            token = _admin_token(self.email)
            assert token is not None, f"cannot sign in as the new admin {self.email}"
        return token

    def set(self, case: Any, data: str, context: Any) -> None:
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {data}"
