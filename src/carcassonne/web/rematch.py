"""Play again: the seats of a finished game start a new one (issue 25, item 3).

Any seat of a finished game may ask (websocket ``rematch``, ``POST /api/games/{id}/rematch``).
The first request makes the new game: the same options with a new random seed (a seed the
creator chose is not kept: it would repeat the draw), the same table settings (clock, stand-in,
aids), the seats rotated by one (old seat i sits at (i - 1) mod n, so the second player starts),
their names and bots kept, and each human seat keeping its token's digest: the token of a
player's old link opens their new seat, so no new link needs sending (a hotseat game keeps its
hotseat token).  A seat that resigned or ran out of time is a person still, and plays again.

The old game keeps the new one's id (``games.rematch``), written in the transaction storing the
new game and only while it has none (:meth:`.storage.Storage.create_game`): of two requests at
once, in one process or two, one makes the game and the other answers it.  Making it counts as
a game created by the asker's address (its caps; the ``create`` rate limit is the caller's).
Every connection of the old game is then offered the new one (:meth:`RoomRematch.settle`), in
every process (PostgreSQL news); a page opened later reads it in the state (``rematch``).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from .errors import ProtocolError
from .outbox import Principal
from .protocol import default_seat_name
from .storage import RematchTaken

if TYPE_CHECKING:
    from .rooms import Room
    from .server import GameServer


def new_seat(old: int, players: int) -> int:
    """Where the player of seat ``old`` sits in the rematch: one seat earlier."""
    return (old - 1) % players


def rotated(seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stored seats of the rematch: each as it was (kind, bot, name, token digest), one
    seat earlier; a seat its creator left unnamed takes the default name of its new place
    ("Player 2" moved to the first seat is "Player 1"), which pages show in their language."""
    players = len(seats)
    moved = []
    for new in range(players):
        old = (new + 1) % players
        seat = dict(seats[old])
        if seat["name"] == default_seat_name(old, seat["kind"], seat["bot"]):
            seat["name"] = default_seat_name(new, seat["kind"], seat["bot"])
        moved.append(seat)
    return moved


class RoomRematch:
    """The game "Play again" made from a room's game, once made, and its offer."""

    def __init__(self, room: Room, game_id: str | None) -> None:
        self.room = room
        #: the rematch's id (None until one is made)
        self.game_id = game_id
        #: held while this process makes the rematch: a second request waits and answers it
        self._lock = asyncio.Lock()

    def seats_of(self, principal: Principal) -> list[int]:
        """The seats a principal of the old game holds in the rematch."""
        players = len(self.room.seats)
        return sorted(new_seat(seat, players) for seat in principal.seats)

    def offer(self, principal: Principal, by: int | None) -> dict[str, Any]:
        """The ``rematch`` message to a connection of the old game: the new game, the old seat
        that asked for it (None: not known, for a page that came after) and the receiver's
        seats in it (none for a spectator)."""
        return {
            "type": "rematch",
            "game": self.game_id,
            "by": by,
            "seats": self.seats_of(principal),
        }

    def settle(self, game_id: str, by: int | None) -> None:
        """The rematch is ``game_id`` (made here or heard of): every connection is offered it,
        once; the states built before it are old."""
        if self.game_id == game_id:
            return
        self.game_id = game_id
        room = self.room
        room.renew_texts()
        for conn in [*room.players, *room.audience]:
            conn.send(self.offer(conn.principal, by))

    async def catch_up(self) -> None:
        """News may have been missed: read whether another process made the rematch."""
        if self.game_id is None and not self.room.live:
            storage = self.room.storage
            made = await storage.run(storage.rematch_of, self.room.id)
            if made is not None:
                self.settle(made, None)

    async def ask(self, server: GameServer, principal: Principal, client: str) -> tuple[str, bool]:
        """The rematch asked for by a seat of the finished game (for the client ``client``, an
        address group): its id, and whether this request made it."""
        room = self.room
        if principal.spectator:
            raise ProtocolError.of("spectator")
        if room.frozen or not room.game.is_over:
            raise ProtocolError.of("rematch_not_over")
        async with self._lock:
            if self.game_id is not None:
                return self.game_id, False
            by = min(principal.seats)
            try:
                made = await server.store_game(
                    room.options.with_(seed=None),
                    rotated(room.seats),
                    room.stored.hotseat_digest,
                    client,
                    room.table.seating.settings,
                    rematch_of=(room.id, by),
                )
            except RematchTaken as taken:  # by another process, whose news is on its way
                self.settle(taken.game_id, None)
                return taken.game_id, False
            self.settle(made.id, by)
            return made.id, True
