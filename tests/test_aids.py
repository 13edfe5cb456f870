"""The information aids (issue 25): remaining tiles by kind and squares no tile can fill, worked
out from public facts only, and checked against the hidden truth of the stack."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from carcassonne import PlaceTile
from carcassonne.aids import aids_view, open_features, remaining_kinds, unfillable_squares
from carcassonne.game import Game
from carcassonne.options import GameOptions


def _true_remaining(game: Game) -> dict[str, int]:
    """The multiset of the rest of the stack, read from the hidden stack itself."""
    return dict(sorted(Counter(tile.id for tile in game.stack).items()))


@pytest.mark.parametrize(
    "options",
    [
        GameOptions(seed=3),
        GameOptions(seed=4, river=True, inns_cathedrals=True),
        GameOptions(seed=5, players=3, traders_builders=True, abbot=True),
        GameOptions(seed=6, map="france", copies=2),
    ],
    ids=["base", "river-ic", "tb-abbot", "map-two-copies"],
)
def test_remaining_kinds_equal_the_rest_of_the_stack_all_game(options: GameOptions) -> None:
    game = Game(options)
    rng = random.Random(1)
    checked = 0
    while not game.is_over:
        # every step of a turn: the tile in hand, and after it is placed
        assert remaining_kinds(game) == _true_remaining(game), game.phase
        checked += 1
        game.apply(rng.choice(game.legal_actions()))
    assert remaining_kinds(game) == {}
    assert checked > 20


def test_remaining_kinds_at_the_start_of_a_base_game() -> None:
    game = Game(GameOptions(seed=0))
    remaining = remaining_kinds(game)
    assert remaining is not None
    # 72 tiles: the start tile (a D) on the board, one in hand, 70 in the stack
    assert sum(remaining.values()) == 70
    in_hand = game.current_tile.id if game.current_tile else ""
    assert remaining["base/D"] == 3 - (in_hand == "base/D")


def test_an_explicit_stack_shows_no_remaining_tiles() -> None:
    """A dealt stack is the dealer's secret: its contents are not the tile sets' counts."""
    game = Game(GameOptions(stack=("base/B", "base/E")))
    assert remaining_kinds(game) is None
    assert aids_view(game)["remaining"] is None and aids_view(game)["unfillable"] == []


def test_unfillable_squares_around_the_start_tile() -> None:
    """Start tile D: city to the north, road east and west, field south.  With only monasteries
    (B: fields all round) left, the north, east and west squares are holes, the south is not."""
    game = Game(GameOptions(stack=("base/B",)))
    assert game.current_tile is not None and game.current_tile.id == "base/B"
    assert unfillable_squares(game, {}) == [(-1, 0), (0, -1), (1, 0)]
    # a road curve (V) fills the road squares; no tile with a city is left for the north
    assert unfillable_squares(game, {"base/V": 1}) == [(0, -1)]
    # a city edge (E: city on one side, fields round) fills only the north
    assert unfillable_squares(game, {"base/E": 2}) == [(-1, 0), (1, 0)]
    assert unfillable_squares(game, {"base/E": 1, "base/V": 1}) == []


def test_open_features_and_their_points_now() -> None:
    """The start tile D holds a one-tile city and a one-tile road (1 point each at the end); a
    monastery put south of it scores 1 + its one neighbour = 2 now."""
    game = Game(GameOptions(stack=("base/B", "base/E")))
    city = {"kind": "city", "points": 1, "squares": [{"x": 0, "y": 0}]}
    road = {"kind": "road", "points": 1, "squares": [{"x": 0, "y": 0}]}
    assert open_features(game) == [city, road]
    game.apply(PlaceTile(0, 1, 0))
    monastery = {"kind": "monastery", "points": 2, "squares": [{"x": 0, "y": 1}]}
    assert open_features(game) == [city, road, monastery]


def test_a_finished_city_is_no_open_feature() -> None:
    """E (a city edge) put north of the start tile closes the start tile's city: only the road
    stays open."""
    game = Game(GameOptions(stack=("base/E", "base/B")))
    game.apply(PlaceTile(0, -1, 180))
    assert [f["kind"] for f in open_features(game)] == ["road"]
