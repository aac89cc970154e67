"""Measurements of the agent run from the command line (`dataagent eval ...`)."""
