"""Maps of Carcassonne (docs/rules.md §4): map data, start squares, the border, large cities (D9).

Most situations use the invented map ``test-tiny`` (7×6, ``data/maps/test-tiny.json``)::

          x=0    1     2     3       4     5      6
    y=0   Dune   .     .     Castel  .     .      Fjord
    y=1   .      .     .     .       .     .      .
    y=2   .      Aval  .     Cime    .     Brume  .
    y=3…5 .      (Erg at (6, 5))

Start squares Aval, Brume, Cime; the large city Castel is open on S and W (its E side is a wall,
its N side the map border).  With start squares (Aval, Brume) the start tile base/D lies on Aval
(1, 2) at rotation 0 (N city, E and W road, S field) and the first stack tile on Brume (5, 2).

Tile layouts used (docs/rules.md §8.1): U = F R F R (road W–E); B = monastery, all field;
E = city N; G = F C F C, one city W–E (rotation 90: N–S); W = F R R R, roads ending at a
crossroads.
"""

from __future__ import annotations

import copy
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from carcassonne import Game, GameSetupError, PlaceFigure, PlaceTile
from carcassonne.board import encode
from carcassonne.maps import MAX_MAP_FILE_BYTES, MapDataError, bundled_maps, load_map, parse_map
from carcassonne.tiles import tile_set
from scenario import Step, assert_refused, paid, play, score_events

TINY = "test-tiny"


def map_game(
    steps: list[Step],
    *,
    second: str = "base/B",
    then: tuple[str, ...] = (),
    starts: tuple[str, str] = ("Aval", "Brume"),
    game_map: str = TINY,
    **options: Any,
) -> Game:
    """A map game whose second start square gets ``second`` and whose turns are ``steps``."""
    stack = (second, *(step[0] for step in steps), *then)
    game = Game(players=2, map=game_map, start_squares=starts, stack=stack, **options)
    return play(game, steps)


def legal_squares(game: Game) -> set[tuple[int, int]]:
    return {(a.x, a.y) for a in game.legal_actions() if isinstance(a, PlaceTile)}


# ------------------------------------------------------------------------------ setup (§4)


def test_d7_start_tile_on_first_start_square_and_top_tile_on_second_both_rotation_0() -> None:
    game = Game(players=2, map=TINY, start_squares=("Brume", "Aval"), stack=("base/V", "base/U"))
    assert game.used_start_squares == ("Brume", "Aval")
    first, second = game.board[encode(5, 2)], game.board[encode(1, 2)]
    assert (first.tile.id, first.orientation.rotation) == ("base/D", 0)
    assert (second.tile.id, second.orientation.rotation) == ("base/V", 0)
    assert game.current_tile.id == "base/U"  # the second start tile left the stack


def test_d6_random_start_squares_are_two_distinct_map_start_squares() -> None:
    seen = set()
    for seed in range(20):
        game = Game(players=2, map="france", seed=seed)
        first, second = game.used_start_squares
        assert first != second
        assert {first, second} <= {"Nancy", "Le Mans", "Limoges"}
        seen.add(frozenset(game.used_start_squares))
    assert len(seen) == 3  # every pair gets drawn


@pytest.mark.parametrize(
    ("starts", "bad"), [(("Aval", "Castel"), "Castel"), (("Dune", "Aval"), "Dune")]
)
def test_d6_start_square_must_be_one_of_the_map_start_squares(starts: tuple, bad: str) -> None:
    with pytest.raises(GameSetupError, match=bad):
        Game(players=2, map=TINY, start_squares=starts)


def test_two_different_start_squares_are_needed() -> None:
    with pytest.raises(GameSetupError, match="must differ"):
        Game(players=2, map=TINY, start_squares=("Aval", "Aval"))


def test_map_games_give_9_meeples_unless_told_otherwise() -> None:
    assert Game(players=3, map="france", seed=1).supply[0]["meeple"] == 9
    assert Game(players=3, map="france", seed=1, meeples=7).supply[0]["meeple"] == 7


def test_d8_a_map_game_draws_the_base_and_bookmaker_tiles_until_the_stack_is_empty() -> None:
    # 72 base + 10 bookmaker tiles = 82: one on each start square, 80 drawn during the game.
    game = Game(players=2, map="france", bets=True, seed=4)
    on_map = [game.board[game.map.start_squares[name]].tile.id for name in game.used_start_squares]
    to_draw = [tile.id for tile in (game.current_tile, *game.stack) if tile is not None]
    expected = Counter(t.id for t in (*tile_set("base").copies(), *tile_set("bets").copies()))
    assert len(to_draw) == 80
    assert Counter(to_draw) + Counter(on_map) == expected
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    assert len(game.draws) == 80 and game.stack == []


def test_d8_copies_add_whole_base_sets_to_a_map_game() -> None:
    game = Game(players=2, map="france", copies=2, seed=4)
    to_draw = Counter(tile.id for tile in (game.current_tile, *game.stack) if tile is not None)
    on_map = Counter(
        game.board[game.map.start_squares[name]].tile.id for name in game.used_start_squares
    )
    assert to_draw + on_map == Counter(t.id for t in tile_set("base").copies() * 2)


def test_d13_the_river_is_not_played_on_a_map() -> None:
    with pytest.raises(GameSetupError, match="D13"):
        Game(players=2, map="france", river=True)


# ---------------------------------------------------------------------------- the border


def test_placing_a_tile_off_the_map_is_illegal() -> None:
    # base/U on (0, 2) puts the road's west end on the map's west border; (-1, 2) is off it.
    game = map_game([("base/U", 0, 2, 0, None)], then=("base/U",))
    assert (-1, 2) not in legal_squares(game)
    assert all(0 <= x < 7 and 0 <= y < 6 for x, y in legal_squares(game))
    assert_refused(game, PlaceTile(-1, 2, 0), r"\(-1, 2\) is not on the test-tiny board")
    assert_refused(game, PlaceTile(1, -1, 0), "not on the test-tiny board")


def test_road_from_a_crossroads_to_the_border_is_complete_and_scores_3() -> None:
    # U on (0, 2): road from the border through the start tile (1, 2) to the crossroads of W on
    # (2, 2): 3 tiles, complete when W closes its east end.
    game = map_game(
        [("base/U", 0, 2, 0, ("meeple", "E")), ("base/W", 2, 2, 0, None)], then=("base/U",)
    )
    road = game.feature_at(0, 2, "E")
    assert road.complete and road.open == 0
    assert paid(game, "completed") == [("road", {0: 3})]
    assert game.supply[0]["meeple"] == 9  # returned


def test_road_with_one_end_on_the_border_is_not_complete_yet() -> None:
    game = map_game([("base/U", 0, 2, 0, ("meeple", "E"))], then=("base/U",))
    road = game.feature_at(1, 2, "E")
    assert road.open == 1 and not road.complete  # the east end at (2, 2) is still open
    assert paid(game) == []


def test_city_closed_by_the_border_completes_and_scores_8() -> None:
    # G at rotation 90 is a city running N-S: on (1, 1) it extends the start tile's city north;
    # F (the same with a coat of arms) on (1, 0) has its north side on the map border, which
    # closes the city: 3 tiles + 1 coat of arms, 2 points each.
    game = map_game(
        [("base/G", 1, 1, 90, ("meeple", "N")), ("base/F", 1, 0, 90, None)], then=("base/U",)
    )
    city = game.feature_at(1, 0, "S")
    assert city.complete
    assert paid(game, "completed") == [("city", {0: 8})]
    (event,) = score_events(game, "completed")
    assert event.squares == [(1, 0), (1, 1), (1, 2)]


def test_fields_may_touch_the_border() -> None:
    # base/B (all field) on the map's corner-adjacent edge square fits with fields on the border.
    game = map_game([("base/U", 0, 2, 0, None), ("base/B", 0, 1, 0, None)], then=("base/U",))
    assert game.board[encode(0, 1)].tile.id == "base/B"


# --------------------------------------------------------------------- large cities (D9)


def test_d9_large_city_alone_does_not_anchor_a_placement() -> None:
    # At the start only the start tiles anchor: the squares around Castel that touch nothing
    # else are not legal even for a tile with a matching city edge.
    game = map_game([], then=("base/E",))
    squares = legal_squares(game)
    assert not squares & {(2, 0), (3, 1), (4, 0)}
    assert_refused(game, PlaceTile(3, 1, 0), "does not touch a placed tile")


def test_d9_large_city_anchors_through_open_edges_once_reached_never_through_walls() -> None:
    # E (rot 180) on (1, 1) closes the start tile's city; B on (1, 0); E (rot 90) on (2, 0)
    # reaches Castel's open W edge.  Now (3, 1), below Castel's open S edge and touching no
    # played tile, is legal; (4, 0), beside Castel's east wall, is not.
    game = map_game(
        [("base/E", 1, 1, 180, None), ("base/B", 1, 0, 0, None), ("base/E", 2, 0, 90, None)],
        then=("base/E",),
    )
    squares = legal_squares(game)
    assert (3, 1) in squares
    assert (4, 0) not in squares
    assert PlaceTile(3, 1, 0) in game.legal_actions()  # its N city meets Castel's S edge
    assert PlaceTile(3, 1, 90) not in game.legal_actions()  # a field may not meet it


def test_tile_touching_only_a_large_city_wall_does_not_reach_it() -> None:
    # From Brume, U on (4, 2) and B on (4, 1); then B on (4, 0), against Castel's east wall
    # (walls accept any edge).  Castel stays unreached: (2, 0), beside its open W edge and
    # touching no played tile, is still not legal for E at rotation 90 (city E).
    game = map_game(
        [("base/U", 4, 2, 0, None), ("base/B", 4, 1, 0, None), ("base/B", 4, 0, 0, None)],
        second="base/U",
        then=("base/E",),
    )
    assert (2, 0) not in legal_squares(game)
    assert PlaceTile(2, 0, 90) not in game.legal_actions()


def _castel_steps(castel_figure: Any = ("meeple", "E"), monk: Any = None) -> list[Step]:
    # U on (2, 2) continues the start tile's road; B on (2, 1); E (rot 90) on (2, 0) joins
    # Castel's W edge; E (rot 0) on (3, 1) closes its S edge.
    return [
        ("base/U", 2, 2, 0, None),
        ("base/B", 2, 1, 0, monk),
        ("base/E", 2, 0, 90, castel_figure),
        ("base/E", 3, 1, 0, None),
    ]


def test_city_joined_to_a_large_city_can_be_claimed() -> None:
    game = map_game(_castel_steps()[:2], then=("base/E",))
    game.apply(PlaceTile(2, 0, 90))
    assert game.feature_at(2, 0, "E") is game.seg_feature[game.board[encode(3, 0)].base]
    assert PlaceFigure("meeple", "E") in game.legal_actions()


def test_d9_completing_a_large_city_counts_its_square_as_one_tile() -> None:
    game = map_game(_castel_steps(), then=("base/U",))
    (event,) = score_events(game, "completed")
    assert (event.source, event.points, event.tiles) == ("city", {0: 6}, 3)
    assert event.squares == [(2, 0), (3, 0), (3, 1)]


def test_d9_nobody_can_stand_on_a_large_city_square() -> None:
    game = map_game([], then=("base/E",))
    assert encode(3, 0) not in {game.seg_pos[s] for s in game.figures}
    assert_refused(game, PlaceTile(3, 0, 0), "already occupied")


def test_d15_large_city_square_counts_around_a_monastery() -> None:
    # The monastery on (2, 1) ends the game with 5 of 8 neighbours placed, Castel (3, 0) among
    # them: 1 + 5 = 6 points (D9: the large city is a pre-placed tile).
    game = map_game(_castel_steps(monk=("meeple", "monastery")))
    assert game.is_over
    final = [(e.source, e.points) for e in score_events(game, "final") if e.points]
    assert final == [("monastery", {1: 6})]


def test_d15_a_monastery_on_the_map_edge_never_completes() -> None:
    # base/B monasteries (all field) on Brume (5, 2), (5, 1) and (5, 0) on the top row, then
    # every on-map square around (5, 0): B (4, 1), E with its city on the border at (4, 0) and
    # (6, 0), V at 270 (road E to the border, road S) at (6, 1).  5 neighbours, 3 off the map.
    game = map_game(
        [
            ("base/B", 5, 1, 0, None),
            ("base/B", 5, 0, 0, ("meeple", "monastery")),
            ("base/B", 4, 1, 0, None),
            ("base/E", 4, 0, 0, None),
            ("base/E", 6, 0, 0, None),
            ("base/V", 6, 1, 270, None),
        ]
    )
    assert game.is_over
    assert game.ring_count(encode(5, 0)) == 5
    assert not game.feature_at(5, 0, "monastery").complete
    assert paid(game, "completed") == []  # the two 1-tile cities on the border have no knight
    assert paid(game, "final") == [("monastery", {1: 6})]  # 1 + 5 neighbours, never 9


# ------------------------------------------------------------------------------ map data


def test_bundled_maps_load_and_france_is_marked_approximate() -> None:
    assert {"france", TINY} <= set(bundled_maps())
    france = load_map("france")
    assert france.approximate and "reconstruction" in france.note
    assert (france.width, france.height) == (16, 15)
    assert len(france.geometry.squares) == 16 * 15 - 6
    assert list(france.start_squares) == ["Nancy", "Le Mans", "Limoges"]
    assert france.towns[encode(13, 4)] == ("Nancy", "orange")
    assert len(france.towns) == 21
    assert {t.grape for t in france.towns.values()} == {"purple", "light-blue", "orange"}
    paris = france.large_cities[encode(8, 3)]
    assert paris.open_edges == (0, 1, 2, 3)
    assert france.large_cities[encode(5, 10)].open_edges == (0, 1, 2)  # Bordeaux: N E S


def test_france_map_grape_colours_and_places() -> None:
    france = load_map("france")
    by_name = {town.name: (pos, town.grape) for pos, town in france.towns.items()}
    assert by_name["Limoges"] == (encode(7, 9), "purple")
    assert by_name["La Rochelle"] == (encode(4, 8), "orange")
    grapes = [t.grape for t in france.towns.values()]
    assert (grapes.count("purple"), grapes.count("light-blue"), grapes.count("orange")) == (7, 7, 7)


def test_map_can_be_loaded_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(_valid()), encoding="utf-8")
    game = Game(players=2, map=str(path), start_squares=("A", "B"), seed=1)
    assert game.map.name == "mine"
    assert set(game.used_start_squares) == {"A", "B"}


def test_map_file_is_loaded_once_until_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(_valid()), encoding="utf-8")
    first = load_map(str(path))
    assert load_map(str(path)) is first
    changed = _valid() | {"title": "Mine, corrected"}
    path.write_text(json.dumps(changed), encoding="utf-8")
    os.utime(path, ns=(path.stat().st_mtime_ns + 10**9,) * 2)
    assert load_map(str(path)).title == "Mine, corrected"


def test_missing_map_file_is_a_setup_error(tmp_path: Path) -> None:
    with pytest.raises(MapDataError, match="cannot read map file"):
        load_map(str(tmp_path / "nowhere.json"))


def test_a_map_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    # valid JSON, one byte over the limit: refused for its size, not for its content
    path.write_text('"' + "x" * (MAX_MAP_FILE_BYTES - 1) + '"', encoding="utf-8")
    with pytest.raises(
        MapDataError,
        match=f"huge.json: cannot read map file: larger than {MAX_MAP_FILE_BYTES} bytes",
    ):
        load_map(str(path))


def test_unknown_map_name_is_a_setup_error() -> None:
    with pytest.raises(GameSetupError, match="unknown map 'atlantis'.*france"):
        Game(players=2, map="atlantis")


def _valid() -> dict[str, Any]:
    return {
        "format": "carcassonne-map/1",
        "name": "mine",
        "size": {"width": 5, "height": 4},
        "start_squares": ["A", "B"],
        "large_cities": [{"name": "Big", "x": 2, "y": 0, "open": "S"}],
        "towns": [
            {"name": "A", "x": 0, "y": 2, "grape": "purple"},
            {"name": "B", "x": 4, "y": 2, "grape": "orange"},
        ],
    }


def _broken(path: str, value: Any) -> dict[str, Any]:
    """The valid map with the value at ``path`` (keys and list indices, dot-separated) replaced."""
    data = copy.deepcopy(_valid())
    *parents, last = path.split(".")
    node: Any = data
    for key in parents:
        node = node[int(key)] if key.isdigit() else node[key]
    node[int(last) if last.isdigit() else last] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("format", "tiles", "not a map file"),
        ("size.width", 0, "size: width must be a whole number"),
        ("towns.0.x", 9, r"town A: square \(9, 2\) is off the 5×4 map"),
        ("towns.0.y", -1, r"town A: square \(0, -1\) is off"),
        (
            "towns.1",
            {"name": "B", "x": 2, "y": 0},
            r"town B: square \(2, 0\) is already used by large",
        ),
        ("towns.0.grape", "red", "town A: unknown grape 'red'"),
        ("large_cities.0.open", "", "large city Big: 'open' must list its open edges"),
        ("large_cities.0.open", "SS", "large city Big: 'open' repeats an edge"),
        ("large_cities.0.open", "NS", r"large city Big: open edge N faces \(2, -1\)"),
        ("start_squares", ["A", "Big"], "start square 'Big': is not the name of a town"),
        ("start_squares", ["A"], "at least two"),
        ("towns.1.name", "A", "town A: the name 'A' is used twice"),
        ("towns.0.colour", "purple", r"town A: unknown keys \['colour'\]"),
        ("chips_per_grape", {"3": 1}, "chips_per_grape: '3': 1 is not a chip value"),
    ],
)
def test_bad_map_data_is_refused_naming_the_place(path: str, value: Any, message: str) -> None:
    with pytest.raises(MapDataError, match=message):
        parse_map(_broken(path, value), "mine.json")


def test_open_edge_facing_another_large_city_is_refused() -> None:
    data = _valid()
    data["large_cities"].append({"name": "Twin", "x": 2, "y": 1, "open": "S"})
    with pytest.raises(MapDataError, match=r"large city Big: open edge S faces \(2, 1\)"):
        parse_map(data, "mine.json")


def test_unplayable_squares_are_off_the_map_and_close_features() -> None:
    data = _valid()
    data["unplayable"] = [{"x": 1, "y": 2}]
    game_map = parse_map(data, "mine.json")
    assert encode(1, 2) not in game_map.geometry.squares
    assert game_map.border_sides(encode(0, 2)) == (1, 3)  # E faces the hole, W the edge
    assert 2 not in game_map.border_sides(encode(2, 1))  # a large city is not the border


def test_d7_the_map_describes_its_printed_tiles_and_the_set_up_puts_them() -> None:
    # The map is data: it says which printed tiles stand where; the game puts them, and the two
    # start tiles on the start squares it uses (the start tile first, then the stack's top).
    france = load_map("france")
    printed = france.printed_tiles()
    assert [pos for pos, _ in printed] == [encode(p.x, p.y) for p in france.geometry.printed]
    game = Game(map="france", seed=11, players=2)
    for pos, tile in printed:
        assert game.board[pos].tile is tile and game.board[pos].seat is None
    first, second = (france.start_squares[name] for name in game.used_start_squares)
    assert game.board[first].tile is game.start_tile
    assert game.board[first].turn == game.board[second].turn == 0
    assert len(game.board) == len(printed) + 2
