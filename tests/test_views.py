"""The typed shape of a view (:mod:`carcassonne.views`) is the shape ``Game.view`` answers."""

from __future__ import annotations

import inspect
import random
import typing

import pytest

from carcassonne.actions import PlaceFigure
from carcassonne.game import Game, GameOptions
from carcassonne.views import FigureView, GameView, TileView


def test_a_view_has_exactly_the_keys_of_its_typed_shape() -> None:
    game = Game(GameOptions(seed=5, abbot=True))
    rng = random.Random(5)
    while not game.figures or game.turn < 6:
        actions = game.legal_actions()
        figures = [a for a in actions if isinstance(a, PlaceFigure)]
        game.apply(figures[0] if figures else rng.choice(actions))
    for seat in (None, 0, 1):
        view = game.view(seat)
        assert set(view) == set(GameView.__required_keys__)
        assert view["tiles"] and view["figures"]
        for tile in view["tiles"]:
            assert set(tile) == set(TileView.__required_keys__)
        for figure in view["figures"]:
            assert set(figure) == set(FigureView.__required_keys__)
        assert set(view["expansions"]) == {"abbot"}


def test_game_view_answers_the_typed_shape_not_a_plain_dict() -> None:
    # Readers of a view (the CLI, the web, the env) get its keys checked by mypy only if
    # ``Game.view`` says it returns a GameView; a ``dict[str, Any]`` hides every key.
    view = Game.view
    if not inspect.isfunction(view):
        pytest.skip("the compiled engine keeps no annotations to read")
    assert typing.get_type_hints(view)["return"] is GameView
