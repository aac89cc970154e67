"""The HTTP API: thin routers, schemas, error mapping; serves the built web UI."""
