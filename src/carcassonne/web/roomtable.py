"""The table of one room: seat changes, the clock's deadline and the away rule (issue 24).

A :class:`RoomTable` belongs to a :class:`~.rooms.Room`.  It holds the room's
:class:`~.seating.Seating` (the pure part: statuses and clocks computed from the stored times)
and does what the room must do with it: feed it the stored actions and changes, judge a seat
change a player asks for (resign, take the seat back, hand the seat to move to the stand-in)
and store it before anyone is told, store the ``stand-in`` or ``timeout`` change once a
person's clock ran out (the bot loop, holding the game's lease, says when), say who plays each
seat (a bot, the stand-in, a person) and whether the game needs the process holding its lease,
and keep the "away" of untimed tables: since when each human seat has had no connection to
this process, with a timer telling everyone once the next one has been away long enough.
It adds the table's fields to the state messages (``clocks``, ``seat_status``, ``may``,
``changes``, ``aids`` when the table has them, the summary's ``standings``): all public, so they
reveal nothing hidden.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from ..aids import AidsView, aids_view
from ..game import Game, GameSummary
from ..standings import ChangeKind, SeatChange, TableSettings
from .errors import ProtocolError
from .seating import AWAY_MS, Seating
from .storage import StorageConflict, StorageError

if TYPE_CHECKING:
    from .rooms import Room

log = logging.getLogger("carcassonne.web")


class RoomTable:
    """The seats and clocks of one room (the room owns it and tells it of connections)."""

    def __init__(self, room: Room, settings: TableSettings, humans: Collection[int]) -> None:
        self.room = room
        self.seating = Seating(settings, humans, len(room.seats))
        #: human seats with no connection to this process, since when (ms): the "away" of
        #: untimed tables, as this process saw it
        self._offline_since = dict.fromkeys(humans, room.clock())
        #: tells everyone when the next offline seat will have been away long enough to be
        #: handed to the stand-in (untimed tables: the ``may`` of their states changes then)
        self._away_timer: asyncio.TimerHandle | None = None
        #: the aids of the latest state: (game, ply, aids)
        self._aids: tuple[Game, int, AidsView] | None = None

    # -------------------------------------------------------------------- feeding

    def feed(self) -> None:
        """The seats' statuses and clocks, brought up to the stored actions and changes."""
        game, stored = self.room.game, self.room.stored
        plies = len(game.history)
        self.seating.feed(
            [seat for seat, _ in stored.actions[:plies]],
            stored.times[:plies],
            [SeatChange.from_json(c) for c in stored.changes],
            None if game.is_over else game.to_move,
        )

    def came_online(self, seat: int) -> None:
        """A connection of this process now holds ``seat``: it is not away."""
        self._offline_since.pop(seat, None)

    def went_offline(self, seat: int) -> None:
        """The last connection of this process holding the human ``seat`` went: away from now."""
        self._offline_since[seat] = self.room.clock()

    def stop(self) -> None:
        """No more announcements (the room is expired, evicted, or the server stops)."""
        if self._away_timer is not None:
            self._away_timer.cancel()
            self._away_timer = None

    # -------------------------------------------------------------------- who plays

    def needs_tending(self, game: Game, change: SeatChange | None = None) -> bool:
        """Whether ``game`` (the room's, or a trial of it), after ``change`` if any, needs the
        process holding its lease: a bot or stand-in is to move, or a person's clock runs (its
        deadline is acted on)."""
        if game.is_over or self.room.frozen or self.room.open_seats.waiting:
            return False
        if self.bot_spec(game.to_move, change) is not None:
            return True
        return self.seating.timed and bool(game.history)

    def bot_spec(self, seat: int, change: SeatChange | None = None) -> str | None:
        """The bot that plays ``seat`` now (after ``change`` if any): its own, or the table's
        stand-in; None for a person's seat."""
        bots = self.room.bots
        if seat in bots:
            return bots[seat]
        if self.seating.played_by_person(seat, change):
            return None
        return self.seating.settings.stand_in

    # -------------------------------------------------------------------- messages

    def state(self, viewer: int | None) -> dict[str, Any]:
        """The state's clocks, seat statuses, seat changes, and what ``viewer`` may do."""
        room = self.room
        seating, now = self.seating, room.clock()
        to_move = room.game.to_move if room.live else None
        fields: dict[str, Any] = {
            "clocks": seating.clocks_json(now),
            "seat_status": seating.seat_status_json(),
            "may": seating.may(viewer, to_move, now, self._offline_since).to_json(),
            "changes": seating.changes_json(),
        }
        if seating.settings.aids:
            # Public facts only (aids.py), the same for every viewer: built once a state; a
            # "no aids" table sends none of them.
            game, ply = room.game, len(room.game.history)
            if self._aids is None or self._aids[0] is not game or self._aids[1] != ply:
                self._aids = (game, ply, aids_view(game))
            fields["aids"] = self._aids[2]
        return fields

    def summary(self) -> dict[str, Any]:
        """The summary of the finished game: scores, points by source, winners, standings."""
        summary = GameSummary.of(self.room.game)
        return {
            "scores": summary.scores,
            "by_source": summary.by_source,
            "winners": self.winners(),
            "standings": self.seating.standings(summary.scores),
        }

    def winners(self) -> list[int]:
        """The seats placed first: the engine's winners, unless seats left the game (a seat
        that resigned or timed out wins nothing, whatever its score: the standings say)."""
        game = self.room.game
        if not self.seating.changes:
            return game.winners()
        return self.seating.standings(GameSummary.of(game).scores)[0]

    def moment(self, now: int) -> int | tuple[int, ...]:
        """What the table's part of a state depends on at ``now`` besides the game: a timed
        table's clocks count down (built again at most a second later); an untimed one's
        ``may`` changes once a seat has been away long enough."""
        return now // 1000 if self.seating.timed else self._away(now)

    def _away(self, now: int) -> tuple[int, ...]:
        """The human seats away for :data:`.seating.AWAY_MS` at ``now`` (untimed tables); the
        next to be is announced when it is (:meth:`_announce_away`)."""
        self._announce_away(now)
        return tuple(s for s, since in self._offline_since.items() if now - since >= AWAY_MS)

    def _announce_away(self, now: int) -> None:
        """Tell everyone again once the next offline seat has been away long enough."""
        upcoming = [since + AWAY_MS for since in self._offline_since.values()]
        upcoming = [at for at in upcoming if at > now]
        if not upcoming or self._away_timer is not None:
            return
        with contextlib.suppress(RuntimeError):  # not on an event loop: nobody to tell

            def away() -> None:
                self._away_timer = None
                self.room.broadcast()

            loop = asyncio.get_running_loop()
            self._away_timer = loop.call_later((min(upcoming) - now) / 1000, away)

    # -------------------------------------------------------------------- seat changes

    def change_target(self, viewer: int, change: ChangeKind, seat: int | None) -> int:
        """The seat that ``viewer``'s ``change`` applies to (``seat`` for a stand-in, None
        meaning the seat to move); :class:`ProtocolError` naming why when it is refused now."""
        seating, game, now = self.seating, self.room.game, self.room.clock()
        own = seating.states[viewer]
        if change == "resign":
            if not own.in_game:
                raise ProtocolError.of("seat_left", seat=viewer + 1)
            return viewer
        if change == "return":
            refused = seating.return_refusal(viewer, now)
            if refused == "seat_not_stood_in":
                raise ProtocolError.of("seat_not_stood_in", seat=viewer + 1)
            if refused == "seat_out_of_time":
                raise ProtocolError.of("seat_out_of_time", seat=viewer + 1)
            return viewer
        target = game.to_move if seat is None else seat
        if target != game.to_move:
            raise ProtocolError.of("seat_not_to_move", seat=target + 1)
        if own.status != "playing":
            raise ProtocolError.of("seat_not_playing", seat=viewer + 1)
        refusal = seating.stand_in_refusal(target, viewer, now, self._offline_since)
        if refusal == "stand_in_own_seat":
            raise ProtocolError.of("stand_in_own_seat")
        if refusal == "seat_not_played_by_person":
            raise ProtocolError.of("seat_not_played_by_person", seat=target + 1)
        if refusal == "seat_has_time":
            raise ProtocolError.of("seat_has_time", seat=target + 1)
        if refusal == "seat_not_away":
            raise ProtocolError.of("seat_not_away", seat=target + 1, minutes=AWAY_MS // 60_000)
        return target

    async def clock_ran_out(self) -> None:
        """The running clock of a person's seat passed its deadline (the bot loop, holding the
        game's lease, says so): once the database confirms it (another process may have
        moved), the seat goes to the stand-in, or loses (``on_timeout``).  The room's lock
        held."""
        room = self.room
        async with room._lock:
            await room._catch_up(None)
            deadline = self.seating.deadline_ms()
            if not room.live or deadline is None or room.clock() < deadline:
                return
            lose = self.seating.settings.on_timeout == "lose"
            with contextlib.suppress(ProtocolError):  # stale: the game moved on; looked again
                await self.store_change(room.game.to_move, "timeout" if lose else "stand-in")

    async def store_change(self, seat: int, kind: ChangeKind) -> None:
        """Store and apply a seat change at the current ply; the room's lock held.  ``stale``
        when another process moved or changed a seat first (the room then shows that)."""
        room = self.room
        change = SeatChange(len(room.game.history), seat, kind, room.clock())
        tended = self.needs_tending(room.game, change)
        try:
            await room.storage.run(
                room.storage.add_seat_change, room.id, change.to_json(), bot_turn=tended
            )
        except StorageError as exc:
            if isinstance(exc, StorageConflict):
                await room._catch_up(None)
                raise ProtocolError.of("stored_elsewhere") from None
            log.exception("game %s: cannot store a seat change", room.id)
            raise ProtocolError.of("seat_change_not_saved") from None
        room.stored.changes = [*room.stored.changes, change.to_json()]
        self.feed()
        room.broadcast()
        room.kick_bots()
