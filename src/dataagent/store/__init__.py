"""App persistence: SQLAlchemy models, the session factory, repositories and migrations."""
