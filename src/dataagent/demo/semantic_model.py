"""The demo's curated semantic model: `semantic_model.yaml`, shipped beside this module.

`dataagent demo` stores it in place of the generated model (see `setup.py`); the file
itself is the worked example of docs/semantic-model.md.
"""

from __future__ import annotations

from importlib import resources

CURATED_MODEL_FILE = "semantic_model.yaml"


def curated_model_yaml() -> str:
    """The curated semantic model of the demo DuckDB file, as YAML text."""
    return resources.files(__package__).joinpath(CURATED_MODEL_FILE).read_text(encoding="utf-8")
