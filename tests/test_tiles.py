"""Tile data (docs/rules.md §8, docs/tile-format.md): counts, layouts, rotation, validation.

The expected layouts below are transcribed from docs/rules.md §8 independently of the data files,
in a compact notation: cities ``"NW*"`` (edges, ``*`` = coat of arms), separate segments by spaces;
roads ``"WE"`` (through) or ``"E S W"`` (three ends); fields ``"EL.WR>N"`` (half-edges, ``>`` the
cities it borders, each named by one edge), separate fields by spaces.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from carcassonne.game import Game
from carcassonne.tiles import (
    CITY,
    EDGE_NAMES,
    FIELD,
    GARDEN,
    HALF_NAMES,
    MONASTERY,
    ROAD,
    TileDataError,
    TileType,
    load_tile_file,
    parse_tile_set,
    tile_by_id,
    tile_set,
)

ALL8 = "NL.NR.EL.ER.SL.SR.WL.WR"

# letter: (copies, garden copies, edges N E S W, cities, roads, centre, fields)
BASE: dict[str, tuple[int, int, str, str, str, str, str]] = {
    "A": (2, 0, "FFRF", "", "S", "monastery", ALL8),
    "B": (4, 0, "FFFF", "", "", "monastery", ALL8),
    "C": (1, 0, "CCCC", "NESW*", "", "", ""),
    "D": (4, 0, "CRFR", "N", "WE", "", "EL.WR>N ER.SL.SR.WL"),
    "E": (5, 1, "CFFF", "N", "", "", "EL.ER.SL.SR.WL.WR>N"),
    "F": (2, 0, "FCFC", "EW*", "", "", "NL.NR>E SL.SR>E"),
    "G": (1, 0, "FCFC", "EW", "", "", "NL.NR>E SL.SR>E"),
    "H": (3, 1, "CFCF", "N S", "", "", "EL.ER.WL.WR>N,S"),
    "I": (2, 1, "CFFC", "N W", "", "", "EL.ER.SL.SR>N,W"),
    "J": (3, 0, "CRRF", "N", "ES", "", "EL.SR.WL.WR>N ER.SL"),
    "K": (3, 0, "CFRR", "N", "SW", "", "EL.ER.SL.WR>N SR.WL"),
    "L": (3, 0, "CRRR", "N", "E S W", "", "EL.WR>N ER.SL SR.WL"),
    "M": (2, 1, "CFFC", "NW*", "", "", "EL.ER.SL.SR>N"),
    "N": (3, 1, "CFFC", "NW", "", "", "EL.ER.SL.SR>N"),
    "O": (2, 0, "CRRC", "NW*", "ES", "", "EL.SR>N ER.SL"),
    "P": (3, 0, "CRRC", "NW", "ES", "", "EL.SR>N ER.SL"),
    "Q": (1, 0, "CCFC", "NEW*", "", "", "SL.SR>N"),
    "R": (3, 1, "CCFC", "NEW", "", "", "SL.SR>N"),
    "S": (2, 0, "CCRC", "NEW*", "S", "", "SL>N SR>N"),
    "T": (1, 0, "CCRC", "NEW", "S", "", "SL>N SR>N"),
    "U": (8, 1, "FRFR", "", "WE", "", "WR.NL.NR.EL ER.SL.SR.WL"),
    "V": (9, 1, "FFRR", "", "WS", "", "WR.NL.NR.EL.ER.SL SR.WL"),
    "W": (4, 0, "FRRR", "", "E S W", "", "WR.NL.NR.EL ER.SL SR.WL"),
    "X": (1, 0, "RRRR", "", "N E S W", "", "WR.NL NR.EL ER.SL SR.WL"),
}

# letter: (edges, cities, roads, rivers, centre, fields); every river tile exists once.
RIVER: dict[str, tuple[str, str, str, str, str, str]] = {
    "A": ("RR~F", "", "NE", "S", "", "NR.EL NL.WR.WL.SR.SL.ER"),
    "B": ("C~R~", "N", "S", "EW", "", "EL>N WR>N ER.SL WL.SR"),
    "C": ("C~C~", "N S", "", "EW", "", "EL.WR>N ER.WL>S"),
    "D": ("F~F~", "", "", "EW", "", "WR.NL.NR.EL WL.SL.SR.ER"),
    "E": ("C~~C", "NW", "", "SE", "", "SR.EL>N ER.SL"),
    "F": ("F~F~", "", "", "EW", "", "WR.NL.NR.EL WL.SL.SR.ER"),
    "G": ("FF~~", "", "", "WS", "", "WR.NL.NR.EL.ER.SL WL.SR"),
    "H": ("F~R~", "", "S", "EW", "monastery", "WR.NL.NR.EL ER.SL WL.SR"),
    "I": ("RR~~", "", "NE", "WS", "", "WR.NL.ER.SL NR.EL WL.SR"),
    "J": ("FF~~", "", "", "WS", "garden", "WR.NL.NR.EL.ER.SL WL.SR"),
    "K": ("~R~R", "", "WE", "NS", "", "WR.NL NR.EL ER.SL WL.SR"),
    "L": ("~FFF", "", "", "N", "monastery", ALL8),
}

Layout = tuple[Any, ...]


def _edges(text: str) -> frozenset[int]:
    return frozenset(EDGE_NAMES.index(c) for c in text)


def expected_layout(cities: str, roads: str, fields: str, centre: str) -> Layout:
    city_sets = {frozenset(_edges(c.rstrip("*"))): c.endswith("*") for c in cities.split()}

    def city_of(edge: str) -> frozenset[int]:
        (found,) = [c for c in city_sets if EDGE_NAMES.index(edge) in c]
        return found

    field_set = set()
    for text in fields.split():
        halves, _, borders = text.partition(">")
        field_set.add(
            (
                frozenset(HALF_NAMES.index(h) for h in halves.split(".")),
                frozenset(city_of(e) for e in borders.split(",") if e),
            )
        )
    kinds = {"monastery": MONASTERY, "garden": GARDEN}
    return (
        frozenset((c, int(coat)) for c, coat in city_sets.items()),
        frozenset(_edges(r) for r in roads.split()),
        frozenset(field_set),
        tuple(kinds[c] for c in centre.split()),
    )


def actual_layout(tile: TileType) -> Layout:
    segments = tile.segments
    cities = frozenset((frozenset(s.edges), s.coat_of_arms) for s in segments if s.kind == CITY)
    fields = frozenset(
        (frozenset(s.halves), frozenset(frozenset(segments[c].edges) for c in s.cities))
        for s in segments
        if s.kind == FIELD
    )
    return (
        cities,
        frozenset(frozenset(s.edges) for s in segments if s.kind == ROAD),
        fields,
        tuple(s.kind for s in segments if s.kind in (MONASTERY, GARDEN)),
    )


def base_tiles(letter: str) -> list[TileType]:
    """The plain and garden entries of a base letter."""
    return [t for t in tile_set("base").tiles if t.name.split("-")[0] == letter]


# ------------------------------------------------------------------------------------ counts


def test_set_sizes_are_72_12_10() -> None:
    assert len(tile_set("base").copies()) == 72
    assert len(tile_set("river").copies()) == 12
    assert len(tile_set("bets").copies()) == 10


def test_base_letter_counts_match_the_transcription() -> None:
    counts = Counter(t.name.split("-")[0] for t in tile_set("base").copies())
    assert counts == {letter: row[0] for letter, row in BASE.items()}


def test_base_set_has_10_coats_of_arms_on_C_F_M_O_Q_S() -> None:
    coats: Counter[str] = Counter()
    for tile in tile_set("base").copies():
        coats[tile.name.split("-")[0]] += sum(s.coat_of_arms for s in tile.segments)
    assert +coats == {"C": 1, "F": 2, "M": 2, "O": 2, "Q": 1, "S": 2}


def test_d19_base_set_has_8_garden_copies_one_each_of_E_H_I_M_N_R_U_V() -> None:
    gardens = Counter(t.name for t in tile_set("base").copies() if "garden" in t.centre)
    assert gardens == {f"{letter}-garden": 1 for letter in "EHIMNRUV"}
    for letter, row in BASE.items():
        assert sum(t.count for t in base_tiles(letter) if "garden" in t.centre) == row[1]


def test_garden_copies_differ_from_the_plain_tile_only_by_the_garden() -> None:
    for letter in "EHIMNRUV":
        plain, garden = sorted(base_tiles(letter), key=lambda t: t.name)
        assert garden.name == f"{letter}-garden"
        assert garden.edges == plain.edges
        assert garden.segments[:-1] == plain.segments
        assert garden.segments[-1].kind == GARDEN


def test_start_and_last_tiles() -> None:
    assert tile_set("base").start_tile == "D"
    river = tile_set("river")
    assert (river.start_tile, river.last_tile) == ("A", "L")


def test_bets_tiles_are_provisional_and_have_a_betting_office() -> None:
    bets = tile_set("bets")
    assert bets.provisional
    assert all(t.has_office for t in bets.tiles)
    assert not tile_set("base").provisional and not tile_set("river").provisional


# ----------------------------------------------------------------------------------- layouts


@pytest.mark.parametrize("letter", sorted(BASE))
def test_base_tile_layout_matches_the_transcription(letter: str) -> None:
    _, _, edges, cities, roads, centre, fields = BASE[letter]
    for tile in base_tiles(letter):
        assert "".join("?CRF~"[e] for e in tile.edges) == edges
        expected = expected_layout(cities, roads, fields, centre)
        if "garden" in tile.centre:
            expected = (*expected[:3], (*expected[3], GARDEN))
        assert actual_layout(tile) == expected, tile.id


@pytest.mark.parametrize("letter", sorted(RIVER))
def test_river_tile_layout_matches_the_transcription(letter: str) -> None:
    edges, cities, roads, rivers, centre, fields = RIVER[letter]
    (tile,) = [t for t in tile_set("river").tiles if t.name == letter]
    assert tile.count == 1
    assert "".join("?CRF~"[e] for e in tile.edges) == edges
    assert {frozenset(r) for r in tile.rivers} == {_edges(rivers)}
    assert actual_layout(tile) == expected_layout(cities, roads, fields, centre)


# ---------------------------------------------------------------------------------- rotation


def test_rotating_clockwise_moves_edges_one_step_and_halves_two() -> None:
    for name in ("base", "river", "bets"):
        for tile in tile_set(name).tiles:
            upright = tile.orientations[0]
            for k, o in enumerate(tile.orientations):
                assert o.rotation == 90 * k
                for d in range(4):
                    assert o.edges[(d + k) % 4] == upright.edges[d]
                    assert o.edge_segment[(d + k) % 4] == upright.edge_segment[d]
                for h in range(8):
                    assert o.half_segment[(h + 2 * k) % 8] == upright.half_segment[h]


@pytest.mark.parametrize(
    ("tile_id", "distinct"),
    [
        ("base/A", 4),
        ("base/B", 1),
        ("base/C", 1),
        ("base/D", 4),
        ("base/F", 2),
        ("base/H", 2),
        ("base/U", 2),
        ("base/X", 1),
        ("river/D", 2),
        ("river/K", 2),
    ],
)
def test_d20_symmetric_tiles_have_fewer_distinct_orientations(tile_id: str, distinct: int) -> None:
    set_name, name = tile_id.split("/")
    (tile,) = [t for t in tile_set(set_name).tiles if t.name == name]
    assert len(tile.distinct_orientations) == distinct


# -------------------------------------------------------------------------------- validation

GOOD_D: dict[str, Any] = {
    "name": "D",
    "count": 4,
    "edges": "CRFR",
    "cities": [{"edges": ["N"], "coat_of_arms": 0}],
    "roads": [["W", "E"]],
    "fields": [
        {"halves": ["EL", "WR"], "cities": ["N"]},
        {"halves": ["ER", "SL", "SR", "WL"], "cities": []},
    ],
}


def tile_file(**changes: Any) -> dict[str, Any]:
    tile = copy.deepcopy(GOOD_D)
    tile.update(changes)
    return {"format": "carcassonne-tiles/1", "set": "test", "tiles": [tile]}


def test_the_reference_tile_is_valid() -> None:
    assert parse_tile_set(tile_file()).tiles[0].id == "test/D"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"fields": [{"halves": ["NL", "EL", "WR"]}, {"halves": ["ER", "SL", "SR", "WL"]}]},
            "tile test/D: field half-edge NL lies on city edge N",
        ),
        (
            {"fields": [{"halves": ["EL", "WR"]}, {"halves": ["EL", "ER", "SL", "SR", "WL"]}]},
            "tile test/D: half-edge EL is in two fields",
        ),
        ({"roads": []}, "tile test/D: road edge E has no road"),
        (
            {"cities": [], "fields": [{"halves": ["EL", "WR"]}, GOOD_D["fields"][1]]},
            "tile test/D: city edge N has no city",
        ),
        (
            {"fields": [{"halves": ["EL", "WR"], "cities": ["N"]}, {"halves": ["ER", "SL", "SR"]}]},
            "tile test/D: half-edge WL belongs to no field",
        ),
        ({"roads": [["W", "S"]]}, "tile test/D: road #1 uses edge S, which is 'F', not 'R'"),
        ({"roads": [["W", "E"], ["E"]]}, "tile test/D: edge E is in two segments"),
        (
            {"fields": [{"halves": ["EL", "WR"], "cities": ["S"]}, GOOD_D["fields"][1]]},
            "tile test/D: field #1 borders unknown city 'S'",
        ),
        ({"edges": "CRF"}, "tile test/D: 'edges' must be 4 letters"),
        ({"count": -1}, "tile test/D: 'count' must be a whole number"),
        ({"centre": ["tower"]}, "tile test/D: unknown centre feature 'tower'"),
        ({"colour": "red"}, "tile test/D: unknown keys ['colour']"),
        ({"cities": [{"edges": ["N"], "coat_of_arms": 3}]}, "tile test/D: city #1 has a bad"),
        ({"edges": "CRF~", "roads": [["E"]]}, "tile test/D: river edge W has no river"),
    ],
)
def test_a_malformed_tile_is_rejected_naming_the_tile_and_the_problem(
    changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(TileDataError) as caught:
        parse_tile_set(tile_file(**changes))
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"format": "other", "set": "test", "tiles": [GOOD_D]}, "not a tile file"),
        ({"format": "carcassonne-tiles/1", "tiles": [GOOD_D]}, "missing 'set'"),
        ({"format": "carcassonne-tiles/1", "set": "test", "tiles": []}, "non-empty list"),
        (
            {"format": "carcassonne-tiles/1", "set": "test", "tiles": [GOOD_D, GOOD_D]},
            "duplicate tile names",
        ),
        (
            {"format": "carcassonne-tiles/1", "set": "test", "start_tile": "Z", "tiles": [GOOD_D]},
            "start_tile 'Z' is not a tile of set test",
        ),
    ],
)
def test_a_malformed_tile_file_is_rejected(data: dict[str, Any], message: str) -> None:
    with pytest.raises(TileDataError, match=message):
        parse_tile_set(data, "test.json")


def test_an_unreadable_tile_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(TileDataError, match="broken.json: cannot read tile file"):
        load_tile_file(path)
    path.write_text(json.dumps(tile_file()), encoding="utf-8")
    assert load_tile_file(path).tiles[0].id == "test/D"


# A field walled in by cities touches no edge (ic/C, four Traders & Builders tiles): it is named
# by the location "inner", and a tile has at most one.
ENCLOSED_TILE: dict[str, Any] = {
    "name": "X",
    "count": 1,
    "edges": "FCCC",
    "cities": [{"edges": ["E", "W"], "coat_of_arms": 0}, {"edges": ["S"], "coat_of_arms": 0}],
    "roads": [],
    "fields": [{"halves": ["NL", "NR"], "cities": ["E"]}, {"halves": [], "cities": ["E", "S"]}],
}


def test_an_enclosed_field_is_named_inner_in_every_rotation() -> None:
    (tile,) = parse_tile_set({**tile_file(), "tiles": [ENCLOSED_TILE]}).tiles
    for orientation in tile.orientations:
        index = orientation.locations["inner"]
        field = orientation.segments[index]
        assert (field.kind, field.halves, field.location) == (FIELD, (), "inner")
        assert len(field.cities) == 2
        assert index not in orientation.half_segment


def test_a_tile_has_at_most_one_enclosed_field() -> None:
    fields = [*ENCLOSED_TILE["fields"], {"halves": [], "cities": ["S"]}]
    tile = {**ENCLOSED_TILE, "fields": fields}
    with pytest.raises(TileDataError, match="tile test/X: field #3 is a second enclosed field"):
        parse_tile_set({**tile_file(), "tiles": [tile]})


def test_a_games_draw_records_are_its_tiles_own() -> None:
    # Game.draws holds each tile's (id, discarded) pair, made once with the tile, not a tuple
    # per turn; a discarded draw (rare: a seed whose game discards one) is the second pair.
    game = Game(players=2, seed=3)
    while not game.is_over:
        game.apply(game.legal_actions()[-1])
    assert len(game.draws) == 71
    for entry in game.draws:
        tile = tile_by_id(entry[0])
        assert entry is tile.drawn[entry[1]]
        assert tile.drawn == ((tile.id, False), (tile.id, True))
