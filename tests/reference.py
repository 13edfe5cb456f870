"""A deliberately simple reference scorer, to cross-check the engine's incremental scoring.

The engine never re-traces a feature: it merges features as tiles are placed (``game.py``
``_place``/``_merge``, ``features.py``), so a slip there would silently mis-score real games.
This module recomputes everything from scratch from the finished board, the slow and obvious
way: one flood fill over the segments of every placed tile, reading only the tile data
(``PlacedTile.orientation``: edges and segments), the board geometry (playable squares, printed
large cities) and the figures standing on segments.  It uses nothing of the engine's feature
bookkeeping (no ``Feature``, no ``seg_feature``, no ``Game`` scoring methods, no precomputed
``edge_segment``/``half_segment`` tables), so the two can only agree by both being right.

Rules implemented (docs/rules.md §1, §2, §4, D9, D15):

* roads and cities join across matching edges; fields join across half-edges: my half ``2d``
  touches the neighbour's half ``2*opp(d)+1`` and my ``2d+1`` its ``2*opp(d)``;
* a road or city side is closed when a tile's matching segment meets it, when it faces a
  printed large city's closed side, or when it faces a square off the map; a feature is complete
  when every side of every segment is closed;
* a monastery or garden is complete when all 8 surrounding squares hold a tile (a printed large
  city counts, D15);
* tiles are counted once per feature however often the feature passes through them; coats of
  arms are summed over the feature's segments;
* the seats with the most figures on a feature all score its full value (ties share); a builder
  or a pig weighs nothing there (Traders & Builders, docs/rules.md §12), and a field's winner with
  a pig in it gets 4 per completed city instead of 3;
* a completed city gives the player who placed its last tile one token per goods mark in it,
  and at the end each kind's most tokens score 10 (ties all score, nobody for a kind nobody holds);
* completed: city 2 per tile + 2 per coat of arms, road 1 per tile, cloister 9;
  end of game: city 1 + 1, road 1, cloister 1 + surrounding tiles, every field separately
  3 per completed city it borders;
* Inns & Cathedrals (§11): a road with an inn pays 2 per tile completed and 0 at the end, a city
  with a cathedral 3 per tile and coat of arms completed and 0 at the end (their source is then
  ``inn`` / ``cathedral``); a large meeple counts 2 in a majority;
* the variant ``small_city_scores_2`` (D37): a completed two-tile city pays 1 per tile and coat;
* the Inns & Cathedrals variants (§11.1): without ``inns`` (D52) a road with an inn, without
  ``cathedrals`` (D53) a city with a cathedral, is a plain one in every way; with
  ``plain_unfinished_inns_cathedrals`` (D51) the marked ones left unfinished pay as plain ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from carcassonne import GameOptions
from carcassonne.board import Geometry, decode
from carcassonne.tiles import BORDER, CITY, FIELD, GARDEN, KIND_NAMES, MONASTERY, ROAD

XY = tuple[int, int]
#: (dx, dy) through the sides N E S W; y grows to the south (docs/rules.md §0)
STEPS: tuple[XY, ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))
RING: tuple[XY, ...] = tuple((dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dx or dy)
CLOISTERS = (MONASTERY, GARDEN)
#: how much a figure counts in a majority when not 1 (docs/rules.md §11, §12)
WEIGHTS = {"large-meeple": 2, "builder": 0, "pig": 0}
EDGE_KINDS = (CITY, ROAD)


GOODS = ("wine", "grain", "cloth")


class BoardError(AssertionError):
    """The board itself is inconsistent (e.g. two touching edges that do not match)."""


def opposite(side: int) -> int:
    return (side + 2) % 4


def facing_half(half: int) -> int:
    """The neighbour's half-edge that touches ``half`` (NL of mine touches SR of the tile north)."""
    side, right = divmod(half, 2)
    return 2 * opposite(side) + (1 - right)


@dataclass(eq=False)
class RefFeature:
    """One road, city, field, monastery or garden as the flood fill found it."""

    kind: int
    #: global segment ids (``placed.base + index``)
    segments: frozenset[int]
    #: distinct squares, as (x, y)
    squares: frozenset[XY]
    complete: bool
    coats_of_arms: int
    #: sides closed by the map border or a large city's closed side (not by a tile)
    border_sides: int = 0
    #: fields only: the distinct cities this field borders
    cities: list[RefFeature] = field(default_factory=list)
    #: the marks on its segments (inn, cathedral, …), each once per segment
    marks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Payout:
    """What one feature pays, in a form comparable with the engine's score events."""

    source: str
    reason: str
    squares: tuple[XY, ...]
    tiles: int
    coats_of_arms: int
    #: what the feature is worth, whether or not anyone collects it
    value: int
    #: seat -> figures of that seat on the feature
    figures: tuple[tuple[int, int], ...]
    #: seat -> points, for every seat of the majority (possibly 0 points)
    points: tuple[tuple[int, int], ...]
    #: fields only: completed cities bordered
    completed_cities: int | None = None


class Reference:
    """Every feature of a board, traced from scratch (build one per board state: it is slow)."""

    def __init__(
        self, board: Mapping[int, Any], geometry: Geometry, options: GameOptions | None = None
    ) -> None:
        options = options or GameOptions()
        self.small_city_scores_2 = options.small_city_scores_2
        self.inns = options.inns
        self.cathedrals = options.cathedrals
        self.plain_unfinished = options.plain_unfinished_inns_cathedrals
        self.tiles: dict[XY, Any] = {decode(pos): placed for pos, placed in board.items()}
        self.playable: set[XY] | None = (
            None if geometry.squares is None else {decode(pos) for pos in geometry.squares}
        )
        # segment id -> (square, index of the segment on its tile)
        self.where: dict[int, tuple[XY, int]] = {}
        for xy, placed in self.tiles.items():
            for i in range(len(placed.orientation.segments)):
                self.where[placed.base + i] = (xy, i)
        self.features: list[RefFeature] = []
        self._of: dict[int, RefFeature] = {}
        self._trace()

    # ------------------------------------------------------------------------------ geometry

    def segment(self, gid: int) -> Any:
        xy, i = self.where[gid]
        return self.tiles[xy].orientation.segments[i]

    def off_map(self, xy: XY) -> bool:
        return self.playable is not None and xy not in self.playable and xy not in self.tiles

    def occupied_around(self, xy: XY) -> int:
        """How many of the 8 squares around ``xy`` hold a tile (printed or played)."""
        x, y = xy
        return sum((x + dx, y + dy) in self.tiles for dx, dy in RING)

    def _across(self, xy: XY, side: int) -> tuple[XY, Any | None]:
        dx, dy = STEPS[side]
        there = (xy[0] + dx, xy[1] + dy)
        return there, self.tiles.get(there)

    def _find(self, placed: Any, kind: int, side: int | None, half: int | None) -> int:
        """Global id of ``placed``'s segment of ``kind`` touching ``side`` (or ``half``)."""
        for i, seg in enumerate(placed.orientation.segments):
            if seg.kind == kind and (side in seg.edges or half in seg.halves):
                return int(placed.base + i)
        raise BoardError(
            f"{placed!r}: no {KIND_NAMES[kind]} on side {side} / half {half} where its "
            "neighbour has one"
        )

    def _links(self, gid: int) -> tuple[list[int], int, int]:
        """Segments joined to ``gid`` across its tile's border, and how many of its sides are
        open and how many closed by the map (border or a large city's closed side)."""
        xy, _ = self.where[gid]
        seg = self.segment(gid)
        joined: list[int] = []
        open_sides = border_sides = 0
        if seg.kind in EDGE_KINDS:
            for side in seg.edges:
                there, other = self._across(xy, side)
                if other is None:
                    if self.off_map(there):
                        border_sides += 1
                    else:
                        open_sides += 1
                elif other.orientation.edges[opposite(side)] == BORDER:
                    border_sides += 1
                else:
                    joined.append(self._find(other, seg.kind, opposite(side), None))
        elif seg.kind == FIELD:
            for half in seg.halves:
                there, other = self._across(xy, half // 2)
                if other is not None and other.orientation.edges[opposite(half // 2)] != BORDER:
                    joined.append(self._find(other, FIELD, None, facing_half(half)))
        return joined, open_sides, border_sides

    # ------------------------------------------------------------------------------ tracing

    def _trace(self) -> None:
        for start in sorted(self.where):
            if start in self._of:
                continue
            kind = self.segment(start).kind
            members = {start}
            todo = [start]
            open_sides = border_sides = 0
            while todo:
                joined, sides, closed = self._links(todo.pop())
                open_sides += sides
                border_sides += closed
                for g in joined:
                    if g not in members:
                        members.add(g)
                        todo.append(g)
            squares = frozenset(self.where[g][0] for g in members)
            if kind in CLOISTERS:
                (xy,) = squares
                complete = self.occupied_around(xy) == 8
            else:
                complete = kind in EDGE_KINDS and open_sides == 0
            feature = RefFeature(
                kind=kind,
                segments=frozenset(members),
                squares=squares,
                complete=complete,
                coats_of_arms=sum(self.segment(g).coat_of_arms for g in members),
                border_sides=border_sides,
                marks=tuple(sorted(m for g in members for m in self.segment(g).marks)),
            )
            self.features.append(feature)
            for g in members:
                self._of[g] = feature
        for feature in self.features:
            if feature.kind == FIELD:
                for g in sorted(feature.segments):
                    xy, _ = self.where[g]
                    base = self.tiles[xy].base
                    for c in self.segment(g).cities:
                        city = self._of[base + c]
                        if all(city is not known for known in feature.cities):
                            feature.cities.append(city)

    def feature_of(self, gid: int) -> RefFeature:
        return self._of[gid]

    def feature_at(self, xy: XY, location: str) -> RefFeature:
        """The feature of the tile on ``xy`` that touches ``location`` (``N``, ``NL``, centre)."""
        placed = self.tiles[xy]
        return self._of[placed.base + placed.orientation.locations[location]]

    # ------------------------------------------------------------------------------ scoring

    def inn(self, feature: RefFeature) -> bool:
        """A road with an inn that counts (not with the variant without inns)."""
        return self.inns and feature.kind == ROAD and "inn" in feature.marks

    def cathedral(self, feature: RefFeature) -> bool:
        """A city with a cathedral that counts (not with the variant without cathedrals)."""
        return self.cathedrals and feature.kind == CITY and "cathedral" in feature.marks

    def source(self, feature: RefFeature) -> str:
        if self.inn(feature):
            return "inn"
        if self.cathedral(feature):
            return "cathedral"
        return KIND_NAMES[feature.kind]

    def value(self, feature: RefFeature, final: bool) -> int:
        """Points a road, city or cloister pays when completed (``final=False``) or at the end."""
        tiles = len(feature.squares)
        if feature.kind == CITY:
            units = tiles + feature.coats_of_arms
            if self.cathedral(feature):
                if final:
                    return units if self.plain_unfinished else 0
                return 3 * units
            if final or (tiles == 2 and self.small_city_scores_2):
                return units
            return 2 * units
        if feature.kind == ROAD:
            if self.inn(feature):
                if final:
                    return tiles if self.plain_unfinished else 0
                return 2 * tiles
            return tiles
        if feature.kind in CLOISTERS:
            if feature.complete:
                return 9
            (xy,) = feature.squares
            return 1 + self.occupied_around(xy)
        raise ValueError("fields pay through field_value")

    @staticmethod
    def completed_cities(feature: RefFeature) -> int:
        return sum(city.complete for city in feature.cities)

    def payout(
        self, feature: RefFeature, figures: Mapping[int, tuple[int, str]], reason: str
    ) -> Payout:
        """What ``feature`` pays with ``figures`` (segment id -> (seat, figure)) standing on it."""
        counts: dict[int, int] = {}
        strength: dict[int, int] = {}
        pigs: set[int] = set()
        for g in feature.segments:
            if g in figures:
                seat, figure = figures[g]
                counts[seat] = counts.get(seat, 0) + 1
                strength[seat] = strength.get(seat, 0) + WEIGHTS.get(figure, 1)
                if figure == "pig":
                    pigs.add(seat)
        best = max(strength.values(), default=0)
        winners = sorted(seat for seat, n in strength.items() if n == best and n > 0)
        bonus: dict[int, int] = {}
        if feature.kind == FIELD:
            cities = self.completed_cities(feature)
            value, tiles, coats, completed = 3 * cities, 0, 0, cities
            bonus = {seat: cities for seat in pigs}
        else:
            value = self.value(feature, final=reason == "final")
            tiles, coats, completed = len(feature.squares), feature.coats_of_arms, None
        return Payout(
            source=self.source(feature),
            reason=reason,
            squares=tuple(sorted(feature.squares)),
            tiles=tiles,
            coats_of_arms=coats,
            value=value,
            figures=tuple(sorted(counts.items())),
            points=tuple((seat, value + bonus.get(seat, 0)) for seat in winners),
            completed_cities=completed,
        )

    def goods(self, feature: RefFeature) -> dict[str, int]:
        """Trade goods marks on a city's segments, by kind (kinds without a mark left out)."""
        marks = [m for g in feature.segments for m in self.segment(g).marks if m in GOODS]
        return {kind: marks.count(kind) for kind in GOODS if kind in marks}

    def occupied(self, figures: Mapping[int, tuple[int, str]]) -> list[RefFeature]:
        """The distinct features some figure stands on, in a stable order."""
        seen: list[RefFeature] = []
        for g in sorted(figures):
            feature = self._of[g]
            if all(feature is not known for known in seen):
                seen.append(feature)
        return seen

    def final_payouts(self, figures: Mapping[int, tuple[int, str]]) -> list[Payout]:
        """Final scoring (docs/rules.md §1 End) of the figures still on the board.

        A complete road, city or cloister still holding a figure is not scored here: its figures
        should have come home when it was completed (the cross-check reports that separately).
        """
        return [
            self.payout(feature, figures, "final")
            for feature in self.occupied(figures)
            if feature.kind == FIELD or not feature.complete
        ]


def final_payouts(
    board: Mapping[int, Any], geometry: Geometry, figures: Mapping[int, tuple[int, str]]
) -> list[Payout]:
    """Final scoring of a finished board, from scratch."""
    return Reference(board, geometry).final_payouts(figures)


def goods_majorities(held: list[dict[str, int]]) -> list[tuple[str, int]]:
    """(kind, seat) of every 10 points the goods pay at the end, in kind then seat order."""
    paid = []
    for kind in GOODS:
        most = max(h.get(kind, 0) for h in held)
        paid += [(kind, seat) for seat, h in enumerate(held) if most and h.get(kind, 0) == most]
    return paid


#: Bets chips (docs/rules.md §3): tile count -> points, and the "or more" threshold that pays itself
CHIP_WINS: dict[str, dict[int, int]] = {
    "2/6": {2: 2, 6: 6},
    "3/5": {3: 3, 5: 5},
    "3/6": {3: 3, 6: 6},
    "4": {4: 8},
    "4/7+": {4: 4},
    "5/8+": {5: 5},
}
CHIP_OR_MORE = {"4/7+": 7, "5/8+": 8}


def chip_payoff(chip: str, tiles: int) -> int:
    """Points a Bets chip pays when settled against a road or city of ``tiles`` tiles."""
    if chip in CHIP_OR_MORE and tiles >= CHIP_OR_MORE[chip]:
        return CHIP_OR_MORE[chip]
    return CHIP_WINS[chip].get(tiles, 0)
