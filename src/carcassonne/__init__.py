"""An exact, fast Carcassonne engine: base game (C3), River, Abbot, The Bets, France map.

The core type is :class:`Game`; see ``game.py`` for how a turn runs and ``expansions/`` for how
expansions plug in.
"""

from . import game as _game
from .actions import PASS, Pass, PlaceFigure, PlaceTile
from .events import GameEvent, ScoreEvent
from .expansions.actions import Action
from .game import Game, GameOptions, GameSetupError, IllegalAction

#: ``"compiled"`` when the engine runs as the mypyc build (``CARCASSONNE_COMPILE=1 pip install
#: .``, see ``setup.py``), ``"pure"`` when it runs as Python source
BUILD = "pure" if (_game.__file__ or "").endswith(".py") else "compiled"

__all__ = [
    "BUILD",
    "Action",
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
