"""The rules reference, ``docs/rules.md``, against the repository it documents.

A user has only the repository, so nothing in it may point at rules kept elsewhere; every numbered
decision must have a test named after it; and the tile and map tables in the reference must say
what the data files say (the tables are for reading, the data files are what the engine plays).
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from carcassonne.board import decode
from carcassonne.maps import load_map
from carcassonne.tiles import (
    CITY,
    EDGE_NAMES,
    FIELD,
    HALF_NAMES,
    ROAD,
    Segment,
    TileType,
    tile_set,
)

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
RULES_TEXT = RULES.read_text(encoding="utf-8")

#: the places the rules used to live, outside the repository, and absolute paths of the machine
#: they were written on; assembled from pieces so that this file does not match itself
OUTSIDE = [
    re.compile(re.escape(".." + "/shared")),
    re.compile(re.escape("shared" + "/rules")),
    re.compile(re.escape("RULES" + ".md")),  # case matters: docs/rules.md is the reference
    re.compile(re.escape("rules" + "/sources")),
    re.compile(re.escape("france-map" + ".md")),
    re.compile(r"(?<![\w/-])" + re.escape("tiles" + ".md")),
    re.compile(r"(?<![\w.])" + re.escape("/" + "work/")),
]

DECISION_HEADING = re.compile(r"^### (D(\d+)) — ", re.M)
SECTION_HEADING = re.compile(r"^#{2,3} (§\d+(?:\.\d+)?) ", re.M)


def tracked_files() -> list[Path]:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [ROOT / name for name in listed.decode().split("\0") if name]


def decision_blocks() -> dict[int, str]:
    """Decision number -> its text in §7, from its heading to the next heading."""
    starts = list(DECISION_HEADING.finditer(RULES_TEXT))
    blocks = {}
    for match, following in zip(starts, [*starts[1:], None], strict=True):
        end = following.start() if following else RULES_TEXT.index("\n## ", match.end())
        blocks[int(match.group(2))] = RULES_TEXT[match.start() : end]
    return blocks


def all_test_names() -> set[str]:
    names = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                names.add(node.name)
    return names


def decisions_named(test_name: str) -> set[int]:
    """``test_d11_d18_chip_…`` -> {11, 18}: the ``dN`` words of a test's name."""
    return {int(n) for n in re.findall(r"(?<=_)d(\d+)(?=_|$)", test_name)}


# ------------------------------------------------------------------- nothing points outside


def test_no_tracked_file_points_outside_the_repository() -> None:
    offenders = []
    this_file = Path(__file__).resolve()
    for path in tracked_files():
        if path.resolve() == this_file or not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if any(pattern.search(line) for pattern in OUTSIDE):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert offenders == []


def test_every_section_cited_in_the_repository_exists() -> None:
    sections = set(SECTION_HEADING.findall(RULES_TEXT))
    assert {"§0", "§1", "§2", "§3", "§4", "§5", "§6", "§7", "§8", "§8.1", "§9", "§10"} <= sections
    cited = set()
    for path in tracked_files():
        if path.suffix in (".py", ".md", ".json", ".js", ".html") and path.is_file():
            text = path.read_text(encoding="utf-8")
            cited |= set(re.findall(r"docs/rules\.md`?,? (§\d+(?:\.\d+)?)", text))
    assert cited, "nothing cites a section of docs/rules.md"
    assert cited - sections == set()


# ------------------------------------------------------------------------------- decisions


def test_every_decision_has_a_test_named_after_it() -> None:
    decisions = set(decision_blocks())
    assert len(decisions) >= 24
    named = Counter(n for name in all_test_names() for n in decisions_named(name))
    assert decisions - set(named) == set(), "decisions without a test_dN_… test"
    assert set(named) - decisions == set(), "tests named after a decision that does not exist"


def test_every_decision_says_why_where_and_which_tests() -> None:
    tests = all_test_names()
    for number, block in decision_blocks().items():
        for part in ("- **Why:** ", "- **Code:** ", "- **Tests:** "):
            assert part in block, f"D{number} has no {part.strip()}"
        listed = re.findall(r"`(test_\w+)`", block.split("- **Tests:** ", 1)[1])
        assert listed, f"D{number} lists no test"
        for name in listed:
            assert name in tests, f"D{number} lists {name}, which does not exist"
            assert number in decisions_named(name), f"D{number} lists {name}, named otherwise"


def test_every_decision_cited_in_the_repository_is_in_the_reference() -> None:
    decisions = set(decision_blocks())
    cited: dict[int, str] = {}
    for path in tracked_files():
        if path.suffix in (".py", ".md") and path.is_file():
            for n in re.findall(r"\bD(\d{1,2})\b", path.read_text(encoding="utf-8")):
                cited.setdefault(int(n), str(path.relative_to(ROOT)))
    assert {n: where for n, where in cited.items() if n not in decisions} == {}


# ------------------------------------------------------------------ tables against the data


def table_rows(section: str) -> list[list[str]]:
    """The cells of every row of the first table after the heading of ``section``."""
    start = re.search(rf"^#{{2,3}} {re.escape(section)} ", RULES_TEXT, re.M)
    assert start, section
    lines = RULES_TEXT[start.end() :].splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[first + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


Layout = tuple[frozenset[frozenset[str]], frozenset[frozenset[str]], frozenset[Any]]


def tile_named(set_name: str, name: str) -> TileType:
    (tile,) = [t for t in tile_set(set_name).tiles if t.name == name]
    return tile


def edges_of(tile: TileType) -> str:
    return " ".join("?CRF~"[e] for e in tile.edges)


def data_layout(tile: TileType) -> Layout:
    """(cities, roads, fields) of a tile's data, named as in the tables: edges and half-edges."""
    segments = tile.segments

    def edge_names(segment: Segment) -> frozenset[str]:
        return frozenset(EDGE_NAMES[e] for e in segment.edges)

    fields = frozenset(
        (
            frozenset(HALF_NAMES[h] for h in s.halves),
            frozenset(edge_names(segments[c]) for c in s.cities),
        )
        for s in segments
        if s.kind == FIELD
    )
    return (
        frozenset(edge_names(s) for s in segments if s.kind == CITY),
        frozenset(edge_names(s) for s in segments if s.kind == ROAD),
        fields,
    )


def table_layout(cities: str, roads: str, fields: str) -> Layout:
    """The same from a table row: cities ``{N W} one city``, roads ``W–E through`` or ``E, S and
    W end``, fields ``{EL WR}→N ; {ER SL}`` (bordering cities named by one edge, or ``city``)."""
    city_sets = [frozenset(group.split()) for group in re.findall(r"\{([^}]*)\}", cities)]
    road_sets = [frozenset(pair) for pair in re.findall(r"\b([NESW])–([NESW]) through", roads)]
    ends = re.findall(r"((?:\b[NESW]\b(?:,\s*|\s+and\s+)?)+)\s+ends?\b", roads)
    if "all four end" in roads:
        ends.append("N E S W")
    road_sets += [frozenset({edge}) for group in ends for edge in re.findall(r"[NESW]", group)]

    def city_of(name: str) -> frozenset[str]:
        if name == "city":
            (only,) = city_sets
            return only
        (city,) = [c for c in city_sets if name in c]
        return city

    field_sets = set()
    for halves, bordered in re.findall(r"\{([^}]*)\}(?:→([\w,]+))?", fields):
        named = set(HALF_NAMES) if halves == "all 8" else set(halves.split())
        cities_bordered = frozenset(city_of(n) for n in bordered.split(",") if n)
        field_sets.add((frozenset(named), cities_bordered))
    return frozenset(city_sets), frozenset(road_sets), frozenset(field_sets)


def test_base_tile_table_matches_the_tile_data() -> None:
    rows = table_rows("§8.1")
    assert len(rows) == 24
    for letter, copies, gardens, edges, cities, coat, roads, centre, fields in rows:
        tiles = [t for t in tile_set("base").tiles if t.name.split("-")[0] == letter]
        assert sum(t.count for t in tiles) == int(copies), letter
        assert sum(t.count for t in tiles if "garden" in t.centre) == int(gardens), letter
        for tile in tiles:
            assert edges_of(tile) == edges, tile.id
            assert sum(s.coat_of_arms for s in tile.segments) == int(coat), tile.id
            assert data_layout(tile) == table_layout(cities, roads, fields), tile.id
            assert ("monastery" in tile.centre) == (centre == "monastery"), tile.id


def test_river_tile_table_matches_the_tile_data() -> None:
    rows = table_rows("§8.2")
    assert len(rows) == 12
    fields_of = {}
    for name, copies, edges, features, fields in rows:
        letter = name.split()[0]
        tile = tile_named("river", letter)
        assert tile.count == int(copies), letter
        assert edges_of(tile) == edges, letter
        fields = fields_of[fields.split()[1]] if fields.startswith("as ") else fields
        fields_of[letter] = fields
        roads = " ; ".join(part for part in features.split(";") if "road" in part)
        assert data_layout(tile) == table_layout(features, roads, fields), letter
        assert ("garden" in tile.centre) == ("garden" in features), letter
        assert ("monastery" in tile.centre) == ("monastery" in features), letter


def test_d30_inns_cathedrals_tile_table_matches_the_tile_data() -> None:
    rows = table_rows("§8.6")
    assert [row[0] for row in rows] == [chr(c) for c in range(ord("A"), ord("Q") + 1)]
    assert sum(int(row[1]) for row in rows) == 18
    for letter, copies, edges, cities, coat, roads, marks, centre, fields in rows:
        tile = tile_named("ic", letter)
        assert tile.count == int(copies), letter
        assert edges_of(tile) == edges, letter
        assert sum(s.coat_of_arms for s in tile.segments) == int(coat), letter
        assert data_layout(tile) == table_layout(cities, roads, fields), letter
        assert list(tile.centre) == ([] if centre == "–" else [centre]), letter
        data_marks = {
            (mark, frozenset(EDGE_NAMES[e] for e in s.edges))
            for s in tile.segments
            for mark in s.marks
        }
        table_marks = {
            (mark, frozenset(where.split()))
            for mark, where in re.findall(r"(\w+): ([NESW ]+)", marks)
        }
        assert data_marks == table_marks, letter


def test_bookmaker_tile_table_matches_the_tile_data() -> None:
    rows = table_rows("§8.3")
    assert [row[0] for row in rows] == [f"{n:02}" for n in range(1, 11)]
    for name, edges, cities, coat, roads, fields, _rules_text in rows:
        tile = tile_named("bets", name)
        assert edges_of(tile) == edges, name
        assert sum(s.coat_of_arms for s in tile.segments) == int(coat), name
        assert data_layout(tile) == table_layout(cities, roads, fields), name


def test_traders_builders_tile_table_matches_the_tile_data() -> None:
    rows = table_rows("§8.7")
    assert [row[0] for row in rows] == [f"{n:02}" for n in range(1, 25)]
    for name, edges, cities, goods, roads, centre, fields in rows:
        tile = tile_named("traders_builders", name)
        assert tile.count == 1, name
        assert edges_of(tile) == edges, name
        assert data_layout(tile) == table_layout(cities, roads, fields), name
        marks = [m for s in tile.segments for m in s.marks]
        assert marks == ([] if goods == "–" else [goods.split()[0]]), name
        assert list(tile.centre) == ([] if centre == "–" else [centre]), name


def test_france_table_matches_the_map_data() -> None:
    france = load_map("france")
    expected = {}
    for pos, town in france.towns.items():
        role = "start square, town" if town.name in france.start_squares else "town"
        grape = (town.grape or "–").replace("-", " ")
        expected[town.name] = (role, grape, "({}, {})".format(*decode(pos)), "–")
    for pos, city in france.large_cities.items():
        sides = " ".join(EDGE_NAMES[side] for side in city.open_edges)
        expected[city.name] = ("large city", "–", "({}, {})".format(*decode(pos)), sides)
    assert {row[0]: tuple(row[1:]) for row in table_rows("§9")} == expected


# ------------------------------------------------------------------------- the web rules page


@pytest.mark.parametrize("language", ["en", "fr", "ro"])
def test_the_web_rules_page_names_the_reference(language: str) -> None:
    path = ROOT / "src" / "carcassonne" / "web" / "static" / "i18n" / f"{language}.json"
    texts = json.loads(path.read_text(encoding="utf-8"))
    assert "docs/rules.md" in texts["rules.intro"]
