"""The role -> permission matrix (seed 000, extended to the data layer)."""

from __future__ import annotations

import pytest

from dataagent.auth.permissions import Permission, has_permission, permissions_for


@pytest.mark.parametrize(
    ("role", "permission", "granted"),
    [
        ("admin", "data_agent:read", True),
        ("admin", "data_agent:write", True),
        ("admin", "data_agent:delete", True),
        ("contributor", "data_agent:read", True),
        ("contributor", "data_agent:write", True),
        ("contributor", "data_agent:delete", True),
        ("viewer", "data_agent:read", True),
        ("viewer", "data_agent:write", False),
        ("viewer", "data_agent:delete", False),
        ("admin", "users:manage", True),
        ("contributor", "users:manage", False),
        ("viewer", "users:manage", False),
        ("viewer", "connections:read", True),
        ("viewer", "connections:write", False),
        ("contributor", "connections:write", True),
        ("viewer", "semantic_models:write", False),
        ("contributor", "semantic_models:write", True),
        ("viewer", "ontologies:read", True),
    ],
)
def test_matrix(role: str, permission: str, granted: bool) -> None:
    assert has_permission(role, Permission(permission)) is granted


def test_unknown_role_has_nothing() -> None:
    assert permissions_for("root") == frozenset()
