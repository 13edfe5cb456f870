"""Placement: where the drawn tile may go and where a figure may stand, and putting them there.

:class:`Placement` is one link of the game's line of classes (see ``state.py``).  It keeps the
board's features up to date incrementally as each tile lands (:meth:`Placement._place`: a
segment joins its neighbours' features, their open edges close), keeps the frontier of open
squares with their edge constraints, and finds the legal placements from per-tile fit tables
(one list index per open square), so nothing is ever re-traced.  It also lists the figure
placements of the tile just placed and says, for a refused move, which rule it breaks.  This is
the hottest code of a simulation: measure before changing it (benchmarks/README.md).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, Final

from .actions import PASS, IllegalAction, PlaceFigure, PlaceTile
from .board import DELTAS, OPPOSITE, STRIDE, decode, encode
from .expansions.actions import Action
from .features import NO_CITIES, Feature
from .scoring import Scoring
from .state import PlacedTile
from .tiles import BORDER, CITY, KIND_NAMES, Orientation, Segment, TileType

if TYPE_CHECKING:
    from .game import Game

# (Final: the compiled build reads these as C statics, not module-dict lookups)
# tile index -> tuple indexed by edge constraint (3 bits per side) -> rotation indices that fit
# (a tuple of tuples of ints, which the garbage collector stops tracking: a list of 4096 entries
# per tile type would be walked by every full collection of every game)
_FIT_TABLES: Final[dict[int, tuple[tuple[int, ...], ...]]] = {}
# pos -> the four PlaceTile actions on that square, shared by every game
_PLACE_ACTIONS: Final[dict[int, tuple[PlaceTile, ...]]] = {}
# figure -> location -> the PlaceFigure action, shared by every game (two string-keyed lookups
# allocate nothing, where a (figure, location) key would build and hash a tuple per lookup)
_FIGURE_ACTIONS: Final[dict[str, dict[str, PlaceFigure]]] = {}


def edges_fit(edges: tuple[int, ...], key: int) -> bool:
    for d in range(4):
        code = (key >> (3 * d)) & 7
        if code and code != edges[d]:
            return False
    return True


def _fit_table(tile: TileType) -> tuple[tuple[int, ...], ...]:
    """For every possible edge constraint, the distinct rotations of ``tile`` that satisfy it.

    Built once per tile type (4096 small entries), so finding legal placements is one list
    index per open square.  A constraint holds 3 bits per side, 0 for a side with no neighbour;
    an orientation satisfies exactly the 16 constraints that, side by side, either leave the
    side open or demand its own edge, so those are enumerated directly (testing every
    orientation against all 4096 keys cost ~20 ms per tile type, half a second per process).
    """
    table = _FIT_TABLES.get(tile.index)
    if table is None:
        rows: list[tuple[int, ...]] = [()] * (1 << 12)
        for o in tile.distinct_orientations:
            sides = [(0, code << (3 * d)) for d, code in enumerate(o.edges)]
            for key in {sum(choice) for choice in itertools.product(*sides)}:
                rows[key] += (o.rotation // 90,)
        table = _FIT_TABLES[tile.index] = tuple(rows)
    return table


def rotations_fitting(tile: TileType, key: int) -> tuple[int, ...]:
    """The rotation indices of ``tile`` that fit an open square whose constraint is ``key``."""
    return _fit_table(tile)[key]


def _place_actions(pos: int) -> tuple[PlaceTile, ...]:
    """The four PlaceTile actions of a square, made once and shared by every game."""
    actions = _PLACE_ACTIONS.get(pos)
    if actions is None:
        x, y = decode(pos)
        # tuple.__new__ is what the NamedTuple's own __new__ calls, without its Python frame
        # (a generic call of interpreted code from the compiled build): each game meets new
        # squares, so this runs a few times per game
        actions = _PLACE_ACTIONS[pos] = (
            tuple.__new__(PlaceTile, (x, y, 0)),
            tuple.__new__(PlaceTile, (x, y, 90)),
            tuple.__new__(PlaceTile, (x, y, 180)),
            tuple.__new__(PlaceTile, (x, y, 270)),
        )
    return actions


def _figure_actions_of(figure: str) -> dict[str, PlaceFigure]:
    """Location -> the PlaceFigure action of ``figure`` there, as made so far."""
    by_location = _FIGURE_ACTIONS.get(figure)
    if by_location is None:
        by_location = _FIGURE_ACTIONS[figure] = {}
    return by_location


def _new_figure_action(
    by_location: dict[str, PlaceFigure], figure: str, location: str
) -> PlaceFigure:
    action = by_location[location] = PlaceFigure(figure, location)
    return action


def _figure_action(figure: str, location: str) -> PlaceFigure:
    by_location = _figure_actions_of(figure)
    action = by_location.get(location)
    if action is None:
        action = _new_figure_action(by_location, figure, location)
    return action


#: what a segment's feature is while its tile is being placed, until it joins one (no feature
#: of the game is ever this one)
_UNJOINED: Final = Feature(CITY, [], set(), 0, 0, (), NO_CITIES)
#: board.DELTAS typed as a tuple of any length, which the compiled build indexes in place (a
#: 4-tuple it boxes anew for each index by a variable)
_DELTAS: Final[tuple[int, ...]] = DELTAS


def _mark_counts(marks: tuple[str, ...]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for mark in marks:
        counts[mark] = counts.get(mark, 0) + 1
    return counts


class Placement(Scoring):
    """Putting tiles and figures on the board.  Expansion hooks are handed the game itself
    (as in :class:`~.scoring.Scoring`)."""

    __slots__ = ()

    def put_start_tile(self, pos: int, tile: TileType | None) -> None:
        """Put a tile before the first turn, nobody's, at rotation 0 (a start tile).

        A start square on a map's border (or by a large city) can close a start tile's road or
        city before the first turn: it is complete from then on, e.g. for farmers; nobody stands
        on it, so nothing scores.
        """
        assert tile is not None
        placed = self._place(pos, tile.orientations[0], None)
        for i in placed.orientation.closable:
            feature = self.seg_feature[placed.base + i]
            if feature.open == 0:
                feature.complete = True

    def put_printed_tile(self, pos: int, orientation: Orientation) -> None:
        """Put a tile printed on the board (a map's large city) before anything is placed.

        It anchors placements only once a played tile reaches it (D9), see :meth:`_activate`.
        """
        base = len(self.seg_feature)
        self.board[pos] = PlacedTile(pos, orientation, base, 0, None)
        seg = orientation.segments[0]
        self.seg_feature.append(Feature(CITY, [base], {pos}, len(seg.edges), 0, (), NO_CITIES))
        self.seg_pos.append(pos)
        self._inactive.add(pos)

    def _legal_placements(self, tile: TileType) -> list[PlaceTile]:
        table = _fit_table(tile)
        # (append called directly: a bound ``append`` kept in a local is a generic call when
        # compiled; the frontier's entries copied to a list in one C call, since walking a
        # dict's values is a call per entry when compiled, a list's a native index)
        placements: list[PlaceTile] = []
        for key, actions in list(self.frontier.values()):
            rotations = table[key]
            if rotations:
                for r in rotations:
                    placements.append(actions[r])
        if self._restrictors:
            game: Game = self  # type: ignore[assignment]
            for ext in self._restrictors:
                if ext.restricts_placement(game):
                    placements = [
                        a
                        for a in placements
                        if ext.placement_allowed(
                            game, encode(a.x, a.y), tile.orientations[a.rotation // 90]
                        )
                    ]
        return placements

    def _why_not_square(self, pos: int, x: int, y: int) -> IllegalAction:
        square = {"x": x, "y": y}
        if pos in self.board:
            return IllegalAction(f"square ({x}, {y}) is already occupied", "square_taken", square)
        if not self.geometry.playable(pos):
            return IllegalAction(
                f"square ({x}, {y}) is not on the {self.geometry.name} board", "off_map", square
            )
        return IllegalAction(
            f"square ({x}, {y}) does not touch a placed tile", "not_adjacent", square
        )

    def _place(self, pos: int, orientation: Orientation, seat: int | None) -> PlacedTile:
        board = self.board
        seg_feature = self.seg_feature
        seg_pos = self.seg_pos
        base = len(seg_feature)
        placed = PlacedTile(pos, orientation, base, self.turn, seat)
        # The square as one int object for every dict, set and list below (and q likewise): a
        # native int is boxed anew for each such use when compiled, a fresh object each time
        # (positions are above 256), where Any keeps the one object
        square: Any = pos
        board[square] = placed
        segments = orientation.segments
        count = len(segments)
        # A segment gets a feature of its own only if it joins none of its neighbours' (the
        # last loop below): one that joins one is adopted into it (_join)
        for _i in range(count):  # (named: ``_`` is an object when compiled, boxed each time)
            seg_feature.append(_UNJOINED)
            seg_pos.append(square)
        if orientation.cloisters:
            # Counted when it is scored (a look-ahead placement is taken back unscored)
            self._open_cloisters[square] = (-1, tuple(base + i for i in orientation.cloisters))
        frontier = self.frontier
        if square in frontier:  # (dict.pop with a default is a generic call when compiled)
            del frontier[square]
        squares = self._squares
        inactive = self._inactive
        for d, od, edge, mine, left, right in orientation.sides:
            q: Any = pos + _DELTAS[d]
            neighbour = board.get(q)
            if neighbour is None:
                if squares is None or q in squares:
                    open_square = frontier.get(q)
                    if open_square is not None:  # only this tile's side changed for q
                        frontier[q] = (open_square[0] | (edge << (3 * od)), open_square[1])
                    elif inactive and (
                        q - STRIDE in inactive
                        or q + 1 in inactive
                        or q + STRIDE in inactive
                        or q - 1 in inactive
                    ):  # q also touches a printed tile not reached yet: read every side
                        frontier[q] = self._open_square(q)
                    else:  # a new open square: this tile is its only neighbour
                        frontier[q] = (edge << (3 * od), _PLACE_ACTIONS.get(q) or _place_actions(q))
                elif mine >= 0:  # runs into the map border: closed on this side
                    self._own_feature(base + mine, segments[mine], base, square).open -= 1
                continue
            # (the neighbour's side read as one tuple of its sides: indexing its edges by a
            # variable boxes the 4-tuple anew when compiled)
            _od, _d, their_edge, theirs, their_left, their_right = neighbour.orientation.sides[od]
            if their_edge == BORDER:
                if mine >= 0:
                    self._own_feature(base + mine, segments[mine], base, square).open -= 1
                continue
            other_base = neighbour.base
            if mine >= 0:
                g = base + mine
                a = seg_feature[g]
                b = seg_feature[other_base + theirs]
                if a is _UNJOINED:
                    a = self._join(g, segments[mine], base, square, b)
                elif a is not b:
                    a = self._merge(a, b)
                a.open -= 2
            if left >= 0:
                g = base + left
                a = seg_feature[g]
                b = seg_feature[other_base + their_right]
                if a is _UNJOINED:
                    self._join(g, segments[left], base, square, b)
                elif a is not b:
                    self._merge(a, b)
            if right >= 0:
                g = base + right
                a = seg_feature[g]
                b = seg_feature[other_base + their_left]
                if a is _UNJOINED:
                    self._join(g, segments[right], base, square, b)
                elif a is not b:
                    self._merge(a, b)
            if inactive and q in inactive:
                self._activate(q)
        for i in range(count):
            if seg_feature[base + i] is _UNJOINED:
                self._new_feature(base + i, segments[i], base, square)
        return placed

    def _new_feature(self, g: int, seg: Segment, base: int, square: Any) -> Feature:
        """A feature of its own for segment ``g`` of the tile whose first segment is ``base``
        (on ``square``, a position as one int object: see :meth:`_place`)."""
        cities = seg.cities
        marks = seg.marks
        feature = Feature(
            seg.kind,
            [g],
            {square},
            len(seg.edges),
            seg.coat_of_arms,
            (),
            [base + c for c in cities] if cities else NO_CITIES,
            False,
            _mark_counts(marks) if marks else None,
        )
        self.seg_feature[g] = feature
        return feature

    def _own_feature(self, g: int, seg: Segment, base: int, square: Any) -> Feature:
        """Segment ``g``'s feature, made now if it has joined none yet (a side closed by the
        border: rare enough to cost a feature that a later join may merge away)."""
        feature = self.seg_feature[g]
        if feature is _UNJOINED:
            feature = self._new_feature(g, seg, base, square)
        return feature

    def _join(self, g: int, seg: Segment, base: int, square: Any, feature: Feature) -> Feature:
        """Segment ``g`` joins its neighbour's ``feature``, with nothing made for it: the same
        feature as a new one of its own merged into it would give (:meth:`_merge`).

        Merging keeps the larger feature, the new one on a tie (a neighbour of one segment),
        its cities and marks first: when both have some, that order needs the merge itself.
        """
        cities = seg.cities
        marks = seg.marks
        if len(feature.segments) == 1 and (
            (cities and feature.cities) or (marks and feature.marks is not None)
        ):
            return self._merge(self._new_feature(g, seg, base, square), feature)
        self.seg_feature[g] = feature
        feature.segments.append(g)
        feature.squares.add(square)
        feature.open += len(seg.edges)
        feature.coat_of_arms += seg.coat_of_arms
        if cities:
            feature_cities = feature.cities
            if not feature_cities:  # NO_CITIES, or a list emptied by a look-ahead's take-back
                feature_cities = feature.cities = []
            for c in cities:
                feature_cities.append(base + c)
        if marks:
            counts = feature.marks
            if counts is None:
                feature.marks = _mark_counts(marks)
            else:
                for mark in marks:
                    counts[mark] = counts.get(mark, 0) + 1
        return feature

    def _activate(self, pos: int) -> None:
        """A played tile reached a printed tile: from now on it anchors placements too."""
        self._inactive.discard(pos)
        edges = self.board[pos].orientation.edges
        for d in range(4):
            q = pos + _DELTAS[d]
            # D9: its closed sides are map border, which anchors nothing
            if edges[d] != BORDER and q not in self.board and self.geometry.playable(q):
                self.frontier[q] = self._open_square(q)

    def _open_square(self, pos: int) -> tuple[int, tuple[PlaceTile, ...]]:
        """The frontier entry of an empty square, its constraint read from its neighbours."""
        board = self.board
        key = 0
        for d in range(4):
            neighbour = board.get(pos + _DELTAS[d])
            if neighbour is not None:
                code = neighbour.orientation.edges[OPPOSITE[d]]
                if code != BORDER:
                    key |= code << (3 * d)
        return key, _place_actions(pos)

    def _merge(self, a: Feature, b: Feature) -> Feature:
        if len(a.segments) < len(b.segments):
            a, b = b, a
        seg_feature = self.seg_feature
        for g in b.segments:
            seg_feature[g] = a
        a.segments.extend(b.segments)
        a.squares |= b.squares
        a.open += b.open
        a.coat_of_arms += b.coat_of_arms
        if b.figures:
            a.figures = a.figures + b.figures if a.figures else b.figures
        if b.cities:
            if a.cities:
                a.cities.extend(b.cities)
            else:  # NO_CITIES, never grown; b's own list may be put back by a take-back
                a.cities = b.cities.copy()
        if b.marks is not None:
            marks = a.marks
            if marks is None:
                a.marks = b.marks.copy()
            else:
                for mark, n in b.marks.items():
                    marks[mark] = marks.get(mark, 0) + n
        return a

    def _figure_actions(self) -> list[Action]:
        placed = self.last_placed
        assert placed is not None
        segments = placed.orientation.segments
        base = placed.base
        seg_feature = self.seg_feature
        supply = self.supply[self.active]
        actions: list[Action] = [PASS]
        checks = self._figure_checks
        joining = self.joining_figures
        for figure, kinds in self.figure_kinds.items():
            if supply.get(figure, 0) <= 0:
                continue
            joins = figure in joining
            # (the figure's actions looked up once, each spot's inline: a call per segment is
            # an interpreted frame in the pure build)
            by_location = _FIGURE_ACTIONS.get(figure)
            if by_location is None:
                by_location = _figure_actions_of(figure)
            for i, seg in enumerate(segments):
                if seg.kind not in kinds:
                    continue
                feature = seg_feature[base + i]
                if feature.figures and not joins:
                    continue
                if checks and not self._figure_allowed(figure, feature):
                    continue
                location = seg.location
                action = by_location.get(location)
                if action is None:
                    action = _new_figure_action(by_location, figure, location)
                actions.append(action)
        return actions

    def _figure_allowed(self, figure: str, feature: Feature) -> bool:
        game: Game = self  # type: ignore[assignment]
        seat = self.active
        for ext in self._figure_checks:  # noqa: SIM110 (all() makes a generator per call)
            if not ext.figure_allowed(game, seat, figure, feature):
                return False
        return True

    def _canonical_figure_action(self, action: PlaceFigure) -> PlaceFigure:
        """Name a feature by its canonical location: any edge of a city or road names it."""
        placed = self.last_placed
        assert placed is not None
        index = placed.orientation.locations.get(action.location)
        if index is None:
            return action
        return _figure_action(action.figure, placed.orientation.segments[index].location)

    def _why_not_figure(self, action: Any) -> IllegalAction:
        not_legal = IllegalAction(
            f"{action!r} is not a legal action in phase 'figure'", params={"phase": "figure"}
        )
        if not isinstance(action, PlaceFigure):
            return not_legal
        placed = self.last_placed
        assert placed is not None
        figure = {"figure": action.figure}
        if action.figure not in self.figure_kinds:
            return IllegalAction(
                f"there is no figure type {action.figure!r} in this game", "no_such_figure", figure
            )
        if self.supply[self.active].get(action.figure, 0) <= 0:
            return IllegalAction(
                f"seat {self.active} has no {action.figure} left", "no_figure_left", figure
            )
        index = placed.orientation.locations.get(action.location)
        if index is None:
            return IllegalAction(
                f"the tile just placed has no feature at {action.location!r}",
                "no_feature",
                {"location": action.location},
            )
        seg = placed.orientation.segments[index]
        kind = KIND_NAMES[seg.kind]
        spot = {**figure, "feature": kind, "location": action.location}
        if seg.kind not in self.figure_kinds[action.figure]:
            return IllegalAction(
                f"a {action.figure} cannot stand on a {kind}", "wrong_feature", spot
            )
        feature = self.seg_feature[placed.base + index]
        if feature.figures and action.figure not in self.joining_figures:
            return IllegalAction(
                f"the {kind} at {action.location} is already occupied", "feature_taken", spot
            )
        game: Game = self  # type: ignore[assignment]
        for ext in self._figure_checks:
            if not ext.figure_allowed(game, self.active, action.figure, feature):
                return IllegalAction(
                    f"the {ext.name} rules do not allow a {action.figure} on the {kind} "
                    f"at {action.location} now",
                    "figure_rule",
                    {**spot, "rule": ext.name},
                )
        return not_legal

    def put_figure(self, seat: int, figure: str, segment: int) -> None:
        self.supply[seat][figure] -= 1
        feature = self.seg_feature[segment]
        feature.figures += ((seat, figure, segment),)
        self.figures[segment] = (seat, figure)

    def remove_figure(self, segment: int) -> None:
        """Take one figure off the board back to its owner (the abbot's recall)."""
        seat, figure = self.figures.pop(segment)
        feature = self.seg_feature[segment]
        feature.figures = tuple(f for f in feature.figures if f[2] != segment)
        self.supply[seat][figure] += 1
