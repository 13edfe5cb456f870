"""Who is still in a game, and the places at its end (issue 24: tables that always finish).

A seat's player may leave the table: a stand-in bot then plays the seat (``stand-in``) until
the player takes it back (``return``); a player who resigns, or whose clock runs out on a table
that makes a timeout lose (``timeout``), is ranked last while a stand-in plays on.  These
:class:`SeatChange` entries are stored in order with the plies; a seat's status and the final
places are derived from them (:func:`statuses`, :func:`ranking`).  The table's settings
(:class:`TableSettings`) and what a record keeps of a table (:class:`TableRecord`) are here too.
Pure data: no I/O, no web, no bots (the stand-in is named by its bot spec).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .clocks import NO_CLOCK, TimeControl, TimeControlError

ChangeKind = Literal["stand-in", "return", "resign", "timeout"]
CHANGE_KINDS: tuple[ChangeKind, ...] = ("stand-in", "return", "resign", "timeout")
SeatStatus = Literal["playing", "stood-in", "resigned", "timed-out"]
#: the changes that take a seat out of the ranking for good
LEAVING: dict[str, SeatStatus] = {"resign": "resigned", "timeout": "timed-out"}

OnTimeout = Literal["stand-in", "lose"]
ON_TIMEOUT: tuple[OnTimeout, ...] = ("stand-in", "lose")
#: the bots a table may name as its stand-in (fair ones: they never see hidden state)
STAND_IN_BOTS = ("greedy", "random")
DEFAULT_STAND_IN = "greedy"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class SeatChange:
    """``seat`` changed hands when ``ply`` actions had been taken, at ``at_ms`` (epoch ms)."""

    ply: int
    seat: int
    change: ChangeKind
    at_ms: int

    def to_json(self) -> dict[str, Any]:
        return {"ply": self.ply, "seat": self.seat, "change": self.change, "at_ms": self.at_ms}

    @classmethod
    def from_json(cls, data: Any, where: str = "change") -> SeatChange:
        """ValueError naming ``where`` and what is wrong."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{where}: must be a JSON object")
        keys = ("ply", "seat", "change", "at_ms")
        unknown = sorted(set(data) - set(keys))
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
        for key in keys:
            if key not in data:
                raise ValueError(f"{where}: missing {key!r}")
        for key in ("ply", "seat", "at_ms"):
            if not _is_int(data[key]) or data[key] < 0:
                raise ValueError(f"{where}: {key!r} must be a whole number from 0")
        if data["change"] not in CHANGE_KINDS:
            raise ValueError(
                f"{where}: 'change' must be one of {', '.join(CHANGE_KINDS)}, "
                f"not {data['change']!r}"
            )
        return cls(data["ply"], data["seat"], data["change"], data["at_ms"])


@dataclass(frozen=True, slots=True)
class SeatState:
    """A seat's status, the ply it began at (None: playing from the start), and for seats that
    left, the order they left in (0 = the first to leave)."""

    status: SeatStatus = "playing"
    since_ply: int | None = None
    left: int | None = None

    @property
    def in_game(self) -> bool:
        """Still ranked by score (playing, or stood in for a while)."""
        return self.left is None

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "since_ply": self.since_ply}


def statuses(changes: Sequence[SeatChange], players: int) -> list[SeatState]:
    """Each seat's state after ``changes``; ValueError naming the change that cannot happen."""
    states = [SeatState() for _ in range(players)]
    ply = 0
    left = 0
    for index, change in enumerate(changes):
        where = f"change {index + 1} ({change.change} of seat {change.seat} at ply {change.ply})"
        if not 0 <= change.seat < players:
            raise ValueError(f"{where}: seat {change.seat} does not exist")
        if change.ply < ply:
            raise ValueError(f"{where}: the changes must be in ply order (ply {ply} came before)")
        ply = change.ply
        state = states[change.seat]
        if not state.in_game:
            raise ValueError(f"{where}: the seat has already {state.status.replace('-', ' ')}")
        if change.change == "stand-in":
            if state.status == "stood-in":
                raise ValueError(f"{where}: the seat is already played by the stand-in")
            states[change.seat] = SeatState("stood-in", change.ply)
        elif change.change == "return":
            if state.status != "stood-in":
                raise ValueError(f"{where}: the seat is not played by the stand-in")
            states[change.seat] = SeatState("playing", change.ply)
        else:
            states[change.seat] = SeatState(LEAVING[change.change], change.ply, left)
            left += 1
    return states


def ranking(scores: Sequence[int], states: Sequence[SeatState]) -> list[list[int]]:
    """Places from first to last, each a list of tied seats.

    Seats still in come first, by score (equal scores share a place, as ``game.winners()``
    shares the first); then the seats that left, the latest to leave ranking highest.
    """
    if len(scores) != len(states):
        raise ValueError(f"{len(scores)} scores for {len(states)} seats")
    staying = [seat for seat, state in enumerate(states) if state.in_game]
    places: list[list[int]] = []
    for score in sorted({scores[seat] for seat in staying}, reverse=True):
        places.append([seat for seat in staying if scores[seat] == score])
    leavers = [seat for seat, state in enumerate(states) if not state.in_game]
    leavers.sort(key=lambda seat: -(states[seat].left or 0))
    places.extend([seat] for seat in leavers)
    return places


@dataclass(frozen=True, slots=True)
class TableSettings:
    """What a table is created with: its clock, its stand-in bot, what a timeout does, and
    whether the page shows the information aids (remaining tiles, unfillable squares)."""

    control: TimeControl = NO_CLOCK
    stand_in: str = DEFAULT_STAND_IN
    on_timeout: OnTimeout = "stand-in"
    aids: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "clock": self.control.to_json(),
            "stand_in": self.stand_in,
            "on_timeout": self.on_timeout,
            "aids": self.aids,
        }

    @classmethod
    def from_json(cls, data: Any) -> TableSettings:
        """The settings of ``{"clock"?, "stand_in"?, "on_timeout"?, "aids"?}`` (each has a default);
        :class:`TimeControlError` with a ``reason`` naming what is wrong."""
        if not isinstance(data, Mapping):
            raise TimeControlError("table_shape", "table: must be a JSON object")
        unknown = sorted(set(data) - {"clock", "stand_in", "on_timeout", "aids"})
        if unknown:
            raise TimeControlError(
                "table_shape", f"table: unknown key(s) {', '.join(map(repr, unknown))}"
            )
        control = TimeControl.from_json(data["clock"]) if "clock" in data else NO_CLOCK
        stand_in = data.get("stand_in", DEFAULT_STAND_IN)
        if stand_in not in STAND_IN_BOTS:
            raise TimeControlError(
                "stand_in_bot",
                f"table: 'stand_in' must be one of {', '.join(STAND_IN_BOTS)}, not {stand_in!r}",
            )
        on_timeout = data.get("on_timeout", "stand-in")
        if on_timeout not in ON_TIMEOUT:
            raise TimeControlError(
                "on_timeout",
                f"table: 'on_timeout' must be one of {', '.join(ON_TIMEOUT)}, not {on_timeout!r}",
            )
        aids = data.get("aids", True)
        if not isinstance(aids, bool):
            raise TimeControlError("aids", f"table: 'aids' must be true or false, not {aids!r}")
        return cls(control, stand_in, on_timeout, aids)


@dataclass(frozen=True, slots=True)
class TableRecord:
    """What a game record keeps of its table: the settings, the seat changes, and per ply the
    time each decision took (``Clocks.spent_ms``; may be shorter than the game: unknown)."""

    control: TimeControl = NO_CLOCK
    stand_in: str = DEFAULT_STAND_IN
    on_timeout: OnTimeout = "stand-in"
    aids: bool = True
    changes: tuple[SeatChange, ...] = ()
    spent_ms: tuple[int, ...] = field(default=())

    @property
    def settings(self) -> TableSettings:
        return TableSettings(self.control, self.stand_in, self.on_timeout, self.aids)

    @classmethod
    def of(
        cls,
        settings: TableSettings,
        changes: Sequence[SeatChange] = (),
        spent_ms: Sequence[int] = (),
    ) -> TableRecord:
        return cls(
            settings.control,
            settings.stand_in,
            settings.on_timeout,
            settings.aids,
            tuple(changes),
            tuple(spent_ms),
        )
