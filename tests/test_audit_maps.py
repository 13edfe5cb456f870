"""Audit of the map rules (docs/rules.md §4, D9) and Map-Chips France (§5) against the original text
(the French Map-Chips France text listed in docs/rules.md §10), with the Bets where the two meet.

Besides ``test-tiny`` (drawn in ``test_maps.py``) two small maps made here put start squares and
large cities where the bundled maps do not:

- ``EDGE`` (5×4): start squares Nord (2, 0) on the north border and Ouest (0, 2) on the west
  border; no large city.
- ``TWIN`` (5×3): large cities Gauche (1, 0), open only E, and Droite (3, 0), open only W, both
  facing (2, 0); start squares Centre (2, 2) and Coin (0, 1).

The start tile base/D lies at rotation 0: city N, road E–W, field S.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from carcassonne import PASS, Game, PlaceFigure, PlaceTile
from carcassonne.board import encode
from carcassonne.expansions.bets import Bets, PlaceBet
from carcassonne.expansions.mapchips import EXPORT, TOWN, SellWine, eligible_squares
from carcassonne.maps import load_map
from scenario import assert_refused, paid, play, score_events
from test_bets import bet_payouts
from test_mapchips import P1, P2, _with_chips, offered
from test_mapchips import turn as place
from test_maps import legal_squares, map_game

EDGE: dict[str, Any] = {
    "format": "carcassonne-map/1",
    "name": "edge",
    "size": {"width": 5, "height": 4},
    "start_squares": ["Nord", "Ouest"],
    "towns": [{"name": "Nord", "x": 2, "y": 0}, {"name": "Ouest", "x": 0, "y": 2}],
}
TWIN: dict[str, Any] = {
    "format": "carcassonne-map/1",
    "name": "twin",
    "size": {"width": 5, "height": 3},
    "start_squares": ["Centre", "Coin"],
    "large_cities": [
        {"name": "Gauche", "x": 1, "y": 0, "open": "E"},
        {"name": "Droite", "x": 3, "y": 0, "open": "W"},
    ],
    "towns": [{"name": "Centre", "x": 2, "y": 2}, {"name": "Coin", "x": 0, "y": 1}],
}


def custom_map(tmp_path: Path, data: dict[str, Any]) -> str:
    path = tmp_path / f"{data['name']}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


# ------------------------------------------------------------------- start squares (§4, D7)


def test_d26_start_tile_city_closed_by_the_border_is_complete_for_farmers(tmp_path: Path) -> None:
    """Regression: base/D on Nord (2, 0) has its city's only edge on the map border, so the city
    is complete before the first turn.  A farmer in the field along it (straight road on (3, 0),
    field north of the road) scores 3 for it at the end."""
    game_map = custom_map(tmp_path, EDGE)
    game = Game(players=2, map=game_map, start_squares=("Nord", "Ouest"), stack=("base/B",) * 2)
    assert game.feature_at(2, 0, "N").complete
    game = Game(
        players=2, map=game_map, start_squares=("Nord", "Ouest"), stack=("base/B", "base/U")
    )
    play(game, [("base/U", 3, 0, 0, ("meeple", "NL"))])
    assert game.is_over
    (field,) = [e for e in score_events(game, "final") if e.source == "field"]
    assert (field.points, field.detail["completed_cities"]) == ({0: 3}, 1)
    assert game.scores == [3, 0]


def test_d26_second_start_tile_city_closed_by_the_border_is_complete(tmp_path: Path) -> None:
    """The random land tile on the second start square (here base/E on Nord) is closed the same
    way; base/D on Ouest (0, 2) sends its road into the west border."""
    game_map = custom_map(tmp_path, EDGE)
    game = Game(
        players=2, map=game_map, start_squares=("Ouest", "Nord"), stack=("base/E", "base/W")
    )
    assert game.board[encode(2, 0)].tile.id == "base/E"
    assert game.feature_at(2, 0, "N").complete
    road = game.feature_at(0, 2, "E")
    assert (road.open, road.complete) == (1, False)


def test_road_of_a_start_tile_ending_at_the_border_scores_with_the_next_crossroads(
    tmp_path: Path,
) -> None:
    """base/D on Ouest (0, 2): its road ends on the west border; a crossroads on (1, 2) ends it
    on the other side: a 2-tile road, 2 points."""
    game = Game(
        players=2,
        map=custom_map(tmp_path, EDGE),
        start_squares=("Ouest", "Nord"),
        stack=("base/B", "base/W", "base/U"),
    )
    play(game, [("base/W", 1, 2, 0, ("meeple", "W"))])
    assert paid(game, "completed") == [("road", {0: 2})]


def test_d25_used_start_square_is_never_covered_by_a_turn() -> None:
    """Its start tile lies there from the setup, placed by nobody: no turn can cover that town
    (D25), while the unused start square Cime can be (test_mapchips covers its sale)."""
    game = map_game([], then=("base/U",), map_chips=True)
    assert_refused(game, PlaceTile(1, 2, 0), "already occupied")
    towns = {t["name"]: t["covered"] for t in game.view(0)["expansions"]["map-chips"]["towns"]}
    assert (towns["Aval"], towns["Brume"], towns["Cime"]) == (True, True, False)


# -------------------------------------------------------------------- large cities (D9)


def _twin(tmp_path: Path, stack: tuple[str, ...], **options: Any) -> Game:
    """TWIN with base/D on Centre (2, 2) and the first stack tile on Coin (0, 1)."""
    return Game(
        players=2,
        map=custom_map(tmp_path, TWIN),
        start_squares=("Centre", "Coin"),
        stack=stack,
        **options,
    )


def test_d9_played_city_joining_two_large_cities_scores_all_three_squares(tmp_path: Path) -> None:
    """base/E (turned 180) on (2, 1) closes the start tile's city; base/G (city W–E) on (2, 0)
    meets Gauche's open E edge and Droite's open W edge: one city of 3 squares, complete, 6."""
    game = _twin(tmp_path, ("base/B", "base/E", "base/G", "base/U"))
    play(game, [("base/E", 2, 1, 180, None), ("base/G", 2, 0, 0, ("meeple", "E"))])
    city = game.feature_at(2, 0, "W")
    assert city.complete
    (event,) = [e for e in score_events(game, "completed") if e.points]
    assert (event.source, event.points, event.tiles) == ("city", {1: 6}, 3)
    assert event.squares == [(1, 0), (2, 0), (3, 0)]


def test_city_closed_by_the_border_and_a_large_city_wall_is_complete_alone(
    tmp_path: Path,
) -> None:
    """base/N turned 90 (city N–E) on the corner (0, 0): its N edge is on the map border, its E
    edge against Gauche's west wall.  Both close it: a 1-tile city, 2 points."""
    game = _twin(tmp_path, ("base/B", "base/N", "base/U"))
    play(game, [("base/N", 0, 0, 90, ("meeple", "N"))])
    assert paid(game, "completed") == [("city", {0: 2})]
    assert not game.feature_at(0, 0, "N").segments[1:]  # the wall merged nothing


def test_large_city_touched_only_diagonally_is_not_reached() -> None:
    """test-tiny: from Brume, base/U on (4, 2) and base/B on (4, 1), diagonal to Castel (3, 0).
    Castel is still unreached: (2, 0), by its open W edge, touches no played tile."""
    game = map_game(
        [("base/U", 4, 2, 0, None), ("base/B", 4, 1, 0, None)], second="base/U", then=("base/E",)
    )
    assert (2, 0) not in legal_squares(game)
    assert (3, 1) in legal_squares(game)  # beside (4, 1), under Castel's open S edge
    assert PlaceTile(3, 1, 0) in game.legal_actions()  # city N meets Castel
    assert PlaceTile(3, 1, 180) not in game.legal_actions()  # a field may not


# ---------------------------------------------------------------------- bets on a map


def test_bet_on_a_city_with_a_large_city_counts_its_square_as_one_tile() -> None:
    """test-tiny: bets/03 turned 180 (city E, road W) on (2, 0) meets Castel's open W edge and is
    bet on; base/E on (3, 1) closes Castel's S edge: Castel, (2, 0), (3, 1) = 3 tiles."""
    game = map_game(
        [("base/U", 2, 2, 0, None), ("base/B", 2, 1, 0, None)],
        then=("bets/03", "base/E", "base/U"),
        bets=True,
    )
    game.apply(PlaceTile(2, 0, 180))
    game.apply(PASS)
    game.apply(PlaceBet("3/5"))
    game.apply(PlaceBet("4"))
    place(game, 3, 1, 0)
    assert bet_payouts(game) == [(0, "3/5", 3), (1, "4", 0)]
    assert [e.detail["tiles"] for e in score_events(game) if e.source == "bet"] == [3, 3]


def test_bookmaker_road_straight_into_the_border_is_complete_and_gets_no_bets() -> None:
    """test-tiny: base/E closes the start tile's city; bets/07 on (0, 1) runs its road from the
    office into the west border: a complete 1-tile road (1 point), so no step 4."""
    game = map_game(
        [("base/E", 1, 1, 180, None), ("bets/07", 0, 1, 0, ("meeple", "W"))],
        then=("base/U",),
        bets=True,
    )
    assert game.feature_at(0, 1, "W").complete
    assert paid(game, "completed") == [("road", {1: 1})]
    assert (game.phase, game.active) == ("tile", 0)


def test_d24_bookmaker_tile_drawn_as_second_start_tile_gets_no_bets() -> None:
    """D24: bets/07 is the top tile at setup and goes on Brume at rotation 0; no turn placed it,
    so there is no step 4 and its office stays empty."""
    game = map_game([], second="bets/07", then=("base/U",), bets=True)
    assert game.board[encode(5, 2)].tile.id == "bets/07"
    assert (game.phase, game.active, game.turn) == ("tile", 0, 0)
    assert game.expansion(Bets).offices == {}


# -------------------------------------------------------------------- map chips: setup


def test_chips_may_touch_an_unused_start_square_but_not_a_used_one() -> None:
    """test-tiny with Aval (1, 2) and Brume (5, 2) in use: the squares around them are banned,
    those around the unused Cime (3, 2) are not (Cime itself is a town: never a chip)."""
    game_map = load_map("test-tiny")
    used = frozenset(game_map.start_squares[n] for n in ("Aval", "Brume"))
    eligible = {pos for pos in eligible_squares(game_map, used)}
    assert encode(3, 3) in eligible  # below Cime
    assert encode(1, 3) not in eligible and encode(5, 3) not in eligible  # below Aval, Brume
    assert encode(2, 2) not in eligible  # beside Aval (and Cime)
    assert encode(4, 2) not in eligible  # beside Brume (and Cime)
    assert not eligible & set(game_map.towns)
    assert encode(3, 1) not in eligible and encode(2, 0) not in eligible  # faced by Castel
    assert encode(4, 0) in eligible  # beside Castel's east wall, not an open edge


# ---------------------------------------------------------------------- map chips: wine


def test_d28_wine_made_with_the_chip_collected_this_turn_can_be_exported() -> None:
    """test-tiny, start tile on Brume (5, 2): seat 0 curves its road south on (6, 2); seat 1,
    holding one purple 1, places a curve on (6, 3) that takes the road into the east border and
    collects the purple 1 lying there (step 1): it may export that 1+1 wine at once (step 3)."""
    game = map_game(
        [("base/V", 6, 2, 0, None)],
        starts=("Brume", "Aval"),
        then=("base/V", "base/U"),
        map_chips=True,
    )
    _with_chips(game, {(6, 3): P1}, [[], [P1]])
    place(game, 6, 3, 180)
    assert game.scores == [0, 1]
    assert offered(game) == {PASS, SellWine(EXPORT, "purple", (1, 1))}
    game.apply(SellWine(EXPORT, "purple", (1, 1)))
    assert game.scores == [0, 6]


def test_d12_coat_of_arms_elsewhere_in_the_city_allows_export_through_a_plain_segment() -> None:
    """D12: base/F (coat of arms) extends the start tile's city north on (1, 1); base/G, with no
    coat of arms, takes that city into the north border on (1, 0).  The city has a coat of arms,
    so the tile connected 'a city with a coat of arms' to the border: export is offered."""
    game = map_game([("base/F", 1, 1, 90, None)], then=("base/G", "base/U"), map_chips=True)
    _with_chips(game, {}, [[], [P2]])
    place(game, 1, 0, 90, PlaceFigure("meeple", "N"))
    assert game.feature_at(1, 0, "N").coat_of_arms == 1
    assert paid(game, "completed") == [("city", {1: 8})]
    assert offered(game) == {PASS, SellWine(EXPORT, "purple", (2,))}


def test_d29_wine_is_sold_in_step_3_before_the_bets_of_step_4() -> None:
    """test-tiny: bets/07 covers Cime (3, 2, purple; an unused start square) with its road
    continuing the start tile's.  The active seat first sells its purple wine to the town (step
    3), then every seat is asked for a bet (step 4)."""
    game = map_game(
        [("base/U", 2, 2, 0, None)], then=("bets/07", "base/U"), bets=True, map_chips=True
    )
    _with_chips(game, {}, [[], [P1, P1]])
    place(game, 3, 2, 0)
    assert (game.phase, game.to_move) == ("wine", 1)
    game.apply(SellWine(TOWN, "purple", (1, 1)))
    assert (game.phase, game.to_move) == ("bet", 1)
    game.apply(PlaceBet("2/6"))
    game.apply(PASS)
    assert game.scores == [0, 9]
    assert game.expansion(Bets).offices == {encode(3, 2): [(1, "2/6")]}
