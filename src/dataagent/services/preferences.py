"""A person's preferences (seed 001): kept per user, global or per ontology, and read by the
pipeline as one effective map (an ontology's value wins over the global one of its key).

The key `auto_capture_mode` is the person's choice of what the agent does with the answers
to its clarifying questions (`off`, `auto`, `ask`): global only, and never part of the map
the prompts see. `capture` is how the pipeline saves answers in `auto` mode.
"""

from __future__ import annotations

import re
import uuid
from typing import Final

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.store import audit, preferences, shares
from dataagent.store.models import DataAgentPreference
from dataagent.store.preferences import PreferenceFilter
from dataagent.store.types import utcnow
from dataagent.vocabulary import AUTO_CAPTURE_MODES, AutoCaptureMode, PreferenceSource

# A key is a name: letters, digits, `_`, `.`, `-` (`default_time_window`, `chart.style`).
KEY_PATTERN: Final = r"^[A-Za-z0-9_.-]+$"
MAX_KEY_CHARS: Final = 255
MAX_VALUE_CHARS: Final = 2000
AUTO_CAPTURE_KEY: Final = "auto_capture_mode"
DEFAULT_AUTO_CAPTURE: Final[AutoCaptureMode] = "auto"

_KEY = re.compile(KEY_PATTERN)


def problem(key: str, value: str, ontology_id: uuid.UUID | None) -> str | None:
    """Why `key = value` cannot be stored in that scope (one sentence), or None when it can.

    Text is taken as sent, never trimmed: a value of spaces says nothing and is refused.
    """
    if not 1 <= len(key) <= MAX_KEY_CHARS or not _KEY.match(key):
        return (
            f"A preference key is 1 to {MAX_KEY_CHARS} letters, digits, '_', '.' or '-'; "
            f"{key[:80]!r} is not."
        )
    if len(value) > MAX_VALUE_CHARS or not value.strip() or "\x00" in value:
        return (
            f"A preference value is 1 to {MAX_VALUE_CHARS} characters, not all white space, "
            "without NUL."
        )
    if key == AUTO_CAPTURE_KEY:
        if ontology_id is not None:
            return f"{AUTO_CAPTURE_KEY} is a global preference: it takes no ontology."
        if value not in AUTO_CAPTURE_MODES:
            return f"{AUTO_CAPTURE_KEY} is one of {', '.join(AUTO_CAPTURE_MODES)}."
    return None


def _check(key: str, value: str, ontology_id: uuid.UUID | None) -> None:
    reason = problem(key, value, ontology_id)
    if reason is not None:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, reason)


async def _require_ontology(
    session: AsyncSession, user_id: uuid.UUID, ontology_id: uuid.UUID | None
) -> None:
    # Any ontology the caller reaches (theirs or shared), ready or not; any other NOT_FOUND.
    if ontology_id is not None:
        await shares.reach(session, user_id, ontology_id)


async def list_preferences(
    session: AsyncSession, user_id: uuid.UUID, query: PreferenceFilter
) -> list[DataAgentPreference]:
    """The caller's preferences in a scope (see `PreferenceFilter`).

    VALIDATION_ERROR for the `ontology` scope without an ontology; NOT_FOUND for an ontology
    that is not the caller's.
    """
    if query.scope == "ontology" and query.ontology_id is None:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, "The ontology scope needs an ontologyId.")
    await _require_ontology(session, user_id, query.ontology_id)
    return await preferences.list_preferences(session, user_id, query)


async def save(
    session: AsyncSession,
    user_id: uuid.UUID,
    ontology_id: uuid.UUID | None,
    key: str,
    value: str,
    source: PreferenceSource = "manual",
) -> DataAgentPreference:
    """Create the caller's preference, or replace the value of the one with that key in that
    scope (seed 001's upsert), and commit.

    VALIDATION_ERROR for a key or value `problem` refuses; NOT_FOUND for an ontology that is
    not the caller's.
    """
    _check(key, value, ontology_id)
    await _require_ontology(session, user_id, ontology_id)
    preference = await preferences.upsert(session, user_id, ontology_id, key, value, source)
    _audit(session, user_id, "preference.save", preference)
    await session.commit()
    return preference


async def update_value(
    session: AsyncSession, user_id: uuid.UUID, preference_id: uuid.UUID, value: str
) -> DataAgentPreference:
    """Give one of the caller's preferences a new value, and commit (NOT_FOUND for one not
    theirs; VALIDATION_ERROR as `save`). Its source stays."""
    preference = await preferences.get_preference(session, user_id, preference_id)
    _check(preference.key, value, preference.ontology_id)
    preference.value = value
    preference.updated_at = utcnow()
    _audit(session, user_id, "preference.update", preference)
    await session.commit()
    return preference


async def delete_preference(
    session: AsyncSession, user_id: uuid.UUID, preference_id: uuid.UUID
) -> None:
    """Delete one of the caller's preferences, and commit (NOT_FOUND for one not theirs)."""
    preference = await preferences.get_preference(session, user_id, preference_id)
    _audit(session, user_id, "preference.delete", preference)
    await session.delete(preference)
    await session.commit()


async def clear(session: AsyncSession, user_id: uuid.UUID, ontology_id: uuid.UUID | None) -> int:
    """Delete the caller's preferences of one ontology, or every one of theirs (global ones
    included) for no ontology, and commit; how many went. NOT_FOUND for an ontology that is
    not the caller's."""
    await _require_ontology(session, user_id, ontology_id)
    count = await preferences.delete_preferences(session, user_id, ontology_id)
    details = {"ontologyId": str(ontology_id) if ontology_id else None, "count": count}
    audit.record(session, user_id, "preference.clear", "data_agent_preference", None, details)
    await session.commit()
    return count


async def effective(
    session: AsyncSession, user_id: uuid.UUID, ontology_id: uuid.UUID | None
) -> dict[str, str]:
    """The preferences that apply to a question about an ontology, key to value: the global
    ones with the ontology's over them (seed 001), `auto_capture_mode` left out."""
    scope = PreferenceFilter("all", ontology_id) if ontology_id else PreferenceFilter("global")
    rows = await preferences.list_preferences(session, user_id, scope)
    # Global rows come first, so the ontology's value of a key is written last and wins.
    return {row.key: row.value for row in rows if row.key != AUTO_CAPTURE_KEY}


async def auto_capture_mode(session: AsyncSession, user_id: uuid.UUID) -> AutoCaptureMode:
    """What the agent does with the answers to its clarifying questions: the person's global
    `auto_capture_mode`, `auto` when they chose none."""
    rows = await preferences.list_preferences(session, user_id, PreferenceFilter("global"))
    value = next((row.value for row in rows if row.key == AUTO_CAPTURE_KEY), None)
    if value in AUTO_CAPTURE_MODES:
        return value
    return DEFAULT_AUTO_CAPTURE


async def capture(
    session: AsyncSession,
    user_id: uuid.UUID,
    ontology_id: uuid.UUID,
    suggestions: list[tuple[str, str]],
) -> list[DataAgentPreference]:
    """Save answers to clarifying questions as the ontology's `auto_captured` preferences
    (the caller checked the person's `auto_capture_mode` is `auto`), and commit; the rows
    saved.

    The keys and values come from the model: a pair `problem` refuses is skipped, and so is
    `auto_capture_mode` (only the person chooses it); of one key given twice, the last
    value is saved. NOT_FOUND for an ontology that is not the caller's.
    """
    wanted: dict[str, str] = {}
    for key, value in suggestions:
        if key != AUTO_CAPTURE_KEY and problem(key, value, ontology_id) is None:
            wanted.pop(key, None)
            wanted[key] = value
    if not wanted:
        return []
    await _require_ontology(session, user_id, ontology_id)
    saved = []
    for key, value in wanted.items():
        preference = await preferences.upsert(
            session, user_id, ontology_id, key, value, "auto_captured"
        )
        _audit(session, user_id, "preference.save", preference)
        saved.append(preference)
    await session.commit()
    return saved


def _audit(
    session: AsyncSession, user_id: uuid.UUID, action: str, preference: DataAgentPreference
) -> None:
    # The key and scope, not the value: a preference may say more than an audit trail needs.
    ontology_id = str(preference.ontology_id) if preference.ontology_id else None
    details = {"key": preference.key, "ontologyId": ontology_id, "source": preference.source}
    audit.record(session, user_id, action, "data_agent_preference", preference.id, details)
