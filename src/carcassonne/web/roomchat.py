"""The chat of one room (see :mod:`.chat` for who reads what and the limits).

A line is stored before anyone is told (so that it is kept with the game and numbered once over
all processes), then sent to the connections of its audience here; other processes hear of it
(storage :class:`~.storage.News` with ``chat``) and read the lines they miss from the database.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from .chat import MAX_CHAT_LINES, RECENT_CHAT_LINES, SEATS, SPECTATORS, ChatLine
from .errors import ProtocolError
from .outbox import Principal, encode
from .storage import StorageError

if TYPE_CHECKING:
    from .rooms import Room

log = logging.getLogger("carcassonne.web")


def audience_of(principal: Principal) -> str:
    """The chat a principal reads and writes: the seats' or the spectators'."""
    return SEATS if principal.seats else SPECTATORS


class RoomChat:
    """The lines of both chats of a room, in order, as stored."""

    def __init__(self, room: Room, lines: list[ChatLine]) -> None:
        self.room = room
        self.lines = list(lines)
        #: held while lines are read from the database, so that each is delivered once
        self._lock = asyncio.Lock()

    def recent(self, principal: Principal) -> list[dict[str, Any]]:
        """The last lines of the principal's chat, for its hello."""
        audience = audience_of(principal)
        mine = [line for line in self.lines if line.audience == audience]
        return [line.to_json() for line in mine[-RECENT_CHAT_LINES:]]

    def seats_chat(self) -> list[dict[str, Any]]:
        """Every line of the seats' chat (the finished game's replay shows them)."""
        return [line.to_json() for line in self.lines if line.audience == SEATS]

    async def say(self, principal: Principal, said: tuple[str | None, str | None]) -> None:
        """Store a line from ``principal`` and send it to its chat's readers."""
        if principal.hotseat:
            raise ProtocolError.of("chat_hotseat")
        room = self.room
        seat = min(principal.seats) if principal.seats else None
        name = "" if seat is None else str(room.seats[seat]["name"])
        storage = room.storage
        try:
            line = await storage.run(
                storage.add_chat,
                room.id,
                audience_of(principal),
                seat,
                name,
                said,
                room.clock(),
                MAX_CHAT_LINES,
            )
        except StorageError:
            log.exception("game %s: cannot store a chat line", room.id)
            raise ProtocolError.of("chat_not_stored") from None
        if line is None:
            raise ProtocolError.of("chat_full", max=MAX_CHAT_LINES)
        await self.catch_up(line.n + 1)

    async def catch_up(self, lines: int | None = None) -> None:
        """Deliver the lines stored (here or elsewhere) that this room has not yet: the game
        holds ``lines`` lines (None: not known, the database is read)."""
        async with self._lock:
            have = len(self.lines)
            if lines is not None and lines <= have:
                return
            try:
                new = await self.room.storage.run(self.room.storage.chat_since, self.room.id, have)
            except StorageError:
                log.exception("game %s: cannot read the chat", self.room.id)
                return
            self.lines.extend(new)
            if new:
                self.room.renew_texts()
        for line in new:
            text = encode(line.to_json())
            for conn in self.room.players if line.audience == SEATS else self.room.audience:
                conn.push(text)
