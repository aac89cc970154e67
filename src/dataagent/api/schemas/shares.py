"""Shares of an ontology with a user or a group."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from dataagent.api.schemas import ApiInput, ApiModel
from dataagent.store.shares import ShareRow

# A PostgreSQL role name as a share may give it: an identifier (at most 63 bytes, the
# server's limit), used as written (quoted, so case counts).
DATABASE_ROLE = r"^[A-Za-z_][A-Za-z0-9_$]*$"


class ShareCreate(ApiInput):
    """Share an ontology with one user or one group, optionally under a database role."""

    # Exactly one grantee, written into the schema so clients see the rule.
    model_config = ConfigDict(
        json_schema_extra={"oneOf": [{"required": ["userId"]}, {"required": ["groupId"]}]}
    )

    user_id: uuid.UUID | SkipJsonSchema[None] = None
    group_id: uuid.UUID | SkipJsonSchema[None] = None
    database_role: str | None = Field(
        None,
        min_length=1,
        max_length=63,
        pattern=DATABASE_ROLE,
        description="PostgreSQL only: the role each of the grantee's queries runs under "
        "(`SET LOCAL ROLE`), so the database's grants and row-level security decide what "
        "they see. The connection's account must be a member of it; an ordinary role only.",
    )

    @model_validator(mode="after")
    def _one_grantee(self) -> ShareCreate:
        if (self.user_id is None) == (self.group_id is None):
            raise ValueError("give exactly one of userId or groupId")
        return self


class SharePublic(ApiModel):
    """One share of an ontology: with a user (`userId`, `userEmail`) or a group (`groupId`,
    `groupName`), and the database role its queries run under (null: the connection's)."""

    id: uuid.UUID
    ontology_id: uuid.UUID
    user_id: uuid.UUID | None
    user_email: str | None
    group_id: uuid.UUID | None
    group_name: str | None
    database_role: str | None
    created_at: datetime
    created_by: uuid.UUID | None


def share_public(row: ShareRow) -> SharePublic:
    """The public view of a share."""
    share = row.share
    return SharePublic(
        id=share.id,
        ontology_id=share.ontology_id,
        user_id=share.user_id,
        user_email=row.user_email,
        group_id=share.group_id,
        group_name=row.group_name,
        database_role=share.database_role,
        created_at=share.created_at,
        created_by=share.created_by,
    )
