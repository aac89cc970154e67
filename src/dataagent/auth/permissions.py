"""Roles and the permissions they grant (seed 000's matrix, extended to the data layer)."""

from __future__ import annotations

from enum import StrEnum

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.vocabulary import Role


class Permission(StrEnum):
    """Every permission a route can require."""

    DATA_AGENT_READ = "data_agent:read"
    DATA_AGENT_WRITE = "data_agent:write"
    DATA_AGENT_DELETE = "data_agent:delete"
    ONTOLOGIES_READ = "ontologies:read"
    ONTOLOGIES_WRITE = "ontologies:write"
    CONNECTIONS_READ = "connections:read"
    CONNECTIONS_WRITE = "connections:write"
    SEMANTIC_MODELS_READ = "semantic_models:read"
    SEMANTIC_MODELS_WRITE = "semantic_models:write"
    USERS_MANAGE = "users:manage"


_READ = frozenset(
    {
        Permission.DATA_AGENT_READ,
        Permission.ONTOLOGIES_READ,
        Permission.CONNECTIONS_READ,
        Permission.SEMANTIC_MODELS_READ,
    }
)
_CONTRIBUTE = _READ | {
    Permission.DATA_AGENT_WRITE,
    Permission.DATA_AGENT_DELETE,
    Permission.ONTOLOGIES_WRITE,
    Permission.CONNECTIONS_WRITE,
    Permission.SEMANTIC_MODELS_WRITE,
}

ROLE_PERMISSIONS: dict[Role, frozenset[Permission]] = {
    "admin": frozenset(Permission),
    "contributor": frozenset(_CONTRIBUTE),
    "viewer": _READ,
}


def permissions_for(role: str) -> frozenset[Permission]:
    """The permissions of a role; an unknown role has none."""
    return ROLE_PERMISSIONS.get(role, frozenset())  # type: ignore[call-overload]


def has_permission(role: str, permission: Permission) -> bool:
    """True when the role grants the permission."""
    return permission in permissions_for(role)


def require_permission(role: str, permission: Permission) -> None:
    """FORBIDDEN, naming the role and the permission, unless the role grants it."""
    if not has_permission(role, permission):
        raise DataAgentError(
            ErrorCode.FORBIDDEN, f"Your role ({role}) lacks the {permission} permission."
        )
