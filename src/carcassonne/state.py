"""What a game is made of: every attribute of a :class:`~.game.Game`, named and typed once.

:class:`GameState` is the root of the game's one line of classes (``GameState`` ←
:class:`~.scoring.Scoring` ← :class:`~.placement.Placement` ← :class:`~.lookahead.LookAhead` ←
:class:`~.game.Game`): each module below it holds one job of the game as methods on the same
object, so the hot path reads ``self.board`` as before, without a layer of calls or an object per
job.  One base at a time, because the compiled build (mypyc) gives a native class one base; each
module's class comes after the ones whose methods it calls.  Nothing here runs: ``Game.__init__``
sets every attribute and ``Game.copy`` copies each (a test checks it forgets none).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .board import Geometry, decode
from .events import Event
from .expansions.actions import Action
from .expansions.base import Decision, Expansion
from .features import Feature
from .options import GameOptions
from .tiles import Orientation, TileType

if TYPE_CHECKING:
    from .actions import PlaceTile


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


class GameState:
    """The attributes of a game.  Public ones (read them, do not mutate them): ``scores``,
    ``supply``, ``board``, ``events``, ``phase``, ``to_move``, ``active``, ``current_tile``,
    ``turn``; the rest are the engine's."""

    # Every attribute, named once: a compiled build has no __dict__ to copy wholesale.
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
        "_rng",
        "_rng_seed",
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

    options: GameOptions
    players: int
    scores: list[int]
    #: per seat, figure type -> count in hand
    supply: list[dict[str, int]]
    #: figure type -> the feature kinds it may stand on
    figure_kinds: dict[str, frozenset[int]]
    #: pos -> the tile on that square
    board: dict[int, PlacedTile]
    #: global segment id -> its feature, and -> its square
    seg_feature: list[Feature]
    seg_pos: list[int]
    #: empty playable squares next to a placed tile -> (edge constraint, 3 bits per side;
    #: the square's four PlaceTile actions), the actions kept here so that the placement
    #: search, the hottest loop of a game, finds them without a lookup per square
    frontier: dict[int, tuple[int, tuple[PlaceTile, ...]]]
    #: global segment id -> (seat, figure type) of the figure standing there
    figures: dict[int, tuple[int, str]]
    events: list[Event]
    #: every applied action as (seat, action), in order: with the options, the whole game
    history: list[tuple[int, Action]]
    #: every drawn tile id in draw order, with whether it was discarded as unplaceable
    draws: list[tuple[str, bool]]
    turn: int
    active: int
    to_move: int
    phase: str
    #: draw pile; the next tile is ``stack[-1]``
    stack: list[TileType]
    discarded: list[TileType]
    current_tile: TileType | None
    last_placed: PlacedTile | None
    map: Any  # a maps.GameMap on a map game (Any: callers check for None)
    geometry: Geometry
    #: map games: names of the two start squares in use (D6), the start tile's first
    used_start_squares: tuple[str, ...]
    start_tile: TileType | None
    expansions: list[Expansion]
    #: the game's generator (``Game.rng``), made from ``_rng_seed`` when first read if None:
    #: only the set-up draws from it, and a sampled world (``Game.determinized``) gets a fresh
    #: one, whose seeding (~37 K instructions) was a sixth of a compiled determinized()
    _rng: random.Random | None
    _rng_seed: int
    #: printed tiles not yet reached by a played tile
    _inactive: set[int]
    #: square -> (how many of the 8 squares around it hold a tile, -1 until first counted;
    #: global ids of its monastery/garden segments) for the cloisters not complete yet: the
    #: count goes up as tiles land next to it (``Scoring._score_turn``), so that finding the
    #: completed ones looks nothing up on the board
    _open_cloisters: dict[int, tuple[int, tuple[int, ...]]]
    #: the drawn tile's legal placements, found when it was drawn
    _placements: list[PlaceTile]
    _legal: list[Action] | None
    _queue: list[Decision]
    #: where the turn machine is after the core's own decisions (game.py's stages)
    _stage: int
    #: the playable squares (None: the unbounded table)
    _squares: frozenset[int] | None
    # the expansions that override each hook, so that the hot path asks only those
    _restrictors: tuple[Expansion, ...]
    _after_place: tuple[Expansion, ...]
    _figure_exts: tuple[Expansion, ...]
    _after_scoring: tuple[Expansion, ...]
    _end_of_turn: tuple[Expansion, ...]
    _before_final: tuple[Expansion, ...]
    _figure_checks: tuple[Expansion, ...]
    _value_hooks: tuple[Expansion, ...]
    _points_hooks: tuple[Expansion, ...]
    #: figure type -> weight in majorities; None when every type weighs 1 (the fast case)
    figure_strength: dict[str, int] | None
    #: figure types that may join an occupied feature (Expansion.joining_figures)
    joining_figures: frozenset[str]
    small_city_scores_2: bool
    #: whether the seat whose turn ends plays another one (``Game.grant_extra_turn``)
    _extra_turn: bool
    #: marks that name a scored feature's source (``Expansion.scoring_marks``)
    _scoring_marks: tuple[str, ...]
