"""The Bets (docs/rules.md §3): placing chips, settling them, final settlement, hidden chips.

Situations are built from explicit stacks and scripted turns.  The start tile is ``base/D`` at
(0, 0), rotation 0: city N, road E–W through, field S.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from carcassonne import PASS, Game, GameEvent, PlaceFigure, PlaceTile, ScoreEvent
from carcassonne.board import encode
from carcassonne.expansions.bets import CHIPS, Bets, PlaceBet, SettleAgainst, chip_payoff
from carcassonne.formats.actions import action_from_json, action_to_json
from carcassonne.tiles import FIELD, ROAD, tile_set
from scenario import assert_refused

Figure = tuple[str, str] | None


def turn(
    game: Game,
    tile: str,
    x: int,
    y: int,
    rotation: int,
    figure: Figure = None,
    bets: Mapping[int, str | None] | None = None,
) -> None:
    """One scripted turn: place ``tile``, then a figure or pass; then, if given, step 4.

    ``bets`` maps every seat that must be asked to its chip (None = pass); the seats asked and
    their order are checked against the rule (active player first, seat order).
    """
    assert game.current_tile is not None and game.current_tile.id == tile, game.current_tile
    game.apply(PlaceTile(x, y, rotation))
    game.apply(PlaceFigure(*figure) if figure else PASS)
    if bets is not None:
        place_bets(game, bets)


def place_bets(game: Game, bets: Mapping[int, str | None]) -> None:
    players, active = game.players, game.active
    asked = []
    while game.phase == "bet":
        seat = game.to_move
        asked.append(seat)
        chip = bets[seat]
        game.apply(PASS if chip is None else PlaceBet(chip))
    expected = [(active + k) % players for k in range(players)]
    assert asked == [s for s in expected if s in bets], asked


def bet_events(game: Game) -> list[ScoreEvent]:
    return [e for e in game.events if isinstance(e, ScoreEvent) and e.source == "bet"]


def bet_payouts(game: Game) -> list[tuple[int, str, int]]:
    """(seat, chip, points) of every settled chip, in settlement order."""
    out = []
    for e in bet_events(game):
        seat, points = e.detail["owner"], e.detail["paid"]
        assert e.points == {seat: points}
        out.append((seat, e.detail["chip"], points))
    return out


def bets_of(game: Game) -> Bets:
    ext = game.expansion(Bets)
    assert isinstance(ext, Bets)
    return ext


def all_chips_home(game: Game) -> bool:
    ext = bets_of(game)
    return not ext.offices and all(s == list(CHIPS) for s in ext.supply)


# ------------------------------------------------------------------------------ chip table


PAYOFFS = {  # tiles 1..12, straight from the table in docs/rules.md §3 / the rule texts
    "2/6": [0, 2, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0],
    "3/5": [0, 0, 3, 0, 5, 0, 0, 0, 0, 0, 0, 0],
    "3/6": [0, 0, 3, 0, 0, 6, 0, 0, 0, 0, 0, 0],
    "4": [0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0],
    "4/7+": [0, 0, 0, 4, 0, 0, 7, 7, 7, 7, 7, 7],
    "5/8+": [0, 0, 0, 0, 5, 0, 0, 8, 8, 8, 8, 8],
}


@pytest.mark.parametrize("chip", CHIPS)
def test_chip_payoff_table(chip: str) -> None:
    assert [chip_payoff(chip, n) for n in range(1, 13)] == PAYOFFS[chip]


def test_single_4_needs_exactly_4_and_pays_double() -> None:
    assert (chip_payoff("4", 3), chip_payoff("4", 4), chip_payoff("4", 5)) == (0, 8, 0)


def test_plus_chips_pay_their_number_for_any_larger_feature() -> None:
    assert chip_payoff("4/7+", 30) == 7
    assert chip_payoff("5/8+", 30) == 8


def test_unknown_chip_is_named_in_the_error() -> None:
    with pytest.raises(ValueError, match="'9/9'"):
        chip_payoff("9/9", 4)


# ------------------------------------------------------------------ the published example


def test_published_example_city_of_4_with_coat_of_arms() -> None:
    """Red completes a 4-tile city with one coat of arms (10 points); of the chips on one of its
    tiles blue's 4/7+ pays 4, green's 4 pays 8, red's 2/6 pays nothing; all chips go home."""
    red, blue, green = 0, 1, 2
    stack = ("bets/05", "base/E", "base/U", "base/E", "base/B")
    game = Game(players=3, bets=True, stack=stack)
    turn(game, "bets/05", 0, -1, 180, ("meeple", "E"), bets={red: "2/6", blue: "4/7+", green: "4"})
    turn(game, "base/E", 1, -1, 270)
    turn(game, "base/U", -1, 0, 0)
    assert bet_events(game) == []
    turn(game, "base/E", -1, -1, 90)  # red closes the city
    city = next(e for e in game.events if isinstance(e, ScoreEvent) and e.source == "city")
    assert (city.tiles, city.coats_of_arms, city.points) == (4, 1, {red: 10})
    assert bet_payouts(game) == [(red, "2/6", 0), (blue, "4/7+", 4), (green, "4", 8)]
    assert game.events.index(city) < game.events.index(bet_events(game)[0])  # after the scoring
    assert game.scores == [10, 4, 8]
    assert all_chips_home(game)


# ------------------------------------------------------------------------ settlement sizes


def _road_game(u_tiles: int) -> Game:
    """bets/07 at (1, 0): its road ends at the office and runs west through the start tile and
    ``u_tiles`` straight roads; a crossroads closes it: 3 + ``u_tiles`` tiles in all."""
    stack = ("bets/07", *(["base/U"] * u_tiles), "base/W", "base/B")
    game = Game(players=2, bets=True, stack=stack)
    turn(game, "bets/07", 1, 0, 0, bets={0: "4/7+", 1: "5/8+"})
    for i in range(u_tiles):
        turn(game, "base/U", -1 - i, 0, 0)
    turn(game, "base/W", -1 - u_tiles, 0, 0)
    return game


@pytest.mark.parametrize(
    ("u_tiles", "tiles", "pays_47", "pays_58"),
    [(2, 5, 0, 5), (4, 7, 7, 0), (5, 8, 7, 8)],
)
def test_plus_chips_on_a_completed_road(
    u_tiles: int, tiles: int, pays_47: int, pays_58: int
) -> None:
    game = _road_game(u_tiles)
    road = next(e for e in game.events if isinstance(e, ScoreEvent) and e.source == "road")
    assert road.tiles == tiles
    assert bet_payouts(game) == [(0, "4/7+", pays_47), (1, "5/8+", pays_58)]
    assert all(e.detail["tiles"] == tiles for e in bet_events(game))


def test_plus_chips_on_a_12_tile_road() -> None:
    """office, start tile, 8 straight roads, a curve south and a crossroads: 12 tiles."""
    stack = ("bets/07", *["base/U"] * 7, "base/U-garden", "base/V", "base/W", "base/B")
    game = Game(players=2, bets=True, stack=stack)
    turn(game, "bets/07", 1, 0, 0, bets={0: "4/7+", 1: "5/8+"})
    for i in range(7):
        turn(game, "base/U", -1 - i, 0, 0)
    turn(game, "base/U-garden", -8, 0, 0)
    turn(game, "base/V", -9, 0, 270)
    turn(game, "base/W", -9, 1, 180)
    assert bet_payouts(game) == [(0, "4/7+", 7), (1, "5/8+", 8)]
    assert bet_events(game)[0].detail["tiles"] == 12


def test_d4_completed_road_with_no_meeple_still_settles_bets() -> None:
    """D4: nobody scores the road, the chips on it are settled anyway."""
    game = _road_game(4)
    road = next(e for e in game.events if isinstance(e, ScoreEvent) and e.source == "road")
    assert road.points == {}
    assert game.scores == [7, 0]


def test_bet_settlement_event_names_chip_feature_and_payment() -> None:
    game = _road_game(4)
    event = bet_events(game)[0]
    assert (event.source, event.reason, event.points) == ("bet", "completed", {0: 7})
    assert event.detail == {
        "owner": 0,
        "chip": "4/7+",
        "square": [1, 0],
        "feature": "road",
        "location": "W",
        "tiles": 7,
        "paid": 7,
    }


def test_tile_count_counts_each_square_once() -> None:
    """A road leaves bets/08's office east and comes back north: 5 road segments on 4 squares.
    It counts 4 tiles: the road scores 4, the '4' chip pays 8 and the 5/8+ chip nothing."""
    stack = ("bets/08", "base/V", "base/V", "base/V", "base/B")
    game = Game(players=2, bets=True, stack=stack)
    # bets/08 turned 180: city S (closes with the start tile's city), roads N, E, W end at office
    turn(game, "bets/08", 0, -1, 180, bets={0: "4", 1: "5/8+"})
    turn(game, "base/V", 1, -1, 90, ("meeple", "N"))
    turn(game, "base/V", 1, -2, 0)
    turn(game, "base/V", 0, -2, 270)
    road = next(e for e in game.events if isinstance(e, ScoreEvent) and e.source == "road")
    assert (road.tiles, road.points) == (4, {1: 4})
    assert len(game.feature_at(0, -1, "N").segments) == 5
    assert bet_payouts(game) == [(0, "4", 8), (1, "5/8+", 0)]


# ---------------------------------------------------------------------- when bets are placed


def test_d3_every_seat_bets_in_seat_order_from_the_active_player() -> None:
    game = Game(players=4, bets=True, stack=("base/U", "bets/07", "base/B"))
    turn(game, "base/U", -1, 0, 0)
    turn(game, "bets/07", 1, 0, 0, bets={1: "4", 2: None, 3: "2/6", 0: "3/5"})
    assert [(e.type, e.seat) for e in game.events if isinstance(e, GameEvent)] == [
        ("bet", 1),
        ("bet-pass", 2),
        ("bet", 3),
        ("bet", 0),
    ]
    assert game.phase == "tile" and game.active == 2


def test_no_bets_on_the_last_tile() -> None:
    game = Game(players=2, bets=True, stack=("bets/07",))
    turn(game, "bets/07", 1, 0, 0)
    assert game.is_over
    assert not any(isinstance(e, GameEvent) and e.type.startswith("bet") for e in game.events)


def test_bets_on_the_second_to_last_tile() -> None:
    game = Game(players=2, bets=True, stack=("bets/07", "base/B"))
    turn(game, "bets/07", 1, 0, 0, bets={0: "2/6", 1: None})
    assert game.phase == "tile"


def test_no_bets_when_every_road_and_city_of_the_tile_is_complete() -> None:
    """bets/07's only road closes on placement (crossroads, start tile, office): no step 4."""
    game = Game(players=2, bets=True, stack=("base/W", "bets/07", "base/B"))
    turn(game, "base/W", -1, 0, 0)
    turn(game, "bets/07", 1, 0, 0)
    assert game.phase == "tile" and game.active == 0
    assert bets_of(game).offices == {}


def test_bets_allowed_when_one_feature_of_the_tile_stays_open() -> None:
    """bets/02 turned 180 closes its city with the start tile's, its road stays open."""
    game = Game(players=2, bets=True, stack=("bets/02", "base/B"))
    turn(game, "bets/02", 0, -1, 180, ("meeple", "S"), bets={0: "4", 1: "3/5"})
    assert game.feature_at(0, -1, "S").complete
    assert not game.feature_at(0, -1, "N").complete
    assert game.scores == [4, 0]
    assert [(s, c) for s, c in bets_of(game).offices[encode(0, -1)]] == [(0, "4"), (1, "3/5")]


def six_chips_on_six_offices(*then: str) -> Game:
    """Seat 0 has bet its six chips on the offices of bets/01-06 (seat 1 passed each time); the
    stack then holds ``then``, and it is seat 0's turn."""
    script = [
        ("bets/01", 1, 0, 90),
        ("bets/02", 0, 1, 90),
        ("bets/03", 1, -1, 0),
        ("bets/04", 2, 0, 0),
        ("bets/05", 0, -1, 90),
        ("bets/06", 0, 2, 180),
    ]
    game = Game(players=2, bets=True, stack=(*(s[0] for s in script), *then))
    for (tile, x, y, rotation), chip in zip(script, CHIPS, strict=True):
        turn(game, tile, x, y, rotation, bets={0: chip, 1: None})
    return game


def test_d17_seat_with_empty_supply_is_not_asked() -> None:
    """Seat 0 has its six chips on six offices; on the seventh bookmaker tile only seat 1 is
    asked (the empty-supply decision in expansions/bets.py)."""
    game = six_chips_on_six_offices("bets/07", "base/B")
    assert bets_of(game).supply[0] == []
    assert game.active == 0
    turn(game, "bets/07", 1, -2, 0, bets={1: "4"})
    assert game.view(0)["expansions"]["bets"]["supply"] == []
    assert game.view(0)["expansions"]["bets"]["supply_counts"] == [0, 5]


# ------------------------------------------------------------------ several offices, choices


def test_two_bookmaker_tiles_in_one_city_both_settle() -> None:
    """City: start tile, bets/05 (coat of arms), bets/02, a cap: 4 tiles.  Both offices settle,
    in the order they received chips."""
    stack = ("bets/05", "bets/02", "base/E", "base/B")
    game = Game(players=2, bets=True, stack=stack)
    turn(game, "bets/05", 0, -1, 180, bets={0: "4", 1: "3/5"})
    turn(game, "bets/02", 1, -1, 270, bets={1: "4/7+", 0: "2/6"})
    turn(game, "base/E", -1, -1, 90)
    assert bet_payouts(game) == [(0, "4", 8), (1, "3/5", 0), (1, "4/7+", 4), (0, "2/6", 0)]
    assert [e.detail["square"] for e in bet_events(game)] == [[0, -1]] * 2 + [[1, -1]] * 2
    assert game.scores == [8, 4]
    assert all_chips_home(game)


def _road_and_city_together() -> Game:
    """bets/06 at (1, 0): its east road (2 tiles) and its city (4 tiles) are both completed by
    seat 1's village tile; chips: seat 0 '2/6', seat 1 '4'."""
    stack = ("bets/06", "base/N", "base/N", "base/L", "base/B")
    game = Game(players=2, bets=True, stack=stack)
    turn(game, "bets/06", 1, 0, 0, bets={0: "2/6", 1: "4"})
    turn(game, "base/N", 1, -1, 180)
    turn(game, "base/N", 2, -1, 270)
    game.apply(PlaceTile(2, 0, 0))
    game.apply(PASS)
    return game


def test_active_player_chooses_between_road_and_city_completed_together() -> None:
    game = _road_and_city_together()
    assert (game.phase, game.to_move, game.active) == ("settle", 1, 1)
    assert game.legal_actions() == [
        SettleAgainst(1, 0, "city", "N"),
        SettleAgainst(1, 0, "road", "E"),
    ]
    assert bet_events(game) == []  # chosen before the chips are flipped


@pytest.mark.parametrize(
    ("choice", "payouts"),
    [
        (SettleAgainst(1, 0, "road", "E"), [(0, "2/6", 2), (1, "4", 0)]),
        (SettleAgainst(1, 0, "city", "N"), [(0, "2/6", 0), (1, "4", 8)]),
    ],
)
def test_chips_settle_against_the_chosen_feature(
    choice: SettleAgainst, payouts: list[tuple[int, str, int]]
) -> None:
    game = _road_and_city_together()
    game.apply(choice)
    assert bet_payouts(game) == payouts
    assert game.phase == "tile"
    assert all_chips_home(game)


def test_settle_choice_rejects_a_feature_of_another_tile() -> None:
    game = _road_and_city_together()
    assert_refused(game, SettleAgainst(0, 0, "road", "E"), "settle")
    assert game.phase == "settle"


# ------------------------------------------------------------------------- final scoring


def _final_choice_game() -> Game:
    """bets/06 at (1, 0) stays open to the end: west road 3 tiles (straight road, start tile,
    office), east road 2 tiles (office, straight road), city 1 tile."""
    game = Game(players=2, bets=True, stack=("bets/06", "base/U", "base/U"))
    turn(game, "bets/06", 1, 0, 0, bets={0: "3/6", 1: "2/6"})
    turn(game, "base/U", -1, 0, 0)
    game.apply(PlaceTile(2, 0, 0))
    game.apply(PASS)
    return game


def test_final_settlement_each_seat_chooses_for_its_own_chip() -> None:
    game = _final_choice_game()
    options = [
        SettleAgainst(1, 0, "city", "N"),
        SettleAgainst(1, 0, "road", "E"),
        SettleAgainst(1, 0, "road", "W"),
    ]
    assert (game.phase, game.to_move) == ("settle-final", 0)
    assert game.legal_actions() == options
    game.apply(SettleAgainst(1, 0, "road", "W"))
    assert (game.phase, game.to_move) == ("settle-final", 1)
    assert game.legal_actions() == options
    assert bet_events(game) == []  # nothing is flipped until everybody has chosen
    game.apply(SettleAgainst(1, 0, "road", "E"))
    assert game.is_over
    assert bet_payouts(game) == [(0, "3/6", 3), (1, "2/6", 2)]
    assert {e.reason for e in bet_events(game)} == {"final"}
    assert game.scores == [3, 2]  # no meeples: the bets are all
    assert all_chips_home(game)


def test_view_shows_every_seat_the_features_being_settled_with_their_squares() -> None:
    game = _final_choice_game()
    assert game.view(None)["expansions"]["bets"]["settle"] == [
        {"x": 1, "y": 0, "kind": "city", "location": "N", "tiles": 1, "squares": [[1, 0]]},
        {"x": 1, "y": 0, "kind": "road", "location": "E", "tiles": 2, "squares": [[1, 0], [2, 0]]},
        {"x": 1, "y": 0, "kind": "road", "location": "W", "tiles": 3,
         "squares": [[-1, 0], [0, 0], [1, 0]]},
    ]  # fmt: skip
    game.apply(SettleAgainst(1, 0, "road", "W"))
    assert (
        game.view(0)["expansions"]["bets"]["settle"] == game.view(1)["expansions"]["bets"]["settle"]
    )
    game.apply(SettleAgainst(1, 0, "road", "E"))
    assert "settle" not in game.view(0)["expansions"]["bets"]


def test_view_shows_the_completed_features_the_active_player_chooses_between() -> None:
    game = _road_and_city_together()
    settle = game.view(0)["expansions"]["bets"]["settle"]
    assert [(c["kind"], c["tiles"], c["squares"]) for c in settle] == [
        ("city", 4, [[1, -1], [1, 0], [2, -1], [2, 0]]),
        ("road", 2, [[1, 0], [2, 0]]),
    ]


def test_final_settlement_of_a_poor_choice_pays_nothing() -> None:
    game = _final_choice_game()
    game.apply(SettleAgainst(1, 0, "city", "N"))
    game.apply(SettleAgainst(1, 0, "road", "W"))
    assert bet_payouts(game) == [(0, "3/6", 0), (1, "2/6", 0)]


def test_final_settlement_with_one_open_feature_needs_no_choice() -> None:
    """bets/07's road runs through the start tile and stays open: 2 tiles at the end."""
    game = Game(players=2, bets=True, stack=("bets/07", "base/B"))
    turn(game, "bets/07", 1, 0, 0, bets={0: "2/6", 1: "3/5"})
    turn(game, "base/B", 0, 1, 0)
    assert game.is_over
    assert bet_payouts(game) == [(0, "2/6", 2), (1, "3/5", 0)]
    assert bet_events(game)[0].detail["tiles"] == 2


def test_final_settlement_runs_before_final_scoring() -> None:
    game = Game(players=2, bets=True, stack=("bets/07", "base/B"))
    turn(game, "bets/07", 1, 0, 0, ("meeple", "W"), bets={0: "2/6", 1: None})
    turn(game, "base/B", 0, 1, 0)
    sources = [e.source for e in game.events if isinstance(e, ScoreEvent) and e.reason == "final"]
    assert sources == ["bet", "road"]
    assert game.scores == [4, 0]


def test_d5_chip_with_no_open_feature_on_its_tile_returns_unscored() -> None:
    """D5 (unreachable with the implemented expansions, so the state is set by hand)."""
    game = Game(players=2, bets=True, stack=("base/W", "bets/07", "base/B"))
    turn(game, "base/W", -1, 0, 0)
    turn(game, "bets/07", 1, 0, 0)  # its road closed on placement
    ext = bets_of(game)
    ext.supply[0].remove("4")
    ext.offices[encode(1, 0)] = [(0, "4")]
    turn(game, "base/B", 0, 1, 0)
    assert game.is_over
    assert bet_events(game) == []
    returned = [e for e in game.events if isinstance(e, GameEvent) and e.type == "bet-returned"]
    assert [(e.seat, e.detail) for e in returned] == [(0, {"square": [1, 0]})]
    assert all_chips_home(game)


# ------------------------------------------------------------------- tiles and the office


def test_roads_end_at_the_office() -> None:
    """Every road segment of a bookmaker tile touches one edge: it ends at the office."""
    for tile in tile_set("bets").tiles:
        roads = [s for s in tile.segments if s.kind == ROAD]
        assert roads and all(len(s.edges) == 1 for s in roads), tile.id
        assert tile.has_office


@pytest.mark.parametrize(
    ("tile", "fields"),  # "this tile has N field sections" in the rule texts
    [("02", 3), ("03", 3), ("04", 3), ("06", 3), ("07", 2), ("09", 3)],
)
def test_office_separates_fields(tile: str, fields: int) -> None:
    tile_type = next(t for t in tile_set("bets").tiles if t.name == tile)
    assert sum(1 for s in tile_type.segments if s.kind == FIELD) == fields


def test_office_separates_upper_and_lower_field_on_the_board() -> None:
    game = Game(players=2, bets=True, stack=("bets/07", "base/B"))
    turn(game, "bets/07", 1, 0, 0, bets={0: None, 1: None})
    assert game.feature_at(1, 0, "NL") is not game.feature_at(1, 0, "SL")
    assert game.feature_at(1, 0, "NL") is game.feature_at(0, 0, "EL")  # north of the road


def test_two_roads_into_one_office_are_separate_features() -> None:
    game = Game(players=2, bets=True, stack=("bets/06", "base/B"))
    turn(game, "bets/06", 1, 0, 0, bets={0: None, 1: None})
    assert game.feature_at(1, 0, "E") is not game.feature_at(1, 0, "W")


def test_no_figure_on_the_office() -> None:
    game = Game(players=2, bets=True, stack=("bets/07", "base/B"))
    game.apply(PlaceTile(1, 0, 0))
    assert not any(
        isinstance(a, PlaceFigure) and a.location == "betting-office" for a in game.legal_actions()
    )
    assert_refused(game, PlaceFigure("meeple", "betting-office"), "betting-office")


def test_bookmaker_tiles_are_shuffled_into_the_land_tiles() -> None:
    game = Game(players=2, bets=True, seed=3)
    ids = [t.id for t in game.stack] + [game.current_tile.id]  # type: ignore[union-attr]
    assert len(ids) == 71 + 10
    assert sum(1 for i in ids if i.startswith("bets/")) == 10


# ------------------------------------------------------------------------- actions, checks


def test_bet_actions_are_own_supply_or_pass() -> None:
    game = Game(players=2, bets=True, stack=("bets/07", "bets/09", "base/B"))
    turn(game, "bets/07", 1, 0, 0, bets={0: "4", 1: None})
    game.apply(PlaceTile(0, 1, 0))
    game.apply(PASS)
    assert (game.phase, game.to_move) == ("bet", 1)
    assert game.legal_actions() == [PASS, *(PlaceBet(c) for c in CHIPS)]
    game.apply(PASS)
    assert game.legal_actions() == [PASS, *(PlaceBet(c) for c in CHIPS if c != "4")]
    assert_refused(game, PlaceBet("4"), "bet")  # already on the first office
    assert_refused(game, PlaceBet("7/7"), "not a legal bet action now")
    assert bets_of(game).supply[0] == [c for c in CHIPS if c != "4"]


def test_actions_round_trip_through_json() -> None:
    bet = PlaceBet("4/7+")
    settle = SettleAgainst(1, -2, "city", "N")
    assert action_to_json(bet) == {"type": "place-bet", "chip": "4/7+"}
    assert action_to_json(settle) == {
        "type": "settle-bet",
        "x": 1,
        "y": -2,
        "kind": "city",
        "location": "N",
    }
    assert action_from_json(action_to_json(bet)) == bet
    assert action_from_json(action_to_json(settle)) == settle


def test_copy_is_independent() -> None:
    game = Game(players=2, bets=True, stack=("bets/07", "base/B"))
    game.apply(PlaceTile(1, 0, 0))
    game.apply(PASS)
    other = game.copy()
    other.apply(PlaceBet("4"))
    assert bets_of(game).supply[0] == list(CHIPS)
    assert bets_of(game).offices == {}
    assert bets_of(other).offices == {encode(1, 0): [(0, "4")]}


# ---------------------------------------------------------------------- hidden information


def test_d2_view_shows_own_chips_and_only_the_owners_of_others() -> None:
    game = Game(players=3, bets=True, stack=("bets/07", "base/B"))
    turn(game, "bets/07", 1, 0, 0, bets={0: "4", 1: None, 2: "2/6"})
    views = {seat: game.view(seat)["expansions"]["bets"] for seat in (0, 1, 2, None)}
    assert views[0] == {
        "supply": [c for c in CHIPS if c != "4"],
        "supply_counts": [5, 6, 5],
        "offices": [
            {"x": 1, "y": 0, "chips": [{"seat": 0, "chip": "4"}, {"seat": 2, "chip": None}]}
        ],
    }
    assert views[1]["offices"][0]["chips"] == [{"seat": 0, "chip": None}, {"seat": 2, "chip": None}]
    assert views[2]["offices"][0]["chips"] == [
        {"seat": 0, "chip": None},
        {"seat": 2, "chip": "2/6"},
    ]
    assert views[None]["supply"] is None
    assert views[None]["offices"][0]["chips"] == [
        {"seat": 0, "chip": None},
        {"seat": 2, "chip": None},
    ]


def test_d3_bet_events_do_not_carry_the_chip() -> None:
    game = Game(players=2, bets=True, stack=("bets/07", "base/B"))
    turn(game, "bets/07", 1, 0, 0, bets={0: "4", 1: None})
    events = [e for e in game.events if isinstance(e, GameEvent)]
    assert [(e.type, e.seat, e.detail) for e in events] == [
        ("bet", 0, {"square": [1, 0]}),
        ("bet-pass", 1, {"square": [1, 0]}),
    ]


def _relabelled(game: Game, viewer: int | None) -> Game:
    """A copy in which every chip the viewer may not see has another value (a seat's chips on
    offices are swapped with chips from its supply, or rotated among its offices)."""
    other = game.copy()
    ext = bets_of(other)
    for seat in range(other.players):
        if seat == viewer:
            continue
        places = [
            (pos, i)
            for pos, chips in ext.offices.items()
            for i, c in enumerate(chips)
            if c[0] == seat
        ]
        if not places:
            continue
        values = [ext.offices[pos][i][1] for pos, i in places]
        supply = ext.supply[seat]
        if supply:
            new_values = [supply[0], *values[1:]]
            supply[0] = values[0]
        else:
            new_values = values[1:] + values[:1]
        for (pos, i), value in zip(places, new_values, strict=True):
            ext.offices[pos][i] = (seat, value)
    return other


def _check_hidden(game: Game) -> None:
    ext = bets_of(game)
    for seat in range(game.players):
        on_board = [c for chips in ext.offices.values() for s, c in chips if s == seat]
        assert sorted(ext.supply[seat] + on_board) == sorted(CHIPS)
    if not ext.offices:
        return
    for viewer in [*range(game.players), None]:
        view = game.view(viewer)
        for office in view["expansions"]["bets"]["offices"]:
            for chip in office["chips"]:
                assert chip["seat"] == viewer or chip["chip"] is None
        text = json.dumps(view, sort_keys=True)
        assert text == json.dumps(_relabelled(game, viewer).view(viewer), sort_keys=True)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(2, 6))
def test_random_games_keep_six_chips_and_hide_other_seats_chips(seed: int, players: int) -> None:
    game = Game(players=players, bets=True, seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not game.is_over:
        if game.phase not in ("tile", "figure") or steps % 7 == 0:
            _check_hidden(game)
        actions = game.legal_actions()
        game.apply(actions[rng.randrange(len(actions))])
        steps += 1
    _check_hidden(game)
    assert all_chips_home(game)


# ------------------------------------------------------------------- greedy bot, simulate


def test_greedy_bets_the_plus_chip_on_a_long_open_road() -> None:
    """A 6-tile road with one open end and plenty of tiles to come can only end at 7 or more
    tiles: 4/7+ pays 7 for sure.  (With the game about to end, 2/6 would win: see below.)"""
    from carcassonne.bots.greedy import GreedyBot

    game = Game(players=2, bets=True, stack=(*["base/U"] * 4, "bets/07", *["base/B"] * 4, "base/E"))
    for i in range(4):
        turn(game, "base/U", -1 - i, 0, 0)
    turn(game, "bets/07", 1, 0, 0)
    assert game.phase == "bet"
    assert GreedyBot(seed=1).choose(game) == PlaceBet("4/7+")


def test_greedy_bets_on_the_current_size_when_the_game_is_about_to_end() -> None:
    """One tile left after the office: the 6-tile road will most likely be settled as it is."""
    from carcassonne.bots.greedy import GreedyBot

    game = Game(players=2, bets=True, stack=(*["base/U"] * 4, "bets/07", "base/B"))
    for i in range(4):
        turn(game, "base/U", -1 - i, 0, 0)
    turn(game, "bets/07", 1, 0, 0)
    assert GreedyBot(seed=1).choose(game) == PlaceBet("2/6")


def test_greedy_settles_final_bets_on_the_feature_that_pays_its_own_chip() -> None:
    from carcassonne.bots.greedy import GreedyBot

    game = _final_choice_game()
    bot = GreedyBot(seed=1)
    assert bot.choose(game) == SettleAgainst(1, 0, "road", "W")  # seat 0's 3/6: 3 tiles
    game.apply(bot.choose(game))
    assert bot.choose(game) == SettleAgainst(1, 0, "road", "E")  # seat 1's 2/6: 2 tiles
    game.apply(bot.choose(game))
    assert game.scores == [3, 2]


def test_greedy_active_player_settles_where_its_own_chip_wins() -> None:
    from carcassonne.bots.greedy import GreedyBot

    game = _road_and_city_together()  # seat 1 holds the '4': the 4-tile city pays it 8
    assert GreedyBot(seed=1).choose(game) == SettleAgainst(1, 0, "city", "N")


def test_greedy_evaluation_of_bets_ignores_other_seats_hidden_chips() -> None:
    from carcassonne.bots.bets_policy import bets_adjustment

    game = Game(players=3, bets=True, stack=("bets/06", "base/U", "base/B"))
    turn(game, "bets/06", 1, 0, 0, bets={0: "2/6", 1: "4", 2: "5/8+"})
    game.apply(PlaceTile(-1, 0, 0))  # seat 1 extends the west road; step 2 is next
    for seat in range(3):
        values = bets_adjustment(game, game, seat)
        assert values == bets_adjustment(game, _relabelled(game, seat), seat)
        assert values != bets_adjustment(game, _relabelled(game, None), seat)  # own chip counts


def test_simulate_summary_reports_bet_points_per_seat_and_chip() -> None:
    from carcassonne.expansions.bets import bet_summary

    lines = bet_summary([_road_game(4), _road_game(5)])  # 4/7+ pays 7 twice, 5/8+ 8 once
    assert lines[0] == "bets: points per game by seat: seat 0: 7.00, seat 1: 4.00 (mean 5.50)"
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    assert rows["4/7+"] == ["1.00", "100.0", "7.00", "7.00"]
    assert rows["5/8+"] == ["1.00", "50.0", "4.00", "4.00"]
    assert rows["2/6"] == ["0.00", "0.0", "0.00", "0.00"]
