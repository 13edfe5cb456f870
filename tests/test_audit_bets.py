"""Audit of The Bets against the original rule texts (French, Romanian, English; docs/rules.md §10).

Edge cases the main suite (``test_bets.py``) leaves open, each built from an explicit stack and
scripted turns, with exact scores.  The start tile is ``base/D`` at (0, 0), rotation 0: city N,
road E–W through, field S.

Bookmaker tiles used (docs/rules.md §8.3, rotation 0): 02 = C F R F (city N, road S); 06 =
C R F R (city N, roads E and W); 07 = F F F R (road W); 08 = C R R R (city N, roads E S W); 09 =
F F F R (road W) with a monastery; 10 = C F C R (separate cities N and S, road W).  Every road
ends at the office.
"""

from __future__ import annotations

import pytest

from carcassonne import PASS, Game, GameEvent, PlaceFigure, PlaceTile, ScoreEvent
from carcassonne.expansions.bets import PlaceBet, SettleAgainst
from test_bets import (
    all_chips_home,
    bet_events,
    bet_payouts,
    bets_of,
    six_chips_on_six_offices,
    turn,
)


def bet_asks(game: Game) -> list[tuple[str, int | None]]:
    """(event type, seat) of every step-4 answer, in order."""
    return [
        (e.type, e.seat)
        for e in game.events
        if isinstance(e, GameEvent) and e.type in ("bet", "bet-pass")
    ]


# --------------------------------------------------------------------- step 4: when to bet


def test_d27_chip_settled_in_step_3_can_be_bet_again_in_step_4_of_that_turn() -> None:
    """'Reprenez vos jetons … Vous pourrez les utiliser sur de nouvelles tuiles Bookmaker.'
    Seat 0 has all six chips on six offices (empty supply, so not asked, D17).  Its bets/08
    completes a 4-tile city through the offices of bets/03 and bets/05 (step 3): both chips come
    home, and in step 4 of the same turn seat 0 is asked again and bets one of them."""
    game = six_chips_on_six_offices("bets/08", "base/B")
    assert bets_of(game).supply[0] == [] and game.active == 0
    game.apply(PlaceTile(0, -2, 180))
    game.apply(PASS)
    assert bet_payouts(game) == [(0, "3/6", 0), (0, "4/7+", 4)]
    assert [e.detail["tiles"] for e in bet_events(game)] == [4, 4]
    assert (game.phase, game.to_move) == ("bet", 0)
    assert game.legal_actions() == [PASS, PlaceBet("3/6"), PlaceBet("4/7+")]
    game.apply(PlaceBet("4/7+"))
    assert (game.phase, game.to_move) == ("bet", 1)


def test_d22_last_tile_means_the_stack_is_empty_not_that_the_rest_cannot_be_placed() -> None:
    """D22.  After bets/07 only base/C is left, and it fits nowhere (no open city edge): bets/07
    is in fact the last tile placed, but nobody may look at the stack, so step 4 happens as for
    any tile that is not the last.  base/C is discarded and the chips are settled at the final
    scoring: the road office–start tile is 2 tiles."""
    game = Game(players=2, bets=True, stack=("base/E", "bets/07", "base/C"))
    turn(game, "base/E", 0, -1, 180)  # closes the start tile's city
    turn(game, "bets/07", 1, 0, 0, bets={1: "2/6", 0: "3/5"})
    assert game.is_over
    assert game.draws[-1] == ("base/C", True)  # shown and removed: unplaceable
    assert bet_payouts(game) == [(1, "2/6", 2), (0, "3/5", 0)]
    assert {e.reason for e in bet_events(game)} == {"final"}
    assert game.scores == [0, 2]


def test_bookmaker_tile_closing_a_road_through_another_office_gets_no_bets() -> None:
    """bets/07 on (1, 0) holds chips; bets/09 (turned 180: road E) on (-1, 0) closes the road
    office–start tile–office (3 tiles): step 3 settles the chips on bets/07 ('3/5' pays 3, '4'
    nothing).  The new tile's only road is complete, so there is no step 4 even though its
    monastery (with the abbot on it) is open: only roads and cities count."""
    stack = ("bets/07", "bets/09", "base/B")
    game = Game(players=2, bets=True, abbot=True, stack=stack)
    turn(game, "bets/07", 1, 0, 0, bets={0: "3/5", 1: "4"})
    game.apply(PlaceTile(-1, 0, 180))
    assert PlaceFigure("abbot", "monastery") in game.legal_actions()
    game.apply(PlaceFigure("abbot", "monastery"))
    assert bet_payouts(game) == [(0, "3/5", 3), (1, "4", 0)]
    assert bet_events(game)[0].detail["tiles"] == 3
    assert (game.phase, game.active) == ("tile", 0)  # no step 4 for bets/09
    assert bet_asks(game) == [("bet", 0), ("bet", 1)]
    assert all_chips_home(game)


def test_bookmaker_tile_with_a_monastery_takes_the_abbot_and_is_bet_on() -> None:
    """bets/09 on (1, 0): the abbot goes on its monastery, its road stays open, so every seat
    may bet; at the end the road (office + start tile) settles the chips and the abbot scores
    its monastery (1 + 2 neighbours)."""
    game = Game(players=2, bets=True, abbot=True, stack=("bets/09", "base/B"))
    turn(game, "bets/09", 1, 0, 0, ("abbot", "monastery"), bets={0: "2/6", 1: "3/6"})
    turn(game, "base/B", 0, 1, 0)
    assert game.is_over
    assert bet_payouts(game) == [(0, "2/6", 2), (1, "3/6", 0)]
    paid = [
        (e.source, e.points)
        for e in game.events
        if isinstance(e, ScoreEvent) and any(e.points.values())
    ]
    assert paid == [("bet", {0: 2}), ("monastery", {0: 3})]
    assert game.scores == [5, 0]


# -------------------------------------------------------------------- step 3: settlement


def test_road_running_into_the_office_from_both_sides_is_one_feature() -> None:
    """bets/06 turned 180 on (0, 1): roads E and W, city S.  Four curves join its two roads
    through the start tile into one loop of 6 tiles that ends at the office twice.  The loop is
    a single feature, so no choice is asked: '2/6' and '3/6' pay 6, '4' nothing."""
    steps = [("base/V", 1, 1, 90), ("base/V", 1, 0, 0), ("base/V", -1, 0, 270)]
    stack = ("bets/06", *(s[0] for s in steps), "base/V", "base/B")
    game = Game(players=3, bets=True, stack=stack)
    turn(game, "bets/06", 0, 1, 180, bets={0: "2/6", 1: "3/6", 2: "4"})
    for tile, x, y, rotation in steps:
        turn(game, tile, x, y, rotation)
    game.apply(PlaceTile(-1, 1, 180))
    game.apply(PASS)
    assert game.feature_at(0, 1, "E") is game.feature_at(0, 1, "W")
    assert game.phase == "tile"  # nothing to choose
    assert bet_payouts(game) == [(0, "2/6", 6), (1, "3/6", 6), (2, "4", 0)]
    assert bet_events(game)[0].detail["tiles"] == 6


def _bets10_both_cities() -> Game:
    """bets/10 on (1, 0): road W joins the start tile's road.  Its N city goes north and loops
    east over (1, -1), (1, -2), (2, -2), (2, -1); its S city curves under (1, 1), (2, 1).  base/H
    (two separate cities N and S) on (2, 0) closes both at once: N is 6 tiles, S is 4.  Chips:
    seat 0 '4', seat 1 '2/6'."""
    steps = [
        ("base/G", 1, -1, 90),  # city N–S
        ("base/N", 1, -2, 180),  # city S–E
        ("base/N", 2, -2, 270),  # city W–S
        ("base/F", 2, -1, 90),  # city N–S, coat of arms
        ("base/N-garden", 1, 1, 90),  # city N–E
        ("base/M", 2, 1, 0),  # city N–W, coat of arms
    ]
    stack = ("bets/10", *(s[0] for s in steps), "base/H", "base/B")
    game = Game(players=2, bets=True, stack=stack)
    turn(game, "bets/10", 1, 0, 0, bets={0: "4", 1: "2/6"})
    for tile, x, y, rotation in steps:
        turn(game, tile, x, y, rotation)
    game.apply(PlaceTile(2, 0, 0))
    game.apply(PASS)
    return game


def test_bets10_cities_north_and_south_are_separate_features_to_choose_between() -> None:
    game = _bets10_both_cities()
    north, south = game.feature_at(1, 0, "N"), game.feature_at(1, 0, "S")
    assert north is not south and north.complete and south.complete
    assert (len(north.squares), len(south.squares)) == (6, 4)
    assert (game.phase, game.to_move, game.active) == ("settle", 1, 1)
    assert game.legal_actions() == [
        SettleAgainst(1, 0, "city", "N"),
        SettleAgainst(1, 0, "city", "S"),
    ]
    assert bet_events(game) == []


@pytest.mark.parametrize(
    ("city", "payouts"),
    [("N", [(0, "4", 0), (1, "2/6", 6)]), ("S", [(0, "4", 8), (1, "2/6", 0)])],
)
def test_bets10_chips_settle_against_the_city_the_active_player_names(
    city: str, payouts: list[tuple[int, str, int]]
) -> None:
    game = _bets10_both_cities()
    game.apply(SettleAgainst(1, 0, "city", city))
    assert bet_payouts(game) == payouts
    assert [e.detail["location"] for e in bet_events(game)] == [city, city]
    assert all_chips_home(game)


# ------------------------------------------------------------------------- final scoring


def test_d23_final_settlement_never_targets_a_city_completed_before_the_bets() -> None:
    """D23.  bets/02 turned 180 on (0, -1) closes a 2-tile city with the start tile; its road
    runs north over two straight roads and stays open (3 tiles).  At the end the chips are
    settled against the road without any choice: the finished city was never bet on."""
    game = Game(players=2, bets=True, stack=("bets/02", "base/U", "base/U"))
    turn(game, "bets/02", 0, -1, 180, bets={0: "2/6", 1: "3/5"})
    turn(game, "base/U", 0, -2, 90)
    turn(game, "base/U", 0, -3, 90)
    assert game.is_over  # no settle-final decision was asked
    assert bet_payouts(game) == [(0, "2/6", 0), (1, "3/5", 3)]
    assert [e.detail["feature"] for e in bet_events(game)] == ["road", "road"]


def test_final_settlement_on_a_tile_whose_road_closed_on_placement_uses_its_city() -> None:
    """A crossroads on (-1, 0); bets/02 turned 90 (road W, city E) on (1, 0) closes the road
    crossroads–start tile–office (3 tiles) as it is placed, its city stays open, so bets are
    placed; a straight city on (2, 0) makes that city 2 tiles, still open at the end.  The chips
    are settled against the city with no choice: '2/6' pays 2, '3/5' nothing."""
    game = Game(players=2, bets=True, stack=("base/W", "bets/02", "base/G"))
    turn(game, "base/W", -1, 0, 0)
    turn(game, "bets/02", 1, 0, 90, bets={1: "2/6", 0: "3/5"})
    assert game.feature_at(1, 0, "W").complete
    turn(game, "base/G", 2, 0, 0)
    assert game.is_over
    assert bet_payouts(game) == [(1, "2/6", 2), (0, "3/5", 0)]
    assert [(e.detail["feature"], e.detail["tiles"]) for e in bet_events(game)] == [("city", 2)] * 2
