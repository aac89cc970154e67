"""Sign in and out: a bearer token for API clients and an HttpOnly cookie for the web page."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from dataagent.api.deps import ContextDep, CurrentUser, RunsDep, SessionDep, SignedInUser
from dataagent.api.schemas import ERROR_RESPONSES, Envelope, ErrorBody
from dataagent.api.schemas.users import (
    DefaultOntologyUpdate,
    LoginInput,
    LoginResult,
    SessionPublic,
    UserPublic,
    user_public,
)
from dataagent.auth.tokens import COOKIE_NAME
from dataagent.runs import accounts
from dataagent.services import ontologies, users

router = APIRouter(prefix="/api/auth", tags=["auth"], responses=ERROR_RESPONSES)
# The signed-in person's own settings.
me_router = APIRouter(prefix="/api/me", tags=["auth"], responses=ERROR_RESPONSES)


@router.post(
    "/login",
    operation_id="login",
    responses={429: {"model": ErrorBody, "description": "Too many sign-in attempts"}},
)
async def login(
    body: LoginInput,
    request: Request,
    response: Response,
    context: ContextDep,
    session: SessionDep,
) -> Envelope[LoginResult]:
    """Exchange email and password for a token (also set as an HttpOnly cookie)."""
    address = request.client.host if request.client else "unknown"
    signed_in = await users.sign_in(context, session, body.email, body.password, address)
    settings = context.settings
    response.set_cookie(
        COOKIE_NAME,
        signed_in.token,
        max_age=settings.token_ttl_minutes * 60,
        httponly=True,
        samesite="lax",
        secure=settings.cookie_secure,
        path="/",
    )
    result = LoginResult(
        access_token=signed_in.token,
        expires_at=signed_in.expires_at,
        user=user_public(signed_in.user),
    )
    return Envelope(data=result)


@router.post("/logout", status_code=204, operation_id="logout")
async def logout(
    response: Response, session: SessionDep, system: RunsDep, user: SignedInUser
) -> Response:
    """Clear the session cookie; with a valid token, also sign that user out everywhere.
    Their stateless chats end (no token is left to read them); their answers go on."""
    if user is not None:
        await users.log_out(session, user)
        await accounts.account_changed(system, user.id)
    response.delete_cookie(COOKIE_NAME, path="/")
    response.status_code = 204
    return response


@router.get("/me", operation_id="me")
async def me(user: CurrentUser) -> Envelope[UserPublic]:
    """The signed-in user and their permissions."""
    return Envelope(data=user_public(user))


@router.get("/session", operation_id="session")
async def session_state(user: SignedInUser) -> Envelope[SessionPublic]:
    """Who is signed in, or `user: null`: the page asks this first, so a signed-out visit
    gets a 200 rather than a 401 (which a browser reports as an error in its console)."""
    return Envelope(data=SessionPublic(user=user_public(user) if user else None))


@me_router.put("/default-ontology", operation_id="setDefaultOntology")
async def set_default_ontology(
    user: CurrentUser, session: SessionDep, body: DefaultOntologyUpdate
) -> Envelope[UserPublic]:
    """Set the ontology the caller's stateless chat asks about when a request names none
    (null clears it); 404 for an ontology that is not theirs. The caller, as `GET
    /api/auth/me` shows them."""
    updated = await ontologies.set_default_ontology(session, user, body.ontology_id)
    return Envelope(data=user_public(updated))
