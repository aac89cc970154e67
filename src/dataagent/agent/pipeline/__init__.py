"""Seed 001's verified six-phase pipeline: planner, navigator, SQL builder, executor,
verifier and explainer (`graph.py` wires them; `answer.py` is the entry point a chat answer
runs). Where seed 001 asks a model for what code can do exactly (join paths, SQL from a
QueryPlan, lineage, fan-out and grain checks), code does it."""
