"""Time controls and the per-seat clocks of a table (issue 24): what a seat may spend deciding.

A :class:`TimeControl` is chosen when a table is created: none, real-time (an initial time plus
an increment per stint, Fischer, not capped) or turn-based (a bank of days plus time per move,
capped at the bank).  :class:`Clocks` keeps each seat's remaining time, fed with the times its
caller gives (milliseconds): it never reads the wall clock, so the web server, the terminal and
the tests (a fake clock) drive it alike, and a server can rebuild it after a restart by feeding
it the stored times again.  All times are whole milliseconds (JSON and JavaScript keep
integers exact, floats would round).

The rules, as in ``TABLES.md`` / ``docs/record-format.md``:

* only the seat to move has a running clock, and only when a person plays it (``timed``); bots,
  and seats played by a stand-in, have none;
* the first decision of a game (ply 0) is not timed: players are still arriving;
* a seat earns the increment when its stint of decisions ends (``game.to_move`` passes to
  another seat), and after every decision a stand-in takes for it (so a returning player finds
  time on the clock);
* turn-based time never rises above the bank; a remaining time never falls below 0 (a seat at
  0 is *out of time*).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal

SECOND_MS = 1000
MINUTE_MS = 60 * SECOND_MS
HOUR_MS = 60 * MINUTE_MS
DAY_MS = 24 * HOUR_MS

ClockKind = Literal["none", "real-time", "turn-based"]
CLOCK_KINDS: tuple[ClockKind, ...] = ("none", "real-time", "turn-based")

#: custom bounds (inclusive): real-time initial time and increment, turn-based bank
REAL_TIME_INITIAL_MS = (1 * MINUTE_MS, 180 * MINUTE_MS)
REAL_TIME_INCREMENT_MS = (0, 600 * SECOND_MS)
TURN_BASED_BANK_MS = (1 * DAY_MS, 14 * DAY_MS)
#: turn-based increment: from an hour up to the bank itself
TURN_BASED_MIN_INCREMENT_MS = HOUR_MS


class TimeControlError(ValueError):
    """A time control (or table setting) that cannot be used; ``reason`` is a short code the web
    turns into a worded message (``clock_kind``, ``clock_range``, ``clock_shape``…)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _duration(ms: int) -> str:
    """``ms`` the way people say it: 5 min, 20 s, 3 days, 1 h 30 min."""
    if ms and ms % DAY_MS == 0:
        days = ms // DAY_MS
        return f"{days} day" if days == 1 else f"{days} days"
    if ms and ms % HOUR_MS == 0:
        return f"{ms // HOUR_MS} h"
    if ms and ms % MINUTE_MS == 0:
        return f"{ms // MINUTE_MS} min"
    if ms % SECOND_MS == 0:
        return f"{ms // SECOND_MS} s"
    return f"{ms} ms"


@dataclass(frozen=True, slots=True)
class TimeControl:
    """How much time each seat has: ``initial_ms`` (the real-time start, or the turn-based bank)
    and ``increment_ms`` added per stint.  Build it through :meth:`checked`, :meth:`from_json` or
    :func:`parse`, which enforce the bounds; ``TimeControl()`` is the untimed table."""

    kind: ClockKind = "none"
    initial_ms: int = 0
    increment_ms: int = 0

    @property
    def timed(self) -> bool:
        return self.kind != "none"

    @property
    def capped(self) -> bool:
        """Turn-based time never rises above the bank; real-time (Fischer) is not capped."""
        return self.kind == "turn-based"

    @classmethod
    def checked(cls, kind: Any, initial_ms: Any = 0, increment_ms: Any = 0) -> TimeControl:
        """A time control within the bounds, or :class:`TimeControlError` naming what is wrong."""
        if kind not in CLOCK_KINDS:
            raise TimeControlError(
                "clock_kind",
                f"clock: 'kind' must be one of {', '.join(CLOCK_KINDS)}, not {kind!r}",
            )
        if kind == "none":
            return NO_CLOCK
        for name, value in (("initial_ms", initial_ms), ("increment_ms", increment_ms)):
            if not _is_int(value):
                raise TimeControlError(
                    "clock_shape", f"clock: {name!r} must be a whole number of milliseconds"
                )
        if kind == "real-time":
            bounds = {"initial_ms": REAL_TIME_INITIAL_MS, "increment_ms": REAL_TIME_INCREMENT_MS}
            what = {"initial_ms": "the initial time", "increment_ms": "the increment"}
        else:
            bounds = {
                "initial_ms": TURN_BASED_BANK_MS,
                "increment_ms": (TURN_BASED_MIN_INCREMENT_MS, max(initial_ms, 0)),
            }
            what = {"initial_ms": "the bank", "increment_ms": "the time per move"}
        for name, value in (("initial_ms", initial_ms), ("increment_ms", increment_ms)):
            low, high = bounds[name]
            if not low <= value <= high:
                raise TimeControlError(
                    "clock_range",
                    f"clock: {what[name]} of a {kind} clock must be from {_duration(low)} to "
                    f"{_duration(high)}, not {_duration(value)} ({name} {value})",
                )
        return cls(kind, initial_ms, increment_ms)

    @classmethod
    def from_json(cls, data: Any) -> TimeControl:
        """The time control of ``{"kind": …, "initial_ms": …, "increment_ms": …}``."""
        if not isinstance(data, Mapping):
            raise TimeControlError("clock_shape", "clock: must be a JSON object")
        keys = {"kind", "initial_ms", "increment_ms"}
        unknown = sorted(set(data) - keys)
        if unknown:
            raise TimeControlError(
                "clock_shape", f"clock: unknown key(s) {', '.join(map(repr, unknown))}"
            )
        kind = data.get("kind")
        if kind is None:
            raise TimeControlError("clock_kind", "clock: missing 'kind'")
        if kind not in CLOCK_KINDS:
            return cls.checked(kind)  # raises, naming the kinds
        if kind != "none":
            for key in ("initial_ms", "increment_ms"):
                if key not in data:
                    raise TimeControlError("clock_shape", f"clock: missing {key!r}")
        return cls.checked(kind, data.get("initial_ms", 0), data.get("increment_ms", 0))

    def to_json(self) -> dict[str, Any]:
        if not self.timed:
            return {"kind": "none"}
        return {"kind": self.kind, "initial_ms": self.initial_ms, "increment_ms": self.increment_ms}

    def describe(self) -> str:
        """For people: ``5 min + 20 s per turn``, ``no clock``…"""
        if self.kind == "none":
            return "no clock"
        if self.kind == "real-time":
            return f"{_duration(self.initial_ms)} + {_duration(self.increment_ms)} per turn"
        return (
            f"a bank of {_duration(self.initial_ms)} + {_duration(self.increment_ms)} per move, "
            "capped at the bank"
        )


NO_CLOCK = TimeControl()

#: the presets by name (the names are also the page's i18n keys and the CLI's ``--clock`` words)
PRESETS: dict[str, TimeControl] = {
    "5+20": TimeControl("real-time", 5 * MINUTE_MS, 20 * SECOND_MS),
    "10+30": TimeControl("real-time", 10 * MINUTE_MS, 30 * SECOND_MS),
    "20+60": TimeControl("real-time", 20 * MINUTE_MS, 60 * SECOND_MS),
    "1d": TimeControl("turn-based", 1 * DAY_MS, DAY_MS),
    "3d": TimeControl("turn-based", 3 * DAY_MS, DAY_MS),
    "7d": TimeControl("turn-based", 7 * DAY_MS, DAY_MS),
}

_REAL_TIME = re.compile(r"(\d{1,4})\+(\d{1,4})")
_TURN_BASED = re.compile(r"(\d{1,3})d(?:\+(\d{1,4})h)?")


def parse(text: str) -> TimeControl:
    """A time control from the CLI's words: ``none``, a preset (``5+20``, ``3d``…),
    ``<minutes>+<seconds>`` (real-time) or ``<days>d[+<hours>h]`` (turn-based, 1 day per move
    unless the hours are given).  :class:`TimeControlError` names what is wrong."""
    word = text.strip().lower()
    if word == "none":
        return NO_CLOCK
    if word in PRESETS:
        return PRESETS[word]
    real = _REAL_TIME.fullmatch(word)
    if real:
        return TimeControl.checked("real-time", int(real[1]) * MINUTE_MS, int(real[2]) * SECOND_MS)
    turn = _TURN_BASED.fullmatch(word)
    if turn:
        increment = int(turn[2]) * HOUR_MS if turn[2] else DAY_MS
        return TimeControl.checked("turn-based", int(turn[1]) * DAY_MS, increment)
    raise TimeControlError(
        "clock_kind",
        f"clock {text!r}: write none, a preset ({', '.join(PRESETS)}), <minutes>+<seconds> "
        "(e.g. 15+10) or <days>d[+<hours>h] (e.g. 2d+12h)",
    )


class Clocks:
    """The remaining time of every seat, moved on by the caller's times (milliseconds).

    ``clocked`` are the seats that have a clock at all (the human seats; default every seat):
    a bot seat's time is never charged and earns nothing.  ``start`` the first turn, then call
    ``moved`` after every decision; ``switch`` when the seat to move starts or stops being
    played by its person (a stand-in takes over, the player returns).
    """

    def __init__(
        self, control: TimeControl, players: int, clocked: Collection[int] | None = None
    ) -> None:
        self.control = control
        self.clocked = frozenset(range(players) if clocked is None else clocked)
        self._remaining = [control.initial_ms] * players
        #: the seat to move, and since when its decision is pending (spent_ms counts from it)
        self._to_move: int | None = None
        self._pending_since = 0
        #: whether a person (not a bot or stand-in) takes the pending decision
        self._person = False
        #: the seat whose clock runs (None: nobody's), and since when it is charged
        self._running: int | None = None
        self._charged_since = 0
        #: per ply, the time the decision took (the first ply: 0, untimed)
        self.spent_ms: list[int] = []

    # ---------------------------------------------------------------------------- feeding

    def start(self, seat: int, at_ms: int, timed: bool) -> None:
        """The decision of ``seat`` is pending from ``at_ms``; ``timed``: a person decides it."""
        self._to_move = seat
        self._pending_since = at_ms
        self._person = timed
        self._run(seat if timed else None, at_ms)

    def moved(self, seat: int, at_ms: int, next_seat: int | None, next_timed: bool) -> None:
        """``seat`` decided at ``at_ms``; ``next_seat`` (None: the game is over) decides next."""
        if seat != self._to_move:
            raise ValueError(f"clocks: seat {seat} moved, but seat {self._to_move} was to move")
        first = not self.spent_ms
        self.spent_ms.append(0 if first else max(0, at_ms - self._pending_since))
        self._charge(at_ms)
        self._running = None
        # A person earns the increment when the stint ends (not for a move made out of time);
        # a stand-in earns it for every decision it takes for the seat.
        earned = not self._person or (next_seat != seat and self._remaining[seat] > 0)
        if seat in self.clocked and earned:
            self._add(seat, self.control.increment_ms)
        if next_seat is None:
            self._to_move = None
        else:
            self.start(next_seat, at_ms, next_timed)

    def switch(self, at_ms: int, timed: bool) -> None:
        """The seat to move is played by its person from ``at_ms`` on (``timed``) or not."""
        if self._to_move is None:
            return
        self._charge(at_ms)
        self._person = timed
        self._run(self._to_move if timed else None, at_ms)

    def _run(self, seat: int | None, at_ms: int) -> None:
        # The first decision is untimed, and bots have no clock.
        untimed = not self.control.timed or not self.spent_ms or seat not in self.clocked
        self._running = None if untimed else seat
        self._charged_since = at_ms

    def _charge(self, at_ms: int) -> None:
        seat = self._running
        if seat is not None:
            self._remaining[seat] = max(0, self._remaining[seat] - (at_ms - self._charged_since))
            self._charged_since = at_ms

    def _add(self, seat: int, ms: int) -> None:
        value = self._remaining[seat] + ms
        if self.control.capped:
            value = min(value, self.control.initial_ms)
        self._remaining[seat] = value

    # ---------------------------------------------------------------------------- reading

    @property
    def running(self) -> int | None:
        """The seat whose clock is running now (None: nobody's)."""
        return self._running

    def remaining_ms(self, seat: int, now_ms: int | None = None) -> int:
        """What ``seat`` has left at ``now_ms`` (counts down for the running seat; never < 0)."""
        left = self._remaining[seat]
        if seat == self._running and now_ms is not None:
            left -= max(0, now_ms - self._charged_since)
        return max(0, left)

    def all_remaining_ms(self, now_ms: int | None = None) -> list[int]:
        return [self.remaining_ms(seat, now_ms) for seat in range(len(self._remaining))]

    def deadline_ms(self) -> int | None:
        """When the running seat reaches 0 (None: no clock is running)."""
        if self._running is None:
            return None
        return self._charged_since + self._remaining[self._running]

    def out_of_time(self, seat: int, now_ms: int | None = None) -> bool:
        return self.control.timed and seat in self.clocked and self.remaining_ms(seat, now_ms) == 0
