"""Features (roads, cities, fields, monasteries, gardens) as they grow across the board.

Each placed segment belongs to exactly one :class:`Feature`; joining two segments merges the
smaller feature into the larger and re-points its segments, so looking up a segment's feature is
one list index and nothing is ever re-traced.  A feature keeps what scoring needs, updated as it
grows: distinct squares, open edge count (complete at zero), coats of arms, figures, and for
fields the city segments they border.
"""

from __future__ import annotations

from .tiles import KIND_NAMES


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
    )

    def __init__(self, kind: int, segment: int, square: int, open_edges: int, coat_of_arms: int):
        self.kind = kind
        self.segments = [segment]
        #: distinct squares covered (a square counts once even if the feature passes twice)
        self.squares = {square}
        #: city/road edges not yet joined to a neighbour or closed by a border
        self.open = open_edges
        self.coat_of_arms = coat_of_arms
        #: (seat, figure type, segment) for each figure standing on the feature
        self.figures: list[tuple[int, str, int]] = []
        #: fields only: global ids of the city segments this field borders
        self.cities: list[int] = []
        self.complete = False

    @property
    def kind_name(self) -> str:
        return KIND_NAMES[self.kind]

    def figure_counts(self) -> dict[int, int]:
        counts: dict[int, int] = {}
        for seat, _, _ in self.figures:
            counts[seat] = counts.get(seat, 0) + 1
        return counts

    def majority(self) -> list[int]:
        """Seats with the most figures here (all of them score in full on a tie)."""
        figures = self.figures
        if len(figures) == 1:  # most features with figures: spare the counting
            return [figures[0][0]]
        counts = self.figure_counts()
        if not counts:
            return []
        best = max(counts.values())
        return sorted(seat for seat, n in counts.items() if n == best)

    def clone(self) -> Feature:
        other = Feature.__new__(Feature)
        other.kind = self.kind
        other.segments = self.segments.copy()
        other.squares = self.squares.copy()
        other.open = self.open
        other.coat_of_arms = self.coat_of_arms
        other.figures = self.figures.copy()
        other.cities = self.cities.copy()
        other.complete = self.complete
        return other

    def __repr__(self) -> str:
        state = "complete" if self.complete else f"open={self.open}"
        return f"<{self.kind_name} tiles={len(self.squares)} {state} figures={self.figures}>"
