"""The layout is the architecture: the engine core and the expansions know nothing of the edges.

Formats, bots, the CLI and the web app depend on the engine, never the reverse; otherwise the
engine could not be used alone (e.g. in a simulation farm without the web dependencies).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "carcassonne"
EDGES = ("formats", "bots", "cli", "web")
ENGINE_FILES = sorted([*PACKAGE.glob("*.py"), *(PACKAGE / "expansions").glob("*.py")])


def imported_packages(path: Path) -> set[str]:
    """First component below ``carcassonne`` of every module ``path`` imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside = path.parent != PACKAGE  # expansions/ is one level deeper
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                depth = node.level - (1 if inside else 0)
                names = (node.module or "").split(".") if node.module else []
                if depth == 1 and names:
                    found.add(names[0])
                elif depth == 1 and not names:
                    found.update(alias.name for alias in node.names)
                elif depth == 0 and inside:
                    found.add("expansions")
            elif node.module and node.module.startswith("carcassonne."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("carcassonne."):
                    found.add(alias.name.split(".")[1])
    return found


@pytest.mark.parametrize("path", ENGINE_FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_engine_module_does_not_import_the_edges(path: Path) -> None:
    assert not imported_packages(path) & set(EDGES)


def test_the_check_sees_edge_imports() -> None:
    # Guards the test above against silently finding nothing.
    assert {"formats", "bots"} <= imported_packages(PACKAGE / "web" / "rooms.py")
    assert "game" in imported_packages(PACKAGE / "expansions" / "river.py")
