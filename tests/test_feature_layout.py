"""How the board's features are laid out as tiles land (placement.py, features.py).

The rules tests check what features are; these check the incremental bookkeeping that keeps
them cheap: a segment that continues a neighbour's feature is added to it (no feature made and
merged away), and the one list shared by every feature that borders no city is never grown.
"""

from __future__ import annotations

import random

from carcassonne import Game, GameOptions, PlaceTile
from carcassonne.board import encode
from carcassonne.features import NO_CITIES


def test_a_segment_continuing_a_neighbours_feature_is_added_to_that_feature() -> None:
    # base/U's road runs W-E: at (1, 0) it continues the start tile's road, a feature of one
    # segment, and the field north of it continues the start tile's north field
    game = Game(players=2, stack=("base/U", "base/U"))
    road = game.feature_at(0, 0, "E")
    field = game.feature_at(0, 0, "EL")
    game.apply(PlaceTile(1, 0, 0))
    assert game.feature_at(1, 0, "W") is road
    assert game.feature_at(1, 0, "NL") is field
    assert road.segments[0] == game.board[encode(0, 0)].base + 1  # ... and keeps its first segment
    assert len(road.squares) == 2 and road.open == 2 and len(field.squares) == 2


def test_the_shared_empty_city_list_is_never_grown() -> None:
    for seed in range(3):
        for options in (GameOptions(seed=seed), GameOptions(seed=seed, inns_cathedrals=True)):
            game = Game(options)
            rng = random.Random(seed)
            while not game.is_over:
                actions = game.legal_actions()
                if game.phase == "tile":
                    for action in actions[:3]:  # look-aheads merge and take back features too
                        with game.placed_for_lookahead(action):
                            pass
                game.apply(actions[int(rng.random() * len(actions))])
                assert NO_CITIES == []
