"""Alembic migrations, driven from code so `dataagent db upgrade` and `serve` need no ini file."""

from __future__ import annotations

import logging
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine

from dataagent.store.database import sync_url

SCRIPT_LOCATION = Path(__file__).parent / "alembic"

log = logging.getLogger(__name__)


def alembic_config(url: str) -> Config:
    """An Alembic config pointing at our scripts and the given database."""
    config = Config()
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    # ConfigParser interpolation would eat '%' in passwords.
    config.set_main_option("sqlalchemy.url", sync_url(url).replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Apply migrations up to `revision`; logs one line naming those that ran, if any."""
    config = alembic_config(url)
    before = current_revision(url)
    command.upgrade(config, revision)
    after = current_revision(url)
    if after == before:
        return
    script = ScriptDirectory.from_config(config)
    applied = [rev.revision for rev in script.iterate_revisions(after, before)][::-1]
    log.info(
        "Migrated the app database: applied %s; now at revision %s",
        ", ".join(applied),
        after,
    )


def downgrade(url: str, revision: str = "base") -> None:
    """Revert migrations down to `revision`."""
    command.downgrade(alembic_config(url), revision)


def current_revision(url: str) -> str | None:
    """The revision the database is at, or None for an empty database."""
    engine = create_engine(sync_url(url))
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def head_revision() -> str | None:
    """The newest revision shipped with the code."""
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


def is_up_to_date(url: str) -> bool:
    """True when no migration is pending."""
    return current_revision(url) == head_revision()
