"""The semantic model (OSI-style YAML), its generation, the QueryPlan compiler and lineage."""
