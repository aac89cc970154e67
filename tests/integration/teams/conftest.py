"""Teams: the app of `world` (tests/integration/api/conftest.py) with more signed-in people
when a test needs them (`add_account`)."""

from __future__ import annotations

from tests.integration.api.conftest import (
    Account,
    World,
    _client,
    _password_hash,
    database_url,
    settings,
    world,
)
from tests.integration.runs.conftest import live

from dataagent.auth.tokens import issue_token
from dataagent.store.models import User

__all__ = ["database_url", "live", "settings", "world"]


async def add_account(world: World, key: str, role: str = "contributor") -> Account:
    """One more user of the world (`<key>@example.com`), with a client signed in as them."""
    async with world.database.session() as session:
        user = User(email=f"{key}@example.com", password_hash=_password_hash(), role=role)
        session.add(user)
        await session.commit()
        token, _ = issue_token(user.id, user.token_version, world.context.secret_key, 60)
    return Account(user.id, user.email, role, _client(world.app, token))
