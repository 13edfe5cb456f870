"""The interface through which an expansion plugs into the engine's turn.

The core runs a turn as: draw → ``tile`` decision → :meth:`Expansion.after_tile_placed` →
``figure`` decision (plus :meth:`Expansion.figure_actions`) → core scoring →
:meth:`Expansion.after_scoring` → :meth:`Expansion.end_of_turn` → next turn; and at the end:
:meth:`Expansion.before_final_scoring` → core final scoring.  Whenever the core works out what
a feature pays, :meth:`Expansion.adjust_value` may change the value (an inn, a cathedral) and
:meth:`Expansion.adjust_points` what each seat gets; :attr:`Expansion.figure_strength` weighs
figures in majorities, and :meth:`Expansion.figure_allowed` restricts where figures go.

Hooks never return control flow: an expansion that needs a seat to decide something queues a
:class:`Decision` with :meth:`Game.push_decision`; the game then asks the owning expansion for the
legal actions (:meth:`Expansion.decision_actions`) and hands it the chosen one
(:meth:`Expansion.resolve`).  The core therefore never learns what a bet or a wine is.

Only hooks an expansion overrides are called, so an unused hook costs nothing on the hot path.
Expansion state lives on the expansion object; :meth:`Expansion.copy` must copy it for
:meth:`Game.copy`, and an expansion with hidden state re-deals it in
:meth:`Expansion.redeal_hidden` for :meth:`Game.determinized`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar


def _class_as_is(*attrs: str, **kwattrs: object) -> Any:
    """Stands in for ``mypyc_attr`` where mypy_extensions is not installed: only the compiled
    build reads that decorator, and it did so when it was built."""
    return lambda cls: cls


try:
    from mypy_extensions import mypyc_attr
except ImportError:
    mypyc_attr = _class_as_is


if TYPE_CHECKING:
    import random

    from ..features import Feature
    from ..game import Game, PlacedTile
    from ..tiles import Orientation


# The __init__ is written out: a compiled build runs a generated one as interpreted code, and
# expansions build a decision on most turns (the fields stay, for ``dataclasses.replace``).
@dataclass(slots=True, init=False)
class Decision:
    """A choice some seat must make before the game can go on."""

    owner: Expansion | None  # None: the core's own decisions (tile, figure)
    phase: str
    seat: int
    data: Any

    def __init__(self, owner: Expansion | None, phase: str, seat: int, data: Any = None) -> None:
        self.owner = owner
        self.phase = phase
        self.seat = seat
        self.data = data


#: an expansion class, as :meth:`Game.expansion` looks one up: ``game.expansion(MapChips)`` is a
#: ``MapChips | None``
ExpansionT = TypeVar("ExpansionT", bound="Expansion")


# Interpreted subclasses allowed: an experiment's or a test's own expansion (``Game(...,
# extra_expansions=[...])``) must plug into the compiled engine as into the plain one.
@mypyc_attr(allow_interpreted_subclasses=True)
class Expansion:
    """Base class: every hook is a no-op; subclasses override what they need."""

    name: ClassVar[str] = "expansion"
    #: figure types this expansion adds: name -> feature kinds it may stand on
    figure_types: ClassVar[dict[str, frozenset[int]]] = {}
    #: weight of a figure type in majorities when it is not 1 (large meeple 2, builder 0)
    figure_strength: ClassVar[dict[str, int]] = {}
    #: figure types placed on a feature already occupied (a builder or pig joins its owner's
    #: meeple there); where exactly is up to :meth:`figure_allowed`
    joining_figures: ClassVar[frozenset[str]] = frozenset()
    #: tile sets this expansion shuffles into the land tiles
    tile_sets: ClassVar[tuple[str, ...]] = ()
    #: whether :meth:`setup` replaces the base start tile (``game.start_tile``)
    provides_start_tile: ClassVar[bool] = False

    def setup(self, game: Game) -> None:
        """Adjust the game before the first turn (stack, supplies, board)."""

    def scoring_marks(self) -> tuple[str, ...]:
        """Marks that name what a feature's score came from (a road with an inn scores as
        ``inn``: its ScoreEvent's source), so that summaries by source tell them apart.

        A method, asked once at set-up, rather than a class attribute: the marks may depend on
        the options (a variant without inns, D52), and a compiled build reads an attribute
        declared on this class from the instance, never from an interpreted subclass's body.
        """
        return ()

    def placement_allowed(self, game: Game, pos: int, orientation: Orientation) -> bool:
        """Extra restriction on tile placement (called only while :attr:`restricts_placement`)."""
        return True

    def restricts_placement(self, game: Game) -> bool:
        """Whether :meth:`placement_allowed` must be consulted for the current tile."""
        return False

    def after_tile_placed(self, game: Game, placed: PlacedTile) -> None:
        """Step 1 effects of the tile just placed (e.g. collecting a map chip)."""

    def figure_allowed(self, game: Game, seat: int, figure: str, feature: Feature) -> bool:
        """Whether ``seat`` may put a ``figure`` on ``feature`` (of the tile just placed).

        Asked, when overridden, for every placement the core would offer, of every figure type:
        answer True for types this expansion does not restrict.
        """
        return True

    def figure_actions(self, game: Game) -> list[Any]:
        """Additional step-2 actions (e.g. recalling the abbot)."""
        return []

    def apply_figure_action(self, game: Game, action: Any) -> bool:
        """Carry out a step-2 action this expansion offered; False if it is not ours."""
        return False

    def adjust_value(self, game: Game, feature: Feature, final: bool, value: int) -> int:
        """What ``feature`` pays, given ``value``, what the core (and earlier expansions) made
        of it: a road, city or cloister completed (``final`` False) or at the end, and a field
        at the end (``final`` True)."""
        return value

    def adjust_points(
        self, game: Game, feature: Feature, final: bool, points: dict[int, int]
    ) -> None:
        """Change, in place, the points each seat of the majority gets for ``feature`` (seat ->
        points, every seat the feature's value), just before they are paid (e.g. a pig raises
        only its owner's points)."""

    def after_scoring(self, game: Game, completed: list[Feature]) -> None:
        """Step 3, after the core scored the features this turn completed."""

    def end_of_turn(self, game: Game) -> None:
        """After step 3 (e.g. step 4, place bets)."""

    def before_final_scoring(self, game: Game) -> None:
        """At the start of final scoring, before the core scores incomplete features."""

    def decision_actions(self, game: Game, decision: Decision) -> list[Any]:
        """Legal actions for a decision this expansion queued."""
        raise NotImplementedError

    def resolve(self, game: Game, decision: Decision, action: Any) -> None:
        """Carry out ``action`` (already checked legal) for ``decision``."""
        raise NotImplementedError

    def view(self, game: Game, seat: int | None) -> dict[str, Any]:
        """This expansion's part of a seat's view (``None``: a spectator)."""
        return {}

    def redeal_hidden(self, game: Game, seat: int, rng: random.Random) -> None:
        """Deal this expansion's hidden state again at random, as ``seat`` cannot tell it apart.

        Called by :meth:`Game.determinized` on the copy's own expansions, after the stack was
        shuffled.  Change only what ``seat`` cannot see (its view must stay the same), keep the
        state legal and consistent (counts, ownership, the record in ``game.history``), and put
        hidden items in a canonical order before shuffling them with ``rng``, so that the result
        depends on what ``seat`` knows and on ``rng`` only.  An expansion without hidden state
        does not override it.
        """

    def copy(self) -> Expansion:
        """An independent copy of this expansion's state."""
        return self

    def restore(self, saved: Expansion) -> None:
        """Take back the state of ``saved``, a :meth:`copy` of this expansion made earlier.

        Used to take back a look-ahead placement (:meth:`Game.placed_for_lookahead`), so only
        an expansion that overrides :meth:`after_tile_placed` is asked (and must override this);
        the state may move over, since the copy is not used again.
        """
        raise NotImplementedError(f"{type(self).__name__} changes in after_tile_placed")
