"""The fixed action space: every engine action as one index of ``Discrete(size)``, and back.

A learning agent needs one output per possible action, the same for every position, so that a
mask can switch off what is not legal now.  The indices are laid out in blocks, in this order
(``docs/env.md`` has the table with sizes):

1. ``PlaceTile(x, y, rotation)`` for every square of the window and every rotation:
   ``((y - window.y0) * window.width + (x - window.x0)) * 4 + rotation // 90``;
2. ``PASS``;
3. ``PlaceFigure(figure, location)`` for each pair in :data:`FIGURE_SLOTS` (canonical locations:
   every city or road is named by its first edge, every field by its first half-edge);
4. ``RecallAbbot``: one index, as a seat has one abbot, so its square is the abbot's;
5. ``PlaceBet(chip)`` for each chip of :data:`~carcassonne.expansions.bets.CHIPS`;
6. ``SettleAgainst(kind, location)`` for :data:`SETTLE_SLOTS`: the office being settled is the
   one the decision is about, so only the feature of its tile is chosen;
7. ``SellWine(outlet, colour, chips)`` for :data:`WINE_SLOTS`;
8. ``WAIT``: the only action of an agent whose decision it is not, in the ``turn_order="cycle"``
   mode of the environment (never legal otherwise);
9. only in the *extended* layout: ``PlaceFigure(figure, location)`` for each pair in
   :data:`EXTENDED_FIGURE_SLOTS`, the figures and the location that Inns & Cathedrals and
   Traders & Builders add (the large meeple, the builder, the pig, the enclosed field).

Blocks 1–8 depend only on the window, so one policy network fits every combination of the
other expansions, and models trained on them keep their meaning.  The extended layout appends
block 9 after ``WAIT``: an index names the same action in both layouts.  It is used when the
game has Inns & Cathedrals or Traders & Builders, or when asked for (one network for every
game).  Two blocks leave out a square that is fixed by the decision (the abbot's, the
office's): :meth:`ActionLayout.index_to_action` takes the game to fill it in.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, SupportsIndex

from ..actions import PASS, PlaceFigure, PlaceTile
from ..expansions.abbot import ABBOT, RecallAbbot
from ..expansions.bets import CHIPS, PlaceBet, SettleAgainst
from ..expansions.inns import LARGE_MEEPLE
from ..expansions.mapchips import EXPORT, TOWN, WINES, SellWine
from ..expansions.registry import extended_observation
from ..expansions.traders import BUILDER, PIG
from ..game import MEEPLE, Game
from ..maps import GRAPES
from ..options import GameOptions
from ..tiles import EDGE_NAMES, ENCLOSED_FIELD, HALF_NAMES

#: (figure, location) of every figure placement, in index order
FIGURE_SLOTS: tuple[tuple[str, str], ...] = (
    *((MEEPLE, location) for location in (*EDGE_NAMES, *HALF_NAMES, "monastery")),
    (ABBOT, "monastery"),
    (ABBOT, "garden"),
)
#: the figure placements of the extended layout, in index order after ``WAIT``: a meeple on the
#: enclosed field of an Inns & Cathedrals tile, the large meeple wherever a meeple may go, the
#: builder on a city or road, the pig on a field
EXTENDED_FIGURE_SLOTS: tuple[tuple[str, str], ...] = (
    (MEEPLE, ENCLOSED_FIELD),
    *((LARGE_MEEPLE, location) for location in (*EDGE_NAMES, *HALF_NAMES, ENCLOSED_FIELD)),
    (LARGE_MEEPLE, "monastery"),
    *((BUILDER, location) for location in EDGE_NAMES),
    *((PIG, location) for location in (*HALF_NAMES, ENCLOSED_FIELD)),
)
#: (feature kind, location on the office tile) of every settle choice, in index order
SETTLE_SLOTS: tuple[tuple[str, str], ...] = tuple(
    (kind, edge) for kind in ("city", "road") for edge in EDGE_NAMES
)
#: every wine sale, in index order
WINE_SLOTS: tuple[SellWine, ...] = tuple(
    SellWine(outlet, colour, chips)
    for outlet in (EXPORT, TOWN)
    for colour in GRAPES
    for chips in WINES
)


def needs_extended(options: GameOptions) -> bool:
    """Whether a game with ``options`` has actions or marks only the extended layout covers."""
    return extended_observation(options)


class Wait:
    """The non-action of an agent whose decision it is not (``turn_order="cycle"`` only)."""

    def __repr__(self) -> str:
        return "WAIT"


WAIT = Wait()


@dataclass(frozen=True, slots=True)
class Window:
    """The squares tiles may be placed on, as the action space and the board planes see them.

    On a map it is the whole map; on the open table a square of ``width`` × ``height`` squares
    centred on the start tile (a placement outside it is not in the action space).
    """

    x0: int
    y0: int
    width: int
    height: int

    @classmethod
    def for_game(cls, game: Game, size: int) -> Window:
        if game.map is not None:
            return cls(0, 0, game.map.width, game.map.height)
        if size < 3 or size % 2 == 0:
            raise ValueError(f"window must be an odd number of squares, at least 3, not {size}")
        return cls(-(size // 2), -(size // 2), size, size)

    def cell(self, x: int, y: int) -> tuple[int, int] | None:
        """(row, column) of square (x, y), or None outside the window."""
        row, column = y - self.y0, x - self.x0
        if 0 <= row < self.height and 0 <= column < self.width:
            return row, column
        return None


class ActionLayout:
    """The stable two-way mapping between engine actions and indices for one window;
    ``extended`` appends the block of :data:`EXTENDED_FIGURE_SLOTS`."""

    def __init__(self, window: Window, extended: bool = False) -> None:
        self.window = window
        self.extended = extended
        self.tiles = window.width * window.height * 4
        self.pass_index = self.tiles
        self.figure_start = self.pass_index + 1
        self.recall_index = self.figure_start + len(FIGURE_SLOTS)
        self.bet_start = self.recall_index + 1
        self.settle_start = self.bet_start + len(CHIPS)
        self.wine_start = self.settle_start + len(SETTLE_SLOTS)
        self.wait_index = self.wine_start + len(WINE_SLOTS)
        self.extended_figure_start = self.wait_index + 1
        #: the number of actions, N of ``Discrete(N)``
        self.size = self.extended_figure_start + (len(EXTENDED_FIGURE_SLOTS) if extended else 0)
        self._fixed: dict[Any, int] = {PASS: self.pass_index, WAIT: self.wait_index}
        for i, (figure, location) in enumerate(FIGURE_SLOTS):
            self._fixed[PlaceFigure(figure, location)] = self.figure_start + i
        for i, (figure, location) in enumerate(EXTENDED_FIGURE_SLOTS if extended else ()):
            self._fixed[PlaceFigure(figure, location)] = self.extended_figure_start + i
        for i, chip in enumerate(CHIPS):
            self._fixed[PlaceBet(chip)] = self.bet_start + i
        for i, slot in enumerate(SETTLE_SLOTS):
            self._fixed[slot] = self.settle_start + i
        for i, sale in enumerate(WINE_SLOTS):
            self._fixed[sale] = self.wine_start + i
        # settle choices need the office's square from the game: not in this table.  Only
        # indices inside the window are remembered (the rare placement outside is recomputed),
        # so that a lookup that succeeds is always an index
        self._known: dict[Any, int] = {}
        self._by_index = {
            index: action for action, index in self._fixed.items() if action not in SETTLE_SLOTS
        }

    def action_to_index(self, action: Any) -> int | None:
        """The index of ``action``; None for a tile placement outside the window.

        Raises ValueError for something that is not an action of the bundled rules.
        """
        # Legal-action lists are rebuilt at every decision from the same few action values:
        # remembering their indices halves the cost of a mask.
        try:
            return self._known[action]
        except KeyError:
            pass
        except TypeError:  # unhashable: not an action
            raise ValueError(f"{action!r} is not an action of the action space") from None
        index = self._compute_index(action)
        if index is not None:
            self._known[action] = index
        return index

    def index_actions(self, actions: list[Any]) -> tuple[list[Any], list[int]]:
        """The legal ``actions`` of a decision that lie in the action space (a placement outside
        the window has no index), in their order, and their indices, position by position.

        Every step pays this for its whole legal list, so the usual case, every action's index
        already remembered (and so inside the window), is one list comprehension with no call
        per action, and the engine's list itself (not written to: it is the engine's)."""
        known = self._known
        try:
            return actions, [known[action] for action in actions]
        except (KeyError, TypeError):  # one not seen yet, or outside (or not an action: raised)
            pass
        kept: list[Any] = []
        indices: list[int] = []
        for action in actions:
            index = self.action_to_index(action)
            if index is not None:
                kept.append(action)
                indices.append(index)
        return kept, indices

    def _compute_index(self, action: Any) -> int | None:
        if isinstance(action, PlaceTile):
            x, y, rotation = action
            cell = self.window.cell(x, y)
            if cell is None:
                return None
            return (cell[0] * self.window.width + cell[1]) * 4 + rotation // 90
        if isinstance(action, RecallAbbot):
            return self.recall_index
        if isinstance(action, SettleAgainst):
            action = (action.kind, action.location)
        index = self._fixed.get(action)
        if index is None:
            raise ValueError(f"{action!r} is not an action of the action space")
        return index

    def index_to_action(self, index: SupportsIndex, game: Game | None = None) -> Any:
        """The action of ``index``; ``game`` fills in the square of a recall or settle choice
        (the abbot's of the seat to move, the office being settled).  ValueError if ``index``
        is out of range, or names a recall or settle choice without a game that offers one."""
        number = operator.index(index)  # numpy integers too, never a float
        if not 0 <= number < self.size:
            raise ValueError(f"action index must be from 0 to {self.size - 1}, not {number}")
        if number < self.tiles:
            square, rotation = divmod(number, 4)
            row, column = divmod(square, self.window.width)
            return PlaceTile(column + self.window.x0, row + self.window.y0, rotation * 90)
        action = self._by_index.get(number)
        if action is not None:
            return action
        for legal in game.legal_actions() if game is not None else ():
            if self.action_to_index(legal) == number:
                return legal
        what = "recall of the abbot" if number == self.recall_index else "settle choice"
        raise ValueError(f"action index {number} is a {what}, which the game does not offer now")
