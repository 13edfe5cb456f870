"""Final scoring: it pays the features that hold figures, each once, in the order of the board.

The engine finds them through the figures standing on them, not by walking every segment; the
game's log must still list them as ``Game.features()`` orders them (by their lowest segment,
which after a merge need not be a feature's first one), roads, cities and cloisters first, then
the fields, and each event must name its feature's squares and figures.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from carcassonne import Game, GameOptions, ScoreEvent
from carcassonne.tiles import FIELD

OPTION_SETS = {
    "base": GameOptions(),
    "everything": GameOptions(map="france", map_chips=True, abbot=True, bets=True),
    "ic-tb": GameOptions(inns_cathedrals=True, traders_builders=True),
}


def _random_game(options: GameOptions, seed: int) -> Game:
    game = Game(replace(options, seed=seed))
    rng = random.Random(seed)
    while not game.is_over:
        actions = game.legal_actions()
        game.apply(actions[rng.randrange(len(actions))])
    return game


@pytest.mark.parametrize("name", OPTION_SETS)
def test_final_scoring_pays_features_in_board_order(name: str) -> None:
    for seed in range(8):
        game = _random_game(OPTION_SETS[name], seed)
        features = game.features()  # final scoring returns no figures: they still stand
        expected = [f for f in features if f.figures and not f.complete and f.kind != FIELD]
        expected += [f for f in features if f.figures and f.kind == FIELD]
        paid = [
            e
            for e in game.events
            if isinstance(e, ScoreEvent) and e.reason == "final" and e.square_codes
        ]
        assert [set(e.square_codes) for e in paid] == [f.squares for f in expected], seed
        assert [e.figures for e in paid] == [f.figure_counts() for f in expected], seed
