"""Users and signing in."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from dataagent.api.schemas import ApiInput, ApiModel, JsonBool
from dataagent.auth.permissions import permissions_for
from dataagent.services.users import EMAIL_PATTERN
from dataagent.store.models import User
from dataagent.vocabulary import Role


class UserPublic(ApiModel):
    """A user as the API shows it (never the password hash)."""

    id: uuid.UUID
    email: str
    role: Role
    is_active: bool
    permissions: list[str]
    # The ontology their stateless chat asks about when a request names none.
    default_ontology_id: uuid.UUID | None
    created_at: datetime


def user_public(user: User) -> UserPublic:
    """The public view of a user, with the permissions their role grants."""
    return UserPublic(
        id=user.id,
        email=user.email,
        role=user.role,
        is_active=user.is_active,
        permissions=sorted(p.value for p in permissions_for(user.role)),
        default_ontology_id=user.default_ontology_id,
        created_at=user.created_at,
    )


class DefaultOntologyUpdate(ApiInput):
    """The ontology the caller's stateless chat asks about when a request names none; null
    clears it (then their only ready ontology is used, if they have exactly one)."""

    ontology_id: uuid.UUID | None


class UserCreate(ApiInput):
    """A new user."""

    email: str = Field(min_length=3, max_length=320, pattern=EMAIL_PATTERN)
    password: str = Field(min_length=8, max_length=1024)
    role: Role = "viewer"


class UserUpdate(ApiInput):
    """Changes to a user; omitted fields stay as they are."""

    role: Role | None = None
    is_active: JsonBool | None = None
    password: str | None = Field(None, min_length=8, max_length=1024)


class LoginInput(ApiInput):
    """Credentials."""

    email: str = Field(min_length=3, max_length=320)
    password: str = Field(min_length=1, max_length=1024)


class SessionPublic(ApiModel):
    """Who is signed in on this request: a user, or null for nobody (never a 401)."""

    user: UserPublic | None


class LoginResult(ApiModel):
    """A token and the signed-in user."""

    access_token: str
    token_type: str = "bearer"
    expires_at: datetime
    user: UserPublic
