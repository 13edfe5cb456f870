"""The hints of one room: the hint bot's best moves for the seat to move, one at a time.

A hint is computed in a worker (:mod:`.botworker`) from what the asking seat knows only; a hint
used in a game with several human seats is stored and shown to everyone (``hints_used``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from ..bots.expert import HINT_BOT, HINT_COUNT
from ..formats.actions import action_to_json
from . import botworker
from .errors import ProtocolError
from .outbox import Principal
from .protocol import think_time
from .storage import StorageError

if TYPE_CHECKING:
    from .rooms import Room

log = logging.getLogger("carcassonne.web")


class RoomHints:
    """The hints asked for in a room's game."""

    def __init__(self, room: Room) -> None:
        self.room = room
        #: ply -> the hint being computed or computed for it (only the latest ply is kept,
        #: and no other is asked for while it is being computed)
        self._hints: dict[int, asyncio.Future[list[tuple[Any, float]]]] = {}

    async def ask(self, principal: Principal, ply: int) -> dict[str, Any]:
        """The hint bot's best moves for the principal's seat to move (``hint`` message).

        Computed once per ply in a worker (asking again in the same ply costs nothing), from
        what that seat knows only: the expert searches worlds re-dealt for it.  In a game with
        several human seats, a used hint is announced to everyone (``hints_used`` in the
        state): the others may want to know.  It is stored before it is given, as moves are: a
        hint the server could not keep is not given (``server``), so none goes unannounced,
        not even across a restart.

        A game has one hint computed at a time: asked for a later ply while the worker still
        thinks about an earlier one (the player moved on meanwhile), it answers ``busy``
        rather than queue a second, so a client flooding hints costs the hint workers one
        hint per game at a time (the whole server's are bounded by
        :data:`.botworker.MAX_HINTS_PENDING`, and each client's by a rate limit).
        """
        room = self.room
        room._check_turn(principal, ply)
        seat = room.game.to_move
        task = self._hints.get(ply)
        if task is None:
            if any(not earlier.done() for earlier in self._hints.values()):
                raise ProtocolError.of("hint_earlier_busy")
            self._hints.clear()  # hints of earlier plies are of no use any more
            task = self._hints[ply] = asyncio.ensure_future(
                botworker.hints(
                    HINT_BOT,
                    room.bot_seed(seat, ply),
                    room.options,
                    list(room.game.history),
                    HINT_COUNT,
                    think_time(HINT_BOT),
                )
            )
        try:
            moves = await asyncio.shield(task)
        except botworker.HintsBusy:
            self._hints.pop(ply, None)
            raise ProtocolError.of("hints_busy") from None
        except botworker.BotWorkerError:
            self._hints.pop(ply, None)
            raise ProtocolError.of("hint_failed") from None
        if room._several_humans and (seat, ply) not in room.hints_used:
            try:
                await room.storage.run(room.storage.record_hint, room.id, ply, seat)
            except StorageError:
                log.exception("game %s: cannot store a hint used", room.id)
                raise ProtocolError.of("hint_not_saved") from None
            if (seat, ply) not in room.hints_used:  # another request for it may have come first
                room.hints_used = sorted([*room.hints_used, (seat, ply)], key=lambda h: h[1])
                room.broadcast()
        return {
            "type": "hint",
            "ply": ply,
            "seat": seat,
            "moves": [
                {"action": action_to_json(a), "expected_points": round(points, 1)}
                for a, points in moves
            ],
        }
