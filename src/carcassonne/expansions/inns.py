"""Inns & Cathedrals (C3 box, docs/rules.md §11): inns on roads, cathedrals in cities, the large
meeple.

The tiles (``data/tiles/ic.json``) carry the inns and cathedrals as marks, which the core counts
on each feature as it grows; this module only changes what such a feature pays
(:meth:`InnsCathedrals.adjust_value`): all or nothing, double when completed and nothing at the
end.  The large meeple is a figure type the core places like a meeple and weighs 2 in majorities.

The variants of §11.1 are settled when the expansion is built, so that scoring asks nothing
more: the marks a variant turns off (D52, D53) are simply not among those this module pays for,
and whether an unfinished one pays as a plain feature (D51) is kept as the value to return.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ..tiles import CITY, FIELD, MONASTERY, ROAD
from .base import Expansion

if TYPE_CHECKING:
    from ..features import Feature
    from ..game import Game
    from ..options import GameOptions

LARGE_MEEPLE: Final = "large-meeple"
INN: Final = "inn"
CATHEDRAL: Final = "cathedral"
#: a completed road with an inn pays this per tile
INN_POINTS: Final = 2
#: a completed city with a cathedral pays this per tile and per coat of arms
CATHEDRAL_POINTS: Final = 3


class InnsCathedrals(Expansion):
    name = "inns-cathedrals"
    tile_sets = ("ic",)
    figure_types = {LARGE_MEEPLE: frozenset({CITY, ROAD, FIELD, MONASTERY})}
    figure_strength = {LARGE_MEEPLE: 2}

    def __init__(self, options: GameOptions) -> None:
        #: feature kind -> the mark that changes what it pays there and the rate per tile (and
        #: coat of arms) when completed; a mark the variants turn off is left out (D52, D53)
        self._rates: dict[int, tuple[str, int]] = {}
        if options.inns:
            self._rates[ROAD] = (INN, INN_POINTS)
        if options.cathedrals:
            self._rates[CITY] = (CATHEDRAL, CATHEDRAL_POINTS)
        self._marks = tuple(mark for mark, _ in self._rates.values())
        #: D51: an unfinished marked feature pays as a plain one instead of nothing
        self._unfinished_pays = options.plain_unfinished_inns_cathedrals

    def scoring_marks(self) -> tuple[str, ...]:
        return self._marks

    def setup(self, game: Game) -> None:
        for supply in game.supply:
            supply[LARGE_MEEPLE] = 1

    def adjust_value(self, game: Game, feature: Feature, final: bool, value: int) -> int:
        marks = feature.marks
        if marks is None:
            return value
        rate = self._rates.get(feature.kind)
        if rate is None or rate[0] not in marks:
            return value
        if final:
            return value if self._unfinished_pays else 0
        # a road has no coat of arms: the same sum counts its tiles
        return rate[1] * (len(feature.squares) + feature.coat_of_arms)
