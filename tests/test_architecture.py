"""The layout is the architecture: the engine core and the expansions know nothing of the edges.

Formats, bots, the CLI and the web app depend on the engine, never the reverse; otherwise the
engine could not be used alone (e.g. in a simulation farm without the web dependencies).  Among
the edges, each knows only those it uses (``ALLOWED_EDGE_IMPORTS``; docs/engine.md draws it):

    cli ──> web, batch, bots, formats     web ──> bots, formats     batch ──> bots, formats
    env ──> bots                          formats, bots ──> (the engine only)
  And no
module imports itself round a circle: every import that runs (at the top of a module or inside
a function) points one way, so each module can be understood, tested and compiled after the ones
it uses.  Imports under ``if TYPE_CHECKING:`` never run and only name types for annotations;
they are left out (an expansion's hooks take the ``Game`` that calls them).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from carcassonne.expansions.registry import EXPANSIONS

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "carcassonne"
EDGES = ("formats", "bots", "batch", "cli", "web", "env")
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


#: the edges each edge may import (every edge imports the engine): the CLI runs everything (its
#: ``serve`` starts the web app), the web app and the batch runner play bots and write records,
#: the env's single-agent wrapper plays bots for the other seats.  Everything else is forbidden:
#: formats know no bots (a record's reader is handed the bot check), bots know no edge at all,
#: nothing but the CLI knows the web, and nothing knows the env or the CLI.
ALLOWED_EDGE_IMPORTS: dict[str, set[str]] = {
    "formats": set(),
    "bots": set(),
    "batch": {"bots", "formats"},
    "env": {"bots"},
    "web": {"bots", "formats"},
    "cli": {"batch", "bots", "formats", "web"},
}


@pytest.mark.parametrize(
    "path",
    sorted(p for edge in EDGES for p in (PACKAGE / edge).rglob("*.py")),
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_an_edge_imports_only_the_edges_it_may_know(path: Path) -> None:
    edge = path.relative_to(PACKAGE).parts[0]
    others = imported_packages(path) & set(EDGES) - {edge}
    assert others <= ALLOWED_EDGE_IMPORTS[edge]


def test_the_check_sees_edge_imports() -> None:
    # Guards the test above against silently finding nothing.
    assert {"formats", "bots"} <= imported_packages(PACKAGE / "web" / "roomhints.py")
    assert "game" in imported_packages(PACKAGE / "expansions" / "river.py")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _runs(node: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``node`` except what ``if TYPE_CHECKING:`` guards."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            for other in child.orelse:
                yield other
                yield from _runs(other)
            continue
        yield child
        yield from _runs(child)


def run_time_imports(name: str) -> set[str]:
    """The package's modules that module ``name`` imports when it runs."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _runs(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                target = ".".join(parts[: len(parts) - node.level + 1] + [node.module or ""])
                target = target.rstrip(".")
            else:
                target = node.module or ""
            if target not in MODULES:
                continue
            for alias in node.names:  # ``from . import greedy`` imports a module
                found.add(
                    f"{target}.{alias.name}" if f"{target}.{alias.name}" in MODULES else target
                )
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in MODULES)
    if name == "carcassonne.expansions":  # build_expansions imports each registry row's module
        found.update(f"{name}.{spec.module}" for spec in EXPANSIONS)
    found.discard(name)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph`` (module -> modules it imports), one path each."""
    found: list[list[str]] = []
    done: set[str] = set()

    def walk(module: str, path: list[str]) -> None:
        for target in sorted(graph.get(module, ())):
            if target in path:
                found.append([*path[path.index(target) :], target])
            elif target not in done:
                walk(target, [*path, target])
        done.add(module)

    for module in sorted(graph):
        if module not in done:
            walk(module, [module])
    return found


def test_no_module_imports_itself_round_a_circle() -> None:
    graph = {name: run_time_imports(name) for name in MODULES}
    assert cycles(graph) == []


def test_the_cycle_check_sees_circles_and_lazy_imports() -> None:
    # Guards the test above against silently finding nothing.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert "carcassonne.expansions.river" in run_time_imports("carcassonne.expansions")  # lazy
    assert "carcassonne.bots.bets_policy" in run_time_imports("carcassonne.bots.greedy")
    assert "carcassonne.game" not in run_time_imports("carcassonne.expansions.base")  # typing


RL_DEPENDENCIES = {"numpy", "gymnasium", "pettingzoo"}


def third_party_imports(path: Path) -> set[str]:
    """Top-level names of the absolute imports in ``path`` (``numpy`` for ``numpy.random``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
    return found


@pytest.mark.parametrize(
    "path",
    sorted(p for p in PACKAGE.rglob("*.py") if "env" not in p.relative_to(PACKAGE).parts),
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_only_the_env_needs_the_rl_extra(path: Path) -> None:
    # The engine, bots, CLI and web app must work without numpy, gymnasium and pettingzoo.
    assert not third_party_imports(path) & RL_DEPENDENCIES


def test_the_env_is_an_edge_that_uses_the_engine() -> None:
    assert {"game", "expansions"} <= imported_packages(PACKAGE / "env" / "actions.py")
    assert {"numpy", "pettingzoo"} <= third_party_imports(PACKAGE / "env" / "aec.py")


def module_constants(path: Path) -> dict[str, str]:
    """Module-level UPPER_CASE names bound to a non-empty literal, with the literal's repr
    (empty containers are caches filled at run time, not constants)."""
    found: dict[str, str] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            names, value = [t.id for t in node.targets if isinstance(t, ast.Name)], node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names, value = [node.target.id], node.value
        else:
            continue
        try:
            literal = ast.literal_eval(value) if value is not None else None
        except ValueError:
            continue
        if literal is None or literal in ("", (), [], {}):
            continue
        for name in names:
            if name.lstrip("_").isupper():
                found[name.lstrip("_")] = repr(literal)
    return found


def test_a_constant_has_one_home() -> None:
    # A constant copied into a second module (the hint bot's move count in the CLI and the web,
    # the edge names in the web) drifts apart from its origin when one of them changes: import it.
    homes: dict[tuple[str, str], list[str]] = {}
    for name, path in MODULES.items():
        for constant, value in module_constants(path).items():
            homes.setdefault((constant, value), []).append(name)
    assert {key: names for key, names in homes.items() if len(names) > 1} == {}


def test_the_constant_check_sees_a_copy(tmp_path: Path) -> None:
    # Guards the test above against silently finding nothing.
    source = tmp_path / "m.py"
    source.write_text('HINT_COUNT = 3\n_RATES = {"inn": 2}\nCACHE: dict[int, int] = {}\nname = 1\n')
    assert module_constants(source) == {"HINT_COUNT": "3", "RATES": "{'inn': 2}"}


#: lines past which a module is likely to hold more than one job
LONG_MODULE = 700
#: what the docstring of a longer module says, followed by its reason
LONG_MODULE_REASON = "Longer than 700 lines because"


@pytest.mark.parametrize(
    "path", sorted((PACKAGE / "cli").glob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_a_cli_module_is_one_job_of_a_readable_length(path: Path) -> None:
    assert len(path.read_text(encoding="utf-8").splitlines()) <= LONG_MODULE


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_a_long_module_says_why_it_is_one_job(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if len(text.splitlines()) > LONG_MODULE:
        assert LONG_MODULE_REASON in (ast.get_docstring(ast.parse(text)) or "")


def test_map_data_knows_nothing_of_the_game() -> None:
    # A map describes (its squares, printed tiles and start squares); the game's set-up places.
    # Not even for a type: a map that is handed the game ends up putting tiles for it.
    assert "game" not in imported_packages(PACKAGE / "maps.py")
