"""The ruleset: what options fix whatever the seed, checked and worked out once and shared.

Games from options equal but for the seed and the stack share one ruleset (the same figure
tables, the same land tiles), each with expansions of its own; other options are checked
afresh (an error names what is wrong, after any number of good games), and only the last
options are kept, whatever a server is asked for.
"""

from __future__ import annotations

import pytest

from carcassonne import ruleset
from carcassonne.expansions import build_expansions
from carcassonne.expansions.base import Expansion
from carcassonne.game import Game
from carcassonne.options import GameOptions, GameSetupError

EVERYTHING = GameOptions(map="france", map_chips=True, abbot=True, bets=True)


def test_games_from_the_same_options_share_their_ruleset() -> None:
    first, second = Game(EVERYTHING.with_(seed=1)), Game(EVERYTHING.with_(seed=2))
    assert first.figure_kinds is second.figure_kinds
    assert first.joining_figures is second.joining_figures
    assert first._scoring_marks is second._scoring_marks
    # each game plays with expansion objects of its own, built with its own options
    assert [type(e) for e in first.expansions] == [type(e) for e in second.expansions]
    assert all(a is not b for a, b in zip(first.expansions, second.expansions, strict=True))
    # the seed changes nothing of it, any other option makes a new one
    third = Game(EVERYTHING.with_(seed=3, bets=False))
    assert third.figure_kinds is not first.figure_kinds


@pytest.mark.parametrize(
    "options",
    [
        GameOptions(),
        GameOptions(abbot=True, farmers=False),
        GameOptions(inns_cathedrals=True, traders_builders=True, copies=2),
        GameOptions(river=True, abbot=True),
        EVERYTHING,
    ],
)
def test_a_shared_ruleset_is_what_the_options_make_alone(options: GameOptions) -> None:
    Game(options.with_(seed=1))  # leaves its ruleset for the next game
    shared = Game(options.with_(seed=2))
    ruleset._LAST.clear()
    alone = Game(options.with_(seed=2))
    assert shared.figure_kinds == alone.figure_kinds
    assert shared.figure_strength == alone.figure_strength
    assert shared.joining_figures == alone.joining_figures
    assert shared._scoring_marks == alone._scoring_marks
    assert shared.tile_sets() == alone.tile_sets()
    assert shared.stack == alone.stack
    assert [type(e) for e in shared.expansions] == [
        type(e) for e in build_expansions(options.with_(seed=2))
    ]


def test_options_that_differ_are_checked_again() -> None:
    Game(GameOptions(seed=1))
    with pytest.raises(GameSetupError, match="players must be between 2 and 6, not 7"):
        Game(GameOptions(seed=1, players=7))
    with pytest.raises(GameSetupError, match="River"):
        Game(GameOptions(seed=1, river=True, map="france"))


def test_only_the_last_options_are_kept() -> None:
    for players in range(2, 7):
        for meeples in range(1, 30):
            Game(GameOptions(seed=1, players=players, meeples=meeples))
    assert len(ruleset._LAST) == 1
    assert ruleset._LAST[0][0]["meeples"] == 29


class _Piggy(Expansion):
    """An experiment's expansion: a figure of its own."""

    name = "piggy"
    figure_types = {"piggy": frozenset({2})}


def test_extra_expansions_get_a_ruleset_of_their_own() -> None:
    plain = Game(GameOptions(seed=1))
    extra = Game(GameOptions(seed=2), extra_expansions=[_Piggy()])
    again = Game(GameOptions(seed=3))
    assert "piggy" in extra.figure_kinds
    assert "piggy" not in plain.figure_kinds and again.figure_kinds is plain.figure_kinds
