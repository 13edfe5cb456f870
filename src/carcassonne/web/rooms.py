"""Live games on the server: who may act for which seat, applying actions, bots, broadcasting.

A :class:`Room` wraps one engine :class:`~carcassonne.game.Game`.  The engine is the single
source of truth: every action, from a browser, the HTTP API or a bot, goes through
:meth:`Room.submit`, which checks who is acting, lets ``game.apply`` judge legality, commits the
action to the database and only then tells the connected clients: a client never sees a move
the database could lose, and a failed commit leaves the room as it was.  On PostgreSQL the
commit runs in a storage thread while the event loop serves the other games, so the actions are
applied to a copy of the game that becomes the game once stored; a lock per room keeps two
moves of one game (and the catching up with moves made elsewhere) from interleaving.  Several
processes may serve one game (PostgreSQL): the database stores each ply once, the process that
comes second answers ``stale``, and each process hears of moves made elsewhere
(:meth:`.server.GameServer.start` listens) and pushes them to its clients.
A game's bots, stand-ins and clock deadline are played by the one process holding their lease
(:mod:`.roombots`); who plays each seat, the clocks and seat changes are the room's table
(:mod:`.roomtable`), its open seats :mod:`.roomopen`; :mod:`.roomload` checks a stored game.

Each client gets only ``game.view(seat)`` for the seat it holds (``None`` for spectators) plus
public events, so hidden information (other seats' bets, face-down map chips, the stack order)
never leaves the engine's own filtering.

The audience of a game may be large, so nothing a room does per change depends on its size
beyond handing the same text to each queue: a message is built and encoded once per perspective
and change, a spectator coming or going costs the others nothing, a seat's coming or going is a
small ``presence`` message, and a client that reads slowly gets the latest state rather than
every frame (:class:`.outbox.Connection`: what waits for a client stays bounded).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
from collections.abc import Callable, Iterator
from typing import Any

from ..formats.actions import action_to_json
from ..game import Game, IllegalAction
from ..replaying import ReplayError, replay, replay_onto
from ..standings import ChangeKind, TableSettings
from .errors import illegal
from .outbox import SPECTATOR, Connection, Due, Principal, encode
from .protocol import (
    MAX_SEED,
    ProtocolError,
    board_info,
    options_from_json,
    public_event,
    public_options,
    public_placements,
    seat_public,
)
from .rematch import RoomRematch
from .roombots import RoomBots
from .roomchat import RoomChat
from .roomhints import RoomHints
from .roomload import GameLoadError, checked_seats, decoded, public_reason
from .roomopen import RoomOpenSeats
from .roomtable import RoomTable
from .storage import (
    News,
    Storage,
    StorageConflict,
    StorageError,
    StoredGame,
    now_ms,
    token_digest,
)

log = logging.getLogger("carcassonne.web")

SEAT_COLOURS = ("blue", "yellow", "green", "pink", "red", "black")


class Room:
    """One game being played (or finished) on this server."""

    def __init__(
        self,
        stored: StoredGame,
        storage: Storage,
        bot_delay: float,
        owner: str = "local",
        clock: Callable[[], int] = now_ms,
    ) -> None:
        """Rebuild a stored game; raises :class:`GameLoadError` if it cannot be set up.
        ``owner`` names this server process when it holds the lease on the game's bots;
        ``clock`` is the wall clock in milliseconds since the epoch (tests pass their own)."""
        self.id = stored.id
        self.clock = clock
        self.stored = stored
        self.storage = storage
        #: connections holding a seat, and spectators: seats are told of a change first
        self.players: set[Connection] = set()
        self.audience: set[Connection] = set()
        #: connections per seat, for presence
        self._seat_conns: dict[int, int] = {}
        self.bots: dict[int, str] = {}
        #: held while the game changes (a move from its apply to its commit, a catch-up), so
        #: that changes of one game never interleave
        self._lock = asyncio.Lock()
        #: plays the game's bots while one is to move
        self.bot_loop = RoomBots(self, bot_delay, owner)
        #: the hints asked for (:mod:`.roomhints`)
        self.hints = RoomHints(self)
        #: (seat, ply) of every hint used, by ply, shown to all when several humans play
        self.hints_used: list[tuple[int, int]] = list(stored.hints)
        #: encoded messages of the current state (by perspective), dropped at every change
        self._texts: dict[Any, str] = {}
        self.evicted = False  # the server dropped this room from memory: it must not act
        #: why stored actions no longer replay (an engine change, a damaged database): frozen
        self.broken: str | None = None
        self.expired: str | None = stored.expired  # ended unfinished (abandoned, or no room)
        #: the seats' chat and the spectators'; the seats open, waiting for players
        self.chat, self.open_seats = RoomChat(self, stored.chat), RoomOpenSeats(self)
        self.rematch = RoomRematch(self, stored.rematch)
        # Stored data may come from an older version or a damaged file and can fail in any
        # way; one such game must not stop the server from starting or serving the others.
        try:
            self.options = options_from_json(stored.options)
            #: whether the creator chose the seed, and so could know the draw order
            self.seed_chosen = bool(stored.options.get("seed_chosen", False))
            self.seats = checked_seats(stored.seats, self.options.players)
            #: seat -> its bot's spec (the bots themselves run in the workers)
            self.bots = {i: s["bot"] for i, s in enumerate(self.seats) if s["kind"] == "bot"}
            self._several_humans = len(self.seats) - len(self.bots) > 1
            humans = [i for i in range(len(self.seats)) if i not in self.bots]
            #: the seat changes, clocks and away rule
            self.table = RoomTable(
                self, TableSettings.from_json(stored.options.get("table", {})), humans
            )
            self.game = self._rebuild()
            self.table.feed()
        except Exception as exc:
            log.exception("game %s: cannot set it up again", self.id)
            raise GameLoadError(
                f"this game's stored setup no longer works: {public_reason(exc)}"
            ) from None

    # -------------------------------------------------------------------- building

    def _rebuild(self) -> Game:
        """The game from its options and stored actions: how every game survives a restart."""
        try:
            game = replay(self.options, decoded(self.stored.actions))
        except ReplayError as exc:
            self._break(exc)
            # The failed action may have half-changed the game: replay up to just before it.
            return replay(self.options, decoded(self.stored.actions[: exc.ply - 1]))
        if self.stored.damaged:
            self.broken = self.stored.damaged
            log.error("game %s: %s", self.id, self.broken)
        return game

    def _break(self, failure: ReplayError) -> None:
        """Mark the game broken at the stored action that no longer replays (the log says why)."""
        reason = public_reason(failure.cause)
        self.broken = f"stored action {failure.ply} no longer replays: {reason}"
        log.error("game %s: %s (%r)", self.id, self.broken, failure.cause)

    # -------------------------------------------------------------------- access

    def authorise(self, token: str | None) -> Principal:
        """The principal a token stands for; no token means a spectator."""
        if token is None:
            return SPECTATOR
        digest = token_digest(token)
        if self.stored.hotseat_digest is not None and secrets.compare_digest(
            digest, self.stored.hotseat_digest
        ):
            humans = frozenset(i for i, s in enumerate(self.seats) if s["kind"] == "human")
            return Principal(humans, hotseat=True)
        for i, seat in enumerate(self.seats):
            stored = seat.get("digest")
            if stored is not None and secrets.compare_digest(digest, stored):
                return Principal(frozenset({i}))
        raise ProtocolError.of("bad_token")

    def perspective(self, principal: Principal) -> int | None:
        """Whose view a principal sees: its seat; on a hotseat screen the human seat to move."""
        if principal.hotseat:
            game = self.game
            if game.to_move in principal.seats and not game.is_over:
                return game.to_move
            return None
        if principal.seats:
            (seat,) = principal.seats
            return seat
        return None

    @property
    def frozen(self) -> str | None:
        """Why the game cannot go on although it is not over (damaged or expired), else None."""
        return self.broken or self.expired

    @property
    def live(self) -> bool:
        """Whether the game may still go on now (not while it waits for players)."""
        return not (self.game.is_over or self.frozen or self.open_seats.waiting)

    @property
    def watched(self) -> bool:
        return bool(self.players or self.audience)

    @property
    def idle(self) -> bool:
        """Nobody connected and no bot about to move: the room may leave memory (it is stored)."""
        return not self.watched and not self.bot_loop.running

    # -------------------------------------------------------------------- messages

    def public_info(self) -> dict[str, Any]:
        """What anyone with the game's link may know about its setup."""
        online = self._online()
        return {
            "id": self.id,
            "seats": [
                {
                    "seat": i,
                    **seat_public(i, s["name"], s["kind"], s["bot"]),
                    "colour": SEAT_COLOURS[i],
                    "online": i in online,
                }
                for i, s in enumerate(self.seats)
            ],
            "options": public_options(self.options, self.seed_chosen),
            "board": board_info(self.game),
            "hotseat": self.stored.hotseat_digest is not None,
            "table": self.table.seating.settings.to_json(),
        }

    def _online(self) -> set[int]:
        return set(self._seat_conns) | set(self.bots)

    def welcome(self, principal: Principal) -> dict[str, Any]:
        return {
            "type": "welcome",
            "game": self.public_info(),
            "you": {
                "seats": sorted(principal.seats),
                "hotseat": principal.hotseat,
                "spectator": principal.spectator,
            },
            "chat": self.chat.recent(principal),
        }

    def api_state(self, principal: Principal) -> str:
        """The answer to ``GET /api/games/{id}/state``: the setup and the state as the principal
        sees them, encoded once per principal until the next change, so that a client reading
        it again and again costs a lookup, not a view of the game built and encoded anew."""
        return self._text(
            ("api-state", principal), lambda: {**self.welcome(principal), **self.state(principal)}
        )

    def state(self, principal: Principal, events_from: int = 0) -> dict[str, Any]:
        return self._state(self.perspective(principal), events_from)

    def _state(self, seat: int | None, events_from: int) -> dict[str, Any]:
        game = self.game
        # The page reads the legal actions of the seat to move inside its view.
        view: dict[str, Any] = {**game.view(seat)}
        if seat is not None and seat == game.to_move and self.live:
            view["legal_actions"] = [action_to_json(a) for a in game.legal_actions()]
        message: dict[str, Any] = {
            "type": "state",
            "ply": len(game.history),
            "perspective": seat,
            "view": view,
            "events_from": events_from,
            "events": [public_event(e) for e in game.events[events_from:]],
            "placements": public_placements(game),
            "online": sorted(self._online()),
            "broken": self.frozen,
            "hints_used": [{"seat": s, "ply": p} for s, p in self.hints_used],
            "waiting": self.open_seats.waiting,
            "rematch": self.rematch.game_id,
            **self.table.state(seat),
        }
        if game.is_over:
            message["summary"] = self.table.summary()
        return message

    def _text(self, key: tuple[Any, ...], build: Callable[[], dict[str, Any]]) -> str:
        """The encoded message ``key`` of the current state, built once until the next change."""
        key = (*key, self.table.moment(self.clock()))
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = encode(build())
        return text

    def _render(self, conn: Connection, kind: Due) -> str:
        """A message due to a connection, as the game is now: the state from its perspective
        with the events it has not been sent, or the seats online."""
        if kind is Due.PRESENCE:
            return self._text(
                ("presence",), lambda: {"type": "presence", "online": sorted(self._online())}
            )
        seat, since = self.perspective(conn.principal), conn.events_sent
        conn.events_sent = len(self.game.events)
        return self._text(("state", seat, since), lambda: self._state(seat, since))

    def _connections(self) -> Iterator[Connection]:
        """Every connection, the seats' first: a move reaches its players before the audience."""
        yield from self.players
        yield from self.audience

    def renew_texts(self) -> None:
        """A chat line or the rematch came: the welcomes and states built before are old."""
        self._texts.clear()

    def broadcast(self) -> None:
        """Tell every connection about a change to the game."""
        self._texts.clear()
        for conn in self._connections():
            conn.due(Due.STATE)

    def join(self, conn: Connection) -> None:
        """A client said hello: it gets the setup and the state; the others hear only of a seat
        coming online (a spectator costs them nothing)."""
        before = self._online()
        principal = conn.principal
        (self.players if principal.seats else self.audience).add(conn)
        for seat in principal.seats:
            self._seat_conns[seat] = self._seat_conns.get(seat, 0) + 1
            self.table.came_online(seat)
        if self._online() != before:
            self._presence_changed(conn)
        conn.render = functools.partial(self._render, conn)
        conn.push(self._text(("welcome", principal), lambda: self.welcome(principal)))
        conn.due(Due.STATE)

    def leave(self, conn: Connection) -> None:
        before = self._online()
        (self.players if conn.principal.seats else self.audience).discard(conn)
        for seat in conn.principal.seats:
            left = self._seat_conns.pop(seat) - 1
            if left:
                self._seat_conns[seat] = left
            elif seat not in self.bots:
                self.table.went_offline(seat)
        conn.push(None)
        if self._online() != before:
            self._presence_changed(None)

    def _presence_changed(self, newcomer: Connection | None) -> None:
        """Seats came or went: a small message to the others (the newcomer's state has it)."""
        self._texts.clear()
        for conn in self._connections():
            if conn is not newcomer:
                conn.due(Due.PRESENCE)

    # -------------------------------------------------------------------- actions

    def _check_live(self, ply: int | None) -> None:
        """Refuse a change to a game that cannot go on, or one sent for another ply (None:
        whichever ply it is at)."""
        if self.broken:
            raise ProtocolError.of("game_broken", why=self.broken)
        if self.expired:
            raise ProtocolError.of("game_expired", why=self.expired)
        if self.game.is_over:
            raise ProtocolError.of("game_over")
        self.open_seats.refuse_while_waiting()
        if ply is not None and ply != len(self.game.history):
            raise ProtocolError.of("stale_ply", ply=len(self.game.history), sent=ply)

    def _check_turn(self, principal: Principal, ply: int | None) -> None:
        self._check_live(ply)
        game = self.game
        if principal.spectator:
            raise ProtocolError.of("spectator")
        if game.to_move not in principal.seats:
            raise ProtocolError.of("not_your_turn", seat=game.to_move + 1)
        if not self.table.seating.played_by_person(game.to_move):
            raise ProtocolError.of("seat_stood_in", seat=game.to_move + 1)

    async def submit(
        self, principal: Principal, actions: list[Any], ply: int | None = None
    ) -> None:
        """Apply ``actions`` in order for the principal, all or none; commit; broadcast.

        Raises :class:`ProtocolError` (game unchanged) if any action is not the principal's to
        make, the engine refuses it or it cannot be stored.

        A batch undone because a later action failed must not tell the sender anything it did
        not know when it sent the batch (or it could probe hidden information and take the
        probe back).  So a batch is at most a tile placement and the figure action that follows
        it in the same turn: whether a figure may stand on the tile just placed depends only on
        the board and the seat's own figures.  Whatever comes after that (a decision, the next
        turn) may follow a draw or a revealed chip, and is sent on its own, once the earlier
        actions are committed.
        """
        async with self._lock:
            if self.evicted:
                raise ProtocolError.of("reloaded")
            if ply is not None and ply > len(self.game.history):
                # the client heard of a move made through another process first
                await self._catch_up(None)
            self._check_turn(principal, ply)
            if len(actions) > 1 and self.game.phase != "tile":
                raise ProtocolError.of("batch_not_tile")
            first_ply = len(self.game.history)
            trial = self._trial(len(actions))
            done: list[tuple[int, dict[str, Any]]] = []
            try:
                for action in actions:
                    if trial.is_over:
                        raise ProtocolError.of("ended_before_action")
                    seat = trial.to_move
                    if seat not in principal.seats:
                        raise ProtocolError.of(
                            "action_not_your_turn", action=len(done) + 1, seat=seat + 1
                        )
                    try:
                        trial.apply(action)
                    except IllegalAction as exc:
                        raise illegal(exc, len(done) + 1) from None
                    except Exception:
                        log.exception("game %s: the engine failed on %r", self.id, action)
                        # The engine may have gone wrong halfway, or before this action (a copy
                        # shares immutable parts): start again from what is stored.
                        self.game = self._rebuild()
                        raise ProtocolError.of("engine_failed", action=len(done) + 1) from None
                    done.append((seat, action_to_json(action)))
            except ProtocolError:
                if done:  # the batch's earlier actions are undone (a refused one changed nothing)
                    self._discard(trial)
                raise
            await self._commit(trial, first_ply, done)
        await self.claim()  # a person moved: the game was taken up
        self.kick_bots()

    def _trial(self, actions: int = 1) -> Game:
        """The game the next ``actions`` are applied to until they are stored (:meth:`_commit`).

        A copy when the storage makes its calls in threads (PostgreSQL): other tasks run while
        the commit waits, and must see the game as it was.  Else (SQLite) nothing runs between
        applying and committing, and the game itself is changed (rebuilt from the database if
        the commit fails): copying a game for every move cost a quarter of the moves per second
        on 100 games (``benchmarks/README.md``).  A batch of several actions gets a copy there
        too: the engine refuses an action without changing the game, but a batch refused at
        its second action would leave the first applied, and replaying the whole game to undo
        it made each refusal cost a replay (issue 22: a flood of refused batches took 62 % of
        the CPU), where a copy costs a fraction of a millisecond."""
        return self.game.copy() if self.storage.threads or actions > 1 else self.game

    def _discard(self, trial: Game) -> None:
        """Actions applied to ``trial`` will not be stored: the game is as it was before."""
        if trial is self.game:
            self.game = self._rebuild()

    async def _commit(
        self, trial: Game, first_ply: int, done: list[tuple[int, dict[str, Any]]]
    ) -> None:
        """Store ``done``, the actions that made ``trial`` (:meth:`_trial`); then make it the
        game and tell everyone.  If they cannot be stored the game is as it was and
        :class:`ProtocolError` is raised: ``stale`` when another process stored this ply first
        (the room then shows its move), else ``server``.  The caller holds the lock."""
        at_ms = self.clock()
        try:
            await self.storage.run(
                self.storage.append_actions,
                self.id,
                first_ply,
                done,
                trial.is_over,
                bot_turn=self.table.needs_tending(trial),
                at_ms=at_ms,
            )
        except StorageConflict:
            self._discard(trial)
            await self._catch_up(None)
            raise ProtocolError.of("stored_elsewhere") from None
        except Exception:
            log.exception("game %s: cannot store actions; the game stays as it was", self.id)
            self._discard(trial)
            raise ProtocolError.of("move_not_saved") from None
        self.game = trial
        self.stored.actions.extend(done)
        self.stored.times.extend([at_ms] * len(done))
        self.table.feed()
        self.broadcast()

    async def catch_up(self, news: News | None = None) -> None:
        """Apply what other server processes stored since this room's last action, and tell
        everyone: the moves ``news`` brings when they follow this room's last action, else what
        the database holds (nothing when ``news`` says this room has it all already).  News of
        a chat line brings only the chat up to date (the game did not change); news maybe
        missed (None) brings both."""
        if news is not None and news.chat is not None:
            await self.chat.catch_up(news.chat)
            return
        async with self._lock:
            await self._catch_up(news)
        if news is None:
            await self.chat.catch_up()

    def has(self, news: News) -> bool:
        """Whether the room holds every move (or chat line) ``news`` brings (it is its own, or
        was heard of already)."""
        if news.chat is not None:
            return news.chat <= len(self.chat.lines)
        return news.plies is not None and news.plies <= len(self.stored.actions)

    async def _catch_up(self, news: News | None) -> None:
        """:meth:`catch_up`, the lock held."""
        if self.evicted or (news is not None and self.has(news)):
            return
        have = len(self.stored.actions)
        moves: list[tuple[int, dict[str, Any]]] = []
        times: list[int] = []
        expired, seats_taken = None, False
        hints = self.hints_used
        changes = self.stored.changes
        timed_news = news is not None and len(news.times) == len(news.moves)
        if (
            news is not None
            and news.moves
            and news.plies == have + len(news.moves)
            # news without the times of its moves (from an older process) would set a clock
            # wrong: the database has them; an untimed table only shows them in its record
            and (timed_news or not self.table.seating.timed)
        ):
            moves = list(news.moves)
            times = list(news.times) if timed_news else [self.clock()] * len(moves)
        else:
            try:
                since = await self.storage.run(self.storage.moves_since, self.id, have)
            except StorageError:
                log.exception("game %s: cannot read the moves made elsewhere", self.id)
                return
            moves, times, expired = since.moves, since.times, since.expired
            hints, changes = since.hints, since.changes
            seats_taken = self.open_seats.heard(since.seats)
        if not self.broken:
            try:
                replay_onto(self.game, decoded(moves))
            except ReplayError as exc:
                kept = exc.ply - 1 - have
                self.stored.actions.extend(moves[:kept])
                self.stored.times.extend(times[:kept])
                self._break(exc)
                self.game = self._rebuild()
            else:
                self.stored.actions.extend(moves)
                self.stored.times.extend(times)
        if expired and not self.expired:
            self.expired = expired
            self.stop()
        hints_changed = hints != self.hints_used
        self.hints_used = hints
        changes_changed = changes != self.stored.changes
        self.stored.changes = changes
        if moves or changes_changed:
            self.table.feed()
        if moves or expired or hints_changed or changes_changed or seats_taken:
            self.broadcast()
            self.kick_bots()

    def preview(self, principal: Principal, action: Any, ply: int | None) -> list[dict[str, Any]]:
        """The figure actions that would follow placing the tile as ``action`` (nothing stored).

        Lets the browser offer figure spots before the player confirms, so that undo before
        confirming never needs the server.  Only legal actions are returned, nothing of the
        state after the placement (which could reveal e.g. a face-down map chip).
        """
        self._check_turn(principal, ply)
        if self.game.phase != "tile":
            raise ProtocolError.of("preview_not_tile")
        trial = self.game.copy()
        try:
            trial.apply(action)
        except IllegalAction as exc:
            raise illegal(exc) from None
        except Exception:
            log.exception("game %s: the engine failed on the preview of %r", self.id, action)
            raise ProtocolError.of("preview_failed") from None
        if trial.phase != "figure":
            return []
        return [action_to_json(a) for a in trial.legal_actions()]

    async def claim(self) -> None:
        """Keep that the game was taken up (once): it no longer expires after minutes. A
        failure to store it is logged and tried again next time (the move itself is stored)."""
        if self.stored.claimed:
            return
        try:
            await self.storage.run(self.storage.claim, self.id)
        except StorageError:
            log.exception("game %s: cannot store that it was taken up", self.id)
            return
        self.stored.claimed = True

    def expire(self, reason: str) -> None:
        """End the game unfinished (it is already marked so in storage): tell everyone."""
        self.expired = reason
        self.stop()
        self.broadcast()

    # -------------------------------------------------------------------- bots

    def kick_bots(self) -> None:
        """Start the bot loop if a bot is to move (:meth:`.roombots.RoomBots.kick`)."""
        self.bot_loop.kick()

    def bot_seed(self, seat: int, ply: int) -> int:
        """The seed of the decision at ``ply`` by the bot of ``seat``: fixed by the game, so
        its bots play the same after a restart (each decision is made by a fresh bot)."""
        return ((self.options.seed or 0) * 1_000_003 + seat * 10_007 + ply) % MAX_SEED

    def stop(self) -> None:
        """Stop the bot loop (the room is expired, evicted, or the server stops)."""
        self.bot_loop.stop()
        self.table.stop()

    # -------------------------------------------------------------------- seat changes

    async def change_seat(
        self, principal: Principal, change: ChangeKind, seat: int | None, ply: int
    ) -> None:
        """``principal`` resigns, takes its seat back from the stand-in (``return``), or hands
        ``seat`` (the seat to move) to the stand-in; stored, then told to everyone.  Refused
        (:class:`ProtocolError`, nothing stored) when not allowed now, naming why; what it says
        is public (statuses, clocks, who is online), so it reveals nothing hidden."""
        async with self._lock:
            if self.evicted:
                raise ProtocolError.of("reloaded")
            if ply > len(self.game.history):
                await self._catch_up(None)
            self._check_live(ply)
            if principal.spectator:
                raise ProtocolError.of("spectator")
            viewer = self.perspective(principal)
            if viewer is None:  # a hotseat screen while a bot is to move
                raise ProtocolError.of("not_your_turn", seat=self.game.to_move + 1)
            target = self.table.change_target(viewer, change, seat)
            await self.table.store_change(target, change)
        await self.claim()
