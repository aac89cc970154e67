"""The offline planner: questions answered from the semantic model alone, with no model call."""

from dataagent.agent.offline.planner import (
    CONFIDENCE_THRESHOLD,
    OfflinePlan,
    describe,
    plan_question,
)

__all__ = ["CONFIDENCE_THRESHOLD", "OfflinePlan", "describe", "plan_question"]
