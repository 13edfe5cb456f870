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
(:meth:`GameServer.start` listens) and pushes them to its clients.
A game's bots are played by the one process holding their lease (see :mod:`.storage`).

Each client gets only ``game.view(seat)`` for the seat it holds (``None`` for spectators) plus
public events, so hidden information (other seats' bets, face-down map chips, the stack order)
never leaves the engine's own filtering.

The audience of a game may be large, so nothing a room does per change depends on its size
beyond handing the same text to each queue: a message is built and encoded once per perspective
and change, a spectator coming or going costs the others nothing, a seat's coming or going is a
small ``presence`` message, and a client that reads slowly gets the latest state rather than
every frame (:class:`Connection`: what waits for a client stays bounded).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import functools
import json
import logging
import os
import re
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..board import decode
from ..bots import check_bot_spec, make_bot
from ..bots.expert import HINT_BOT, HINT_COUNT
from ..formats.actions import ActionFormatError, action_from_json, action_to_json
from ..game import Game, GameSetupError, GameSummary, IllegalAction
from ..replaying import Move, ReplayError, replay, replay_onto
from ..tiles import EDGE_NAMES
from . import botworker
from .errors import illegal
from .protocol import (
    MAX_SEED,
    ProtocolError,
    options_from_json,
    options_to_json,
    public_event,
    public_options,
    public_placements,
    seat_public,
    think_time,
)
from .storage import (
    News,
    Storage,
    StorageConflict,
    StorageError,
    StoredGame,
    creator_digest,
    token_digest,
)

log = logging.getLogger("carcassonne.web")

SEAT_COLOURS = ("blue", "yellow", "green", "pink", "red", "black")
#: what :meth:`GameServer.create` hands out (``secrets.token_urlsafe``); anything else is no game
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")


class GameLoadError(Exception):
    """A stored game that cannot even be set up again (damaged options or seats)."""


@dataclass(frozen=True)
class Principal:
    """Who is on the other end: the seats they may act for (none for a spectator)."""

    seats: frozenset[int]
    hotseat: bool = False

    @property
    def spectator(self) -> bool:
        return not self.seats


SPECTATOR = Principal(frozenset())


#: messages of its own (replies, errors, hints) waiting for one client before the server gives
#: up on it: it sends requests without reading the answers
MAX_QUEUED = 64
#: characters of such messages waiting for one client before the server gives up on it (a text
#: shared by many queues counts for each; a long game's first state is well under this)
MAX_QUEUED_CHARS = 4 * 1024 * 1024


def encode(message: dict[str, Any]) -> str:
    """A server message as the text sent on the websocket."""
    return json.dumps(message, separators=(",", ":"))


class Due(enum.Enum):
    """A message about the game as it is when sent, not as it was when it changed."""

    STATE = "state"
    PRESENCE = "presence"


@dataclass(eq=False)
class Connection:
    """One websocket client; its messages wait in a queue so that it sees them in order.

    The game's changes are not queued one by one: a change marks the client's state (or the
    seats online) as due, and the message is built when its turn to be sent comes, from the game
    as it is then.  A reader slower than the game (a phone on a bad network watching a fast bot
    game) gets the latest state, with every event since the last state it got, instead of every
    intermediate frame: it is never dropped for being slow, and what waits for it stays one mark
    per kind.  Only messages of its own (replies, errors, hints) are queued as texts; a client
    that sends requests without reading the answers is cut off once :data:`MAX_QUEUED` of them
    or :data:`MAX_QUEUED_CHARS` characters wait for it.
    """

    principal: Principal
    #: builds a due message; set by the room the connection joins
    render: Callable[[Due], str] | None = None
    #: events of the game this client has been sent (the next state carries the later ones)
    events_sent: int = 0
    overflowed: bool = False
    queued_chars: int = 0
    #: texts, due marks (each at most once) and None (the connection is over), in order
    _queue: deque[str | Due | None] = field(default_factory=deque)
    _texts_queued: int = 0
    _ready: asyncio.Event = field(default_factory=asyncio.Event)

    def push(self, text: str | None) -> None:
        """Queue an encoded message (None: the connection is over)."""
        if self.overflowed:
            return
        if text is not None:
            if self._texts_queued >= MAX_QUEUED or self.queued_chars + len(text) > MAX_QUEUED_CHARS:
                self.overflowed = True
                text = None
            else:
                self.queued_chars += len(text)
                self._texts_queued += 1
        self._append(text)

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message meant for this client alone (a reply, an error)."""
        self.push(encode(message))

    def due(self, kind: Due) -> None:
        """The game changed: a message of this kind is due, built when sent.  A mark still
        waiting moves to the end, after the replies queued meanwhile."""
        if self.overflowed:
            return
        with contextlib.suppress(ValueError):
            self._queue.remove(kind)
        self._append(kind)

    def _append(self, item: str | Due | None) -> None:
        self._queue.append(item)
        self._ready.set()

    @property
    def waiting(self) -> int:
        """Messages waiting to be sent (a due mark counts one)."""
        return len(self._queue)

    async def next(self) -> str | None:
        """The next text to send; None once the connection is over."""
        while not self._queue:
            self._ready.clear()
            await self._ready.wait()
        item = self._queue.popleft()
        if isinstance(item, Due):
            assert self.render is not None, "a due message before the connection joined a room"
            return self.render(item)
        if item is not None:
            self.queued_chars -= len(item)
            self._texts_queued -= 1
        return item


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


def _new_token() -> str:
    return secrets.token_urlsafe(18)


class Room:
    """One game being played (or finished) on this server."""

    def __init__(
        self, stored: StoredGame, storage: Storage, bot_delay: float, owner: str = "local"
    ) -> None:
        """Rebuild a stored game; raises :class:`GameLoadError` if it cannot be set up.
        ``owner`` names this server process when it holds the lease on the game's bots."""
        self.id = stored.id
        self.stored = stored
        self.storage = storage
        self.bot_delay = bot_delay
        self.owner = owner
        #: connections holding a seat, and spectators: seats are told of a change first
        self.players: set[Connection] = set()
        self.audience: set[Connection] = set()
        #: connections per seat, for presence
        self._seat_conns: dict[int, int] = {}
        self.bots: dict[int, str] = {}
        #: held while the game changes (a move from its apply to its commit, a catch-up), so
        #: that changes of one game never interleave
        self._lock = asyncio.Lock()
        self._bot_task: asyncio.Task[None] | None = None
        #: ply -> the hint being computed or computed for it (only the latest ply is kept,
        #: and no other is asked for while it is being computed)
        self._hints: dict[int, asyncio.Future[list[tuple[Any, float]]]] = {}
        #: (seat, ply) of every hint used, by ply, shown to all when several humans play
        self.hints_used: list[tuple[int, int]] = list(stored.hints)
        #: encoded messages of the current state (by perspective), dropped at every change
        self._texts: dict[Any, str] = {}
        #: set once the server has dropped this room from memory: it must not act any more
        self.evicted = False
        #: set when stored actions no longer replay (an engine change, a damaged database):
        #: the game is frozen, shown as it was before that action
        self.broken: str | None = None
        #: set when the game was ended unfinished (abandoned, or its place was needed)
        self.expired: str | None = stored.expired
        # Stored data may come from an older version or a damaged file and can fail in any
        # way; one such game must not stop the server from starting or serving the others.
        try:
            self.options = options_from_json(stored.options)
            #: whether the creator chose the seed, and so could know the draw order
            self.seed_chosen = bool(stored.options.get("seed_chosen", False))
            self.seats = _checked_seats(stored.seats, self.options.players)
            #: seat -> its bot's spec (the bots themselves run in the workers)
            self.bots = {i: s["bot"] for i, s in enumerate(self.seats) if s["kind"] == "bot"}
            self._several_humans = len(self.seats) - len(self.bots) > 1
            self.game = self._rebuild()
        except Exception as exc:
            log.exception("game %s: cannot set it up again", self.id)
            raise GameLoadError(
                f"this game's stored setup no longer works: {_public_reason(exc)}"
            ) from None

    # -------------------------------------------------------------------- building

    def _rebuild(self) -> Game:
        """The game from its options and stored actions: how every game survives a restart."""
        try:
            game = replay(self.options, _decoded(self.stored.actions))
        except ReplayError as exc:
            self._break(exc)
            # The failed action may have half-changed the game: replay up to just before it.
            return replay(self.options, _decoded(self.stored.actions[: exc.ply - 1]))
        if self.stored.damaged:
            self.broken = self.stored.damaged
            log.error("game %s: %s", self.id, self.broken)
        return game

    def _break(self, failure: ReplayError) -> None:
        """Mark the game broken at the stored action that no longer replays (the log says why)."""
        reason = _public_reason(failure.cause)
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
        """Whether the game may still go on."""
        return not (self.game.is_over or self.frozen)

    @property
    def watched(self) -> bool:
        return bool(self.players or self.audience)

    @property
    def idle(self) -> bool:
        """Nobody connected and no bot about to move: the room may leave memory (it is stored)."""
        return not self.watched and (self._bot_task is None or self._bot_task.done())

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
        view = game.view(seat)
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
        }
        if game.is_over:
            summary = GameSummary.of(game)
            message["summary"] = {
                "scores": summary.scores,
                "by_source": summary.by_source,
                "winners": game.winners(),
            }
        return message

    def _text(self, key: tuple[Any, ...], build: Callable[[], dict[str, Any]]) -> str:
        """The encoded message ``key`` of the current state, built once until the next change."""
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

    def _check_turn(self, principal: Principal, ply: int | None) -> None:
        game = self.game
        if self.broken:
            raise ProtocolError.of("game_broken", why=self.broken)
        if self.expired:
            raise ProtocolError.of("game_expired", why=self.expired)
        if game.is_over:
            raise ProtocolError.of("game_over")
        if ply is not None and ply != len(game.history):
            raise ProtocolError.of("stale_ply", ply=len(game.history), sent=ply)
        if principal.spectator:
            raise ProtocolError.of("spectator")
        if game.to_move not in principal.seats:
            raise ProtocolError.of("not_your_turn", seat=game.to_move + 1)

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
        try:
            await self.storage.run(
                self.storage.append_actions,
                self.id,
                first_ply,
                done,
                trial.is_over,
                bot_turn=trial.to_move in self.bots,
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
        self.broadcast()

    async def catch_up(self, news: News | None = None) -> None:
        """Apply what other server processes stored since this room's last action, and tell
        everyone: the moves ``news`` brings when they follow this room's last action, else what
        the database holds (nothing when ``news`` says this room has it all already)."""
        async with self._lock:
            await self._catch_up(news)

    def has(self, news: News) -> bool:
        """Whether the room holds every move ``news`` brings (it is its own move, or was heard
        of already)."""
        return news.plies is not None and news.plies <= len(self.stored.actions)

    async def _catch_up(self, news: News | None) -> None:
        """:meth:`catch_up`, the lock held."""
        if self.evicted or (news is not None and self.has(news)):
            return
        have = len(self.stored.actions)
        moves: list[tuple[int, dict[str, Any]]] = []
        expired = None
        hints = self.hints_used
        if news is not None and news.moves and news.plies == have + len(news.moves):
            moves = list(news.moves)
        else:
            try:
                moves, expired, hints = await self.storage.run(
                    self.storage.moves_since, self.id, have
                )
            except StorageError:
                log.exception("game %s: cannot read the moves made elsewhere", self.id)
                return
        if not self.broken:
            try:
                replay_onto(self.game, _decoded(moves))
            except ReplayError as exc:
                self.stored.actions.extend(moves[: exc.ply - 1 - have])
                self._break(exc)
                self.game = self._rebuild()
            else:
                self.stored.actions.extend(moves)
        if expired and not self.expired:
            self.expired = expired
            self.stop()
        hints_changed = hints != self.hints_used
        self.hints_used = hints
        if moves or expired or hints_changed:
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

    async def hint(self, principal: Principal, ply: int) -> dict[str, Any]:
        """The hint bot's best moves for the principal's seat to move (``hint`` message).

        Computed once per ply in a worker (asking again in the same ply costs nothing), from
        what that seat knows only: the expert searches worlds re-dealt for it.  In a game with
        several human seats, a used hint is announced to everyone (``hints_used`` in the
        state): the others may want to know.  It is stored before it is given, as moves are: a
        hint the server could not keep is not given (``server``), so none goes unannounced,
        not even across a restart.

        A game has one hint computed at a time: asked for a later ply while the worker still
        thinks about an earlier one (the player moved on meanwhile), the room answers ``busy``
        rather than queue a second, so a client flooding hints costs the hint workers one
        hint per game at a time (the whole server's are bounded by
        :data:`.botworker.MAX_HINTS_PENDING`, and each client's by a rate limit).
        """
        self._check_turn(principal, ply)
        seat = self.game.to_move
        task = self._hints.get(ply)
        if task is None:
            if any(not earlier.done() for earlier in self._hints.values()):
                raise ProtocolError.of("hint_earlier_busy")
            self._hints.clear()  # hints of earlier plies are of no use any more
            task = self._hints[ply] = asyncio.ensure_future(
                botworker.hints(
                    HINT_BOT,
                    self.bot_seed(seat, ply),
                    self.options,
                    list(self.game.history),
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
        if self._several_humans and (seat, ply) not in self.hints_used:
            try:
                await self.storage.run(self.storage.record_hint, self.id, ply, seat)
            except StorageError:
                log.exception("game %s: cannot store a hint used", self.id)
                raise ProtocolError.of("hint_not_saved") from None
            if (seat, ply) not in self.hints_used:  # another request for it may have come first
                self.hints_used = sorted([*self.hints_used, (seat, ply)], key=lambda h: h[1])
                self.broadcast()
        return {
            "type": "hint",
            "ply": ply,
            "seat": seat,
            "moves": [
                {"action": action_to_json(a), "expected_points": round(points, 1)}
                for a, points in moves
            ],
        }

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

    def _bot_to_move(self) -> bool:
        return self.live and not self.evicted and self.game.to_move in self.bots

    def kick_bots(self) -> None:
        """Start the bot loop if a bot is to move (no-op when not on an event loop); the loop
        ends at once if another process holds the lease on this game's bots: that one plays
        them.  The lease is taken right after the commit that made a bot's turn, so that no
        process dies between the two unnoticed (a game with a bot to move and no lease is
        taken over)."""
        if not self._bot_to_move():
            return
        if self._bot_task is not None and not self._bot_task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._bot_task = loop.create_task(self._run_bots())

    async def _take_bot_lease(self) -> bool:
        """Hold (or renew) the lease on this game's bots; False if another process holds it."""
        return await self.storage.run(
            self.storage.take_bot_lease, self.id, self.owner, time.time() + BOT_LEASE_SECONDS
        )

    def bot_seed(self, seat: int, ply: int) -> int:
        """The seed of the decision at ``ply`` by the bot of ``seat``: fixed by the game, so
        its bots play the same after a restart (each decision is made by a fresh bot)."""
        return ((self.options.seed or 0) * 1_000_003 + seat * 10_007 + ply) % MAX_SEED

    async def _run_bots(self) -> None:
        """Every bot move of this room happens here: wait, have a worker choose, apply, commit,
        while a bot is to move.  The choice is made in a worker process (:mod:`.botworker`), so
        the event loop serves the other games meanwhile.  A move that cannot be stored, or a
        worker that died or timed out, is tried again later, waiting twice as long each time
        (up to :data:`MAX_STORE_RETRY` seconds), so the bots go on by themselves once the
        database accepts writes again."""
        try:
            if not await self._take_bot_lease():
                return
        except StorageError as exc:
            log.warning("game %s: cannot take the bot lease (%s); trying again", self.id, exc)
        delay = self.bot_delay
        while True:
            await asyncio.sleep(delay)
            if not self._bot_to_move():
                await self._release_bots()
                return
            try:
                leased = await self._take_bot_lease()
            except StorageError as exc:
                log.warning("game %s: cannot renew the bot lease (%s); trying again", self.id, exc)
                delay = min(max(2 * delay, STORE_RETRY), MAX_STORE_RETRY)
                continue
            if not leased:
                return  # another process took the bots over (this one was thought dead)
            seat = self.game.to_move
            first_ply = len(self.game.history)
            spec = self.bots[seat]
            try:
                action = await botworker.decide(
                    spec,
                    self.bot_seed(seat, first_ply),
                    self.options,
                    list(self.game.history),
                    think_time(spec),
                )
            except botworker.BotWorkerError as exc:
                log.warning("game %s: seat %d's bot: %s; trying again", self.id, seat, exc)
                delay = min(max(2 * delay, STORE_RETRY), MAX_STORE_RETRY)
                continue
            except Exception:
                # A bot bug must not take the server down; the game stops where it was.
                log.exception("game %s: the bot of seat %d failed", self.id, seat)
                self.broken = f"the bot of seat {seat + 1} failed"
                self.broadcast()
                return
            async with self._lock:
                if not self._bot_to_move() or len(self.game.history) != first_ply:
                    continue  # the room changed while the worker thought (reloaded, stopped)
                trial = self._trial()
                try:
                    trial.apply(action)
                except Exception:
                    log.exception("game %s: the bot of seat %d chose %r", self.id, seat, action)
                    self.game = self._rebuild()
                    self.broken = f"the bot of seat {seat + 1} failed"
                    self.broadcast()
                    return
                try:
                    await self._commit(trial, first_ply, [(seat, action_to_json(action))])
                except ProtocolError as exc:
                    if exc.code != "stale":  # stale: the ply was played elsewhere; go on from it
                        delay = min(max(2 * delay, STORE_RETRY), MAX_STORE_RETRY)
                else:
                    delay = self.bot_delay

    async def _release_bots(self) -> None:
        """No bot is to move: let go of the lease (it runs out anyway if this fails)."""
        try:
            await self.storage.run(self.storage.release_bot_lease, self.owner, self.id)
        except StorageError as exc:
            log.warning("game %s: cannot release the bot lease (%s)", self.id, exc)

    def stop(self) -> None:
        if self._bot_task is not None:
            self._bot_task.cancel()
            self._bot_task = None


def _decoded(stored: Iterable[tuple[int, dict[str, Any]]]) -> Iterator[Move]:
    """Stored moves as the engine's, decoded as they are replayed (so that one that does not
    decode fails its own ply)."""
    return ((seat, action_from_json(data)) for seat, data in stored)


def _public_reason(exc: Exception) -> str:
    """Why stored data failed, for every player of the game: the engine's and the readers' own
    messages name only public things (an action, a seat); any other exception is named by its
    type alone, as its text could quote the seed or the stack (the log has it all)."""
    if isinstance(exc, IllegalAction | ActionFormatError | GameLoadError):
        return str(exc)
    return f"{type(exc).__name__} (details in the server log)"


def _checked_seats(seats: Any, players: int) -> list[dict[str, Any]]:
    """Stored seats, checked for what the server reads from them."""
    if not isinstance(seats, list) or len(seats) != players:
        raise GameLoadError(f"the stored seats are not a list of {players}")
    for i, seat in enumerate(seats):
        if not (
            isinstance(seat, dict)
            and seat.get("kind") in ("human", "bot")
            and isinstance(seat.get("name"), str)
            and isinstance(seat.get("digest"), str | None)
        ):
            raise GameLoadError(f"stored seat {i + 1} is malformed")
        if seat["kind"] == "bot":
            try:
                check_bot_spec(str(seat.get("bot")))
            except ValueError as exc:
                raise GameLoadError(f"stored seat {i + 1} has no usable bot: {exc}") from None
    return seats


def board_info(game: Game) -> dict[str, Any]:
    """The playing area: the open table, or a map's squares, large cities, towns, starts."""
    geometry = game.geometry
    info: dict[str, Any] = {"name": geometry.name, "bounded": geometry.squares is not None}
    if geometry.squares is not None:
        info["squares"] = sorted(decode(p) for p in geometry.squares)
    info["printed"] = [
        {"x": p.x, "y": p.y, "name": p.name, "open": [EDGE_NAMES[e] for e in p.open_edges]}
        for p in geometry.printed
    ]
    game_map = game.map
    if game_map is not None:
        info["title"] = game_map.title
        info["approximate"] = game_map.approximate
        info["width"], info["height"] = game_map.width, game_map.height
        if game_map.geography is not None:
            info["geography"] = game_map.geography.for_board()
        info["towns"] = [
            {"x": x, "y": y, "name": town.name, "grape": town.grape}
            for pos, town in sorted(game_map.towns.items())
            for x, y in (decode(pos),)
        ]
        used = set(getattr(game, "used_start_squares", ()))
        info["start_squares"] = [
            {"name": name, "x": x, "y": y, "used": name in used}
            for name, pos in game_map.start_squares.items()
            for x, y in (decode(pos),)
        ]
    return info


#: default cap on unfinished games per server (each may be held in memory)
MAX_LIVE_GAMES = 1000
#: default cap on unfinished games created from one address
MAX_GAMES_PER_ADDRESS = 20
#: default seconds without a move after which an unfinished game expires (7 days)
EXPIRE_AFTER = 7 * 24 * 3600.0
#: default seconds after which a game nobody took up expires (no person moved in it, nobody
#: but its creator opened a seat): what a flood of games costs the server, and newcomers
UNCLAIMED_EXPIRE_AFTER = 15 * 60.0
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
        max_idle_rooms: int = MAX_IDLE_ROOMS,
        clock: Callable[[], float] = time.time,
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
        self.max_idle_rooms = max_idle_rooms
        #: seconds since the epoch (tests pass their own)
        self.clock = clock
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
        self, seats: list[dict[str, Any]], options: Any, hotseat: bool, creator: str = ""
    ) -> tuple[Room, dict[str, Any]]:
        """Create and store a game for the client ``creator`` (its address group: see
        :func:`.app.client_key`); returns the room and the secret links (shown once)."""
        seed_chosen = options.seed is not None
        if not seed_chosen:
            options = options.with_(seed=secrets.randbelow(MAX_SEED))
        try:
            first = Game(options)  # the engine judges the options before anything is stored
        except (GameSetupError, KeyError, ValueError) as exc:
            raise ProtocolError.of("bad_options", detail=str(exc)) from None
        for seat in seats:
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
        except StorageError:
            log.exception("cannot count the unfinished games")
            raise ProtocolError.of("cannot_create_now") from None
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
        bot_first = stored_seats[first.to_move]["kind"] == "bot"
        # An id taken already (one chance in 2**48) is refused by the database: draw another.
        for attempt in range(ID_ATTEMPTS):
            game_id = secrets.token_urlsafe(6)
            try:
                await self.storage.run(
                    self.storage.create_game,
                    game_id,
                    options_to_json(options, seed_chosen),
                    stored_seats,
                    hotseat_digest,
                    creator_id,
                    bot_turn=bot_first,
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
        secrets_out = {
            "id": game_id,
            "seats": [{"seat": i, "token": t} for i, t in sorted(tokens.items())],
            "hotseat_token": hotseat_token,
        }
        room.kick_bots()
        return room, secrets_out

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
                room = Room(stored, self.storage, self.bot_delay, self.owner)
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
        or not: only its creator ever came)."""
        if self.expire_unclaimed_after is not None:
            unclaimed = await self.storage.run(
                self.storage.idle_since, self.clock() - self.expire_unclaimed_after, True
            )
            if unclaimed:
                minutes = self.expire_unclaimed_after / 60
                await self._expire(
                    unclaimed, f"it expired: nobody joined it or moved for {minutes:g} minutes"
                )
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
        its own (a room busy storing a move makes the news of the others wait for nothing)."""
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
