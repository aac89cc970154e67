"""Which database role applies when a person reaches an ontology through several shares."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from dataagent.store.models import OntologyShare
from dataagent.store.shares import role_of

START = datetime(2026, 1, 1, tzinfo=UTC)


def share(role: str | None, *, direct: bool = False, minutes: int = 0) -> OntologyShare:
    grantee = {"user_id": uuid.uuid4()} if direct else {"group_id": uuid.uuid4()}
    return OntologyShare(
        id=uuid.uuid4(),
        ontology_id=uuid.uuid4(),
        database_role=role,
        created_at=START + timedelta(minutes=minutes),
        **grantee,
    )


def test_a_direct_share_decides_over_group_shares() -> None:
    assert role_of([share(None), share("west", direct=True)]) == "west"
    assert role_of([share("east"), share(None, direct=True)]) is None


def test_through_groups_a_share_without_a_role_grants_what_the_account_sees() -> None:
    assert role_of([share("west"), share(None, minutes=5)]) is None


def test_through_groups_with_roles_only_the_earliest_share_decides() -> None:
    assert role_of([share("east", minutes=9), share("west", minutes=1)]) == "west"
    assert role_of([share("west")]) == "west"
