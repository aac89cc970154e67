"""Schemathesis hooks for scripts/schemathesis_run.py: sign every request in as the admin.

Loaded by `st` (SCHEMATHESIS_HOOKS), in schemathesis's own Python: only the standard library
and schemathesis. A static `-H "Authorization: Bearer ..."` would not last the run: the
fuzzer signs the admin out (`POST /api/auth/logout`, `POST /api/users/{id}/sign-out`) and
may give them a new password. A 401 makes schemathesis fetch a new token; when the password
no longer works, another admin is made with the command line and signed in.
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


def _sign_in(email: str) -> str | None:
    request = urllib.request.Request(
        f"{URL}/api/auth/login",
        data=json.dumps({"email": email, "password": PASSWORD}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            token: str = json.load(response)["data"]["accessToken"]
            return token
    except urllib.error.HTTPError as exc:
        if exc.code == 401:
            return None
        raise


@schemathesis.auth(refresh_interval=600)
class AdminToken:
    """A bearer token of the admin the runner made (or of a new one, see the module)."""

    email = os.environ["DATAAGENT_ST_EMAIL"]

    def get(self, case: Any, context: Any) -> str:
        token = _sign_in(self.email)
        if token is None:
            self.email = f"st-admin-{uuid.uuid4().hex[:8]}@example.com"
            subprocess.run(
                [MINT_ADMIN, self.email], input=PASSWORD, text=True, check=True, timeout=120
            )
            token = _sign_in(self.email)
            assert token is not None, f"cannot sign in as the new admin {self.email}"
        return token

    def set(self, case: Any, data: str, context: Any) -> None:
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {data}"
