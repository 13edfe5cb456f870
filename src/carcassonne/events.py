"""Events a game emits: every score with its breakdown, and other public happenings.

Events are the explanation players see ("why did blue get 10?") and what the simulator
aggregates, so they carry the full breakdown rather than just a number.
"""

from __future__ import annotations

import copyreg
from collections.abc import Set
from dataclasses import asdict, dataclass
from typing import Any, Final

from .board import decode

#: the squares of an event that pays for no feature (shared: a frozenset is never written)
_NO_SQUARES: Final[frozenset[int]] = frozenset()


@dataclass(slots=True, init=False)
class ScoreEvent:
    """Points paid for one reason.

    ``source`` is what paid: ``city``, ``road``, ``monastery``, ``garden``, ``field``, ``inn`` (a
    road with an inn), ``cathedral`` (a city with one), or an expansion's source (``bet``,
    ``map-chip``, ``wine``); a feature's ``detail`` has its ``marks`` when it has any.
    ``reason`` says when: ``completed``, ``final``, ``abbot-recall``, …  ``points`` maps each
    scoring seat (for a feature: every seat of its majority) to the points it gained, which can
    be 0 (a field bordering no completed city, a losing bet).
    """

    turn: int
    source: str
    reason: str
    points: dict[int, int]
    tiles: int
    coats_of_arms: int
    figures: dict[int, int]
    #: the board positions of the feature's squares, in no order: the feature's own set, not a
    #: copy (a feature never changes once it is scored: completed, it joins nothing, and final
    #: scoring ends the game), decoded and sorted only when :attr:`squares` is read, as a game
    #: scores a few hundred features and bots and simulations never look at them
    square_codes: Set[int]
    detail: dict[str, Any]

    # Its own __init__ (init=False): the dataclass one is generated Python source, which the
    # compiled build runs interpreted (it was half of what scoring a feature cost)
    def __init__(
        self,
        turn: int,
        source: str,
        reason: str,
        points: dict[int, int],
        tiles: int = 0,
        coats_of_arms: int = 0,
        figures: dict[int, int] | None = None,
        square_codes: Set[int] = _NO_SQUARES,
        detail: dict[str, Any] | None = None,
    ) -> None:
        self.turn = turn
        self.source = source
        self.reason = reason
        self.points = points
        self.tiles = tiles
        self.coats_of_arms = coats_of_arms
        self.figures = {} if figures is None else figures
        self.square_codes = square_codes
        self.detail = {} if detail is None else detail

    @property
    def squares(self) -> list[tuple[int, int]]:
        """The ``(x, y)`` squares of the feature that paid, sorted."""
        return sorted(decode(p) for p in self.square_codes)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        del data["square_codes"]
        data["type"] = "score"
        data["points"] = {str(k): v for k, v in self.points.items()}
        data["figures"] = {str(k): v for k, v in self.figures.items()}
        data["squares"] = [list(s) for s in self.squares]
        return data


@dataclass(slots=True, init=False)
class GameEvent:
    """A public happening that pays nothing by itself (a discarded tile, a bet placed…)."""

    turn: int
    type: str
    seat: int | None
    detail: dict[str, Any]

    def __init__(  # its own, as ScoreEvent's
        self, turn: int, type: str, seat: int | None = None, detail: dict[str, Any] | None = None
    ) -> None:
        self.turn = turn
        self.type = type
        self.seat = seat
        self.detail = {} if detail is None else detail

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


Event = ScoreEvent | GameEvent


# Pickled (and copied) as their arguments: a compiled class with its own __init__ cannot be made
# empty and filled in, which is how an object pickles by default.
def _score_event_args(event: ScoreEvent) -> tuple[type[ScoreEvent], tuple[Any, ...]]:
    return ScoreEvent, (
        event.turn,
        event.source,
        event.reason,
        event.points,
        event.tiles,
        event.coats_of_arms,
        event.figures,
        event.square_codes,
        event.detail,
    )


def _game_event_args(event: GameEvent) -> tuple[type[GameEvent], tuple[Any, ...]]:
    return GameEvent, (event.turn, event.type, event.seat, event.detail)


copyreg.pickle(ScoreEvent, _score_event_args)
copyreg.pickle(GameEvent, _game_event_args)
