"""A person's stored preferences (seed 001): user-scoped reads, the race-free upsert, deletes.

One value per key per user per scope (global, or one ontology) is the database's rule
(`models.DataAgentPreference`); the upsert leans on it with INSERT ... ON CONFLICT, so two
saves of one key at once leave one row holding the later value.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import ColumnElement, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import not_found
from dataagent.store.models import DataAgentPreference
from dataagent.store.types import utcnow
from dataagent.vocabulary import PreferenceScope, PreferenceSource

_Pref = DataAgentPreference


@dataclass(frozen=True)
class PreferenceFilter:
    """Which of a user's preferences a listing returns.

    `all` with an ontology: the global ones and that ontology's (what applies in it); `all`
    without: every one; `global`: those of no ontology; `ontology`: that ontology's only.
    """

    scope: PreferenceScope = "all"
    ontology_id: uuid.UUID | None = None


def _scope_condition(query: PreferenceFilter) -> ColumnElement[bool] | None:
    if query.scope == "global":
        return _Pref.ontology_id.is_(None)
    if query.ontology_id is None:
        return None
    if query.scope == "ontology":
        return _Pref.ontology_id == query.ontology_id
    return (_Pref.ontology_id.is_(None)) | (_Pref.ontology_id == query.ontology_id)


async def list_preferences(
    session: AsyncSession, user_id: uuid.UUID, query: PreferenceFilter
) -> list[DataAgentPreference]:
    """The user's preferences in `query`'s scope: global ones first, then by key."""
    statement = select(_Pref).where(_Pref.user_id == user_id)
    condition = _scope_condition(query)
    if condition is not None:
        statement = statement.where(condition)
    rows = await session.scalars(
        statement.order_by(_Pref.ontology_id.is_not(None), _Pref.ontology_id, _Pref.key, _Pref.id)
    )
    return list(rows)


async def get_preference(
    session: AsyncSession, user_id: uuid.UUID, preference_id: uuid.UUID
) -> DataAgentPreference:
    """The user's preference, or NOT_FOUND (also when it is someone else's)."""
    preference = await session.get(_Pref, preference_id)
    if preference is None or preference.user_id != user_id:
        raise not_found("Preference")
    return preference


async def upsert(
    session: AsyncSession,
    user_id: uuid.UUID,
    ontology_id: uuid.UUID | None,
    key: str,
    value: str,
    source: PreferenceSource,
) -> DataAgentPreference:
    """Store `key = value` in the user's scope (global for no ontology), in one statement:
    a new row, or the existing one's value and source replaced (flushed, not committed).

    NOT_FOUND when the ontology (or the user) went away meanwhile.
    """
    now = utcnow()
    insert = sqlite.insert if session.get_bind().dialect.name == "sqlite" else postgresql.insert
    statement = insert(_Pref).values(
        id=uuid.uuid4(),
        user_id=user_id,
        ontology_id=ontology_id,
        key=key,
        value=value,
        source=source,
        created_at=now,
        updated_at=now,
    )
    changes = {"value": value, "source": source, "updated_at": now}
    if ontology_id is None:
        # The partial unique index of global preferences (NULLs never conflict otherwise).
        upserted = statement.on_conflict_do_update(
            index_elements=[_Pref.user_id, _Pref.key],
            index_where=_Pref.ontology_id.is_(None),
            set_=changes,
        )
    else:
        upserted = statement.on_conflict_do_update(
            index_elements=[_Pref.user_id, _Pref.ontology_id, _Pref.key], set_=changes
        )
    try:
        preference_id = (await session.execute(upserted.returning(_Pref.id))).scalar_one()
    except IntegrityError:
        await session.rollback()
        raise not_found("Ontology") from None
    preference = await session.get(_Pref, preference_id, populate_existing=True)
    assert preference is not None
    return preference


async def delete_preferences(
    session: AsyncSession, user_id: uuid.UUID, ontology_id: uuid.UUID | None
) -> int:
    """Delete the user's preferences of one ontology, or all of them (global ones included)
    for no ontology (not committed); how many went."""
    statement = delete(_Pref).where(_Pref.user_id == user_id)
    if ontology_id is not None:
        statement = statement.where(_Pref.ontology_id == ontology_id)
    result = await session.execute(statement.execution_options(synchronize_session=False))
    return int(result.rowcount)  # type: ignore[attr-defined]
