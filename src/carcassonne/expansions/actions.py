"""The expansions' action types (the core's are in ``carcassonne/actions.py``).

Each expansion module uses and re-exports its own.  They live here, apart from the expansions'
logic, because ``formats/actions.py`` reads their field types (``chips: tuple[int, ...]``) to
check JSON actions, and this module stays interpreted in the compiled build (``setup.py``),
which would keep only ``tuple`` of that; a NamedTuple is an ordinary class either way.
"""

from __future__ import annotations

from typing import NamedTuple, TypeAlias

from ..actions import Pass, PlaceFigure, PlaceTile


class RecallAbbot(NamedTuple):
    """Step 2 alternative: take back your abbot from square (x, y) and score it now."""

    x: int
    y: int


class PlaceBet(NamedTuple):
    """Step 4: put ``chip`` from your supply face down on the office of the tile just placed."""

    chip: str


class SettleAgainst(NamedTuple):
    """Choose the feature the chips on the office at (x, y) are settled against.

    The feature is a road or city of that bookmaker tile, named by ``kind`` and by its canonical
    ``location`` on the tile in board orientation (its first edge in N E S W order).
    """

    x: int
    y: int
    kind: str
    location: str


class SellWine(NamedTuple):
    """Step 3: hand in ``chips`` (values, ``(1, 1)`` or ``(2,)``) of one grape ``colour`` at
    ``outlet`` (``"export"`` for 5 points or ``"town"`` for 9)."""

    outlet: str
    colour: str
    chips: tuple[int, ...]


#: Every action of the engine and its bundled expansions: what ``Game.legal_actions()`` lists and
#: ``Game.apply`` takes.  (An extra expansion's own action types reach the engine through its
#: hooks, typed ``Any``, so they need not be named here.)
Action: TypeAlias = (
    PlaceTile | PlaceFigure | Pass | RecallAbbot | PlaceBet | SettleAgainst | SellWine
)
