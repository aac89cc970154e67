"""Durable runs: claiming a message, executing runs under a lease, the event log, SSE,
cancellation, and the reaper that fails what a stopped server left (docs/runs.md).

Nothing here assumes one process: the database holds every run's state and events; the
tasks, queue and wake-ups of a process are only its share of the work.
"""
