"""Sign in and out: a bearer token for API clients and an HttpOnly cookie for the web page."""

from __future__ import annotations

import asyncio
from datetime import datetime

from fastapi import APIRouter, Request, Response
from pydantic import Field

from dataagent.api.routes.users import UserPublic, user_public
from dataagent.api.schemas import ERROR_RESPONSES, ApiInput, ApiModel, Envelope, ErrorBody
from dataagent.auth.dependencies import (
    CurrentUser,
    LoginLimiterDep,
    SessionDep,
    SettingsDep,
    SignedInUser,
)
from dataagent.auth.passwords import verify_password
from dataagent.auth.tokens import COOKIE_NAME, issue_token
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.store import users

router = APIRouter(prefix="/api/auth", tags=["auth"], responses=ERROR_RESPONSES)


class LoginInput(ApiInput):
    """Credentials."""

    email: str = Field(min_length=3, max_length=320)
    password: str = Field(min_length=1, max_length=1024)


class LoginResult(ApiModel):
    """A token and the signed-in user."""

    access_token: str
    token_type: str = "bearer"
    expires_at: datetime
    user: UserPublic


@router.post(
    "/login",
    operation_id="login",
    responses={429: {"model": ErrorBody, "description": "Too many sign-in attempts"}},
)
async def login(
    body: LoginInput,
    request: Request,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    limiter: LoginLimiterDep,
) -> Envelope[LoginResult]:
    """Exchange email and password for a token (also set as an HttpOnly cookie)."""
    limiter.begin(body.email, request.client.host if request.client else "unknown")
    user = await users.get_by_email(session, body.email)
    # argon2 is deliberately slow CPU work: off the event loop, other requests keep moving.
    valid = await asyncio.to_thread(
        verify_password, body.password, user.password_hash if user else None
    )
    if user is None or not valid or not user.is_active:
        raise DataAgentError(ErrorCode.UNAUTHORIZED, "The email or password is not right.")
    limiter.succeeded(body.email)
    token, expires = issue_token(
        user.id, user.token_version, request.app.state.secret_key, settings.token_ttl_minutes
    )
    response.set_cookie(
        COOKIE_NAME,
        token,
        max_age=settings.token_ttl_minutes * 60,
        httponly=True,
        samesite="lax",
        secure=settings.cookie_secure,
        path="/",
    )
    return Envelope(
        data=LoginResult(access_token=token, expires_at=expires, user=user_public(user))
    )


@router.post("/logout", status_code=204, operation_id="logout")
async def logout(response: Response, session: SessionDep, user: SignedInUser) -> Response:
    """Clear the session cookie; with a valid token, also sign that user out everywhere."""
    if user is not None:
        await users.sign_out_everywhere(session, user.id, actor_id=user.id)
    response.delete_cookie(COOKIE_NAME, path="/")
    response.status_code = 204
    return response


@router.get("/me", operation_id="me")
async def me(user: CurrentUser) -> Envelope[UserPublic]:
    """The signed-in user and their permissions."""
    return Envelope(data=user_public(user))
