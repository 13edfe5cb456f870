"""Scoring: what a feature is worth and who is paid, when a tile completes it or the game ends.

:class:`Scoring` is one link of the game's line of classes (see ``state.py``): the methods that
value features (with the expansions' ``adjust_value`` hooks), pay their majority (with the
``adjust_points`` hooks), return the figures of completed ones, and find features for the
scorers and the bots.  The value rules are docs/rules.md §3; ``tests/reference.py`` scores every
game again from scratch to check them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from .board import RING, STRIDE, encode
from .events import ScoreEvent
from .features import Feature
from .state import GameState
from .tiles import CITY, FIELD, GARDEN, KIND_NAMES, MONASTERY, ROAD

if TYPE_CHECKING:
    from .game import Game

CLOISTERS: Final = (MONASTERY, GARDEN)
#: the farthest two squares next to each other (diagonals too) are apart, as positions
_REACH: Final = STRIDE + 1
#: board.RING typed as a tuple of any length, which the compiled build walks by index (a tuple
#: of eight ints it builds anew and walks with a generic iterator, every call)
_RING: Final[tuple[int, ...]] = RING
#: tiles.KIND_NAMES, typed so for the same reason
_KIND_NAMES: Final[tuple[str, ...]] = KIND_NAMES
#: what a turn that completes nothing (most turns) hands the ``after_scoring`` hooks, which only
#: read it: shared, never grown, so that such a turn allocates no list
_NONE_COMPLETED: Final[list[Feature]] = []


class Scoring(GameState):
    """Valuing and paying features.  Expansion hooks are handed the game itself, only when there
    are any: every game state is the :class:`~.game.Game` it is a part of, said to the type
    checker by an annotated assignment (``typing.cast`` is a call, ~1 % of an I&C + T&B game)."""

    __slots__ = ()

    def ring_count(self, pos: int) -> int:
        """How many of the 8 squares around ``pos`` hold a tile."""
        board = self.board
        count = 0
        for d in _RING:  # a plain loop: a generator costs more than the 8 lookups
            if pos + d in board:
                count += 1
        return count

    def feature_value(self, feature: Feature, final: bool) -> int:
        """What a feature pays now: completed (``final=False``) or at the end of the game."""
        value = self._core_value(feature, final)
        hooked = self._value_hooks
        if hooked:
            game: Game = self  # type: ignore[assignment]
            for ext in hooked:
                value = ext.adjust_value(game, feature, final, value)
        return value

    def _core_value(self, feature: Feature, final: bool) -> int:
        kind = feature.kind
        tiles = len(feature.squares)
        if kind == CITY:
            if final or (tiles == 2 and self.small_city_scores_2):
                return tiles + feature.coat_of_arms  # the variant: a small city pays as unfinished
            return (tiles + feature.coat_of_arms) * 2
        if kind == ROAD:
            return tiles
        if kind in CLOISTERS:
            if feature.complete:
                return 9
            (pos,) = feature.squares
            return 1 + self.ring_count(pos)
        raise ValueError("fields are scored by score_field")

    def _score_turn(self) -> list[Feature]:
        """Score what the tile just placed completed; the features, for ``after_scoring``."""
        placed = self.last_placed
        assert placed is not None
        seg_feature = self.seg_feature
        completed = _NONE_COMPLETED
        base = placed.base
        for i in placed.orientation.closable:
            feature = seg_feature[base + i]
            if feature.open == 0 and not feature.complete:
                feature.complete = True
                if not completed:
                    completed = []  # the first: a list of its own
                completed.append(feature)
        # Its keys read as the dict's own objects (Any): compiled, an int key is unboxed as it
        # is iterated and boxed anew for each lookup (a fresh object: positions are above 256)
        open_cloisters: dict[Any, tuple[int, tuple[int, ...]]] = self._open_cloisters
        if open_cloisters:
            pos = placed.pos
            # The squares next to the tile placed (diagonals too) and its own lie from low to
            # high, 0 to 2 past low or past low plus one or two rows: q - pos is in RING or 0
            low = pos - _REACH
            high = pos + _REACH
            full: list[int] | None = None  # the squares of the cloisters now surrounded
            for square in open_cloisters:
                q: int = square
                if q < low or q > high or (q - low) % STRIDE > 2:
                    continue
                count, segments = open_cloisters[square]
                # The first count reads the board (the tile placed is on it); later ones add it
                count = self.ring_count(q) if count < 0 else count + 1
                if count == 8:
                    if full is None:
                        full = [q]
                    else:
                        full.append(q)
                else:
                    open_cloisters[square] = (count, segments)  # a value replaced: safe here
            if full is not None:
                if len(full) > 1:
                    # The order the ring's squares had when each was looked up: the tile's own
                    # square first, then the others by position (no sort key: a lambda would
                    # make pos a closure's, read through it all along the compiled function)
                    full.sort()
                    if pos in full:
                        full.remove(pos)
                        full.insert(0, pos)
                for q in full:
                    for g in open_cloisters.pop(q)[1]:
                        feature = seg_feature[g]
                        feature.complete = True
                        if not completed:
                            completed = []
                        completed.append(feature)
        for feature in completed:
            self.score_feature(feature, "completed")
        return completed

    def score_feature(self, feature: Feature, reason: str) -> ScoreEvent:
        """Pay a road, city or cloister to its majority; completed ones return their figures."""
        final = reason == "final"
        points = self.feature_value(feature, final)
        paid = self._pay(feature, final, points)
        kind = feature.kind
        source = _KIND_NAMES[kind]
        detail: dict[str, Any]
        if kind in (CITY, ROAD):
            # What each tile (and coat of arms) paid, for the log to state: 2 or 1 for a city
            # (1 for a small one with the variant), 1 for a road, or an expansion's own rate
            units = len(feature.squares) + (feature.coat_of_arms if kind == CITY else 0)
            detail = {"value": points, "per_tile": points // units}  # built whole: one C call
        else:
            detail = {"value": points}
        marks = feature.marks
        if marks is not None:
            detail["marks"] = dict(marks)
            for mark in self._scoring_marks:
                if mark in marks:
                    source = mark
                    break
        event = ScoreEvent(
            turn=self.turn,
            source=source,
            reason=reason,
            points=paid,
            tiles=len(feature.squares),
            coats_of_arms=feature.coat_of_arms,
            figures=feature.figure_counts(),
            square_codes=feature.squares,
            detail=detail,
        )
        self.events.append(event)
        if not final:
            self.return_figures(feature)
        return event

    def score_field(self, feature: Feature) -> ScoreEvent:
        cities = self.bordering_cities(feature)
        complete = [c for c in cities if c.complete]
        points = 3 * len(complete)
        hooked = self._value_hooks
        if hooked:
            game: Game = self  # type: ignore[assignment]
            for ext in hooked:
                points = ext.adjust_value(game, feature, True, points)
        paid = self._pay(feature, True, points)
        detail: dict[str, Any] = {"completed_cities": len(complete), "value": points}
        if complete:
            # What each winner got per city, for the log to state: 3, or 4 with a pig (D45)
            detail["per_city"] = {seat: got // len(complete) for seat, got in paid.items()}
        event = ScoreEvent(
            turn=self.turn,
            source="field",
            reason="final",
            points=paid,
            figures=feature.figure_counts(),
            square_codes=feature.squares,
            detail=detail,
        )
        self.events.append(event)
        return event

    def majority(self, feature: Feature) -> list[int]:
        """The seats that would score ``feature`` now (weighing figures as this game does)."""
        return feature.majority(self.figure_strength)

    def _pay(self, feature: Feature, final: bool, points: int) -> dict[int, int]:
        winners = feature.majority(self.figure_strength)
        paid = {seat: points for seat in winners}
        scores = self.scores
        hooked = self._points_hooks
        if hooked:
            game: Game = self  # type: ignore[assignment]
            for ext in hooked:
                ext.adjust_points(game, feature, final, paid)
            for seat, n in paid.items():
                scores[seat] += n
        else:  # each winner gets the points: walked as the list, cheaper than the dict
            for seat in winners:
                scores[seat] += points
        return paid

    def bordering_cities(self, feature: Feature) -> list[Feature]:
        """The distinct cities ``feature`` (a field) borders, in the order it reached them."""
        seg_feature = self.seg_feature
        cities: list[Feature] = []
        for g in feature.cities:
            city = seg_feature[g]
            # A field borders a few cities: a scan by identity costs less than a set (and
            # ``in`` would compare each with ``==``, a generic call when compiled)
            for known in cities:
                if known is city:
                    break
            else:
                cities.append(city)
        return cities

    def features(self) -> list[Feature]:
        """Every distinct feature on the board, in the order of their first segments."""
        features: list[Feature] = []
        seen: set[Feature] = set()  # features hash by identity: no id() number made per segment
        for feature in self.seg_feature:
            if feature not in seen:
                seen.add(feature)
                features.append(feature)
        return features

    def features_at(self, x: int, y: int) -> list[tuple[str, Feature]]:
        """(location, feature) for each segment of the tile on square (x, y)."""
        placed = self.board[encode(x, y)]
        return [
            (seg.location, self.seg_feature[placed.base + i])
            for i, seg in enumerate(placed.orientation.segments)
        ]

    def feature_at(self, x: int, y: int, location: str) -> Feature:
        placed = self.board[encode(x, y)]
        return self.seg_feature[placed.base + placed.orientation.locations[location]]

    def _final_scoring(self) -> None:
        # Only features with figures score: reached through the figures (a few dozen), not
        # through every segment as features() does, and taken in the order it lists them: by
        # their lowest segment (not always their first one: a merge keeps the larger's first)
        seg_feature = self.seg_feature
        by_first: dict[int, Feature] = {}
        for segment in self.figures:
            feature = seg_feature[segment]
            if feature.figures[0][2] == segment:  # once per feature: at its first figure
                by_first[min(feature.segments)] = feature
        firsts = sorted(by_first)
        for first in firsts:
            feature = by_first[first]
            if feature.figures and not feature.complete and feature.kind != FIELD:
                self.score_feature(feature, "final")
        for first in firsts:
            feature = by_first[first]
            if feature.figures and feature.kind == FIELD:
                self.score_field(feature)

    def return_figures(self, feature: Feature) -> None:
        for seat, figure, segment in feature.figures:
            self.supply[seat][figure] += 1
            del self.figures[segment]
        feature.figures = ()

    def add_points(self, seat: int, points: int, source: str, reason: str, **detail: Any) -> None:
        """Pay points that do not come from a feature (bets, map chips, wine)."""
        self.scores[seat] += points
        self.events.append(ScoreEvent(self.turn, source, reason, {seat: points}, detail=detail))
