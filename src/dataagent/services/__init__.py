"""Use cases: one function each, owning its transaction.

Routes, the command line, the demo set-up and (later) the agent and the MCP server call
these; they parse, authorise and shape answers themselves, nothing more. The rooms below
(`store` for persistence, `sources` for users' databases, `ontology`, `llm`, `semantic`) know
nothing of each other's use.
"""
