"""Inns & Cathedrals (C3 box, docs/rules.md §11): inns on roads, cathedrals in cities, the large
meeple.

The tiles (``data/tiles/ic.json``) carry the inns and cathedrals as marks, which the core counts
on each feature as it grows; this module only changes what such a feature pays
(:meth:`InnsCathedrals.adjust_value`): all or nothing, double when completed and nothing at the
end.  The large meeple is a figure type the core places like a meeple and weighs 2 in majorities.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..tiles import CITY, FIELD, MONASTERY, ROAD
from .base import Expansion

if TYPE_CHECKING:
    from ..features import Feature
    from ..game import Game

LARGE_MEEPLE = "large-meeple"
INN = "inn"
CATHEDRAL = "cathedral"
#: a completed road with an inn pays this per tile
INN_POINTS = 2
#: a completed city with a cathedral pays this per tile and per coat of arms
CATHEDRAL_POINTS = 3


class InnsCathedrals(Expansion):
    name = "inns-cathedrals"
    tile_sets = ("ic",)
    figure_types = {LARGE_MEEPLE: frozenset({CITY, ROAD, FIELD, MONASTERY})}
    figure_strength = {LARGE_MEEPLE: 2}
    scoring_marks = (INN, CATHEDRAL)

    def setup(self, game: Game) -> None:
        for supply in game.supply:
            supply[LARGE_MEEPLE] = 1

    def adjust_value(self, game: Game, feature: Feature, final: bool, value: int) -> int:
        marks = feature.marks
        if marks is None:
            return value
        if feature.kind == ROAD and INN in marks:
            return 0 if final else INN_POINTS * len(feature.squares)
        if feature.kind == CITY and CATHEDRAL in marks:
            return 0 if final else CATHEDRAL_POINTS * (len(feature.squares) + feature.coat_of_arms)
        return value
