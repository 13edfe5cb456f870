"""The look-ahead take-back: a tile placed for a bot to read the result, then taken back.

:class:`LookAhead` is one link of the game's line of classes (see ``state.py``): before
``Game.placed_for_lookahead`` places the drawn tile it saves what the placement can change as a
named :class:`TakeBack` (:meth:`LookAhead._save_around`), and when the block ends puts exactly
that back (:meth:`LookAhead._take_back`).  A bot's search tries every legal placement this way
instead of copying the whole game for each.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Generic, TypeVar

from .actions import PlaceTile
from .board import DELTAS, OPPOSITE, encode
from .expansions.actions import Action
from .expansions.base import Expansion
from .features import Feature
from .placement import Placement
from .state import PlacedTile

# A feature next to a look-ahead placement as it was: the feature, its segment count, squares,
# open edges, coats of arms, figure count, city count and marks (see LookAhead._save_around).
_SavedFeature = tuple[Feature, int, set[int], int, int, int, int, dict[str, int] | None]


class TakeBack:
    """What a look-ahead placement can change, saved by :meth:`LookAhead._save_around` and put
    back by :meth:`LookAhead._take_back`: lengths where the game only appends, copies where it
    rewrites."""

    __slots__ = (
        "pos",
        "segments",
        "features",
        "frontier",
        "inactive",
        "history",
        "last_placed",
        "legal",
        "expansions",
        "scores",
        "events",
    )

    def __init__(
        self,
        pos: int,
        segments: int,
        features: list[_SavedFeature],
        frontier: dict[int, tuple[int, tuple[PlaceTile, ...]]],
        inactive: set[int] | None,
        history: int,
        last_placed: PlacedTile | None,
        legal: list[Action] | None,
        expansions: list[tuple[Expansion, Expansion]] | None,
        scores: list[int] | None,
        events: int,
    ) -> None:
        #: the placed square, taken off the board
        self.pos = pos
        #: how many global segments there were: the tile's own are cut off
        self.segments = segments
        #: the features next to the square as they were
        self.features = features
        self.frontier = frontier
        #: the printed tiles not yet reached, when there were any (None: nothing to restore)
        self.inactive = inactive
        #: how many actions, and below how many events, were applied
        self.history = history
        self.last_placed = last_placed
        self.legal = legal
        #: each ``after_tile_placed`` expansion with a copy of its state, and the scores such a
        #: hook may change (both None when no expansion has the hook)
        self.expansions = expansions
        self.scores = scores
        self.events = events


_GameT = TypeVar("_GameT", bound="LookAhead")


class PlacedForLookAhead(Generic[_GameT]):
    """The block of :meth:`Game.placed_for_lookahead`: the tile is placed when it is made, taken
    back when the ``with`` block ends.  A native class rather than a ``contextlib`` generator, so
    that entering and leaving cost two direct calls (the greedy bot makes one per placement)."""

    __slots__ = ("game", "saved")

    def __init__(self, game: _GameT, saved: TakeBack) -> None:
        self.game = game
        self.saved = saved

    def __enter__(self) -> _GameT:
        return self.game

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.game._take_back(self.saved)


class LookAhead(Placement):
    """Placing a tile for a look-ahead and taking it back."""

    __slots__ = ()

    def _save_around(self, action: Any) -> TakeBack:
        """What placing ``action``'s tile can change, saved for :meth:`_take_back`."""
        features: list[_SavedFeature] = []
        try:
            pos = encode(action.x, action.y)
        except (AttributeError, ValueError, TypeError):
            pos = -1  # _apply_tile refuses it before changing anything
        board = self.board
        seg_feature = self.seg_feature
        for d in range(4):
            neighbour = board.get(pos + DELTAS[d])
            if neighbour is None:
                continue
            od = OPPOSITE[d]
            other = neighbour.orientation
            # the neighbour's segments on the shared side: its edge, then its two field halves
            for k in range(3):
                index = other.edge_segment[od] if k == 0 else other.half_segment[2 * od + k - 1]
                if index < 0:
                    continue
                f = seg_feature[neighbour.base + index]
                if all(f is not saved[0] for saved in features):
                    marks = f.marks
                    features.append(
                        (
                            f,
                            len(f.segments),
                            set(f.squares),
                            f.open,
                            f.coat_of_arms,
                            len(f.figures),
                            len(f.cities),
                            None if marks is None else dict(marks),
                        )
                    )
        hooked = self._after_place
        return TakeBack(
            pos,
            len(seg_feature),
            features,
            self.frontier.copy(),
            self._inactive.copy() if self._inactive else None,
            len(self.history),
            self.last_placed,
            self._legal,
            [(ext, ext.copy()) for ext in hooked] if hooked else None,
            self.scores.copy() if hooked else None,
            len(self.events),
        )

    def _take_back(self, saved: TakeBack) -> None:
        if self.phase != "figure" or len(self.history) != saved.history + 1:
            raise RuntimeError("the game moved on during a look-ahead placement")
        seg_feature = self.seg_feature
        features = saved.features
        # Merging only appends to a feature's lists: cut back those that grew (a cut of an
        # unchanged list still costs a slice object and a generic call when compiled).
        for f, segments, squares, open_edges, coat_of_arms, figures, cities, marks in features:
            current = f.marks
            if current is None or marks is None:
                f.marks = marks
            else:  # merging added to this very dict: put its counts back in place
                current.clear()
                current.update(marks)
            if len(f.segments) > segments:
                del f.segments[segments:]
            f.squares = squares
            f.open = open_edges
            f.coat_of_arms = coat_of_arms
            if len(f.figures) > figures:
                f.figures = f.figures[:figures]
            if len(f.cities) > cities:
                del f.cities[cities:]
        for entry in features:
            f = entry[0]
            # A feature merged into another lost its segments to it: point them back.
            if seg_feature[f.segments[0]] is not f:
                for g in f.segments:
                    seg_feature[g] = f
        base = saved.segments
        del seg_feature[base:]
        del self.seg_pos[base:]
        pos = saved.pos
        del self.board[pos]
        open_cloisters = self._open_cloisters
        if pos in open_cloisters:  # (dict.pop with a default is a generic call when compiled)
            del open_cloisters[pos]
        self.frontier = saved.frontier
        inactive = saved.inactive
        if inactive is not None:
            self._inactive = inactive
        self.history.pop()  # the placement: exactly one action was applied (checked above)
        self.turn -= 1
        self.last_placed = saved.last_placed
        self.phase = "tile"
        self._legal = saved.legal
        expansions = saved.expansions
        scores = saved.scores
        if expansions is not None and scores is not None:
            for ext, copy in expansions:
                ext.restore(copy)
            self.scores[:] = scores
        events = self.events
        if len(events) > saved.events:
            del events[saved.events :]
