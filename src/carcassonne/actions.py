"""The actions a seat can take.

Actions are small immutable tuples so that legal-action lists are cheap to build and actions can
be compared, hashed and stored in game records.  Coordinates and locations follow docs/rules.md §0:
``(x, y)`` with y growing south, rotation in clockwise degrees, locations in board orientation.
Expansions define their own action types in ``expansions/actions.py``, which also names the union
of them all, ``Action``.
"""

from __future__ import annotations

from typing import NamedTuple


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


PASS = Pass()
