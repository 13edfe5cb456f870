"""Features (roads, cities, fields, monasteries, gardens) as they grow across the board.

Each placed segment belongs to exactly one :class:`Feature`: a segment that joins a neighbour's
feature is added to it, one that joins none gets its own, and a tile that joins two features
merges the smaller into the larger and re-points its segments, so looking up a segment's feature
is one list index and nothing is ever re-traced.  A feature keeps what scoring needs, updated as it
grows: distinct squares, open edge count (complete at zero), coats of arms, marks (inns,
cathedrals, trade goods), figures, and for fields the city segments they border.
"""

from __future__ import annotations

from typing import Final

from .tiles import KIND_NAMES

#: the cities of every feature that borders none (all but fields, and fields along no city),
#: shared so that such a feature allocates no list: never grown, whoever adds cities to a
#: feature gives it a list of its own first
NO_CITIES: Final[list[int]] = []


class Feature:
    __slots__ = (
        "kind",
        "segments",
        "squares",
        "open",
        "coat_of_arms",
        "figures",
        "cities",
        "complete",
        "marks",
    )

    def __init__(
        self,
        kind: int,
        segments: list[int],
        squares: set[int],
        open_edges: int,
        coat_of_arms: int,
        figures: tuple[tuple[int, str, int], ...],
        cities: list[int],
        complete: bool = False,
        marks: dict[str, int] | None = None,
    ) -> None:
        self.kind = kind
        #: global ids of its segments, the first one where it started
        self.segments = segments
        #: distinct squares covered (a square counts once even if the feature passes twice)
        self.squares = squares
        #: city/road edges not yet joined to a neighbour or closed by a border
        self.open = open_edges
        self.coat_of_arms = coat_of_arms
        #: (seat, figure type, segment) for each figure standing on the feature, a tuple replaced
        #: when one comes or goes (rare: most features never hold one, and share the empty one)
        self.figures = figures
        #: fields only: global ids of the city segments this field borders (NO_CITIES if none)
        self.cities = cities
        self.complete = complete
        #: mark -> how many of its segments carry it; None when none do, so that a base game
        #: allocates nothing for marks
        self.marks = marks

    @property
    def kind_name(self) -> str:
        return KIND_NAMES[self.kind]

    def figure_counts(self) -> dict[int, int]:
        counts: dict[int, int] = {}
        for seat, _figure, _segment in self.figures:  # (``_`` would be boxed, see placement)
            counts[seat] = counts.get(seat, 0) + 1
        return counts

    def mark_count(self, mark: str) -> int:
        marks = self.marks
        return marks.get(mark, 0) if marks is not None else 0

    def majority(self, strength: dict[str, int] | None = None) -> list[int]:
        """Seats with the most figures here (all of them score in full on a tie).

        ``strength`` weighs figure types (a large meeple counts 2, a builder 0; unlisted types
        1); None, the usual case, counts every figure as one.  Seats whose figures weigh 0 in
        all have no share, so a feature holding only such figures pays nobody.
        """
        figures = self.figures
        if strength is None:
            if len(figures) == 1:  # most features with figures: spare the counting
                return [figures[0][0]]
            counts = self.figure_counts()
        else:
            counts = {}
            for seat, figure, _segment in figures:
                counts[seat] = counts.get(seat, 0) + strength.get(figure, 1)
        if not counts:
            return []
        best = max(counts.values())
        if best == 0:
            return []
        return sorted(seat for seat, n in counts.items() if n == best)

    def clone(self) -> Feature:
        """An independent copy (``Game.copy`` clones every feature on the board).

        Written for the compiled build: ``set(...)`` is a direct C call where a set's
        ``.copy()`` is a method looked up by name.  The figures, a tuple, are shared; so is
        NO_CITIES, never grown.
        """
        cities = self.cities
        return Feature(
            self.kind,
            self.segments.copy(),
            set(self.squares),
            self.open,
            self.coat_of_arms,
            self.figures,
            cities.copy() if cities else NO_CITIES,
            self.complete,
            self.marks.copy() if self.marks is not None else None,
        )

    def __repr__(self) -> str:
        state = "complete" if self.complete else f"open={self.open}"
        return f"<{self.kind_name} tiles={len(self.squares)} {state} figures={self.figures}>"
