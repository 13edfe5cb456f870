"""The actions a seat can take.

Actions are small immutable tuples so that legal-action lists are cheap to build and actions can
be compared, hashed and stored in game records.  Coordinates and locations follow docs/rules.md §0:
``(x, y)`` with y growing south, rotation in clockwise degrees, locations in board orientation.
Expansions define their own action types in ``expansions/actions.py``, which also names the union
of them all, ``Action``.  :class:`IllegalAction` is the engine's refusal of one.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple


class PlaceTile(NamedTuple):
    """Step 1: put the drawn tile on square (x, y) at ``rotation`` degrees clockwise."""

    x: int
    y: int
    rotation: int


class PlaceFigure(NamedTuple):
    """Step 2: put a figure (``meeple``, or an expansion's: ``abbot``, ``large-meeple``,
    ``builder``, ``pig``) on a feature of the tile just placed."""

    figure: str
    location: str


class Pass(NamedTuple):
    """Decline an optional step (no figure, no bet, no wine sale)."""


PASS: Final = Pass()


class IllegalAction(ValueError):
    """An action that the rules do not allow now; the game is unchanged.

    ``reason`` names the rule the action breaks and ``params`` the values its message quotes
    (squares, tile ids, the engine's names of figures, features and expansions), for clients
    that word the refusal themselves: the web page does, in its player's language.
    """

    def __init__(
        self, message: str, reason: str = "not_legal", params: dict[str, Any] | None = None
    ) -> None:
        # All three are the exception's args, so that it pickles back whole from a worker
        # process: the compiled engine's exceptions have no __dict__ to carry the fields.
        super().__init__(message, reason, params)
        self.reason = reason
        self.params: dict[str, Any] = params or {}

    def __str__(self) -> str:
        return str(self.args[0])
