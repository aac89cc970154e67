"""Shares of an ontology: who may ask about it besides its owner (a user, or a group's
members), and under which database role. Managed by the ontology's owner or an admin, each
change audited in its own transaction.

A share grants asking, nothing else (docs/teams.md); `store.shares.reach` reads the shares
on every request, so a share made or revoked here is in force at once on every replica.
"""

from __future__ import annotations

import functools
import uuid
from dataclasses import replace

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.auth.permissions import Permission, has_permission
from dataagent.errors import DataAgentError, ErrorCode, not_found
from dataagent.services.connections import ontology_target
from dataagent.services.context import AppContext
from dataagent.sources.engines import check_access
from dataagent.store import audit, groups, shares, users
from dataagent.store.models import Ontology, OntologyShare, User
from dataagent.store.shares import OntologyAccess, ShareRow

SHARE_WITH_OWNER = "That user owns the ontology already; there is nothing to share with them."
BUILD_FIRST = (
    "The ontology is {status}: build it first. A database role is checked against the "
    "ontology's database, which only a ready ontology names; a share without one can be "
    "made now."
)
ROLE_CHECK_FAILED = (
    "The ontology's database could not be reached to check the role {role!r}; try again "
    "once it is up (its owner can check the connection)."
)


async def _managed(session: AsyncSession, actor: User, ontology_id: uuid.UUID) -> Ontology:
    """The ontology if `actor` manages its shares (its owner, or an admin); NOT_FOUND else."""
    admin = has_permission(actor.role, Permission.USERS_MANAGE)
    return await shares.managed_ontology(session, ontology_id, actor.id, admin=admin)


async def list_shares(session: AsyncSession, actor: User, ontology_id: uuid.UUID) -> list[ShareRow]:
    """The ontology's shares, oldest first."""
    await _managed(session, actor, ontology_id)
    return await shares.shares_of(session, ontology_id)


async def create_share(
    ctx: AppContext,
    session: AsyncSession,
    actor: User,
    ontology_id: uuid.UUID,
    user_id: uuid.UUID | None,
    group_id: uuid.UUID | None,
    database_role: str | None,
) -> ShareRow:
    """Share the ontology with one user or one group (exactly one), and commit.

    VALIDATION_ERROR for both or neither, for the owner themself, and for a database role
    on an ontology that is not a ready PostgreSQL one; NOT_FOUND for an unknown user or
    group; CONFLICT for a grantee who has a share already. A database role is checked as
    every query will check it (it exists, the connection's account may assume it, it is an
    ordinary role) before the share is stored.
    """
    if (user_id is None) == (group_id is None):
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR,
            "Share with exactly one of a user (userId) or a group (groupId).",
        )
    actor_id = actor.id
    ontology = await _managed(session, actor, ontology_id)
    owner_id = ontology.owner_id
    await _check_grantee(session, ontology_id, owner_id, user_id, group_id)
    if database_role is not None:
        await _check_role(ctx, session, actor_id, ontology, database_role)
    share = OntologyShare(
        ontology_id=ontology_id,
        user_id=user_id,
        group_id=group_id,
        database_role=database_role,
        created_by=actor_id,
    )
    session.add(share)
    try:
        await session.flush()
    except IntegrityError:
        # A request made the same share, or deleted the ontology or the grantee, first.
        await session.rollback()
        if await session.get(Ontology, ontology_id) is None:
            raise not_found("Ontology") from None
        await _check_grantee(session, ontology_id, owner_id, user_id, group_id)
        raise _already_shared(user_id) from None
    audit.record(session, actor_id, "share.create", "ontology_share", share.id, _details(share))
    await session.commit()
    return await shares.share_row(session, share)


async def delete_share(
    session: AsyncSession, actor: User, ontology_id: uuid.UUID, share_id: uuid.UUID
) -> None:
    """Revoke a share and commit: the grantee's next request on the ontology is 404, their
    chats on it stay readable and refuse new questions."""
    await _managed(session, actor, ontology_id)
    share = await shares.get_share(session, ontology_id, share_id)
    audit.record(session, actor.id, "share.revoke", "ontology_share", share.id, _details(share))
    await session.delete(share)
    await session.commit()


def _details(share: OntologyShare) -> dict[str, str | None]:
    """What an audit event of a share records: the ontology, the grantee, the role."""
    grantee = (
        {"userId": str(share.user_id)}
        if share.user_id is not None
        else {"groupId": str(share.group_id)}
    )
    return {"ontologyId": str(share.ontology_id), **grantee, "databaseRole": share.database_role}


def _already_shared(user_id: uuid.UUID | None) -> DataAgentError:
    whom = "this user" if user_id is not None else "this group"
    return DataAgentError(
        ErrorCode.CONFLICT,
        f"The ontology is shared with {whom} already; revoke that share first to make it "
        "again (with another database role, say).",
    )


async def _check_grantee(
    session: AsyncSession,
    ontology_id: uuid.UUID,
    owner_id: uuid.UUID,
    user_id: uuid.UUID | None,
    group_id: uuid.UUID | None,
) -> None:
    """Refuse the owner themself, an unknown user or group, and a grantee shared with already."""
    if user_id is not None:
        if user_id == owner_id:
            raise DataAgentError(ErrorCode.VALIDATION_ERROR, SHARE_WITH_OWNER)
        await users.get_user(session, user_id)
    elif group_id is not None:
        await groups.get_group(session, group_id)
    if await shares.grantee_share(session, ontology_id, user_id, group_id) is not None:
        raise _already_shared(user_id)


async def _check_role(
    ctx: AppContext, session: AsyncSession, caller_id: uuid.UUID, ontology: Ontology, role: str
) -> None:
    """Open the ontology's database (through its owner's connection) under `role`, as each
    of the grantee's queries will, on the query pool (the caller's share of it).

    The role's own problems (FORBIDDEN, VALIDATION_ERROR) keep their sentences, which name
    the role only; anything else about the connection is said without its details, since
    the caller may be an admin who is not its owner.
    """
    if ontology.status != "ready":
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, BUILD_FIRST.format(status=ontology.status))
    target = await ontology_target(ctx, session, OntologyAccess(ontology, "owner"))
    # `check_access` refuses a role on another dialect (VALIDATION_ERROR, passed on below).
    policy = replace(target.policy, database_role=role)
    check = functools.partial(check_access, require_reachable=True)
    try:
        await ctx.query_pool.run(caller_id, check, target.spec, policy)
    except DataAgentError as exc:
        if exc.code in (ErrorCode.FORBIDDEN, ErrorCode.VALIDATION_ERROR, ErrorCode.RATE_LIMITED):
            raise
        raise DataAgentError(
            ErrorCode.CONNECTION_FAILED, ROLE_CHECK_FAILED.format(role=role)
        ) from None
