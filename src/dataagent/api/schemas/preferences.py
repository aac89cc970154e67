"""A person's preferences, global or per ontology (seed 001)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Self

from pydantic import ConfigDict, Field, model_validator

from dataagent.api.schemas import HAS_TEXT, ApiInput, ApiModel
from dataagent.services.preferences import (
    AUTO_CAPTURE_KEY,
    KEY_PATTERN,
    MAX_KEY_CHARS,
    MAX_VALUE_CHARS,
    problem,
)
from dataagent.store.models import DataAgentPreference
from dataagent.vocabulary import AUTO_CAPTURE_MODES, PreferenceSource

PreferenceKey = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_KEY_CHARS,
        pattern=KEY_PATTERN,
        description=f"A name (`default_time_window`). `{AUTO_CAPTURE_KEY}` is the global "
        f"choice of what the agent does with answers to its clarifying questions: "
        f"{', '.join(f'`{m}`' for m in AUTO_CAPTURE_MODES)}.",
    ),
]
PreferenceValue = Annotated[str, Field(min_length=1, max_length=MAX_VALUE_CHARS, pattern=HAS_TEXT)]


class PreferencePublic(ApiModel):
    """A stored preference: global (`ontologyId` null) or one ontology's."""

    id: uuid.UUID
    user_id: uuid.UUID
    ontology_id: uuid.UUID | None
    key: str
    value: str
    source: PreferenceSource
    created_at: datetime
    updated_at: datetime


def _auto_capture_rule(schema: dict[str, Any]) -> None:
    # What `services.preferences.problem` checks across fields, stated in the schema.
    schema["allOf"] = [
        {
            "if": {"properties": {"key": {"const": AUTO_CAPTURE_KEY}}, "required": ["key"]},
            "then": {
                "properties": {
                    "value": {"enum": list(AUTO_CAPTURE_MODES)},
                    "ontologyId": {"type": "null"},
                }
            },
        }
    ]


class PreferenceCreate(ApiInput):
    """A preference to store; one of that key in that scope has its value replaced."""

    model_config = ConfigDict(json_schema_extra=_auto_capture_rule)

    ontology_id: uuid.UUID | None = Field(
        None, description="The ontology it applies to; null or left out: every ontology."
    )
    key: PreferenceKey
    value: PreferenceValue
    source: PreferenceSource = "manual"

    @model_validator(mode="after")
    def _storable(self) -> Self:
        reason = problem(self.key, self.value, self.ontology_id)
        if reason is not None:
            raise ValueError(reason)
        return self


class PreferenceUpdate(ApiInput):
    """A preference's new value."""

    value: PreferenceValue


def preference_public(preference: DataAgentPreference) -> PreferencePublic:
    """The public view of a preference."""
    return PreferencePublic.model_validate(preference)
