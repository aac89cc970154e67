"""Who reaches an ontology: its owner, and those it is shared with (directly or by group).

Every read of an ontology by someone who may not own it goes through `reach`, which reads
the shares from the app database on each call: nothing is cached, so a share revoked (or a
member removed from a group) on one replica is in force on every replica's next request.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import Select, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import not_found
from dataagent.store.models import Group, GroupMember, Ontology, OntologyShare, User
from dataagent.vocabulary import OntologyAccessKind


@dataclass(frozen=True)
class OntologyAccess:
    """An ontology as one person reaches it.

    `kind` is `owner` or `shared`. `database_role` (shared only, PostgreSQL) is the role
    their queries run under; such a person is `restricted`: what the model was built from
    with the owner's account (sample values, row counts, the value index) is kept from them.
    """

    ontology: Ontology
    kind: OntologyAccessKind
    database_role: str | None = None

    @property
    def owner_id(self) -> uuid.UUID:
        """Whose connection the ontology's queries run through."""
        return self.ontology.owner_id

    @property
    def restricted(self) -> bool:
        """True when a database role decides which rows this person sees."""
        return self.database_role is not None


def _shares_for(user_id: uuid.UUID) -> Select[OntologyShare]:
    """The shares that reach `user_id`: theirs, and their groups'."""
    groups = select(GroupMember.group_id).where(GroupMember.user_id == user_id)
    return select(OntologyShare).where(
        or_(OntologyShare.user_id == user_id, OntologyShare.group_id.in_(groups))
    )


def role_of(shares: list[OntologyShare]) -> str | None:
    """The database role of one person's shares of one ontology (at least one).

    A share made with them directly decides. Otherwise, through groups: a share without a
    role grants what the connection's account sees; when every share names a role, the
    earliest share's role applies (a person cannot hold two roles in one query).
    """
    direct = [s for s in shares if s.user_id is not None]
    if direct:
        return direct[0].database_role
    if any(s.database_role is None for s in shares):
        return None
    earliest = min(shares, key=lambda s: (s.created_at, str(s.id)))
    return earliest.database_role


async def reach(
    session: AsyncSession, user_id: uuid.UUID, ontology_id: uuid.UUID
) -> OntologyAccess:
    """The ontology as `user_id` reaches it (their own, or shared with them); NOT_FOUND
    otherwise, exactly as for an ontology that does not exist."""
    found = await reach_or_none(session, user_id, ontology_id)
    if found is None:
        raise not_found("Ontology")
    return found


async def reach_or_none(
    session: AsyncSession, user_id: uuid.UUID, ontology_id: uuid.UUID
) -> OntologyAccess | None:
    """As `reach`, or None when the person no longer (or never did) reach it."""
    ontology = await session.get(Ontology, ontology_id)
    if ontology is None:
        return None
    if ontology.owner_id == user_id:
        return OntologyAccess(ontology, "owner")
    shares = list(
        await session.scalars(_shares_for(user_id).where(OntologyShare.ontology_id == ontology_id))
    )
    if not shares:
        return None
    return OntologyAccess(ontology, "shared", role_of(shares))


async def reachable(session: AsyncSession, user_id: uuid.UUID) -> list[OntologyAccess]:
    """Every ontology `user_id` reaches, theirs and shared, newest first."""
    own = await session.scalars(select(Ontology).where(Ontology.owner_id == user_id))
    found = [OntologyAccess(o, "owner") for o in own]
    by_ontology: dict[uuid.UUID, list[OntologyShare]] = {}
    for share in await session.scalars(_shares_for(user_id)):
        by_ontology.setdefault(share.ontology_id, []).append(share)
    if by_ontology:
        shared = await session.scalars(
            select(Ontology).where(Ontology.id.in_(list(by_ontology)), Ontology.owner_id != user_id)
        )
        found += [OntologyAccess(o, "shared", role_of(by_ontology[o.id])) for o in shared]
    found.sort(key=lambda a: (a.ontology.created_at, str(a.ontology.id)), reverse=True)
    return found


async def kinds(
    session: AsyncSession, user_id: uuid.UUID, ontology_ids: set[uuid.UUID]
) -> dict[uuid.UUID, OntologyAccessKind]:
    """How `user_id` reaches each of these ontologies (`owner` or `shared`); those they do
    not reach are left out."""
    if not ontology_ids:
        return {}
    found: dict[uuid.UUID, OntologyAccessKind] = {}
    shared = _shares_for(user_id).where(OntologyShare.ontology_id.in_(ontology_ids))
    for share in await session.scalars(shared):
        found[share.ontology_id] = "shared"
    owned = select(Ontology.id).where(Ontology.id.in_(ontology_ids), Ontology.owner_id == user_id)
    for ontology_id in await session.scalars(owned):
        found[ontology_id] = "owner"
    return found


async def owner_emails(session: AsyncSession, owner_ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
    """The email of each of these users (the owners an ontology listing names)."""
    if not owner_ids:
        return {}
    rows = await session.execute(select(User.id, User.email).where(User.id.in_(owner_ids)))
    return {row.id: row.email for row in rows}


# --- managing shares (the owner's or an admin's) -------------------------------------------------


@dataclass(frozen=True)
class ShareRow:
    """A share with the names that help a person read it: the user's email or group's name."""

    share: OntologyShare
    user_email: str | None
    group_name: str | None


async def shares_of(session: AsyncSession, ontology_id: uuid.UUID) -> list[ShareRow]:
    """The ontology's shares, oldest first, each with its grantee's email or group name."""
    rows = await session.execute(
        select(OntologyShare, User.email, Group.name)
        .outerjoin(User, User.id == OntologyShare.user_id)
        .outerjoin(Group, Group.id == OntologyShare.group_id)
        .where(OntologyShare.ontology_id == ontology_id)
        .order_by(OntologyShare.created_at, OntologyShare.id)
    )
    return [ShareRow(share, email, name) for share, email, name in rows]


async def share_row(session: AsyncSession, share: OntologyShare) -> ShareRow:
    """One share with its grantee's email or group name."""
    if share.user_id is not None:
        email = await session.scalar(select(User.email).where(User.id == share.user_id))
        return ShareRow(share, email, None)
    name = await session.scalar(select(Group.name).where(Group.id == share.group_id))
    return ShareRow(share, None, name)


async def get_share(
    session: AsyncSession, ontology_id: uuid.UUID, share_id: uuid.UUID
) -> OntologyShare:
    """One share of this ontology, or NOT_FOUND."""
    share = await session.get(OntologyShare, share_id)
    if share is None or share.ontology_id != ontology_id:
        raise not_found("Share")
    return share


async def grantee_share(
    session: AsyncSession,
    ontology_id: uuid.UUID,
    user_id: uuid.UUID | None,
    group_id: uuid.UUID | None,
) -> OntologyShare | None:
    """The ontology's share with this user (or this group), or None."""
    grantee = (
        OntologyShare.user_id == user_id
        if user_id is not None
        else OntologyShare.group_id == group_id
    )
    return await session.scalar(
        select(OntologyShare).where(OntologyShare.ontology_id == ontology_id, grantee)
    )


async def managed_ontology(
    session: AsyncSession, ontology_id: uuid.UUID, user_id: uuid.UUID, *, admin: bool
) -> Ontology:
    """The ontology whose shares this person manages (their own; any, for an admin), or
    NOT_FOUND, as for an ontology that does not exist (a grantee included)."""
    ontology = await session.get(Ontology, ontology_id)
    if ontology is None or not (admin or ontology.owner_id == user_id):
        raise not_found("Ontology")
    return ontology
