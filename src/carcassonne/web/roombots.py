"""The bots of one room: the loop that plays them while a bot is to move, under a lease.

Several processes may serve one game (PostgreSQL); its bots are played by the one holding their
lease (see :mod:`.storage`): the loop takes it before the first move, renews it before each, and
lets go of it once the game needs no tending.  The same loop plays the stand-ins of seats whose
players left (the table's stand-in bot, through the same workers: it searches worlds re-dealt
for its seat, never the hidden state), without a delay once no human is left in the game, and
keeps the game's clock: while a person's clock runs it holds the lease and sleeps until the
deadline (woken by every change of the game), then has the room confirm it against the
database and store the ``stand-in`` or ``timeout`` change.  Each decision is made in a worker
process (:mod:`.botworker`), then applied and committed through the room as any other move.
Whatever fails for a while (the database refusing a write or a lease, a worker dying) is tried
again, each time waiting longer (:func:`backoff`), so the bots go on by themselves once it works
again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from ..formats.actions import action_to_json
from . import botworker
from .errors import ProtocolError
from .protocol import think_time
from .storage import StorageError

if TYPE_CHECKING:
    from .rooms import Room

log = logging.getLogger("carcassonne.web")

#: seconds a bot waits before trying again to store a move the database refused, at first
STORE_RETRY = 0.5
#: and at most (the wait doubles at each failure)
MAX_STORE_RETRY = 30.0
#: seconds a process's lease on a game's bots lasts unless renewed: after it died, another
#: takes the bots over this long after its last renewal (and up to a search later).  Most of
#: the wait after a process died is this; a live process stalled for longer than it, less a
#: renewal, is thought dead and its bots go to another process: work done twice at worst,
#: never a ply stored twice (the primary key), so it is no longer than needs be
BOT_LEASE_SECONDS = 3.0
#: seconds between two renewals of a process's bot leases (and searches for orphaned bots):
#: a live process may stall 2.5 s before its bots are taken over (two queries each time)
LEASE_RENEW_EVERY = 0.5
#: seconds the loop sleeps at most while a person's clock runs before it looks again (the
#: deadline itself is slept to exactly; this bounds the error of a clock that was set back)
CLOCK_CHECK_EVERY = 1.0


def backoff(delay: float) -> float:
    """The wait before trying again after a failure that followed a wait of ``delay``: twice
    as long, at least :data:`STORE_RETRY` and at most :data:`MAX_STORE_RETRY` seconds."""
    return min(max(2 * delay, STORE_RETRY), MAX_STORE_RETRY)


class RoomBots:
    """The bot loop of one room (the room owns it and tells it when to start or stop)."""

    def __init__(self, room: Room, delay: float, owner: str) -> None:
        """``delay``: seconds a bot waits before each move; ``owner`` names this server process
        when it holds the lease on the game's bots."""
        self.room = room
        self.delay = delay
        self.owner = owner
        self._task: asyncio.Task[None] | None = None
        #: set when the game changed: a loop waiting for a clock's deadline looks again
        self._changed = asyncio.Event()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def to_move(self) -> bool:
        """Whether a bot (or a stand-in) of this live game, still in memory, is to move."""
        room = self.room
        return room.live and not room.evicted and room.table.bot_spec(room.game.to_move) is not None

    def tending(self) -> bool:
        """Whether this live game, still in memory, needs the loop: a bot or stand-in is to
        move, or a person's clock runs."""
        room = self.room
        return not room.evicted and room.table.needs_tending(room.game)

    def kick(self) -> None:
        """Start the bot loop if a bot is to move (no-op when not on an event loop); the loop
        ends at once if another process holds the lease on this game's bots: that one plays
        them.  The lease is taken right after the commit that made a bot's turn, so that no
        process dies between the two unnoticed (a game with a bot to move and no lease is
        taken over)."""
        if self.running:
            self._changed.set()
            return
        if not self.tending():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._task = loop.create_task(self._run())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _take_lease(self) -> bool:
        """Hold (or renew) the lease on this game's bots; False if another process holds it."""
        storage = self.room.storage
        return await storage.run(
            storage.take_bot_lease, self.room.id, self.owner, time.time() + BOT_LEASE_SECONDS
        )

    async def _release(self) -> None:
        """No bot is to move: let go of the lease (it runs out anyway if this fails)."""
        storage = self.room.storage
        try:
            await storage.run(storage.release_bot_lease, self.owner, self.room.id)
        except StorageError as exc:
            log.warning("game %s: cannot release the bot lease (%s)", self.room.id, exc)

    async def _run(self) -> None:
        """Every bot move of the room happens here: wait, have a worker choose, apply, commit,
        while a bot is to move.  The choice is made in a worker process, so the event loop
        serves the other games meanwhile.  A lease that cannot be renewed, a move that cannot
        be stored, or a worker that died or timed out, is tried again after :func:`backoff`."""
        room = self.room
        try:
            if not await self._take_lease():
                return
        except StorageError as exc:
            log.warning("game %s: cannot take the bot lease (%s); trying again", room.id, exc)
        delay = self._pause()
        while True:
            if self.to_move():
                await asyncio.sleep(delay)
            else:
                await self._wait_for_deadline()
            if not self.tending():
                await self._release()
                return
            if not self.to_move() and not self._deadline_passed():
                continue
            try:
                leased = await self._take_lease()
            except StorageError as exc:
                log.warning("game %s: cannot renew the bot lease (%s); trying again", room.id, exc)
                delay = backoff(delay)
                continue
            if not leased:
                return  # another process took the bots over (this one was thought dead)
            if not self.to_move():
                await room.table.clock_ran_out()
                if self._deadline_passed():  # it could not be stored: try again later
                    delay = backoff(delay)
                    await asyncio.sleep(delay)
                continue
            seat = room.game.to_move
            first_ply = len(room.game.history)
            spec = room.table.bot_spec(seat)
            assert spec is not None
            try:
                action = await botworker.decide(
                    spec,
                    room.bot_seed(seat, first_ply),
                    room.options,
                    list(room.game.history),
                    think_time(spec),
                )
            except botworker.BotWorkerError as exc:
                log.warning("game %s: seat %d's bot: %s; trying again", room.id, seat, exc)
                delay = backoff(delay)
                continue
            except Exception:
                # A bot bug must not take the server down; the game stops where it was.
                log.exception("game %s: the bot of seat %d failed", room.id, seat)
                room.broken = f"the bot of seat {seat + 1} failed"
                room.broadcast()
                return
            async with room._lock:
                if not self.to_move() or len(room.game.history) != first_ply:
                    continue  # the room changed while the worker thought (reloaded, stopped)
                trial = room._trial()
                try:
                    trial.apply(action)
                except Exception:
                    log.exception("game %s: the bot of seat %d chose %r", room.id, seat, action)
                    room.game = room._rebuild()
                    room.broken = f"the bot of seat {seat + 1} failed"
                    room.broadcast()
                    return
                try:
                    await room._commit(trial, first_ply, [(seat, action_to_json(action))])
                except ProtocolError as exc:
                    if exc.code != "stale":  # stale: the ply was played elsewhere; go on from it
                        delay = backoff(delay)
                else:
                    delay = self._pause()

    def _deadline_passed(self) -> bool:
        deadline = self.room.table.seating.deadline_ms()
        return deadline is not None and self.room.clock() >= deadline

    def _pause(self) -> float:
        """Seconds a bot waits before its move: none once no human is left in the game (the
        stand-ins finish it at once)."""
        return self.delay if self.room.table.seating.humans_left else 0.0

    async def _wait_for_deadline(self) -> None:
        """Sleep until the running clock's deadline, or :data:`CLOCK_CHECK_EVERY`, or a change
        of the game, whichever comes first."""
        self._changed.clear()
        deadline = self.room.table.seating.deadline_ms()
        seconds = CLOCK_CHECK_EVERY
        if deadline is not None:
            seconds = (deadline - self.room.clock()) / 1000
            if seconds <= 0:
                return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), min(seconds, CLOCK_CHECK_EVERY))
