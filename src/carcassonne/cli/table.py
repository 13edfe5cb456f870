"""The table of a `carcassonne play` game (issue 24): the human seats' clocks, who plays each
seat (its person, or the stand-in bot), resigning, and what the record keeps of it.

The session asks this table, before each decision, whether a person or the stand-in takes it,
and tells it after each action.  Times come from the session's clock function (milliseconds
since the epoch; a fake one in the tests); the clocks themselves are :class:`.clocks.Clocks`.
In a terminal the player is at the keyboard, so a clock that runs out is noticed when a decision
is entered: that decision is refused and the stand-in plays the seat from then on (or, with
``--on-timeout lose``, the seat is ranked last and the stand-in plays its turns).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..bots import Bot, make_bot
from ..clocks import Clocks
from ..game import Game
from ..standings import (
    ChangeKind,
    SeatChange,
    SeatState,
    TableRecord,
    TableSettings,
    ranking,
    statuses,
)
from .wording import duration_text

#: now, in milliseconds since the epoch
ClockFn = Callable[[], int]


class Table:
    """Clocks, seat changes and stand-ins of one game at the keyboard."""

    def __init__(
        self,
        settings: TableSettings,
        players: int,
        humans: Sequence[int],
        clock: ClockFn,
        seed: int,
    ) -> None:
        self.settings = settings
        self.players = players
        self.humans = tuple(humans)
        self.now = clock
        self.clocks = Clocks(settings.control, players, humans)
        self.changes: list[SeatChange] = []
        # Seeded apart from the seats' own bots, so a stand-in does not replay their choices.
        self.stand_ins: dict[int, Bot] = {
            seat: make_bot(settings.stand_in, seed * 37 + 101 + seat) for seat in humans
        }

    @property
    def timed(self) -> bool:
        return self.settings.control.timed

    def states(self) -> list[SeatState]:
        return statuses(self.changes, self.players)

    def person_plays(self, seat: int) -> bool:
        """A person (not a bot, not the stand-in) takes ``seat``'s decisions now."""
        return seat in self.humans and self.states()[seat].status == "playing"

    def may_return(self, seat: int, game: Game) -> bool:
        """``seat``'s player may take it back from the stand-in now: once the stand-in has
        played for it (not at the very decision the seat was given up), with time left."""
        state = self.states()[seat]
        if state.status != "stood-in" or state.since_ply == len(game.history):
            return False
        return not self.timed or self.clocks.remaining_ms(seat) > 0

    # ------------------------------------------------------------------------- feeding

    def begin(self, game: Game) -> None:
        self.clocks.start(game.to_move, self.now(), self.person_plays(game.to_move))

    def moved(self, seat: int, game: Game) -> None:
        """``seat`` has just acted in ``game``."""
        following = None if game.is_over else game.to_move
        timed = following is not None and self.person_plays(following)
        self.clocks.moved(seat, self.now(), following, timed)

    def change(self, game: Game, seat: int, kind: ChangeKind) -> None:
        """Record that ``seat`` changed hands now (its clock stops or runs again)."""
        change = SeatChange(len(game.history), seat, kind, self.now())
        statuses([*self.changes, change], self.players)  # raises if it cannot happen
        self.changes.append(change)
        if seat == game.to_move and not game.is_over:
            self.clocks.switch(change.at_ms, self.person_plays(seat))

    def out_of_time(self, seat: int) -> bool:
        return self.clocks.out_of_time(seat, self.now())

    def undo_refusal(self, cut: int) -> str | None:
        """Why the actions from ``cut`` on cannot be taken back (None: they can)."""
        if self.timed:
            return "Undo is off at a timed table: the clocks have run."
        if any(change.ply > cut for change in self.changes):
            return "Undo cannot go back past a seat change (a resign or a stand-in)."
        return None

    def undone(self, game: Game) -> None:
        """``game`` was replayed to fewer actions: forget the times of the undone ones."""
        del self.clocks.spent_ms[len(game.history) :]
        self.begin(game)

    # ------------------------------------------------------------------------- showing

    def clock_text(self, seat: int) -> str:
        return duration_text(self.clocks.remaining_ms(seat, self.now()))

    def clock_line(self, names: Sequence[str]) -> str:
        """``Clocks: Red 4:32 ▶ · Blue 5:20 (stand-in)``; the seats' statuses when untimed."""
        states = self.states()
        parts = []
        for seat in self.humans:
            status = states[seat].status
            part = names[seat]
            if self.timed:
                part += " " + self.clock_text(seat)
                if self.clocks.running == seat:
                    part += " ▶"
            if status != "playing":
                part += f" ({status.replace('-', ' ')})"
            parts.append(part)
        label = "Clocks" if self.timed else "Seats"
        return f"{label} ({self.settings.control.describe()}): " + " · ".join(parts)

    def shows_anything(self) -> bool:
        return self.timed or bool(self.changes)

    def places(self, game: Game) -> list[tuple[list[int], str]] | None:
        """The places at the end when seats changed hands, each with a note (None: by score)."""
        if not self.changes:
            return None
        states = self.states()
        notes = {"resigned": "resigned", "timed-out": "out of time"}
        return [
            (seats, notes.get(states[seats[0]].status, ""))
            for seats in ranking(game.scores, states)
        ]

    def record(self) -> TableRecord:
        return TableRecord.of(self.settings, self.changes, self.clocks.spent_ms)
