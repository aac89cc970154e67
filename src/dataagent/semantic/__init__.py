"""The semantic model (OSI-style YAML), its generation, join paths, QueryPlans and lineage."""
