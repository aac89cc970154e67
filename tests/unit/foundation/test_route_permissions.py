"""Each permission a route requires has one alias, in api/deps.py; no route module makes its own."""

from __future__ import annotations

import pkgutil
from pathlib import Path

import dataagent.api.routes as routes


def test_route_modules_use_the_permission_aliases_of_deps() -> None:
    folder = Path(routes.__file__).parent
    own = [
        module.name
        for module in pkgutil.iter_modules([str(folder)])
        if "require(" in (folder / f"{module.name}.py").read_text()
    ]
    assert own == [], "route modules defining their own permission dependency"
