"""The expansion registry (``expansions/registry.py``) is the one place that lists the expansions.

Two kinds of test.  First, no other file of the package (nor the web client) names an
expansion's option field, flag or class, apart from the places allow-listed below with the
reason they must; so adding an expansion cannot forget a list, because there is none left to
forget.  Second, every list that is now derived from the registry is what it was when it was
written by hand: the flags, record keys, web option keys, action names, tile sets and set-up
words users and stored data see stay exactly as they were.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from dataclasses import fields
from pathlib import Path

import pytest

from carcassonne.cli.options import add_game_options, options_from_args
from carcassonne.cli.replay import _setup_text
from carcassonne.env.actions import needs_extended
from carcassonne.env.observations import tile_catalogue
from carcassonne.expansions import build_expansions, expansion_class
from carcassonne.expansions.registry import (
    EXPANSIONS,
    IN_HOOK_ORDER,
    VARIANTS,
    ExpansionSpec,
    meta,
    tile_sets,
)
from carcassonne.formats import record, record_writer
from carcassonne.formats.actions import ACTION_TYPES
from carcassonne.game import Game, GameOptions, GameSetupError
from carcassonne.options import DEFAULT_ON, SWITCHES, check_options
from carcassonne.tiles import tile_set
from carcassonne.web import tilegeom
from carcassonne.web.protocol import parse_options

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "carcassonne"
REGISTRY = PACKAGE / "expansions" / "registry.py"
STATIC_JS = PACKAGE / "web" / "static" / "js"

#: files that must name an expansion -> the one kind of mention they may make (``attribute``,
#: ``class``, ``list``...: the first word of what :func:`python_mentions` reports).  Each
#: expansion's own module may name it as it likes.
ALLOWED: dict[str, str] = {
    # the River's tiles are laid out in their order before the others are shuffled
    # (docs/rules.md §2): the game's set-up asks for them by option
    "game.py": "attribute",
    # these read one expansion's own state through the typed lookup game.expansion(Class): the
    # greedy bot's Bets, Map-Chips and Traders & Builders policies, the environment's
    # observation of bets, chips and goods, the terminal map's face-down chips
    "bots/bets_policy.py": "class",
    "bots/mapchips_policy.py": "class",
    "bots/traders_policy.py": "class",
    "env/observations.py": "class",
    "cli/render_map.py": "class",
}
#: the same for the web client
ALLOWED_JS: dict[str, str] = {
    # the rules page's chapters in the order of the rules text, the base game's among them
    # (goal, turn, map, variants): each chapter's text is in the message catalogue
    "rules.js": "list",
}


def _class_names() -> set[str]:
    return {spec.class_name for spec in EXPANSIONS}


def _ambiguous(spec: ExpansionSpec) -> set[str]:
    """Other published names spelt like the field (view key, tile set, figure type): a string
    equal to one of them may mean that, so only the field's other uses are checked."""
    return {spec.name, *spec.tile_sets, *expansion_class(spec).figure_types}


#: the expansions' names and tile sets: a literal list of two of them is a list of expansions
LISTED = {name for spec in EXPANSIONS for name in (spec.name, *spec.tile_sets)}


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of ``tree`` (prose, not code)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            found.add(id(first.value))
    return found


def python_mentions(source: str) -> list[str]:
    """What ``source`` (Python) names of an expansion: an option field read as an attribute,
    passed as a keyword or written as a string; a flag; a class.  Docstrings and comments are
    prose and not counted."""
    tree = ast.parse(source)
    prose = _docstrings(tree)
    field_names = {spec.field for spec in EXPANSIONS}
    strings = {spec.field for spec in EXPANSIONS if spec.field not in _ambiguous(spec)}
    flag = re.compile("|".join(re.escape(spec.flag) + r"(?![\w-])" for spec in EXPANSIONS))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in field_names:
            found.append(f"attribute .{node.attr} (line {node.lineno})")
        elif isinstance(node, ast.keyword) and node.arg in field_names:
            found.append(f"keyword {node.arg}= (line {node.value.lineno})")
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose
        ):
            if node.value in strings:
                found.append(f"string {node.value!r} (line {node.lineno})")
            found += [f"flag {m} (line {node.lineno})" for m in flag.findall(node.value)]
        elif isinstance(node, ast.Name) and node.id in _class_names():
            found.append(f"class {node.id} (line {node.lineno})")
        elif isinstance(node, ast.ImportFrom):
            found += [f"class {a.name} (import)" for a in node.names if a.name in _class_names()]
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            listed = {e.value for e in node.elts if isinstance(e, ast.Constant)} & LISTED
            if len(listed) > 1:
                found.append(f"list of {sorted(listed)} (line {node.lineno})")
    return found


def js_mentions(source: str) -> list[str]:
    """What ``source`` (the web client) names of an expansion: an option field (read from
    options, or anywhere when it is spelt like nothing else) or a flag (comments left out)."""
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", source, flags=re.S)
    found: list[str] = []
    for spec in EXPANSIONS:
        field = (
            rf"options\.{spec.field}\b" if spec.field in _ambiguous(spec) else rf"\b{spec.field}\b"
        )
        found += re.findall(rf"{field}|{re.escape(spec.flag)}(?![\w-])", code)
    for array in re.findall(r"\[[^\[\]]*\]", code):
        listed = set(re.findall(r"[\"'`]([\w-]+)[\"'`]", array)) & LISTED
        if len(listed) > 1:
            found.append(f"list of {sorted(listed)}")
    return found


def _own_module(path: Path) -> bool:
    return path.parent.name == "expansions" and path.stem in {s.module for s in EXPANSIONS}


PYTHON_FILES = sorted(
    path for path in PACKAGE.rglob("*.py") if path != REGISTRY and not _own_module(path)
)


def _not_allowed(mentions: list[str], allowed: str | None) -> list[str]:
    return [m for m in mentions if m.split()[0] != allowed]


@pytest.mark.parametrize("path", PYTHON_FILES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_no_other_module_names_an_expansion(path: Path) -> None:
    mentions = python_mentions(path.read_text(encoding="utf-8"))
    assert _not_allowed(mentions, ALLOWED.get(path.relative_to(PACKAGE).as_posix())) == []


@pytest.mark.parametrize("path", sorted(STATIC_JS.glob("*.js")), ids=lambda p: p.name)
def test_the_web_client_names_no_expansion(path: Path) -> None:
    mentions = js_mentions(path.read_text(encoding="utf-8"))
    assert _not_allowed(mentions, ALLOWED_JS.get(path.name)) == []


def test_the_checks_see_each_kind_of_mention() -> None:
    # Guards the two tests above against silently finding nothing.
    python = 'from .mapchips import MapChips\nif options.river: run("--traders-builders")\n'
    python += "GameOptions(bets=True)\nkey = 'inns_cathedrals'\nSETS = ('base', 'ic', 'bets')\n"
    assert len(python_mentions(python)) == 6
    assert python_mentions('"""--bets, options.river in prose"""\nVIEW = "bets"\n') == []
    js = "state.options.map_chips = false; send(state.options.abbot); x = 'inns_cathedrals';"
    assert len(js_mentions(js + " run('--river'); for (s of ['river', 'ic']) draw(s);")) == 5
    assert (
        js_mentions('// map_chips\nconst bets = view.expansions.bets || view["map-chips"];') == []
    )
    # Every allow-listed file still needs its place on the list.
    for name, kind in ALLOWED.items():
        assert kind in {m.split()[0] for m in python_mentions((PACKAGE / name).read_text())}, name
    for name, kind in ALLOWED_JS.items():
        assert kind in {m.split()[0] for m in js_mentions((STATIC_JS / name).read_text())}, name


def test_every_row_names_its_class_and_its_game_options_field() -> None:
    switches = {f.name for f in fields(GameOptions) if f.type in ("bool", bool)}
    assert switches == {*(s.field for s in EXPANSIONS), *(v.field for v in VARIANTS)}
    for spec in EXPANSIONS:
        cls = expansion_class(spec)
        assert cls.name == spec.name
        # the class shuffles its tile sets in; the River lays its own out (its start tile)
        assert cls.tile_sets == spec.tile_sets or (cls.provides_start_tile and not cls.tile_sets)
        for name in spec.tile_sets:
            assert tile_set(name).tiles
    assert sorted(spec.hook_position for spec in EXPANSIONS) == list(range(len(EXPANSIONS)))


def test_d29_d42_d43_build_expansions_keeps_the_hook_order() -> None:
    assert [spec.field for spec in IN_HOOK_ORDER] == [
        "river",
        "abbot",
        "inns_cathedrals",
        "map_chips",
        "bets",
        "traders_builders",
    ]
    everything = GameOptions(
        map="france", abbot=True, bets=True, map_chips=True, inns_cathedrals=True,
        traders_builders=True,
    )  # fmt: skip
    built = [type(e).__name__ for e in build_expansions(everything)]
    assert built == ["Abbot", "InnsCathedrals", "MapChips", "Bets", "TradersBuilders"]
    assert [type(e).__name__ for e in build_expansions(GameOptions(river=True))] == ["River"]
    inns = build_expansions(GameOptions(inns_cathedrals=True, inns=False))[0]
    assert Game(GameOptions(inns_cathedrals=True, inns=False, seed=1)).expansions[0].name == (
        inns.name
    )


def test_the_switches_and_the_record_keys_are_as_before() -> None:
    assert set(SWITCHES) == {
        "river",
        "abbot",
        "bets",
        "map_chips",
        "inns_cathedrals",
        "small_city_scores_2",
        "plain_unfinished_inns_cathedrals",
        "traders_builders",
    }
    assert DEFAULT_ON == ("farmers", "inns", "cathedrals")
    assert record.OPTIONAL_OPTIONS == {
        "inns_cathedrals": False,
        "small_city_scores_2": False,
        "farmers": True,
        "plain_unfinished_inns_cathedrals": False,
        "inns": True,
        "cathedrals": True,
        "traders_builders": False,
    }
    written = record_writer.options_to_json(GameOptions())
    assert list(written) == [
        *("players", "river", "abbot", "bets", "map", "map_chips"),
        *("meeples", "copies", "start_squares"),
    ]
    assert list(
        record_writer.options_to_json(GameOptions(inns_cathedrals=True, farmers=False))
    ) == [
        "inns_cathedrals",
        "farmers",
        *written,
    ]


def test_the_command_line_flags_are_as_before() -> None:
    parser = argparse.ArgumentParser()
    add_game_options(parser)
    flags = {
        flag: action.dest
        for action in parser._actions
        for flag in action.option_strings
        if action.dest not in {"help", "players", "map", "meeples", "copies", "start_squares"}
        and action.dest != "seed"
    }
    assert flags == {
        "--river": "river",
        "--abbot": "abbot",
        "--bets": "bets",
        "--inns-cathedrals": "inns_cathedrals",
        "--small-city-2": "small_city_scores_2",
        "--no-farmers": "farmers",
        "--plain-unfinished-inns-cathedrals": "plain_unfinished_inns_cathedrals",
        "--no-inns": "inns",
        "--no-cathedrals": "cathedrals",
        "--traders-builders": "traders_builders",
        "--map-chips": "map_chips",
    }
    args = parser.parse_args(["--abbot", "--no-farmers", "--map", "france", "--map-chips"])
    assert options_from_args(args) == GameOptions(
        abbot=True, farmers=False, map="france", map_chips=True
    )


def test_the_checks_keep_their_messages() -> None:
    refused = {
        "the River cannot be played on a map (docs/rules.md D13)": GameOptions(
            river=True, map="france"
        ),
        "map chips need a map (--map)": GameOptions(map_chips=True),
        "--no-inns needs Inns & Cathedrals (--inns-cathedrals)": GameOptions(inns=False),
        "--plain-unfinished-inns-cathedrals and --no-cathedrals need Inns & Cathedrals "
        "(--inns-cathedrals)": GameOptions(plain_unfinished_inns_cathedrals=True, cathedrals=False),
        "--plain-unfinished-inns-cathedrals has nothing to change with both --no-inns and "
        "--no-cathedrals": GameOptions(
            inns_cathedrals=True,
            plain_unfinished_inns_cathedrals=True,
            inns=False,
            cathedrals=False,
        ),  # fmt: skip
    }
    for message, options in refused.items():
        with pytest.raises(GameSetupError) as error:
            check_options(options)
        assert str(error.value) == message


def test_the_web_options_are_as_before() -> None:
    every = {
        "river": True,
        "abbot": True,
        "bets": True,
        "inns_cathedrals": True,
        "traders_builders": True,
        "small_city_scores_2": True,
        "farmers": False,
        "plain_unfinished_inns_cathedrals": True,
        "inns": False,
        "cathedrals": True,
    }
    options = parse_options(every, 3)
    assert {key: getattr(options, key) for key in every} == every
    assert parse_options({"map": "france", "map_chips": True}, 2).map_chips
    assert parse_options({}, 2) == GameOptions(players=2)


def test_the_action_names_are_as_before() -> None:
    assert {name: cls.__name__ for name, cls in ACTION_TYPES.items()} == {
        "place-tile": "PlaceTile",
        "place-figure": "PlaceFigure",
        "pass": "Pass",
        "recall-abbot": "RecallAbbot",
        "place-bet": "PlaceBet",
        "settle-bet": "SettleAgainst",
        "sell-wine": "SellWine",
    }


def test_the_tile_sets_are_as_before() -> None:
    assert tilegeom.TILE_SETS == ("base", "river", "bets", "ic", "traders_builders")
    first = ("base", "river", "bets")
    assert tile_sets(extended=False) == first
    assert tile_catalogue() == tuple(t.id for name in first for t in tile_set(name).tiles)
    assert tile_catalogue(extended=True)[len(tile_catalogue()) :] == tuple(
        t.id for name in ("ic", "traders_builders") for t in tile_set(name).tiles
    )
    assert [needs_extended(GameOptions(**{s.field: True, "map": "france"})) for s in EXPANSIONS
            if s.map_use != "never"] == [False, False, True, True, False]  # fmt: skip


def test_the_replays_set_up_line_is_as_before() -> None:
    options = GameOptions(
        players=3, river=True, abbot=True, bets=True, inns_cathedrals=True, traders_builders=True,
        small_city_scores_2=True, farmers=False, plain_unfinished_inns_cathedrals=True,
        cathedrals=False, seed=1,
    )  # fmt: skip
    assert _setup_text(Game(options)) == (
        "3 players, base game, river, abbot, bets, inns & cathedrals, traders & builders, "
        "small cities score 2, no farmers, unfinished inns and cathedrals score as plain ones, "
        "no cathedrals"
    )
    on_map = GameOptions(bets=True, map="france", map_chips=True, inns=True, seed=1)
    assert _setup_text(Game(on_map)) == "2 players, base game, bets, map france with map chips"


def test_meta_lists_the_expansions_and_variants_for_the_lobby() -> None:
    served = meta()
    assert [(e["option"], e["name"], e["label"]) for e in served["expansions"]] == [
        ("river", "river", "option.river"),
        ("abbot", "abbot", "option.abbot"),
        ("bets", "bets", "option.bets"),
        ("inns_cathedrals", "inns-cathedrals", "option.inns_cathedrals"),
        ("traders_builders", "traders_builders", "option.traders_builders"),
        ("map_chips", "map-chips", "option.map_chips"),
    ]
    on_map = {e["option"]: (e["needs_map"], e["never_on_map"]) for e in served["expansions"]}
    assert on_map["river"] == (False, True) and on_map["map_chips"] == (True, False)
    assert [(v["checkbox"], v["option"], v["default"], v["needs"]) for v in served["variants"]] == [
        ("small_city_scores_2", "small_city_scores_2", False, None),
        ("no_farmers", "farmers", True, None),
        ("plain_unfinished_inns_cathedrals", "plain_unfinished_inns_cathedrals", False,
         "inns_cathedrals"),
        ("no_inns", "inns", True, "inns_cathedrals"),
        ("no_cathedrals", "cathedrals", True, "inns_cathedrals"),
    ]  # fmt: skip
    json.dumps(served)  # served as JSON as it is


def test_every_label_is_translated() -> None:
    english = json.loads((PACKAGE / "web" / "static" / "i18n" / "en.json").read_text("utf-8"))
    for label in [*(s.label for s in EXPANSIONS), *(v.label for v in VARIANTS)]:
        assert label in english and f"{label}.hint" in english
