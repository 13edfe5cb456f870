"""The move log's source: every tile placed and the figure put on it, and nothing hidden.

The start tile base/D lies at (0, 0) (city N, road W–E); bets/01 turned 180° closes its city
from the north and brings a betting office, on which both seats bet; base/U (a straight road)
goes east of the start without a figure.
"""

from __future__ import annotations

import json

from carcassonne import PASS, Game, PlaceFigure, PlaceTile
from carcassonne.expansions.bets import PlaceBet
from carcassonne.web.protocol import public_placements


def test_moves_name_each_tile_its_square_and_figure_and_never_a_chip() -> None:
    game = Game(players=2, bets=True, stack=("bets/01", "base/U", "base/B"))
    game.apply(PlaceTile(0, -1, 180))
    game.apply(PlaceFigure("meeple", "S"))
    assert (game.phase, game.to_move) == ("bet", 0)
    game.apply(PlaceBet("3/5"))
    game.apply(PlaceBet("4/7+"))
    game.apply(PlaceTile(1, 0, 0))
    game.apply(PASS)
    assert public_placements(game) == [
        {"ply": 0, "turn": 1, "seat": 0, "tile": "bets/01", "x": 0, "y": -1, "rotation": 180,
         "figure": {"figure": "meeple", "location": "S"}},
        {"ply": 4, "turn": 2, "seat": 1, "tile": "base/U", "x": 1, "y": 0, "rotation": 0,
         "figure": None},
    ]  # fmt: skip
    # The turns match the events': the city seat 0's tile closed, then both bets, in turn 1.
    assert [(e.turn, type(e).__name__) for e in game.events] == [
        (1, "ScoreEvent"), (1, "GameEvent"), (1, "GameEvent"),
    ]  # fmt: skip
    text = json.dumps(public_placements(game))
    assert "3/5" not in text and "4/7" not in text and "chip" not in text


def test_a_tile_placed_but_not_yet_followed_by_its_figure_has_none() -> None:
    game = Game(players=2, stack=("base/U", "base/B"))
    game.apply(PlaceTile(1, 0, 0))
    assert game.phase == "figure"
    assert public_placements(game) == [
        {"ply": 0, "turn": 1, "seat": 0, "tile": "base/U", "x": 1, "y": 0, "rotation": 0,
         "figure": None},
    ]  # fmt: skip
