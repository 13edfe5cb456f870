"""Who plays each seat of a web table, and its clocks (issue 24: tables that always finish).

A :class:`Seating` belongs to a room's :class:`~.roomtable.RoomTable`: it holds the table's
settings, the seat changes stored so far (stand-in, return, resign, timeout) and the clocks,
computed from the times the actions and changes were stored (never from this process's memory
of them), so that a restart or another process sharing the database continues a clock to the
millisecond.  It also says what a seat may do now (:meth:`Seating.may`): pure, given the time
and who is online; the table stores the changes and the bot loop plays the stood-in seats.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from ..clocks import Clocks
from ..standings import SeatChange, SeatState, TableSettings, ranking, statuses

#: milliseconds a human seat to move must have been offline (as this process saw it) before
#: another human of an untimed table may hand it to the stand-in
AWAY_MS = 3 * 60 * 1000


@dataclass(frozen=True)
class Allowed:
    """What one viewer may do now (the ``may`` of a state message)."""

    resign: bool = False
    give_back: bool = False
    stand_in: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"resign": self.resign, "return": self.give_back, "stand_in": list(self.stand_in)}


class Seating:
    """The seats' statuses and clocks of one game, fed with its stored actions and changes."""

    clocks: Clocks
    #: what the clocks have been fed (see :meth:`_restart`)
    _fed_actions: int
    _fed_changes: int
    _fed_states: list[SeatState]
    _started: bool

    def __init__(self, settings: TableSettings, humans: Collection[int], players: int) -> None:
        self.settings = settings
        self.humans = frozenset(humans)
        self.players = players
        self.changes: list[SeatChange] = []
        self.states: list[SeatState] = statuses((), players)
        self._restart()

    @property
    def timed(self) -> bool:
        return self.settings.control.timed

    def played_by_person(self, seat: int, change: SeatChange | None = None) -> bool:
        """Whether a person plays ``seat`` now (not a bot, not the stand-in), or would after
        ``change``."""
        states = self.states if change is None else statuses([*self.changes, change], self.players)
        return seat in self.humans and states[seat].status == "playing"

    @property
    def humans_left(self) -> bool:
        """Whether any human seat is still in the game (not resigned or timed out): else the
        stand-ins finish it at once."""
        return any(self.states[seat].in_game for seat in self.humans)

    # -------------------------------------------------------------------- feeding

    def feed(
        self,
        seats: Sequence[int],
        times: Sequence[int],
        changes: Sequence[SeatChange],
        to_move: int | None,
    ) -> None:
        """Bring the clocks up to the game's stored actions (made by ``seats`` at ``times``,
        all of them so far) and ``changes`` (all of them so far, in order); ``to_move`` is the
        seat to move after the last action (None: the game is over).  A change at ply ``p``
        happened while the decision of ply ``p`` was pending.  A change stored at a ply the
        clocks went past already (another process stored it while this one stored a move of
        that ply) has them computed again from the start."""
        if (
            len(seats) < self._fed_actions
            or len(changes) < self._fed_changes
            or any(change.ply < self._fed_actions for change in changes[self._fed_changes :])
        ):
            self._restart()
        self.changes = list(changes)
        self.states = statuses(self.changes, self.players)
        plies = len(seats)
        while True:
            ply = self._fed_actions
            pending = seats[ply] if ply < plies else to_move
            while self._fed_changes < len(changes) and changes[self._fed_changes].ply == ply:
                change = changes[self._fed_changes]
                self._fed_changes += 1
                self._fed_states = statuses(changes[: self._fed_changes], self.players)
                if self._started and pending is not None:
                    self.clocks.switch(change.at_ms, self._timed(pending))
            if not self._started:
                if pending is None:
                    return
                # the first decision is not timed (Clocks): its start time does not count
                self.clocks.start(pending, times[0] if plies else 0, self._timed(pending))
                self._started = True
            if ply >= plies:
                return
            after = seats[ply + 1] if ply + 1 < plies else to_move
            self._fed_actions += 1
            self.clocks.moved(
                seats[ply], times[ply], after, after is not None and self._timed(after)
            )

    def _restart(self) -> None:
        """Clocks fed nothing yet: what the clocks have been fed (actions, changes, and the
        statuses after those), and whether they have started."""
        self.clocks = Clocks(self.settings.control, self.players, self.humans)
        self._fed_actions = self._fed_changes = 0
        self._fed_states = statuses((), self.players)
        self._started = False

    def _timed(self, seat: int) -> bool:
        """Whether a person decides for ``seat``, after the changes fed so far."""
        return seat in self.humans and self._fed_states[seat].status == "playing"

    # -------------------------------------------------------------------- reading

    def deadline_ms(self) -> int | None:
        """When the running clock of a person's seat reaches 0 (None: no clock runs)."""
        return self.clocks.deadline_ms() if self.timed else None

    def clocks_json(self, now_ms: int) -> dict[str, Any] | None:
        """The ``clocks`` of a state message (None for an untimed table)."""
        if not self.timed:
            return None
        return {
            "remaining_ms": self.clocks.all_remaining_ms(now_ms),
            "running": self.clocks.running,
            "deadline_ms": self.clocks.deadline_ms(),
            "server_now_ms": now_ms,
        }

    def seat_status_json(self) -> list[dict[str, Any]]:
        return [state.to_json() for state in self.states]

    def changes_json(self) -> list[dict[str, Any]]:
        return [change.to_json() for change in self.changes]

    def standings(self, scores: Sequence[int]) -> list[list[int]]:
        return ranking(scores, self.states)

    def may(
        self,
        viewer: int | None,
        to_move: int | None,
        now_ms: int,
        offline_since: dict[int, int],
    ) -> Allowed:
        """What seat ``viewer`` (None: a spectator or a hotseat screen) may do now, in a game
        still going on whose seat ``to_move`` is to move; ``offline_since`` holds the human
        seats offline (as this process sees it) and since when."""
        if viewer is None or viewer not in self.humans or to_move is None:
            return Allowed()
        own = self.states[viewer]
        return Allowed(
            resign=own.in_game,
            give_back=self.return_refusal(viewer, now_ms) is None,
            stand_in=tuple(
                seat
                for seat in (to_move,)
                if own.status == "playing"
                and self.stand_in_refusal(seat, viewer, now_ms, offline_since) is None
            ),
        )

    def return_refusal(self, seat: int, now_ms: int) -> str | None:
        """Why ``seat`` may not be taken back from the stand-in now (an error reason), or None.
        A seat out of time would be handed back at once: it comes back once the stand-in has
        earned it some time (the increment of each decision it takes)."""
        if self.states[seat].status != "stood-in":
            return "seat_not_stood_in"
        return "seat_out_of_time" if self.clocks.out_of_time(seat, now_ms) else None

    def stand_in_refusal(
        self, seat: int, viewer: int, now_ms: int, offline_since: dict[int, int]
    ) -> str | None:
        """Why ``viewer`` may not hand ``seat`` (the seat to move) to the stand-in now (an
        error reason), or None: a person's seat, not the viewer's own, out of time on a timed
        table, away for :data:`AWAY_MS` on an untimed one."""
        if seat == viewer:
            return "stand_in_own_seat"
        if not self.played_by_person(seat):
            return "seat_not_played_by_person"
        if self.timed:
            return None if self.clocks.out_of_time(seat, now_ms) else "seat_has_time"
        since = offline_since.get(seat)
        return None if since is not None and now_ms - since >= AWAY_MS else "seat_not_away"
