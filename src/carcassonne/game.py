"""The game: state, phases, legal actions, scoring.

:class:`Game` is the one core type.  A turn is a sequence of decisions (``phase`` says which,
``to_move`` says who): ``tile`` (place the drawn tile), ``figure`` (place a figure, or an
expansion's alternative such as recalling the abbot), then any decisions expansions queue
(settling or placing bets, selling wine).  ``legal_actions()`` lists what ``to_move`` may do;
``apply(action)`` does it and runs the game forward to the next decision.  Chance happens only at
setup (the stack is shuffled from the seed), so a game is fully determined by its options and its
actions, and a record of those replays it exactly.

Everything here is on the hot path of simulation: the board and features are updated
incrementally (see ``features.py``), legal placements come from a cache keyed by the edge
constraint of each open square, and nothing is re-traced.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, cast

from .actions import PASS, Pass, PlaceFigure, PlaceTile
from .board import DELTAS, OPPOSITE, RING, Geometry, decode, encode
from .events import Event, GameEvent, ScoreEvent
from .expansions import build_expansions
from .expansions.actions import Action
from .expansions.base import Decision, Expansion, ExpansionT
from .features import Feature
from .maps import load_map
from .options import (
    DEFAULT_MEEPLES,
    MAP_MEEPLES,
    GameOptions,
    GameSetupError,
    check_options,
)
from .options import MAX_COPIES as MAX_COPIES  # re-exported: the limits are the game's too
from .options import MAX_PLAYERS as MAX_PLAYERS
from .options import MIN_PLAYERS as MIN_PLAYERS
from .quoting import short_repr
from .tiles import (
    BORDER,
    CITY,
    FIELD,
    GARDEN,
    KIND_NAMES,
    MONASTERY,
    ROAD,
    Orientation,
    TileType,
    tile_by_id,
    tile_set,
)
from .views import game_view

MEEPLE = "meeple"
MEEPLE_KINDS = frozenset({CITY, ROAD, FIELD, MONASTERY})
CLOISTERS = (MONASTERY, GARDEN)


class IllegalAction(ValueError):
    """An action that the rules do not allow now; the game is unchanged.

    ``reason`` names the rule the action breaks and ``params`` the values its message quotes
    (squares, tile ids, the engine's names of figures, features and expansions), for clients
    that word the refusal themselves: the web page does, in its player's language.
    """

    def __init__(
        self, message: str, reason: str = "not_legal", params: dict[str, Any] | None = None
    ) -> None:
        # All three are the exception's args, so that it pickles back whole from a worker
        # process: the compiled engine's exceptions have no __dict__ to carry the fields.
        super().__init__(message, reason, params)
        self.reason = reason
        self.params: dict[str, Any] = params or {}

    def __str__(self) -> str:
        return str(self.args[0])


class PlacedTile:
    """A tile on the board: where, which orientation, and where its segments are numbered."""

    __slots__ = ("pos", "orientation", "base", "turn", "seat")

    def __init__(self, pos: int, orientation: Orientation, base: int, turn: int, seat: int | None):
        self.pos = pos
        self.orientation = orientation
        self.base = base  # global id of its first segment
        self.turn = turn
        self.seat = seat

    @property
    def xy(self) -> tuple[int, int]:
        return decode(self.pos)

    @property
    def tile(self) -> TileType:
        return self.orientation.tile

    def __repr__(self) -> str:
        return f"<{self.tile.id} at {self.xy} r{self.orientation.rotation}>"


# tile index -> list indexed by edge constraint (3 bits per side) -> rotation indices that fit
_FIT_TABLES: dict[int, list[tuple[int, ...]]] = {}
# pos -> the four PlaceTile actions on that square, shared by every game
_PLACE_ACTIONS: dict[int, tuple[PlaceTile, ...]] = {}
_FIGURE_ACTIONS: dict[tuple[str, str], PlaceFigure] = {}
#: a square and the eight around it: the cloisters a tile can complete
_SELF_AND_RING = (0, *RING)

#: passed as options, makes the empty Game that Game.copy() fills in
_BLANK = GameOptions()

# Turn stages after the core's own decisions; see Game._continue.
_END_OF_TURN, _NEXT_TURN, _FINAL, _FINAL_SCORE, _OVER = range(5)


def _matches(edges: tuple[int, ...], key: int) -> bool:
    for d in range(4):
        code = (key >> (3 * d)) & 7
        if code and code != edges[d]:
            return False
    return True


def _fit_table(tile: TileType) -> list[tuple[int, ...]]:
    """For every possible edge constraint, the distinct rotations of ``tile`` that satisfy it.

    Built once per tile type (4096 small entries), so finding legal placements is one list
    index per open square.  A constraint holds 3 bits per side, 0 for a side with no neighbour;
    an orientation satisfies exactly the 16 constraints that, side by side, either leave the
    side open or demand its own edge, so those are enumerated directly (testing every
    orientation against all 4096 keys cost ~20 ms per tile type, half a second per process).
    """
    table = _FIT_TABLES.get(tile.index)
    if table is None:
        table = [()] * (1 << 12)
        for o in tile.distinct_orientations:
            sides = [(0, code << (3 * d)) for d, code in enumerate(o.edges)]
            for key in {sum(choice) for choice in itertools.product(*sides)}:
                table[key] += (o.rotation // 90,)
        _FIT_TABLES[tile.index] = table
    return table


def _place_actions(pos: int) -> tuple[PlaceTile, ...]:
    """The four PlaceTile actions of a square, made once and shared by every game."""
    actions = _PLACE_ACTIONS.get(pos)
    if actions is None:
        x, y = decode(pos)
        actions = _PLACE_ACTIONS[pos] = tuple(PlaceTile(x, y, r) for r in (0, 90, 180, 270))
    return actions


def _figure_action(figure: str, location: str) -> PlaceFigure:
    action = _FIGURE_ACTIONS.get((figure, location))
    if action is None:
        action = _FIGURE_ACTIONS[(figure, location)] = PlaceFigure(figure, location)
    return action


# A feature next to a look-ahead placement as it was: the feature, its segment count, squares,
# open edges, coats of arms, figure count, city count and marks (see Game._save_around).
_SavedFeature = tuple[Feature, int, set[int], int, int, int, int, dict[str, int] | None]


class _TakeBack:
    """What a look-ahead placement can change, saved by :meth:`Game._save_around` and put back
    by :meth:`Game._take_back`: lengths where the game only appends, copies where it rewrites."""

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


def _mark_counts(marks: tuple[str, ...]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for mark in marks:
        counts[mark] = counts.get(mark, 0) + 1
    return counts


def _overrides(ext: Expansion, hook: str) -> bool:
    return getattr(type(ext), hook) is not getattr(Expansion, hook)


class Game:
    """A game of Carcassonne with the options' expansions.

    Public state (read it, do not mutate it): ``scores``, ``supply`` (per seat, figure type ->
    count in hand), ``board`` (pos -> :class:`PlacedTile`), ``events``, ``phase``, ``to_move``,
    ``active`` (whose turn it is), ``current_tile``, ``turn``.
    """

    # Every attribute, named once: :meth:`copy` sets each (a compiled build has no __dict__ to
    # copy wholesale), and a test checks that it does.
    __slots__ = (
        "options",
        "players",
        "scores",
        "supply",
        "figure_kinds",
        "board",
        "seg_feature",
        "seg_pos",
        "frontier",
        "figures",
        "events",
        "history",
        "draws",
        "turn",
        "active",
        "to_move",
        "phase",
        "stack",
        "discarded",
        "current_tile",
        "last_placed",
        "map",
        "geometry",
        "used_start_squares",
        "start_tile",
        "expansions",
        "rng",
        "_inactive",
        "_open_cloisters",
        "_placements",
        "_legal",
        "_queue",
        "_stage",
        "_squares",
        "_restrictors",
        "_after_place",
        "_figure_exts",
        "_after_scoring",
        "_end_of_turn",
        "_before_final",
        "_figure_checks",
        "_value_hooks",
        "_points_hooks",
        "figure_strength",
        "joining_figures",
        "small_city_scores_2",
        "_extra_turn",
        "_scoring_marks",
    )

    def __init__(
        self,
        options: GameOptions | None = None,
        *,
        extra_expansions: Sequence[Expansion] = (),
        **kwargs: Any,
    ) -> None:
        """A new game from ``options`` (or option keywords).

        ``extra_expansions`` plug expansions the options do not name in after theirs (a test's
        or an experiment's own rules); a record of such a game replays only with them.
        """
        if options is _BLANK:
            return  # an empty shell that copy() fills in
        if options is None:
            options = GameOptions(**kwargs)
        elif kwargs:
            options = replace(options, **kwargs)
        check_options(options)
        if options.seed is None:
            # Every game gets a seed, so that any game can be saved as a record and replayed.
            options = replace(options, seed=random.SystemRandom().randrange(1 << 32))
        self.options = options
        self.players = options.players
        self.scores = [0] * self.players
        meeples = options.meeples
        if meeples is None:
            meeples = MAP_MEEPLES if options.map else DEFAULT_MEEPLES
        self.supply: list[dict[str, int]] = [{MEEPLE: meeples} for _ in range(self.players)]
        self.figure_kinds: dict[str, frozenset[int]] = {MEEPLE: MEEPLE_KINDS}
        self.small_city_scores_2 = options.small_city_scores_2
        #: whether the seat whose turn ends plays another one (:meth:`grant_extra_turn`)
        self._extra_turn = False
        self.board: dict[int, PlacedTile] = {}
        self.seg_feature: list[Feature] = []
        self.seg_pos: list[int] = []
        #: empty playable squares next to a placed tile -> (edge constraint, 3 bits per side;
        #: the square's four PlaceTile actions), the actions kept here so that the placement
        #: search, the hottest loop of a game, finds them without a lookup per square
        self.frontier: dict[int, tuple[int, tuple[PlaceTile, ...]]] = {}
        #: global segment id -> (seat, figure type) of the figure standing there
        self.figures: dict[int, tuple[int, str]] = {}
        self.events: list[Event] = []
        #: every applied action as (seat, action), in order: with the options, the whole game
        self.history: list[tuple[int, Action]] = []
        #: every drawn tile id in draw order, with whether it was discarded as unplaceable
        self.draws: list[tuple[str, bool]] = []
        self.turn = 0
        self.active = 0
        self.to_move = 0
        self.phase = "tile"
        #: draw pile; the next tile is ``stack[-1]``
        self.stack: list[TileType] = []
        self.discarded: list[TileType] = []
        self.current_tile: TileType | None = None
        self.last_placed: PlacedTile | None = None
        self.map: Any = None  # a maps.GameMap on a map game (Any: callers check for None)
        self.geometry = Geometry()
        self._inactive: set[int] = set()  # printed tiles not yet reached by a played tile
        #: map games: names of the two start squares in use (D6), the start tile's first
        self.used_start_squares: tuple[str, ...] = ()
        #: square -> global ids of its monastery/garden segments that are not complete yet
        self._open_cloisters: dict[int, tuple[int, ...]] = {}
        self._placements: list[PlaceTile] = []
        self._legal: list[Action] | None = None
        self._queue: list[Decision] = []
        self._stage = _END_OF_TURN
        self.start_tile: TileType | None = None

        self.expansions: list[Expansion] = [*build_expansions(options), *extra_expansions]
        strength: dict[str, int] = {}
        joining: set[str] = set()
        for ext in self.expansions:
            self.figure_kinds.update(ext.figure_types)
            strength.update(ext.figure_strength)
            joining.update(ext.joining_figures)
        if not options.farmers:
            # The variant without farmers: no figure of any type stands on a field.
            kinds = {figure: k - {FIELD} for figure, k in self.figure_kinds.items()}
            self.figure_kinds = {figure: k for figure, k in kinds.items() if k}
        #: figure type -> weight in majorities; None when every type weighs 1 (the fast case)
        self.figure_strength = (
            strength if any(weight != 1 for weight in strength.values()) else None
        )
        #: figure types that may join an occupied feature (Expansion.joining_figures)
        self.joining_figures = frozenset(joining)
        self._bind_hooks()
        self.rng = random.Random(options.seed)
        self._setup()

    # ------------------------------------------------------------------------------------ setup

    def _bind_hooks(self) -> None:
        exts = self.expansions
        self._restrictors = [e for e in exts if _overrides(e, "placement_allowed")]
        self._after_place = [e for e in exts if _overrides(e, "after_tile_placed")]
        self._figure_exts = [e for e in exts if _overrides(e, "figure_actions")]
        self._after_scoring = [e for e in exts if _overrides(e, "after_scoring")]
        self._end_of_turn = [e for e in exts if _overrides(e, "end_of_turn")]
        self._before_final = [e for e in exts if _overrides(e, "before_final_scoring")]
        self._figure_checks = [e for e in exts if _overrides(e, "figure_allowed")]
        self._value_hooks = [e for e in exts if _overrides(e, "adjust_value")]
        self._points_hooks = [e for e in exts if _overrides(e, "adjust_points")]
        self._scoring_marks = tuple(mark for e in exts for mark in e.scoring_marks())
        self._squares = self.geometry.squares

    def expansion(self, kind: type[ExpansionT]) -> ExpansionT | None:
        """The active expansion of class ``kind`` (``game.expansion(MapChips)``), or None."""
        for ext in self.expansions:
            if isinstance(ext, kind):
                return ext
        return None

    def tile_sets(self) -> list[str]:
        sets = ["base"]
        for ext in self.expansions:
            sets.extend(ext.tile_sets)
        return sets

    def _setup(self) -> None:
        options = self.options
        base = tile_set("base")
        start = tile_by_id(f"base/{base.start_tile}")
        pool: list[TileType] = []
        for name in self.tile_sets():
            copies = options.copies if name == "base" else 1
            pool.extend(tile for _ in range(copies) for tile in tile_set(name).copies())
        self.start_tile = start
        if options.map is not None:
            self.map = load_map(options.map)
            self.geometry = self.map.geometry
            self._squares = self.geometry.squares
            self.map.put_printed_tiles(self)
        if options.stack is not None:
            self.stack = [self._stack_tile(tile_id, i) for i, tile_id in enumerate(options.stack)]
            self._check_stack_counts(pool)
            self.stack.reverse()
        else:
            # With the River the base start tile is an ordinary land tile (docs/rules.md §2).
            if not any(ext.provides_start_tile for ext in self.expansions):
                pool.remove(start)
            self.rng.shuffle(pool)
            self.stack = pool
        if self.map is not None:
            # Chosen before the expansions' setup: Map-Chips keep clear of the used start squares.
            self.used_start_squares = self.map.choose_start_squares(options.start_squares, self.rng)
        for ext in self.expansions:
            ext.setup(self)
        if self.map is None:
            self.put_start_tile(encode(0, 0), self.start_tile)
        else:
            self.map.put_start_tiles(self)
        self._start_turn()

    def _stack_tile(self, tile_id: str, index: int) -> TileType:
        try:
            tile = tile_by_id(tile_id)
        except KeyError:
            raise GameSetupError(
                f"stack entry {index + 1}: unknown tile {short_repr(tile_id)}"
            ) from None
        return tile

    def _check_stack_counts(self, pool: list[TileType]) -> None:
        available: dict[str, int] = {}
        for tile in pool:
            available[tile.id] = available.get(tile.id, 0) + 1
        river = self.options.river
        if river:
            for tile in tile_set("river").copies():
                available[tile.id] = available.get(tile.id, 0) + 1
        start = tile_set("river").start_tile if river else None
        if start is None:
            available[self.start_tile.id] -= 1  # type: ignore[union-attr]
        else:
            available[f"river/{start}"] -= 1
        used: dict[str, int] = {}
        for tile in self.stack:
            used[tile.id] = used.get(tile.id, 0) + 1
            if used[tile.id] > available.get(tile.id, 0):
                raise GameSetupError(
                    f"stack names {tile.id} more often than the enabled tile sets hold "
                    f"({available.get(tile.id, 0)})"
                )

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
        self.seg_feature.append(Feature(CITY, [base], {pos}, len(seg.edges), 0, [], []))
        self.seg_pos.append(pos)
        self._inactive.add(pos)

    # --------------------------------------------------------------------------------- the turn

    def _legal_placements(self, tile: TileType) -> list[PlaceTile]:
        table = _fit_table(tile)
        placements: list[PlaceTile] = []
        append = placements.append
        for key, actions in self.frontier.values():
            rotations = table[key]
            if rotations:
                for r in rotations:
                    append(actions[r])
        if self._restrictors:
            for ext in self._restrictors:
                if ext.restricts_placement(self):
                    placements = [
                        a
                        for a in placements
                        if ext.placement_allowed(
                            self, encode(a.x, a.y), tile.orientations[a.rotation // 90]
                        )
                    ]
        return placements

    def _start_turn(self) -> None:
        """Draw until a tile fits somewhere (unplaceable tiles are discarded), or end the game."""
        stack = self.stack
        while stack:
            tile = stack.pop()
            self.current_tile = tile
            placements = self._legal_placements(tile)
            self.draws.append((tile.id, not placements))
            if placements:
                self._placements = placements
                self.phase = "tile"
                self.to_move = self.active
                self._legal = None
                return
            self.discarded.append(tile)
            self.events.append(GameEvent(self.turn, "discard", None, {"tile": tile.id}))
        self.current_tile = None
        self._stage = _FINAL
        self._continue()

    @property
    def is_last_tile(self) -> bool:
        """Whether the tile of this turn is the last of the game (nothing left to draw)."""
        return not self.stack

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def legal_actions(self) -> list[Action]:
        """What ``to_move`` may do now.  The list is shared: do not modify it."""
        legal = self._legal
        if legal is None:
            phase = self.phase
            if phase == "tile":
                # A list of placements is a list of actions to a reader, and the list is not
                # written to once listed (the docstring's "do not modify"): no copy needed.
                legal = cast("list[Action]", self._placements)
            elif phase == "figure":
                legal = self._figure_actions()
            elif phase == "over":
                legal = []
            else:
                decision = self._queue[0]
                assert decision.owner is not None
                legal = decision.owner.decision_actions(self, decision)
            self._legal = legal
        return legal

    def apply(self, action: Any) -> None:
        """Carry out ``action`` for ``to_move``; raises :class:`IllegalAction` (game unchanged)."""
        phase = self.phase
        if phase == "tile":
            self._apply_tile(action)
        elif phase == "figure":
            self._apply_figure(action)
        elif phase == "over":
            raise IllegalAction("the game is over", "game_over")
        else:
            if action not in self.legal_actions():
                raise IllegalAction(
                    f"{action!r} is not a legal {phase} action now", params={"phase": phase}
                )
            self.history.append((self.to_move, action))
            decision = self._queue.pop(0)
            assert decision.owner is not None
            decision.owner.resolve(self, decision, action)
            self._legal = None
            self._continue()

    def _apply_tile(self, action: Any) -> None:
        if not isinstance(action, PlaceTile):
            raise IllegalAction(
                f"phase 'tile' expects PlaceTile, not {action!r}", params={"phase": "tile"}
            )
        x, y, rotation = action
        tile = self.current_tile
        assert tile is not None
        if rotation not in (0, 90, 180, 270):
            raise IllegalAction(
                f"rotation must be 0, 90, 180 or 270, not {rotation!r}", "bad_rotation"
            )
        try:
            pos = encode(x, y)
        except (ValueError, TypeError):
            raise IllegalAction(f"square ({x}, {y}) is off the board", "off_board") from None
        open_square = self.frontier.get(pos)
        if open_square is None:
            raise self._why_not_square(pos, x, y)
        orientation = tile.orientations[rotation // 90]
        if not _matches(orientation.edges, open_square[0]):
            raise IllegalAction(
                f"{tile.id} at rotation {rotation} does not match its neighbours at ({x}, {y})",
                "tile_mismatch",
                {"tile": tile.id, "x": x, "y": y, "rotation": rotation},
            )
        for ext in self._restrictors:
            if ext.restricts_placement(self) and not ext.placement_allowed(self, pos, orientation):
                raise IllegalAction(
                    f"{tile.id} at ({x}, {y}) rotation {rotation} breaks the {ext.name} rules",
                    "placement_rule",
                    {"tile": tile.id, "x": x, "y": y, "rotation": rotation, "rule": ext.name},
                )
        self.history.append((self.active, action))
        placed = self._place(pos, orientation, self.active)
        self.last_placed = placed
        self.turn += 1
        for ext in self._after_place:
            ext.after_tile_placed(self, placed)
        self.phase = "figure"
        self._legal = None

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
        base = len(seg_feature)
        placed = PlacedTile(pos, orientation, base, self.turn, seat)
        board[pos] = placed
        for seg in orientation.segments:
            seg_feature.append(
                Feature(
                    seg.kind,
                    [len(seg_feature)],
                    {pos},
                    len(seg.edges),
                    seg.coat_of_arms,
                    [],
                    [base + c for c in seg.cities] if seg.cities else [],
                    False,
                    _mark_counts(seg.marks) if seg.marks else None,
                )
            )
            self.seg_pos.append(pos)
        if orientation.cloisters:
            self._open_cloisters[pos] = tuple(base + i for i in orientation.cloisters)
        frontier = self.frontier
        frontier.pop(pos, None)
        squares = self._squares
        inactive = self._inactive
        merge = self._merge
        for d, od, edge, mine, left, right in orientation.sides:
            q = pos + DELTAS[d]
            neighbour = board.get(q)
            if neighbour is None:
                if squares is None or q in squares:
                    open_square = frontier.get(q)
                    if open_square is not None:  # only this tile's side changed for q
                        frontier[q] = (open_square[0] | (edge << (3 * od)), open_square[1])
                    elif inactive:  # q may also touch a printed tile: read every side
                        frontier[q] = self._open_square(q)
                    else:  # a new open square: this tile is its only neighbour
                        frontier[q] = (edge << (3 * od), _PLACE_ACTIONS.get(q) or _place_actions(q))
                elif mine >= 0:  # runs into the map border: closed on this side
                    seg_feature[base + mine].open -= 1
                continue
            other = neighbour.orientation
            if other.edges[od] == BORDER:
                if mine >= 0:
                    seg_feature[base + mine].open -= 1
                continue
            if mine >= 0:
                a = seg_feature[base + mine]
                b = seg_feature[neighbour.base + other.edge_segment[od]]
                if a is not b:
                    a = merge(a, b)
                a.open -= 2
            if left >= 0:
                a = seg_feature[base + left]
                b = seg_feature[neighbour.base + other.half_segment[2 * od + 1]]
                if a is not b:
                    merge(a, b)
            if right >= 0:
                a = seg_feature[base + right]
                b = seg_feature[neighbour.base + other.half_segment[2 * od]]
                if a is not b:
                    merge(a, b)
            if inactive and q in inactive:
                self._activate(q)
        return placed

    def _activate(self, pos: int) -> None:
        """A played tile reached a printed tile: from now on it anchors placements too."""
        self._inactive.discard(pos)
        edges = self.board[pos].orientation.edges
        for d in range(4):
            q = pos + DELTAS[d]
            # D9: its closed sides are map border, which anchors nothing
            if edges[d] != BORDER and q not in self.board and self.geometry.playable(q):
                self.frontier[q] = self._open_square(q)

    def _open_square(self, pos: int) -> tuple[int, tuple[PlaceTile, ...]]:
        """The frontier entry of an empty square, its constraint read from its neighbours."""
        board = self.board
        key = 0
        for d in range(4):
            neighbour = board.get(pos + DELTAS[d])
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
            a.figures.extend(b.figures)
        if b.cities:
            a.cities.extend(b.cities)
        if b.marks is not None:
            marks = a.marks
            if marks is None:
                a.marks = b.marks.copy()
            else:
                for mark, n in b.marks.items():
                    marks[mark] = marks.get(mark, 0) + n
        return a

    # ------------------------------------------------------------------------------ figures

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
            for i, seg in enumerate(segments):
                if seg.kind not in kinds:
                    continue
                feature = seg_feature[base + i]
                if feature.figures and not joins:
                    continue
                if checks and not self._figure_allowed(figure, feature):
                    continue
                actions.append(_figure_action(figure, seg.location))
        for ext in self._figure_exts:
            actions.extend(ext.figure_actions(self))
        return actions

    def _figure_allowed(self, figure: str, feature: Feature) -> bool:
        seat = self.active
        return all(ext.figure_allowed(self, seat, figure, feature) for ext in self._figure_checks)

    def _apply_figure(self, action: Any) -> None:
        if isinstance(action, PlaceFigure):
            action = self._canonical_figure_action(action)
        if action not in self.legal_actions():
            raise self._why_not_figure(action)
        self.history.append((self.active, action))
        if isinstance(action, PlaceFigure):
            placed = self.last_placed
            assert placed is not None
            index = placed.orientation.locations[action.location]
            self.put_figure(self.active, action.figure, placed.base + index)
        elif not isinstance(action, Pass):
            for ext in self._figure_exts:
                if ext.apply_figure_action(self, action):
                    break
        self._score_turn()

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
        for ext in self._figure_checks:
            if not ext.figure_allowed(self, self.active, action.figure, feature):
                return IllegalAction(
                    f"the {ext.name} rules do not allow a {action.figure} on the {kind} "
                    f"at {action.location} now",
                    "figure_rule",
                    {**spot, "rule": ext.name},
                )
        return not_legal

    def put_figure(self, seat: int, figure: str, segment: int) -> None:
        self.supply[seat][figure] -= 1
        self.seg_feature[segment].figures.append((seat, figure, segment))
        self.figures[segment] = (seat, figure)

    def return_figures(self, feature: Feature) -> None:
        for seat, figure, segment in feature.figures:
            self.supply[seat][figure] += 1
            del self.figures[segment]
        feature.figures = []

    def remove_figure(self, segment: int) -> None:
        """Take one figure off the board back to its owner (the abbot's recall)."""
        seat, figure = self.figures.pop(segment)
        feature = self.seg_feature[segment]
        feature.figures = [f for f in feature.figures if f[2] != segment]
        self.supply[seat][figure] += 1

    # ------------------------------------------------------------------------------ scoring

    def ring_count(self, pos: int) -> int:
        """How many of the 8 squares around ``pos`` hold a tile."""
        board = self.board
        count = 0
        for d in RING:  # a plain loop: a generator costs more than the 8 lookups
            if pos + d in board:
                count += 1
        return count

    def feature_value(self, feature: Feature, final: bool) -> int:
        """What a feature pays now: completed (``final=False``) or at the end of the game."""
        value = self._core_value(feature, final)
        for ext in self._value_hooks:
            value = ext.adjust_value(self, feature, final, value)
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

    def _score_turn(self) -> None:
        placed = self.last_placed
        assert placed is not None
        seg_feature = self.seg_feature
        completed: list[Feature] = []
        base = placed.base
        for i in placed.orientation.closable:
            feature = seg_feature[base + i]
            if feature.open == 0 and not feature.complete:
                feature.complete = True
                completed.append(feature)
        open_cloisters = self._open_cloisters
        if open_cloisters:
            pos = placed.pos
            for d in _SELF_AND_RING:
                q = pos + d
                segments = open_cloisters.get(q)
                if segments is not None and self.ring_count(q) == 8:
                    del open_cloisters[q]
                    for g in segments:
                        feature = seg_feature[g]
                        feature.complete = True
                        completed.append(feature)
        for feature in completed:
            self.score_feature(feature, "completed")
        for ext in self._after_scoring:
            ext.after_scoring(self, completed)
        self._stage = _END_OF_TURN
        self._continue()

    def score_feature(self, feature: Feature, reason: str) -> ScoreEvent:
        """Pay a road, city or cloister to its majority; completed ones return their figures."""
        final = reason == "final"
        points = self.feature_value(feature, final)
        paid = self._pay(feature, final, points)
        source = feature.kind_name
        detail: dict[str, Any] = {"value": points}
        kind = feature.kind
        if kind in (CITY, ROAD):
            # What each tile (and coat of arms) paid, for the log to state: 2 or 1 for a city
            # (1 for a small one with the variant), 1 for a road, or an expansion's own rate
            units = len(feature.squares) + (feature.coat_of_arms if kind == CITY else 0)
            detail["per_tile"] = points // units
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
            square_codes=tuple(sorted(feature.squares)),
            detail=detail,
        )
        self.events.append(event)
        if reason != "final":
            self.return_figures(feature)
        return event

    def score_field(self, feature: Feature) -> ScoreEvent:
        cities = self.bordering_cities(feature)
        complete = [c for c in cities if c.complete]
        points = 3 * len(complete)
        for ext in self._value_hooks:
            points = ext.adjust_value(self, feature, True, points)
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
            square_codes=tuple(sorted(feature.squares)),
            detail=detail,
        )
        self.events.append(event)
        return event

    def majority(self, feature: Feature) -> list[int]:
        """The seats that would score ``feature`` now (weighing figures as this game does)."""
        return feature.majority(self.figure_strength)

    def _pay(self, feature: Feature, final: bool, points: int) -> dict[int, int]:
        paid = {seat: points for seat in feature.majority(self.figure_strength)}
        for ext in self._points_hooks:
            ext.adjust_points(self, feature, final, paid)
        scores = self.scores
        for seat, n in paid.items():
            scores[seat] += n
        return paid

    def bordering_cities(self, feature: Feature) -> list[Feature]:
        seen: dict[int, Feature] = {}
        for g in feature.cities:
            city = self.seg_feature[g]
            seen[id(city)] = city
        return list(seen.values())

    def features(self) -> list[Feature]:
        """Every distinct feature on the board."""
        seen: dict[int, Feature] = {}
        for feature in self.seg_feature:
            seen[id(feature)] = feature
        return list(seen.values())

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
        features = self.features()
        for feature in features:
            if feature.figures and not feature.complete and feature.kind != FIELD:
                self.score_feature(feature, "final")
        for feature in features:
            if feature.figures and feature.kind == FIELD:
                self.score_field(feature)

    # ------------------------------------------------------------------------ decisions/flow

    def grant_extra_turn(self) -> None:
        """Let the active seat play one more full turn after this one (a builder's second tile).

        Call it from ``after_scoring`` or ``end_of_turn`` (or resolving a decision queued
        there), not earlier: a look-ahead placement would not take it back.  Granting twice in
        one turn still gives one extra turn.  The history needs nothing more, as the hooks grant
        it again when a record is replayed; the event log says so for readers.
        """
        self._extra_turn = True
        self.log("extra-turn", self.active)

    def push_decision(self, decision: Decision) -> None:
        """Queue a decision (used by expansions); it is asked once earlier ones are resolved."""
        self._queue.append(decision)

    def _continue(self) -> None:
        queue = self._queue
        while not queue:
            stage = self._stage
            if stage == _END_OF_TURN:
                self._stage = _NEXT_TURN
                for ext in self._end_of_turn:
                    ext.end_of_turn(self)
            elif stage == _NEXT_TURN:
                if self._extra_turn:
                    self._extra_turn = False
                else:
                    self.active = (self.active + 1) % self.players
                self._start_turn()
                return
            elif stage == _FINAL:
                self._stage = _FINAL_SCORE
                self.phase = "final"
                for ext in self._before_final:
                    ext.before_final_scoring(self)
            elif stage == _FINAL_SCORE:
                self._final_scoring()
                self._stage = _OVER
                self.phase = "over"
                self._legal = None
                return
            else:
                return
        head = queue[0]
        self.phase = head.phase
        self.to_move = head.seat
        self._legal = None

    # ------------------------------------------------------------------------------ results

    def winners(self) -> list[int]:
        best = max(self.scores)
        return [seat for seat, score in enumerate(self.scores) if score == best]

    def add_points(self, seat: int, points: int, source: str, reason: str, **detail: Any) -> None:
        """Pay points that do not come from a feature (bets, map chips, wine)."""
        self.scores[seat] += points
        self.events.append(ScoreEvent(self.turn, source, reason, {seat: points}, detail=detail))

    def log(self, event_type: str, seat: int | None = None, **detail: Any) -> None:
        self.events.append(GameEvent(self.turn, event_type, seat, detail))

    # ------------------------------------------------------------------------------ copying

    def copy(self) -> Game:
        """An independent copy for search (shares only immutable tile data)."""
        other = Game(_BLANK)
        other.options = self.options
        other.players = self.players
        other.figure_kinds = self.figure_kinds
        other.figure_strength = self.figure_strength
        other.joining_figures = self.joining_figures
        other.small_city_scores_2 = self.small_city_scores_2
        other._extra_turn = self._extra_turn
        other.turn = self.turn
        other.active = self.active
        other.to_move = self.to_move
        other.phase = self.phase
        other.current_tile = self.current_tile
        other.last_placed = self.last_placed
        other.map = self.map
        other.geometry = self.geometry
        other.used_start_squares = self.used_start_squares
        other.start_tile = self.start_tile
        other.rng = self.rng
        other._placements = self._placements
        other._stage = self._stage
        # Each feature is cloned at its first segment and all its segments pointed to the clone
        # at once, so later segments of it are recognised by being already replaced.
        originals = self.seg_feature
        new_features = originals.copy()
        for g, feature in enumerate(originals):
            if new_features[g] is feature:
                clone = feature.clone()
                for segment in feature.segments:
                    new_features[segment] = clone
        other.seg_feature = new_features
        other.seg_pos = self.seg_pos.copy()
        other.board = self.board.copy()
        other.frontier = self.frontier.copy()
        other.figures = self.figures.copy()
        other.scores = self.scores.copy()
        other.supply = [s.copy() for s in self.supply]
        other.events = self.events.copy()
        other.stack = self.stack.copy()
        other.history = self.history.copy()
        other.draws = self.draws.copy()
        other.discarded = self.discarded.copy()
        other._inactive = self._inactive.copy()
        other._open_cloisters = self._open_cloisters.copy()
        other._legal = None
        other.expansions = [e.copy() for e in self.expansions]
        # Queued decisions must be resolved by the copy's expansions, not the original's.
        owners = {id(e): c for e, c in zip(self.expansions, other.expansions, strict=True)}
        other._queue = [
            replace(d, owner=owners[id(d.owner)]) if d.owner is not None else d for d in self._queue
        ]
        other._bind_hooks()
        return other

    @contextmanager
    def placed_for_lookahead(self, action: Any) -> Iterator[Game]:
        """Place the drawn tile as ``action`` says, and take it back when the block ends::

            with game.placed_for_lookahead(action):
                ...  # game is in phase 'figure' with the tile placed: read it, copy it

        A bot's look-ahead tries every legal placement; a whole :meth:`copy` per try costs
        several times the placement itself, as it clones every feature on the board.  Taking a
        placement back instead costs about as much as making it: only the features next to the
        tile change (merged, their open edges closed), so only they are saved and restored, with
        the frontier and what the expansions' ``after_tile_placed`` hooks touch (their state, the
        scores and events).  The game is left exactly as it was, down to the identity of every
        feature and the order of every dict.

        Inside the block read the game or copy it, but do not apply anything to it (a
        :class:`RuntimeError` on exit says so).  An illegal ``action`` raises
        :class:`IllegalAction` with the game unchanged, as :meth:`apply` does (``action`` is
        typed ``Any`` so that the compiled build lets anything through to that check).
        """
        if self.phase != "tile":
            raise IllegalAction(
                f"only a tile placement can be taken back, not a {self.phase} action",
                params={"phase": self.phase},
            )
        saved = self._save_around(action)
        self._apply_tile(action)
        try:
            yield self
        finally:
            self._take_back(saved)

    def _save_around(self, action: Any) -> _TakeBack:
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
            for index in (
                other.edge_segment[od],
                other.half_segment[2 * od],
                other.half_segment[2 * od + 1],
            ):
                if index < 0:
                    continue
                f = seg_feature[neighbour.base + index]
                if all(f is not saved[0] for saved in features):
                    features.append(
                        (
                            f,
                            len(f.segments),
                            f.squares.copy(),
                            f.open,
                            f.coat_of_arms,
                            len(f.figures),
                            len(f.cities),
                            f.marks.copy() if f.marks is not None else None,
                        )
                    )
        hooked = self._after_place
        return _TakeBack(
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

    def _take_back(self, saved: _TakeBack) -> None:
        if self.phase != "figure" or len(self.history) != saved.history + 1:
            raise RuntimeError("the game moved on during a look-ahead placement")
        seg_feature = self.seg_feature
        features = saved.features
        for f, segments, squares, open_edges, coat_of_arms, figures, cities, marks in features:
            current = f.marks
            if current is None or marks is None:
                f.marks = marks
            else:  # merging added to this very dict: put its counts back in place
                current.clear()
                current.update(marks)
            del f.segments[segments:]
            f.squares = squares
            f.open = open_edges
            f.coat_of_arms = coat_of_arms
            del f.figures[figures:]
            del f.cities[cities:]
        for f, *_ in features:
            # A feature merged into another lost its segments to it: point them back.
            if seg_feature[f.segments[0]] is not f:
                for g in f.segments:
                    seg_feature[g] = f
        base = saved.segments
        del seg_feature[base:]
        del self.seg_pos[base:]
        pos = saved.pos
        del self.board[pos]
        self._open_cloisters.pop(pos, None)
        self.frontier = saved.frontier
        inactive = saved.inactive
        if inactive is not None:
            self._inactive = inactive
        del self.history[saved.history :]
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
        del self.events[saved.events :]

    def determinized(self, seat: int, rng: random.Random) -> Game:
        """A copy in which everything ``seat`` cannot know is dealt again at random, consistently
        with what it can know: a sampled world for information-fair search.

        ``seat``'s view (:meth:`view`), the scores, board and figures are unchanged.  The
        remaining stack is shuffled (its draw order is hidden; the current tile and the number
        of tiles left stay), then every expansion re-deals its own hidden state
        (:meth:`Expansion.redeal_hidden`).  Hidden items are put in a canonical order before
        being shuffled, so the copy depends only on what ``seat`` knows and on ``rng``: two games
        ``seat`` cannot tell apart give the same copy from generators in the same state.  The
        copy's options carry no seed or stack (either would reveal the deal): it is for search,
        not for records.
        """
        if not 0 <= seat < self.players:
            raise ValueError(f"seat must be between 0 and {self.players - 1}, not {seat}")
        other = self.copy()
        other.rng = random.Random(rng.getrandbits(64))
        stack = sorted(other.stack, key=lambda tile: tile.id)
        rng.shuffle(stack)
        other.stack = stack
        for ext in other.expansions:
            if _overrides(ext, "redeal_hidden"):
                ext.redeal_hidden(other, seat, rng)
        other.options = replace(self.options, seed=None, stack=None)
        return other

    # ------------------------------------------------------------------------------- views

    def view(self, seat: int | None = None) -> dict[str, Any]:
        """What ``seat`` may know (``None``: a spectator).  Never the stack order.

        Its shape is :class:`.views.GameView`; it is handed on as a plain dict because its
        users extend it (the web adds the legal actions of the seat to move)."""
        return cast("dict[str, Any]", game_view(self, seat))

    def __repr__(self) -> str:
        return (
            f"<Game players={self.players} turn={self.turn} phase={self.phase} "
            f"scores={self.scores}>"
        )


@dataclass
class GameSummary:
    """Final or running totals per seat and per source, derived from the events."""

    scores: list[int]
    by_source: list[dict[str, int]] = field(default_factory=list)

    @classmethod
    def of(cls, game: Game) -> GameSummary:
        by_source: list[dict[str, int]] = [{} for _ in range(game.players)]
        for event in game.events:
            if isinstance(event, ScoreEvent):
                for seat, points in event.points.items():
                    by_source[seat][event.source] = by_source[seat].get(event.source, 0) + points
        return cls(list(game.scores), by_source)
