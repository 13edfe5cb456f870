"""The open seats of one room (issue 25: open tables): who is missing, and taking a seat.

A :class:`RoomOpenSeats` belongs to a :class:`~.rooms.Room`.  While a seat is open the game
waits: the room refuses moves and seat changes (``table-waiting``), its bots and stand-ins do
not move and no clock runs (the first decision is never timed, and nobody can make it).  A
seat is taken once, in storage (:func:`.opentablesdb.take_open_seat`: of two joiners, even on
two processes, one wins); the room then shows the new seat to everyone, and a process that
did not store it learns of it with the other news of the game (:meth:`heard`).
"""

from __future__ import annotations

import logging
import secrets
from typing import TYPE_CHECKING, Any

from .errors import ProtocolError
from .opentablesdb import SeatTaken, TableGone, take_open_seat
from .storage import StorageError, token_digest

if TYPE_CHECKING:
    from .rooms import Room

log = logging.getLogger("carcassonne.web")


class RoomOpenSeats:
    """The open seats of one room (the room owns it)."""

    def __init__(self, room: Room) -> None:
        self.room = room

    @property
    def waiting(self) -> list[int]:
        """The seats still open (the game starts once there are none)."""
        return [i for i, seat in enumerate(self.room.seats) if seat["kind"] == "open"]

    def refuse_while_waiting(self) -> None:
        """Refuse a change to the game (a move, a seat change) while a seat is open."""
        waiting = self.waiting
        if waiting:
            raise ProtocolError.of("table_waiting", seats=[seat + 1 for seat in waiting])

    async def take(self, seat: int, name: str) -> str:
        """Give the open ``seat`` to a player called ``name``; the seat's new secret token.
        ``seat-taken`` when someone took it first (here or on another process)."""
        room = self.room
        if not 0 <= seat < len(room.seats):
            raise ProtocolError.of("join_seat", high=len(room.seats) - 1)
        token = secrets.token_urlsafe(18)
        taken = {"kind": "human", "bot": None, "name": name, "digest": token_digest(token)}
        async with room._lock:
            if room.evicted:
                raise ProtocolError.of("reloaded")
            if room.frozen or room.game.is_over:
                raise ProtocolError.of("join_ended")
            if room.seats[seat]["kind"] != "open":
                raise ProtocolError.of("seat_taken", seat=seat + 1)
            bot_first = room.game.to_move in room.bots
            try:
                seats = await room.storage.run(
                    take_open_seat, room.storage, room.id, seat, taken, bot_first
                )
            except SeatTaken:
                await room._catch_up(None)
                raise ProtocolError.of("seat_taken", seat=seat + 1) from None
            except TableGone:
                await room._catch_up(None)
                raise ProtocolError.of("join_ended") from None
            except StorageError:
                log.exception("game %s: cannot store a seat taken", room.id)
                raise ProtocolError.of("join_not_saved") from None
            self.heard(seats)
            room.broadcast()
        room.kick_bots()
        return token

    def heard(self, stored: list[dict[str, Any]]) -> bool:
        """The seats as stored (perhaps by another process): the open seats taken there are
        taken here; whether any was (the caller tells everyone)."""
        room = self.room
        changed = False
        for i, seat in enumerate(stored[: len(room.seats)]):
            if room.seats[i]["kind"] == "open" and seat.get("kind") == "human":
                room.seats[i] = seat  # the stored game's list itself
                changed = True
        return changed
