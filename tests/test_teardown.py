"""A finished game, its copies and its sampled worlds are freed by reference counting alone.

No object of a game refers back to it (the expansions are handed the game at each hook, never
keep it), so the last reference dropped frees the game at once: nothing is left for the cyclic
garbage collector to find, which would cost every game a collection's walk over all it holds.
"""

from __future__ import annotations

import gc
import random
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from carcassonne.game import Game, GameOptions

OPTION_SETS = [
    GameOptions(),
    GameOptions(map="france", map_chips=True, abbot=True, bets=True),
    GameOptions(inns_cathedrals=True, traders_builders=True),
    GameOptions(river=True, abbot=True),
]


@contextmanager
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.parametrize("options", OPTION_SETS, ids=["base", "everything", "ic-tb", "river-abbot"])
def test_a_game_and_its_copies_leave_no_cycle(options: GameOptions) -> None:
    rng = random.Random(3)
    with collector_off():
        game = Game(options.with_(seed=11))
        while not game.is_over:
            if game.phase == "tile" and game.turn == 20:
                with game.placed_for_lookahead(game.legal_actions()[0]):
                    copy = game.copy()
                world = game.determinized(game.to_move, rng)
                world.apply(world.legal_actions()[0])
            actions = game.legal_actions()
            game.apply(actions[int(rng.random() * len(actions))])
        del game, copy, world
        assert gc.collect() == 0
