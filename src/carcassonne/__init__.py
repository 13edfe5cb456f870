"""An exact, fast Carcassonne engine: base game (C3), River, Abbot, The Bets, France map.

The core type is :class:`Game`; see ``game.py`` for how a turn runs and ``expansions/`` for how
expansions plug in.
"""

from .actions import PASS, Pass, PlaceFigure, PlaceTile
from .events import GameEvent, ScoreEvent
from .game import Game, GameOptions, GameSetupError, IllegalAction

__all__ = [
    "PASS",
    "Game",
    "GameEvent",
    "GameOptions",
    "GameSetupError",
    "IllegalAction",
    "Pass",
    "PlaceFigure",
    "PlaceTile",
    "ScoreEvent",
]
__version__ = "0.1.0"
