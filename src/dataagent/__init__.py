"""Data Agent: a self-hosted agent that answers questions about your data."""

__version__ = "0.1.0"
