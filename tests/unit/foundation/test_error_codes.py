"""The error taxonomy and its documented table agree: every code, with its status."""

from __future__ import annotations

import re
from pathlib import Path

from dataagent.errors import HTTP_STATUS, ErrorCode

DOCS = Path(__file__).resolve().parents[3] / "docs" / "api.md"


def _documented() -> dict[str, str]:
    rows = re.findall(r"^\| `([A-Z_]+)` \| ([^|]+) \|", DOCS.read_text(), flags=re.MULTILINE)
    return {code: status.strip() for code, status in rows}


def test_every_error_code_is_in_the_documented_table() -> None:
    documented = _documented()
    assert set(ErrorCode) - set(documented) == set(), "undocumented error codes"
    assert set(documented) - set(ErrorCode) == set(), "documented codes that do not exist"


def test_the_table_states_each_response_status() -> None:
    documented = _documented()
    for code in ErrorCode:
        if documented[code] != "—":  # run outcomes, never a response status
            assert documented[code] == str(HTTP_STATUS[code]), code


def test_405_has_its_own_code() -> None:
    assert HTTP_STATUS[ErrorCode.METHOD_NOT_ALLOWED] == 405
