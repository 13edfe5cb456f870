"""Traders & Builders (docs/rules.md §12): trade goods, the builder and the pig.

- **Trade goods.** City segments of the expansion's tiles carry a goods mark (``wine``,
  ``grain``, ``cloth``: :data:`GOODS`, never to be confused with Map-Chips wine).  When a tile
  completes a city, whoever placed it takes one token per mark in the city (``after_scoring``,
  D46); at the end each kind's majority scores 10, ties all score (``before_final_scoring``, D49).
- **The builder** goes on a road or city where its seat already has a meeple (``figure_allowed``,
  D44) and weighs nothing in majorities.  A tile that extends its feature (``after_tile_placed``,
  D40) earns its seat a second tile at once (``end_of_turn``, D41), never a third.
- **The pig** goes on a field where its seat already has a farmer; a seat that wins that field
  scores 4 per completed city instead of 3 (``adjust_points``, D45).

The tokens are public, so there is nothing to re-deal for search.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final

from ..tiles import CITY, FIELD, ROAD
from .base import Expansion

if TYPE_CHECKING:
    from ..features import Feature
    from ..game import Game, PlacedTile

#: the trade goods, in the order views and events list them
GOODS: Final[tuple[str, ...]] = ("wine", "grain", "cloth")
BUILDER: Final = "builder"
PIG: Final = "pig"
#: what the majority of one kind of goods pays at the end
GOODS_MAJORITY_POINTS: Final = 10


class TradersBuilders(Expansion):
    """State: each seat's goods tokens, and where the builder's double turn stands."""

    name = "traders_builders"
    tile_sets = ("traders_builders",)
    figure_types: ClassVar[dict[str, frozenset[int]]] = {
        BUILDER: frozenset({ROAD, CITY}),
        PIG: frozenset({FIELD}),
    }
    figure_strength: ClassVar[dict[str, int]] = {BUILDER: 0, PIG: 0}
    joining_figures: ClassVar[frozenset[str]] = frozenset({BUILDER, PIG})

    def __init__(self) -> None:
        #: seat -> tokens held per kind, in :data:`GOODS` order
        self.goods: list[list[int]] = []
        # the tile of this turn extended a feature holding the active seat's builder (D40)
        self._extended = False
        # this turn is the builder's second tile, which never earns a third
        self._second = False

    def setup(self, game: Game) -> None:
        self.goods = [[0] * len(GOODS) for _ in range(game.players)]
        for supply in game.supply:
            supply[BUILDER] = 1
            supply[PIG] = 1

    def copy(self) -> TradersBuilders:
        other = TradersBuilders()
        other.goods = [held.copy() for held in self.goods]
        other._extended = self._extended
        other._second = self._second
        return other

    def restore(self, saved: Expansion) -> None:
        assert isinstance(saved, TradersBuilders)
        self.goods, self._extended, self._second = saved.goods, saved._extended, saved._second

    @property
    def earned_second_tile(self) -> bool:
        """Whether the tile placed this turn has earned its seat a builder's second tile."""
        return self._extended

    # ----------------------------------------------------------------------------- figures

    def figure_allowed(self, game: Game, seat: int, figure: str, feature: Feature) -> bool:
        """Builder and pig only join a feature that already holds one of the seat's meeples."""
        if figure != BUILDER and figure != PIG:
            return True
        # a meeple is any figure but these two, which weigh nothing (:attr:`figure_strength`)
        for owner, kind, _ in feature.figures:
            if owner == seat and kind != BUILDER and kind != PIG:
                return True
        return False

    # -------------------------------------------------------------------- the double turn

    def after_tile_placed(self, game: Game, placed: PlacedTile) -> None:
        if self._second:
            return
        seat = placed.seat
        seg_feature = game.seg_feature
        base = placed.base
        for i in placed.orientation.closable:
            for owner, kind, _ in seg_feature[base + i].figures:
                if owner == seat and kind == BUILDER:
                    self._extended = True
                    return

    def end_of_turn(self, game: Game) -> None:
        if self._second:
            self._second = False
        elif self._extended:
            self._extended = False
            if game.stack:  # D41: always played, unless nothing is left to draw
                self._second = True
                game.grant_extra_turn()

    # ---------------------------------------------------------------------------- scoring

    def after_scoring(self, game: Game, completed: list[Feature]) -> None:
        seat = game.active
        for feature in completed:
            marks = feature.marks
            if feature.kind != CITY or not marks:
                continue
            taken = {kind: marks.get(kind, 0) for kind in GOODS if marks.get(kind, 0)}
            if not taken:
                continue
            held = self.goods[seat]
            for index, kind in enumerate(GOODS):
                held[index] += taken.get(kind, 0)
            game.log("goods", seat, goods=taken, tiles=len(feature.squares))

    def adjust_points(
        self, game: Game, feature: Feature, final: bool, points: dict[int, int]
    ) -> None:
        """A field's winner whose pig stands in it scores 4 per completed city, not 3 (D45)."""
        if feature.kind != FIELD or not points:
            return
        pigs: list[int] = []  # winning seats with a pig here, each once
        for owner, kind, _ in feature.figures:
            if kind == PIG and owner in points and owner not in pigs:
                pigs.append(owner)
        if not pigs:
            return
        cities = sum(1 for city in game.bordering_cities(feature) if city.complete)
        for seat in pigs:
            points[seat] += cities

    def before_final_scoring(self, game: Game) -> None:
        """Each kind's majority of tokens scores 10, ties all score; nobody holds none (D49)."""
        for index, kind in enumerate(GOODS):
            most = max(held[index] for held in self.goods)
            if most == 0:
                continue
            for seat, held in enumerate(self.goods):
                if held[index] == most:
                    game.add_points(
                        seat, GOODS_MAJORITY_POINTS, "goods", "final", goods=kind, tokens=most
                    )

    # ------------------------------------------------------------------------------ views

    def view(self, game: Game, seat: int | None) -> dict[str, Any]:
        """Public (D49): every seat's tokens, and whether this turn is a builder's second tile."""
        return {
            "goods": [dict(zip(GOODS, held, strict=True)) for held in self.goods],
            "second_tile": self._second,
        }
