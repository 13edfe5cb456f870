"""The server's games: the rooms in memory, creating games, the caps, sweeps and listening.

A :class:`GameServer` holds the :class:`~.rooms.Room` of each game in use (and a few recently
used), loads any other from storage when asked for, counts the caps on unfinished games in
storage (so they hold across restarts), ends abandoned games, keeps this process's bot leases
and, on a shared database, listens for the moves other processes make (:meth:`GameServer.start`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..bots import make_bot
from ..game import Game, GameOptions, GameSetupError
from ..standings import TableSettings
from .opentablesdb import count_listed_waiting, waiting_since
from .outbox import Principal
from .protocol import (
    MAX_SEED,
    ProtocolError,
    options_to_json,
)
from .roombots import BOT_LEASE_SECONDS, LEASE_RENEW_EVERY
from .roomload import GameLoadError
from .rooms import Room
from .storage import (
    News,
    Storage,
    StorageConflict,
    StorageError,
    creator_digest,
    now_ms,
    token_digest,
)

log = logging.getLogger("carcassonne.web")

#: what :meth:`GameServer.create` hands out (``secrets.token_urlsafe``); anything else is no game
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")


def _new_token() -> str:
    return secrets.token_urlsafe(18)


#: default cap on unfinished games per server (each may be held in memory)
MAX_LIVE_GAMES = 1000
#: default cap on unfinished games created from one address
MAX_GAMES_PER_ADDRESS = 20
#: default seconds without a move after which an unfinished game expires (7 days)
EXPIRE_AFTER = 7 * 24 * 3600.0
#: default seconds after which a game nobody took up expires (no person moved in it, nobody
#: but its creator opened a seat): what a flood of games costs the server, and newcomers
UNCLAIMED_EXPIRE_AFTER = 15 * 60.0
#: default seconds after which a table still waiting for players (a seat open) expires
WAITING_EXPIRE_AFTER = 30 * 60.0
#: listed tables waiting for players that one address may have at once
MAX_LISTED_PER_ADDRESS = 3
#: rooms nobody is connected to kept in memory (least recently used beyond are dropped)
MAX_IDLE_ROOMS = 64
#: seconds an unused room stays in memory at most
IDLE_ROOM_SECONDS = 300.0
#: ids drawn for a new game before giving up (each one is taken already with odds of 2**-48)
ID_ATTEMPTS = 3
#: seconds between two sweeps (expiry of abandoned games, unused rooms out of memory)
SWEEP_EVERY = 30.0


class GameServer:
    """All rooms of one server: creation, lazy loading from storage, resuming after restart.

    Memory holds only the rooms in use (someone connected, a bot about to move) and a few
    recently used ones; any other game is read from storage when asked for.  The caps on
    unfinished games are counted in storage, so they hold across restarts.
    """

    def __init__(
        self,
        storage: Storage,
        bot_delay: float = 0.5,
        max_live_games: int = MAX_LIVE_GAMES,
        *,
        max_games_per_address: int = MAX_GAMES_PER_ADDRESS,
        expire_after: float | None = EXPIRE_AFTER,
        expire_unclaimed_after: float | None = UNCLAIMED_EXPIRE_AFTER,
        expire_waiting_after: float = WAITING_EXPIRE_AFTER,
        max_idle_rooms: int = MAX_IDLE_ROOMS,
        clock: Callable[[], float] = time.time,
        wall_clock: Callable[[], int] = now_ms,
    ) -> None:
        self.storage = storage
        self.bot_delay = bot_delay
        #: unfinished games at once; when full, see :meth:`_make_room_for`
        self.max_live_games = max_live_games
        #: unfinished games one address may have created
        self.max_games_per_address = max_games_per_address
        #: seconds without a move after which an unfinished game ends (None: never)
        self.expire_after = expire_after
        #: seconds after which a game nobody took up ends (None: as any other game)
        self.expire_unclaimed_after = expire_unclaimed_after
        #: seconds after which a table with a seat still open ends (from its creation)
        self.expire_waiting_after = expire_waiting_after
        self.max_idle_rooms = max_idle_rooms
        #: seconds since the epoch (tests pass their own)
        self.clock = clock
        #: milliseconds since the epoch, for the times of moves and the tables' clocks
        self.wall_clock = wall_clock
        #: rooms in memory, least recently used first
        self.rooms: OrderedDict[str, Room] = OrderedDict()
        self._last_used: dict[str, float] = {}
        #: stored games that cannot be set up again -> why (answered as "broken")
        self.unloadable: dict[str, str] = {}
        #: this process, as the holder of bot leases (unique among the processes sharing the
        #: database; the process id helps reading the database by hand)
        self.owner = f"{os.getpid()}-{secrets.token_hex(6)}"
        self._tasks: list[asyncio.Task[None]] = []
        #: rooms catching up with news (kept referenced until done)
        self._catching_up: set[asyncio.Task[None]] = set()

    async def create(
        self,
        seats: list[dict[str, Any]],
        options: Any,
        hotseat: bool,
        creator: str = "",
        table: TableSettings | None = None,
        listed: bool = False,
    ) -> tuple[Room, dict[str, Any]]:
        """Create and store a game for the client ``creator`` (its address group: see
        :func:`.app.client_key`) at ``table`` (default: untimed), ``listed`` on the open
        tables' list; returns the room and the secret links (shown once; an open seat has
        none until taken)."""
        tokens: dict[int, str] = {}
        stored_seats = []
        hotseat_token = _new_token() if hotseat else None
        for i, seat in enumerate(seats):
            digest = None
            if seat["kind"] == "human" and not hotseat:
                tokens[i] = _new_token()
                digest = token_digest(tokens[i])
            stored_seats.append({**seat, "digest": digest})
        hotseat_digest = token_digest(hotseat_token) if hotseat_token else None
        room = await self.store_game(
            options, stored_seats, hotseat_digest, creator, table or TableSettings(), listed=listed
        )
        secrets_out = {
            "id": room.id,
            "seats": [{"seat": i, "token": t} for i, t in sorted(tokens.items())],
            "hotseat_token": hotseat_token,
        }
        return room, secrets_out

    async def store_game(
        self,
        options: GameOptions,
        stored_seats: list[dict[str, Any]],
        hotseat_digest: str | None,
        creator: str,
        table: TableSettings,
        rematch_of: tuple[str, int] | None = None,
        listed: bool = False,
    ) -> Room:
        """Store a new game of these seats (as stored: their token digests made) for the client
        ``creator`` under a fresh id, with a random seed unless ``options`` chose one, once the
        engine and the caps accept it; its room, its bots started.  ``rematch_of`` and
        ``listed`` as in :meth:`.storage.Storage.create_game` (which raises
        :class:`.storage.RematchTaken`)."""
        seed_chosen = options.seed is not None
        if not seed_chosen:
            options = options.with_(seed=secrets.randbelow(MAX_SEED))
        try:
            first = Game(options)  # the engine judges the options before anything is stored
        except (GameSetupError, KeyError, ValueError) as exc:
            raise ProtocolError.of("bad_options", detail=str(exc)) from None
        for seat in stored_seats:
            if seat["kind"] == "bot":
                try:
                    make_bot(seat["bot"], 0)
                except (ImportError, ValueError) as exc:
                    raise ProtocolError.of(
                        "bot_unavailable", bot=seat["bot"], detail=str(exc)
                    ) from None
        # Only a game that can be set up may take another's place.
        creator_id = creator_digest(creator)
        try:
            await self._make_room_for(creator_id)
            listed_now = (
                await self.storage.run(count_listed_waiting, self.storage, creator_id)
                if listed
                else 0
            )
        except StorageError:
            log.exception("cannot count the unfinished games")
            raise ProtocolError.of("cannot_create_now") from None
        if listed_now >= MAX_LISTED_PER_ADDRESS:
            raise ProtocolError.of("too_many_open_tables", tables=listed_now)
        # a table waiting for players starts once the last seat is taken (.roomopen)
        waiting = any(seat["kind"] == "open" for seat in stored_seats)
        bot_first = stored_seats[first.to_move]["kind"] == "bot" and not waiting
        # An id taken already (one chance in 2**48) is refused by the database: draw another.
        for attempt in range(ID_ATTEMPTS):
            game_id = secrets.token_urlsafe(6)
            try:
                await self.storage.run(
                    self.storage.create_game,
                    game_id,
                    {**options_to_json(options, seed_chosen), "table": table.to_json()},
                    stored_seats,
                    hotseat_digest,
                    creator_id,
                    bot_turn=bot_first,
                    rematch_of=rematch_of,
                    listed=listed,
                )
                break
            except StorageConflict:
                if attempt < ID_ATTEMPTS - 1:
                    continue
                log.exception("cannot store a new game")
            except StorageError:
                log.exception("cannot store a new game")
            raise ProtocolError.of("game_not_saved") from None
        room = await self.get(game_id)
        assert room is not None
        room.kick_bots()
        return room

    async def _make_room_for(self, creator_id: str) -> None:
        """Refuse a creator at its own cap; when the server is full, end the oldest game nobody
        took up of a creator holding at least as many unfinished games as this one will, or
        else the game of whoever holds the most (more than this creator will), least recently
        moved first, nobody connected to either: a flood hurts the flooder, not the next
        honest player, and a flood from many addresses cannot fill the server for long.
        Refuses (``too-many-games``) when there is no such game."""
        mine = await self.storage.run(self.storage.count_unfinished, creator_id)
        if mine >= self.max_games_per_address:
            raise ProtocolError.of("too_many_of_yours", games=mine)
        live = await self.storage.run(self.storage.count_unfinished)
        if live < self.max_live_games:
            return
        # among equals first come, first gone; nobody may end the games of a smaller holder
        unclaimed = await self.storage.run(self.storage.oldest_unclaimed, mine + 1)
        biggest = await self.storage.run(self.storage.games_of_biggest_creators, mine + 1)
        for game_ids, reason in (
            (unclaimed, "it ended unplayed: the server was full and nobody had taken it up"),
            (
                biggest,
                "it ended unfinished: the server was full and its creator held the most games",
            ),
        ):
            for game_id in game_ids:
                room = self.rooms.get(game_id)
                if room is None or not room.watched:
                    await self._expire([game_id], reason)
                    return
        raise ProtocolError.of("server_full", games=live)

    async def _expire(self, game_ids: list[str], reason: str) -> None:
        await self.storage.run(self.storage.expire, game_ids, reason)
        for game_id in game_ids:
            room = self.rooms.get(game_id)
            if room is not None:
                room.expire(reason)
        log.info("expired %d games: %s", len(game_ids), reason)

    async def get(self, game_id: str) -> Room | None:
        """The live game ``game_id`` (loaded from storage if need be); None if there is none.

        Raises :class:`ProtocolError` ("broken", with the reason) for a stored game that cannot
        be set up again, or whose rows cannot be read now.
        """
        room = self.rooms.get(game_id)
        if room is not None:
            self._touch(game_id)
            return room
        if not GAME_ID.fullmatch(game_id):
            return None
        reason = self.unloadable.get(game_id)
        if reason is None:
            try:
                stored = await self.storage.run(self.storage.load_game, game_id)
                if stored is None:
                    return None
                loaded = self.rooms.get(game_id)  # by another request meanwhile
                if loaded is not None:
                    self._touch(game_id)
                    return loaded
                room = Room(stored, self.storage, self.bot_delay, self.owner, self.wall_clock)
                self.rooms[game_id] = room
            except StorageError as exc:  # perhaps passing (a disk error): not remembered
                reason = str(exc)
            except GameLoadError as exc:
                reason = self.unloadable[game_id] = str(exc)
            else:
                self._touch(game_id)
                self._evict_unused()
                room.kick_bots()
                return room
            log.error("game %s: %s", game_id, reason)
        raise ProtocolError.of("game_broken", why=reason)

    def _touch(self, game_id: str) -> None:
        self.rooms.move_to_end(game_id)
        self._last_used[game_id] = self.clock()

    def _evict_unused(self, older_than: float | None = None) -> None:
        """Drop from memory the unused rooms beyond :attr:`max_idle_rooms` (least recently used
        first) and, with ``older_than``, those unused since then."""
        idle = [room for room in self.rooms.values() if room.idle]
        excess = len(idle) - self.max_idle_rooms
        for i, room in enumerate(idle):
            if i < excess or (older_than is not None and self._last_used[room.id] < older_than):
                self._evict(room)

    def _evict(self, room: Room) -> None:
        room.stop()
        room.evicted = True
        del self.rooms[room.id]
        del self._last_used[room.id]

    async def resume(self) -> None:
        """After a start: expire abandoned games, then load the unfinished ones so that their
        bots move on (a game that cannot be loaded is logged and left out)."""
        await self.expire_abandoned()
        for game_id in await self.storage.run(self.storage.unfinished_game_ids):
            try:
                await self.get(game_id)
            except ProtocolError:
                continue

    async def opened(self, room: Room, principal: Principal, client: str) -> None:
        """A seat's link was opened by ``client`` (an address group): by anyone but the game's
        creator, that takes the game up."""
        if principal.seats and creator_digest(client) != room.stored.creator:
            await room.claim()

    async def expire_abandoned(self) -> None:
        """End the unfinished games nobody has moved in for :attr:`expire_after` seconds, and
        those nobody took up for :attr:`expire_unclaimed_after` seconds (someone connected
        or not: only its creator ever came), and the tables with a seat still open
        :attr:`expire_waiting_after` seconds after their creation."""
        if self.expire_unclaimed_after is not None:
            unclaimed = await self.storage.run(
                self.storage.idle_since, self.clock() - self.expire_unclaimed_after, True
            )
            if unclaimed:
                minutes = self.expire_unclaimed_after / 60
                await self._expire(
                    unclaimed, f"it expired: nobody joined it or moved for {minutes:g} minutes"
                )
        waited = await self.storage.run(
            waiting_since, self.storage, self.clock() - self.expire_waiting_after
        )
        if waited:
            minutes = self.expire_waiting_after / 60
            await self._expire(waited, f"it expired: its open seats waited {minutes:g} minutes")
        if self.expire_after is None:
            return
        abandoned = await self.storage.run(
            self.storage.idle_since, self.clock() - self.expire_after
        )
        if abandoned:
            days = self.expire_after / 86400
            await self._expire(abandoned, f"it expired: nobody moved for {days:g} days")

    async def sweep(self) -> None:
        """Expire abandoned games; drop rooms unused for :data:`IDLE_ROOM_SECONDS`."""
        try:
            await self.expire_abandoned()
        except StorageError:
            log.exception("cannot expire abandoned games now")
        self._evict_unused(older_than=self.clock() - IDLE_ROOM_SECONDS)

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            await self.sweep()

    async def tend_bots(self) -> None:
        """Renew this process's bot leases, and take over the bots nobody plays (their
        process died, or stopped between a commit and taking the lease)."""
        try:
            await self.storage.run(
                self.storage.renew_bot_leases, self.owner, time.time() + BOT_LEASE_SECONDS
            )
            orphaned = await self.storage.run(self.storage.orphaned_bot_games)
        except StorageError:
            log.exception("cannot tend the bot leases now")
            return
        for game_id in orphaned:
            if game_id in self.unloadable:
                continue
            room = self.rooms.get(game_id)
            if room is not None:
                room.kick_bots()
                continue
            with contextlib.suppress(ProtocolError):  # logged; the others go on
                await self.get(game_id)  # loading it kicks its bots

    async def _tend_bots_forever(self) -> None:
        while True:
            await asyncio.sleep(LEASE_RENEW_EVERY)
            await self.tend_bots()

    def hear(self, news: News | None) -> None:
        """A process changed a game (perhaps this one: then its room has the change already),
        or (None) news may have been missed: the rooms in memory catch up, each in a task of
        its own (a room busy storing a move makes the news of the others wait for nothing).
        News of a rematch made is offered at once (the game it comes from is over)."""
        if news is not None and news.rematch is not None:
            finished = self.rooms.get(news.game_id)
            if finished is not None:
                finished.rematch.settle(*news.rematch)
            return
        if news is None:
            rooms = list(self.rooms.values())
        else:  # a room not in memory is read from the database when next asked for
            changed = self.rooms.get(news.game_id)
            rooms = [] if changed is None or changed.has(news) else [changed]
        for room in rooms:
            task = asyncio.get_running_loop().create_task(self._catch_up(room, news))
            self._catching_up.add(task)
            task.add_done_callback(self._catching_up.discard)

    @staticmethod
    async def _catch_up(room: Room, news: News | None) -> None:
        try:
            await room.catch_up(news)
            if news is None:
                await room.rematch.catch_up()
        except Exception:
            log.exception("game %s: failed on news of it", room.id)

    async def _listen(self) -> None:
        async for news in self.storage.moves_elsewhere():
            self.hear(news)

    async def start(self) -> None:
        """On the event loop: resume the games, sweep from time to time, keep the bot leases
        and (on a shared database) listen for moves made by other processes."""
        await self.resume()
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._sweep_forever()),
            loop.create_task(self._tend_bots_forever()),
        ]
        if self.storage.shared:
            self._tasks.append(loop.create_task(self._listen()))

    def release(self, room: Room) -> None:
        """A connection closed: a finished game nobody watches leaves memory (it is stored)."""
        if room.idle and not room.live and self.rooms.get(room.id) is room:
            self._evict(room)

    def stop(self) -> None:
        """Stop the tasks and bots, and let go of the bot leases: another process (or this
        server started again) takes the bots over at once."""
        for task in [*self._tasks, *self._catching_up]:
            task.cancel()
        self._tasks = []
        for room in self.rooms.values():
            room.stop()
        try:
            self.storage.release_bot_lease(self.owner)
        except StorageError:
            log.exception("cannot release the bot leases (they run out by themselves)")
