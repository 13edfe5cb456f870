"""The game: set-up, the turn machine and its legal actions, copies for search.

:class:`Game` is the one core type.  A turn is a sequence of decisions (``phase`` says which,
``to_move`` says who): ``tile`` (place the drawn tile), ``figure`` (place a figure, or an
expansion's alternative such as recalling the abbot), then any decisions expansions queue
(settling or placing bets, selling wine).  ``legal_actions()`` lists what ``to_move`` may do;
``apply(action)`` does it and runs the game forward to the next decision.  Chance happens only at
setup (the stack is shuffled from the seed), so a game is fully determined by its options and its
actions, and a record of those replays it exactly.

The game's other jobs are the classes it builds on, one module each (see ``state.py`` for why a
line of classes): ``state.py`` declares every attribute, ``scoring.py`` values and pays features,
``placement.py`` puts tiles and figures on the board (the incremental features and the placement
search), ``lookahead.py`` takes a look-ahead placement back; ``copying.py`` fills a copy,
``views.py`` says what a seat may know and ``options.py`` checks the options.  All of it is on
the hot path of simulation.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Final, cast

from .actions import IllegalAction as IllegalAction  # re-exported: the game's refusal
from .actions import Pass, PlaceFigure, PlaceTile
from .board import Geometry, encode
from .chance import seeded, shuffle
from .copying import copy_state
from .events import GameEvent, ScoreEvent
from .expansions.actions import Action
from .expansions.base import Decision, Expansion, ExpansionT
from .expansions.hooks import hook_plan, overrides
from .lookahead import LookAhead, PlacedForLookAhead
from .maps import GameMap, load_map
from .options import (
    DEFAULT_MEEPLES,
    MAP_MEEPLES,
    GameOptions,
    GameSetupError,
)
from .options import MAX_COPIES as MAX_COPIES  # re-exported: the limits are the game's too
from .options import MAX_PLAYERS as MAX_PLAYERS
from .options import MIN_PLAYERS as MIN_PLAYERS
from .placement import PlacedTile as PlacedTile  # re-exported: the board's entries
from .placement import edges_fit
from .quoting import short_repr
from .ruleset import MEEPLE as MEEPLE  # re-exported: the figure every game has
from .ruleset import Ruleset, rules_for
from .tiles import Orientation, TileType, tile_by_id, tile_set
from .views import GameView, game_view

#: passed as options, makes the empty Game that Game.copy() fills in
_BLANK = GameOptions()
#: the geometry of every game without a map, shared as copies share theirs: never written
_OPEN_TABLE: Final = Geometry()

# Turn stages after the core's own decisions; see Game._continue.  Final, one a line: the compiled
# build inlines them as C constants.
_END_OF_TURN: Final = 0
_NEXT_TURN: Final = 1
_FINAL: Final = 2
_FINAL_SCORE: Final = 3
_OVER: Final = 4


#: a tile's id, as a sort key: a C call per tile, where a lambda is a Python call per tile
_TILE_ID: Final = attrgetter("id")


#: the options determinized() last unseeded, and the result: a search deals all its sampled
#: worlds from one game, whose options are one object (one entry, set whole, never emptied)
_LAST_UNSEEDED: Final[list[tuple[GameOptions, GameOptions]]] = []


def _unseeded(options: GameOptions) -> GameOptions:
    """``options`` without seed or stack (either would reveal the deal), made once for all the
    worlds a search deals from one game."""
    if options.seed is None and options.stack is None:
        return options
    last = _LAST_UNSEEDED
    if last and last[0][0] is options:
        return last[0][1]
    unseeded = options.with_(seed=None, stack=None)
    last[:] = [(options, unseeded)]
    return unseeded


def _hooked(exts: list[Expansion], positions: tuple[int, ...]) -> tuple[Expansion, ...]:
    """The expansions at ``positions`` (those that override a hook): mostly none, the empty
    tuple, which is one shared object where an empty list is an allocation per game and copy."""
    if not positions:
        return ()
    return tuple([exts[i] for i in positions])


class Game(LookAhead):
    """A game of Carcassonne with the options' expansions.

    Public state (read it, do not mutate it): ``scores``, ``supply`` (per seat, figure type ->
    count in hand), ``board`` (pos -> :class:`PlacedTile`), ``events``, ``phase``, ``to_move``,
    ``active`` (whose turn it is), ``current_tile``, ``turn``.  Every attribute is declared in
    ``state.py``; placing, scoring and the look-ahead take-back are the classes it builds on.
    """

    __slots__ = ()

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
            options = options.with_(**kwargs)
        seed = options.seed
        if seed is None:
            # Every game gets a seed, so that any game can be saved as a record and replayed.
            seed = random.SystemRandom().randrange(1 << 32)
            options = options.with_(seed=seed)
        # What the options fix whatever the seed (checked, the expansions' classes, the figures
        # and tiles they bring) is shared with the games before from the same options; checked
        # first, so that absurd options (10**9 players) are refused before anything is sized
        rules, expansions = rules_for(options, extra_expansions)
        # Every attribute is declared, typed and explained in state.py.
        self.options = options
        self.players = options.players
        self.scores = [0] * self.players
        meeples = options.meeples
        if meeples is None:
            meeples = MAP_MEEPLES if options.map else DEFAULT_MEEPLES
        self.supply = [{MEEPLE: meeples} for _ in range(self.players)]
        self.small_city_scores_2 = options.small_city_scores_2
        self._extra_turn = False
        self.board = {}
        self.seg_feature = []
        self.seg_pos = []
        self.frontier = {}
        self.figures = {}
        self.events = []
        self.history = []
        self.draws = []
        self.turn = 0
        self.active = 0
        self.to_move = 0
        self.phase = "tile"
        self.stack = []
        self.discarded = []
        self.current_tile = None
        self.last_placed = None
        self.map = None
        self.geometry = _OPEN_TABLE
        self._inactive = set()
        self.used_start_squares = ()
        self._open_cloisters = {}
        self._placements = []
        self._legal = None
        self._queue = []
        self._stage = _END_OF_TURN
        self.start_tile = None

        self.expansions = expansions
        self.figure_kinds = rules.figure_kinds
        self.figure_strength = rules.figure_strength
        self.joining_figures = rules.joining_figures
        self._bind_hooks()
        self._scoring_marks = rules.scoring_marks
        self._squares = self.geometry.squares
        self._rng_seed = seed
        self._rng = seeded(seed)
        self._setup(rules)

    # ------------------------------------------------------------------------------------ setup

    def _bind_hooks(self) -> None:
        """Keep, per hook of LISTED_HOOKS, the expansions that override it (the hot path asks
        only those): at set-up, and for a copy, whose expansions are copies of the original's."""
        exts = self.expansions
        plan = hook_plan(exts)
        self._restrictors = _hooked(exts, plan[0])
        self._after_place = _hooked(exts, plan[1])
        self._figure_exts = _hooked(exts, plan[2])
        self._after_scoring = _hooked(exts, plan[3])
        self._end_of_turn = _hooked(exts, plan[4])
        self._before_final = _hooked(exts, plan[5])
        self._figure_checks = _hooked(exts, plan[6])
        self._value_hooks = _hooked(exts, plan[7])
        self._points_hooks = _hooked(exts, plan[8])

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

    def _setup(self, rules: Ruleset) -> None:
        options = self.options
        self.start_tile = rules.start_tile
        game_map: GameMap | None = None
        if options.map is not None:
            game_map = self.map = load_map(options.map)
            self.geometry = game_map.geometry
            self._squares = self.geometry.squares
            # The printed large cities go first, so that their segments are numbered first.
            for pos, printed in game_map.printed_tiles():
                self.put_printed_tile(pos, printed.orientations[0])
        if options.stack is not None:
            self.stack = [self._stack_tile(tile_id, i) for i, tile_id in enumerate(options.stack)]
            self._check_stack_counts()
            self.stack.reverse()
        else:
            pool = list(rules.land)
            shuffle(pool, self.rng)
            self.stack = pool
        if game_map is not None:
            # Chosen before the expansions' setup: Map-Chips keep clear of the used start squares.
            self.used_start_squares = game_map.choose_start_squares(options.start_squares, self.rng)
        for ext in self.expansions:
            ext.setup(self)
        if game_map is None:
            self.put_start_tile(encode(0, 0), self.start_tile)
        else:
            # D7: the start tile on the first start square in use, the top tile of the shuffled
            # stack on the second, both at rotation 0.
            first, second = (game_map.start_squares[name] for name in self.used_start_squares)
            self.put_start_tile(first, self.start_tile)
            if self.stack:
                self.put_start_tile(second, self.stack.pop())
        self._start_turn()

    def _stack_tile(self, tile_id: str, index: int) -> TileType:
        try:
            tile = tile_by_id(tile_id)
        except KeyError:
            raise GameSetupError(
                f"stack entry {index + 1}: unknown tile {short_repr(tile_id)}"
            ) from None
        return tile

    def tile_counts(self) -> dict[str, int]:
        """Tile id -> copies the set-up deals, start tiles included: the enabled tile sets (the
        base set as many times as ``copies``) and the River's, which its own set-up deals."""
        counts: dict[str, int] = {}
        for name in [*self.tile_sets(), *(["river"] if self.options.river else [])]:
            copies = self.options.copies if name == "base" else 1
            for tile in tile_set(name).copies():
                counts[tile.id] = counts.get(tile.id, 0) + copies
        return counts

    def _check_stack_counts(self) -> None:
        available = self.tile_counts()
        river = self.options.river
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

    # --------------------------------------------------------------------------------- the turn

    def _start_turn(self) -> None:
        """Draw until a tile fits somewhere (unplaceable tiles are discarded), or end the game."""
        stack = self.stack
        while stack:
            tile = stack.pop()
            self.current_tile = tile
            placements = self._legal_placements(tile)
            if placements:
                self.draws.append(tile.drawn[0])
                self._placements = placements
                self.phase = "tile"
                self.to_move = self.active
                self._legal = None
                return
            self.draws.append(tile.drawn[1])
            self.discarded.append(tile)
            self.events.append(GameEvent(self.turn, "discard", None, {"tile": tile.id}))
        self.current_tile = None
        self._stage = _FINAL
        self._continue()

    @property
    def rng(self) -> random.Random:
        """The game's generator: the set-up's shuffle and draws (D7's start squares, the River,
        Map-Chips) come from it; a sampled world's is seeded anew."""
        rng = self._rng
        if rng is None:
            rng = self._rng = seeded(self._rng_seed)
        return rng

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
                if self._figure_exts:  # an expansion's alternatives to a figure
                    for ext in self._figure_exts:
                        legal.extend(ext.figure_actions(self))
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
        tile = self.current_tile
        assert tile is not None
        # An action taken from the list (a bot's, a simulation's) is found by identity: the
        # placement search checked it when the tile was drawn.  Anything else is checked here.
        x: int  # (declared: unpacked from a NamedTuple, the three would stay boxed objects and
        y: int  # rotation // 90 and the index by it generic operations, when compiled)
        rotation: int
        for listed in self._placements:
            if listed is action:
                x, y, rotation = listed
                pos = encode(x, y)
                orientation = tile.orientations[rotation // 90]
                break
        else:
            pos, orientation = self._checked_placement(tile, action)
        self.history.append((self.active, action))
        placed = self._place(pos, orientation, self.active)
        self.last_placed = placed
        self.turn += 1
        if self._after_place:
            for ext in self._after_place:
                ext.after_tile_placed(self, placed)
        self.phase = "figure"
        self._legal = None

    def _checked_placement(self, tile: TileType, action: Any) -> tuple[int, Orientation]:
        """The square and orientation of a placement of ``tile``; raises :class:`IllegalAction`
        naming the rule it breaks."""
        if not isinstance(action, PlaceTile):
            raise IllegalAction(
                f"phase 'tile' expects PlaceTile, not {action!r}", params={"phase": "tile"}
            )
        x, y, rotation = action
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
        if not edges_fit(orientation.edges, open_square[0]):
            raise IllegalAction(
                f"{tile.id} at rotation {rotation} does not match its neighbours at ({x}, {y})",
                "tile_mismatch",
                {"tile": tile.id, "x": x, "y": y, "rotation": rotation},
            )
        if self._restrictors:  # (each hook list is tested first: empty is the common case)
            for ext in self._restrictors:
                if ext.restricts_placement(self) and not ext.placement_allowed(
                    self, pos, orientation
                ):
                    raise IllegalAction(
                        f"{tile.id} at ({x}, {y}) rotation {rotation} breaks the {ext.name} rules",
                        "placement_rule",
                        {"tile": tile.id, "x": x, "y": y, "rotation": rotation, "rule": ext.name},
                    )
        return pos, orientation

    def _apply_figure(self, action: Any) -> None:
        legal = self.legal_actions()
        # An action taken from the list (a bot's, a simulation's) is found by identity: it is
        # canonical already, and nothing is compared
        for listed in legal:
            if listed is action:
                break
        else:
            if isinstance(action, PlaceFigure):
                action = self._canonical_figure_action(action)
            if action not in legal:
                raise self._why_not_figure(action)
        self.history.append((self.active, action))
        if isinstance(action, PlaceFigure):
            placed = self.last_placed
            assert placed is not None
            figure, location = action  # (unpacked: a NamedTuple's attribute is a generic read)
            index = placed.orientation.locations[location]
            self.put_figure(self.active, figure, placed.base + index)
        elif not isinstance(action, Pass):
            for ext in self._figure_exts:
                if ext.apply_figure_action(self, action):
                    break
        completed = self._score_turn()
        if self._after_scoring:
            for ext in self._after_scoring:
                ext.after_scoring(self, completed)
        self._stage = _END_OF_TURN
        self._continue()

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

    def log(self, event_type: str, seat: int | None = None, **detail: Any) -> None:
        self.events.append(GameEvent(self.turn, event_type, seat, detail))

    # ------------------------------------------------------------------------------ copying

    def copy(self) -> Game:
        """An independent copy for search (shares only what never changes: the tile data, the
        options, the complete features)."""
        other = Game(_BLANK)
        copy_state(self, other)
        other._bind_hooks()
        return other

    def placed_for_lookahead(self, action: Any) -> PlacedForLookAhead[Game]:
        """Place the drawn tile as ``action`` says, to be taken back when the ``with`` block ends::

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
        return PlacedForLookAhead(self, saved)

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
        other._rng = None  # made from this seed if read: the search never draws from it
        other._rng_seed = rng.getrandbits(64)
        stack = other.stack  # (the copy's own list: sorted in place, not copied once more)
        stack.sort(key=_TILE_ID)
        shuffle(stack, rng)
        for ext in other.expansions:
            if overrides(ext, "redeal_hidden"):
                ext.redeal_hidden(other, seat, rng)
        other.options = _unseeded(self.options)
        return other

    # ------------------------------------------------------------------------------- views

    def view(self, seat: int | None = None) -> GameView:
        """What ``seat`` may know (``None``: a spectator), shaped as :class:`.views.GameView`.
        Never the stack order."""
        return game_view(self, seat)

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
