"""Live games on the server: who may act for which seat, applying actions, bots, broadcasting.

A :class:`Room` wraps one engine :class:`~carcassonne.game.Game`.  The engine is the single
source of truth: every action, from a browser, the HTTP API or a bot, goes through
:meth:`Room.submit`, which checks who is acting, lets ``game.apply`` judge legality, commits the
action to SQLite and only then tells the connected clients.  Everything runs on the server's one
event loop and the path from ``apply`` to the commit never awaits, so two actions can never
interleave.

Each client gets only ``game.view(seat)`` for the seat it holds (``None`` for spectators) plus
public events, so hidden information (other seats' bets, face-down map chips, the stack order)
never leaves the engine's own filtering.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from ..board import decode
from ..bots import BOT_NAMES, Bot, make_bot
from ..formats.actions import ActionFormatError, action_from_json, action_to_json
from ..game import Game, GameSetupError, GameSummary, IllegalAction
from .protocol import (
    MAX_SEED,
    ProtocolError,
    options_from_json,
    options_to_json,
    public_event,
    public_options,
)
from .storage import Storage, StorageError, StoredGame, token_digest

log = logging.getLogger("carcassonne.web")

SEAT_COLOURS = ("blue", "yellow", "green", "pink", "red", "black")
EDGE_NAMES = ("N", "E", "S", "W")
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


#: messages waiting for one slow client before the server gives up on it
MAX_QUEUED = 200
#: messages one client may send per second before it is told to slow down
MAX_RATE = 100


@dataclass(eq=False)
class Connection:
    """One websocket client; messages are queued so that every client sees them in order.

    A client that stops reading is cut off once :data:`MAX_QUEUED` messages wait for it, so one
    stuck browser cannot make the server hold ever more memory.
    """

    principal: Principal
    queue: asyncio.Queue[dict[str, Any] | None] = field(default_factory=asyncio.Queue)
    events_sent: int = 0
    overflowed: bool = False
    _window: list[float] = field(default_factory=list)

    def push(self, message: dict[str, Any] | None) -> None:
        if self.overflowed:
            return
        if message is not None and self.queue.qsize() >= MAX_QUEUED:
            self.overflowed = True
            message = None
        self.queue.put_nowait(message)

    def allow(self, now: float) -> bool:
        """Rate limit: whether another incoming message is accepted at time ``now``."""
        window = [t for t in self._window if now - t < 1.0]
        self._window = window
        if len(window) >= MAX_RATE:
            return False
        window.append(now)
        return True


def _new_token() -> str:
    return secrets.token_urlsafe(18)


class Room:
    """One game being played (or finished) on this server."""

    def __init__(self, stored: StoredGame, storage: Storage, bot_delay: float) -> None:
        """Rebuild a stored game; raises :class:`GameLoadError` if it cannot be set up."""
        self.id = stored.id
        self.stored = stored
        self.storage = storage
        self.bot_delay = bot_delay
        self.conns: set[Connection] = set()
        self.bots: dict[int, Bot] = {}
        self._bot_task: asyncio.Task[None] | None = None
        #: set when stored actions no longer replay (an engine change, a damaged database):
        #: the game is frozen, shown as it was before that action
        self.broken: str | None = None
        # Stored data may come from an older version or a damaged file and can fail in any
        # way; one such game must not stop the server from starting or serving the others.
        try:
            self.options = options_from_json(stored.options)
            #: whether the creator chose the seed, and so could know the draw order
            self.seed_chosen = bool(stored.options.get("seed_chosen", False))
            self.seats = _checked_seats(stored.seats, self.options.players)
            seed = self.options.seed or 0
            for i, seat in enumerate(self.seats):
                if seat["kind"] == "bot":
                    self.bots[i] = make_bot(seat["bot"], (seed * 31 + i) % MAX_SEED)
            self.game = self._rebuild()
        except Exception as exc:
            log.exception("game %s: cannot set it up again", self.id)
            raise GameLoadError(
                f"this game's stored setup no longer works: {_public_reason(exc)}"
            ) from None

    # -------------------------------------------------------------------- building

    def _rebuild(self) -> Game:
        """The game from its options and stored actions: how every game survives a restart."""
        game = Game(self.options)
        for ply, (seat, data) in enumerate(self.stored.actions):
            try:
                if game.to_move != seat:
                    raise IllegalAction(f"stored seat {seat} but seat {game.to_move} is to move")
                game.apply(action_from_json(data))
            except Exception as exc:
                self.broken = f"stored action {ply + 1} no longer replays: {_public_reason(exc)}"
                log.error("game %s: %s (%r)", self.id, self.broken, exc)
                # The failed action may have half-changed the game: replay up to just before it.
                game = Game(self.options)
                for _, earlier in self.stored.actions[:ply]:
                    game.apply(action_from_json(earlier))
                return game
        if self.stored.damaged:
            self.broken = self.stored.damaged
            log.error("game %s: %s", self.id, self.broken)
        return game

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
        raise ProtocolError("this link's token does not belong to this game", "unauthorised")

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

    # -------------------------------------------------------------------- messages

    def public_info(self) -> dict[str, Any]:
        """What anyone with the game's link may know about its setup."""
        online = self._online()
        return {
            "id": self.id,
            "seats": [
                {
                    "seat": i,
                    "name": s["name"],
                    "kind": s["kind"],
                    "bot": s["bot"],
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
        seats: set[int] = set()
        for conn in self.conns:
            seats |= conn.principal.seats
        seats.update(self.bots)
        return seats

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

    def state(self, principal: Principal, events_from: int = 0) -> dict[str, Any]:
        game = self.game
        seat = self.perspective(principal)
        view = game.view(seat)
        if seat is not None and seat == game.to_move and not game.is_over and not self.broken:
            view["legal_actions"] = [action_to_json(a) for a in game.legal_actions()]
        message: dict[str, Any] = {
            "type": "state",
            "ply": len(game.history),
            "perspective": seat,
            "view": view,
            "events_from": events_from,
            "events": [public_event(e) for e in game.events[events_from:]],
            "online": sorted(self._online()),
            "broken": self.broken,
        }
        if game.is_over:
            summary = GameSummary.of(game)
            message["summary"] = {
                "scores": summary.scores,
                "by_source": summary.by_source,
                "winners": game.winners(),
            }
        return message

    def push_state(self, conn: Connection) -> None:
        conn.push(self.state(conn.principal, conn.events_sent))
        conn.events_sent = len(self.game.events)

    def broadcast(self) -> None:
        for conn in self.conns:
            self.push_state(conn)

    # -------------------------------------------------------------------- actions

    def _check_turn(self, principal: Principal, ply: int | None) -> None:
        game = self.game
        if self.broken:
            raise ProtocolError(self.broken, "broken")
        if game.is_over:
            raise ProtocolError("the game is over", "game-over")
        if ply is not None and ply != len(game.history):
            raise ProtocolError(
                f"the game has moved on (ply {len(game.history)}, you sent {ply})", "stale"
            )
        if principal.spectator:
            raise ProtocolError("spectators cannot act", "unauthorised")
        if game.to_move not in principal.seats:
            raise ProtocolError(f"it is seat {game.to_move + 1}'s move, not yours", "not-your-turn")

    def submit(self, principal: Principal, actions: list[Any], ply: int | None = None) -> None:
        """Apply ``actions`` in order for the principal, all or none; commit; broadcast.

        Raises :class:`ProtocolError` (game unchanged) if any action is not the principal's to
        make or the engine refuses it.
        """
        self._check_turn(principal, ply)
        game = self.game
        first_ply = len(game.history)
        done: list[tuple[int, dict[str, Any]]] = []
        try:
            for action in actions:
                if game.is_over:
                    raise ProtocolError("the game ended before this action", "game-over")
                seat = game.to_move
                if seat not in principal.seats:
                    raise ProtocolError(
                        f"action {len(done) + 1}: it is seat {seat + 1}'s move, not yours",
                        "not-your-turn",
                    )
                try:
                    game.apply(action)
                except IllegalAction as exc:
                    raise ProtocolError(f"action {len(done) + 1}: {exc}", "illegal") from None
                except Exception:
                    log.exception("game %s: the engine failed on %r", self.id, action)
                    raise ProtocolError(
                        f"action {len(done) + 1}: the server failed on it", "server"
                    ) from None
                done.append((seat, action_to_json(action)))
        except ProtocolError as exc:
            if done or exc.code == "server":
                # The engine leaves the game unchanged only for a refused action; the earlier
                # ones of the batch, or an action the engine failed on halfway, are undone by
                # rebuilding from what is stored.
                self.game = self._rebuild()
            raise
        self._commit(first_ply, done)

    def _commit(self, first_ply: int, done: list[tuple[int, dict[str, Any]]]) -> None:
        try:
            self.storage.append_actions(self.id, first_ply, done, self.game.is_over)
        except Exception:
            log.exception("game %s: cannot store actions; undoing them", self.id)
            self.game = self._rebuild()
            raise ProtocolError(
                "the server could not save this move; try again", "server"
            ) from None
        self.stored.actions.extend(done)
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
            raise ProtocolError("a preview is only for placing a tile", "bad-message")
        trial = self.game.copy()
        try:
            trial.apply(action)
        except IllegalAction as exc:
            raise ProtocolError(str(exc), "illegal") from None
        except Exception:
            log.exception("game %s: the engine failed on the preview of %r", self.id, action)
            raise ProtocolError("the server failed on this preview", "server") from None
        if trial.phase != "figure":
            return []
        return [action_to_json(a) for a in trial.legal_actions()]

    # -------------------------------------------------------------------- bots

    def kick_bots(self) -> None:
        """Start the bot loop if a bot is to move (no-op when not on an event loop)."""
        game = self.game
        if self.broken or game.is_over or game.to_move not in self.bots:
            return
        if self._bot_task is not None and not self._bot_task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._bot_task = loop.create_task(self._run_bots())

    async def _run_bots(self) -> None:
        while True:
            await asyncio.sleep(self.bot_delay)
            game = self.game
            if self.broken or game.is_over or game.to_move not in self.bots:
                return
            seat = game.to_move
            first_ply = len(game.history)
            try:
                action = self.bots[seat].choose(game)
                game.apply(action)
            except Exception:
                # A bot bug must not take the server down; the game stops where it was.
                log.exception("game %s: the bot of seat %d failed", self.id, seat)
                self.game = self._rebuild()
                self.broken = f"the bot of seat {seat + 1} failed"
                self.broadcast()
                return
            try:
                self._commit(first_ply, [(seat, action_to_json(action))])
            except ProtocolError:
                return

    def stop(self) -> None:
        if self._bot_task is not None:
            self._bot_task.cancel()
            self._bot_task = None


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
        if seat["kind"] == "bot" and seat.get("bot") not in BOT_NAMES:
            raise GameLoadError(f"stored seat {i + 1} has an unknown bot {seat.get('bot')!r}")
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


#: default cap on unfinished games per server (each holds its engine state in memory)
MAX_LIVE_GAMES = 1000


class GameServer:
    """All rooms of one server: creation, lazy loading from storage, resuming after restart."""

    def __init__(
        self, storage: Storage, bot_delay: float = 0.5, max_live_games: int = MAX_LIVE_GAMES
    ) -> None:
        self.storage = storage
        self.bot_delay = bot_delay
        #: unfinished games held in memory at once; creating one more is refused
        self.max_live_games = max_live_games
        self.rooms: dict[str, Room] = {}
        #: stored games that cannot be set up again -> why (answered as "broken")
        self.unloadable: dict[str, str] = {}

    def create(
        self, seats: list[dict[str, Any]], options: Any, hotseat: bool
    ) -> tuple[Room, dict[str, Any]]:
        """Create and store a game; returns the room and the secret links (shown once)."""
        live = sum(1 for room in self.rooms.values() if not (room.game.is_over or room.broken))
        if live >= self.max_live_games:
            raise ProtocolError(
                f"this server already runs {live} unfinished games, its limit; "
                "try again when some have ended",
                "too-many-games",
            )
        seed_chosen = options.seed is not None
        if not seed_chosen:
            options = options.with_(seed=secrets.randbelow(MAX_SEED))
        try:
            Game(options)  # the engine judges the options before anything is stored
        except (GameSetupError, KeyError, ValueError, OSError) as exc:
            raise ProtocolError(f"cannot set up this game: {exc}", "bad-options") from None
        for seat in seats:
            if seat["kind"] == "bot":
                try:
                    make_bot(seat["bot"], 0)
                except (ImportError, ValueError) as exc:
                    raise ProtocolError(
                        f"the {seat['bot']} bot is not available: {exc}", "bad-options"
                    ) from None
        game_id = secrets.token_urlsafe(6)
        while self.storage.load_game(game_id) is not None:
            game_id = secrets.token_urlsafe(6)
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
        self.storage.create_game(
            game_id, options_to_json(options, seed_chosen), stored_seats, hotseat_digest
        )
        room = self.get(game_id)
        assert room is not None
        secrets_out = {
            "id": game_id,
            "seats": [{"seat": i, "token": t} for i, t in sorted(tokens.items())],
            "hotseat_token": hotseat_token,
        }
        room.kick_bots()
        return room, secrets_out

    def get(self, game_id: str) -> Room | None:
        """The live game ``game_id`` (loaded from storage if need be); None if there is none.

        Raises :class:`ProtocolError` ("broken", with the reason) for a stored game that can no
        longer be set up.
        """
        room = self.rooms.get(game_id)
        if room is not None:
            return room
        if not GAME_ID.fullmatch(game_id):
            return None
        reason = self.unloadable.get(game_id)
        if reason is None:
            try:
                stored = self.storage.load_game(game_id)
                if stored is None:
                    return None
                room = self.rooms[game_id] = Room(stored, self.storage, self.bot_delay)
                return room
            except (StorageError, GameLoadError) as exc:
                reason = self.unloadable[game_id] = str(exc)
                log.error("game %s: %s", game_id, reason)
        raise ProtocolError(reason, "broken")

    def resume(self) -> None:
        """After a start: load unfinished games so that their bots move on (a game that cannot
        be loaded is logged and left out)."""
        for game_id in self.storage.unfinished_game_ids():
            try:
                room = self.get(game_id)
            except ProtocolError:
                continue
            if room is not None:
                room.kick_bots()

    def release(self, room: Room) -> None:
        """Drop a finished game nobody watches from memory (it stays in the database)."""
        if not room.conns and (room.game.is_over or room.broken):
            room.stop()
            self.rooms.pop(room.id, None)

    def stop(self) -> None:
        for room in self.rooms.values():
            room.stop()
