"""User databases: connection specs, the SQL guard, the read-only executor and its results."""
