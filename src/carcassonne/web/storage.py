"""Persistence of web games: the options, the seats and the list of accepted actions.

A game is fully determined by its options (with a concrete seed) and its actions, so that is all
that is stored; after a restart the server rebuilds each game by replaying the actions through the
engine.  Every accepted action is committed in its own transaction *before* any client hears of
it, so a client never sees a move the database could lose.  The primary key (game, ply) lets one
ply be written once only: when several server processes share the database, the one that comes
second gets :class:`StorageConflict` and tells its player the game has moved on.

Two backends keep the same contract: an SQLite file (:class:`SqliteStorage`, the embedded default
for one server process) and PostgreSQL (:class:`~.pgstorage.PostgresStorage`, for several
processes on one or many machines).  Both speak the SQL below, written with ``?`` placeholders;
:func:`.database.open_storage` picks one from ``--db``.

Seat tokens are stored as SHA-256 digests: the links are handed out once, at creation, and a
leaked database does not let anyone act for a seat.  Likewise a game's creator is kept only as a
digest of its address, enough to count the unfinished games of each address.

The methods are synchronous; the server calls them through :meth:`Storage.run`.  PostgreSQL's
run in a few threads of the storage's own (one per pooled connection), so that the event loop
serves every other socket while a commit makes its round trip and waits for the disk, and a
burst of moves queues for the threads instead of opening ever more connections.  SQLite's run
at once on the caller's thread: they take tens of microseconds, plus a flush of the log per
commit (0.2-4 ms on the project's machine), during which the whole server waits.  Measured
side by side (``benchmarks/README.md``, 20 rounds of 50 games), a writer thread committing the
calls that queued during a flush together (one flush for several moves) made the server no
faster: 0.90 times the moves per second at the median; up to 4 times as many in the rounds
where the shared disk flushed slowly (5 of those 7), but 0.87 times in the 13 others (where
the hand-offs between threads seem to cost more than the flushes); a plain thread (one flush
per move) was no faster either.  Both backends flush every commit to the disk before it
returns, so that a move a player was told of survives a power failure.

The tables, what each column holds and the migrations from older schemas: :mod:`.schema`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ParamSpec, Protocol, TypeVar

from .chat import ChatLine
from .schema import (
    EXPIRED,
    FINISHED,
    UNFINISHED,
)

log = logging.getLogger("carcassonne.web")


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/carcassonne/games.sqlite3`` (``~/.local/share`` when unset)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "carcassonne" / "games.sqlite3"


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def creator_digest(address: str) -> str:
    """How a creator's address is kept: enough to tell addresses apart, not to read them."""
    return hashlib.sha256(b"carcassonne-creator:" + address.encode("utf-8")).hexdigest()[:32]


@dataclass
class StoredGame:
    id: str
    created: float
    options: dict[str, Any]
    #: per seat: {"kind": "human"|"bot", "bot": name|None, "name": str, "digest": str|None}
    seats: list[dict[str, Any]]
    hotseat_digest: str | None
    finished: bool
    #: accepted actions in order, as (seat, action JSON)
    actions: list[tuple[int, dict[str, Any]]]
    #: why the stored actions stop early (a row that is not JSON); None when all were read
    damaged: str | None = None
    #: why the game was ended unfinished; None unless it expired
    expired: str | None = None
    #: (seat, ply) of every hint used, by ply
    hints: list[tuple[int, int]] = field(default_factory=list)
    #: :func:`creator_digest` of its creator's address group
    creator: str = ""
    #: whether the game was taken up: a person moved, or someone but its creator opened a seat
    claimed: bool = False
    #: when each action was stored (milliseconds since the epoch; 0 before schema 6), by ply
    times: list[int] = field(default_factory=list)
    #: the seat changes in order, as SeatChange JSON (``{"ply", "seat", "change", "at_ms"}``)
    changes: list[dict[str, Any]] = field(default_factory=list)
    #: the chat lines of both chats, in order
    chat: list[ChatLine] = field(default_factory=list)
    #: the id of the game "Play again" made from this one (:mod:`.rematch`), once made
    rematch: str | None = None


@dataclass
class Since:
    """What :meth:`Storage.moves_since` reads: what other processes stored of a game."""

    #: the actions stored from the ply asked for on, as (seat, action JSON), and their times
    moves: list[tuple[int, dict[str, Any]]]
    times: list[int]
    #: why the game expired (None unless it did)
    expired: str | None
    #: every hint used, and every seat change (as :attr:`StoredGame.changes`)
    hints: list[tuple[int, int]]
    changes: list[dict[str, Any]]
    #: the seats as stored (an open seat taken elsewhere: :mod:`.opentablesdb`)
    seats: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class News:
    """What another server process changed in a game (see :meth:`Storage.moves_elsewhere`)."""

    game_id: str
    #: its number of stored actions after the change; None when it changed otherwise (it
    #: expired, a hint was used): the game is read from the database
    plies: int | None = None
    #: the actions added (the last of those plies), as (seat, action JSON); empty when they were
    #: too long to be sent along (they are read from the database then)
    moves: tuple[tuple[int, dict[str, Any]], ...] = ()
    #: when each of ``moves`` was stored (milliseconds since the epoch), if told
    times: tuple[int, ...] = ()
    #: the number of chat lines the game holds after a line was added (None: not a chat line)
    chat: int | None = None
    #: the game "Play again" made from this one and the seat that asked (None: not a rematch)
    rematch: tuple[str, int] | None = None


class StorageError(RuntimeError):
    """The database cannot be opened, read or written, or is not a games database we know."""


class StorageConflict(StorageError):
    """A write collided with one already stored: another server process stored this ply (or
    created this game id) first."""


class RematchTaken(Exception):
    """A finished game's "Play again" was made already (by another request, perhaps in
    another process): ``game_id`` is the game it made."""

    def __init__(self, game_id: str) -> None:
        super().__init__(game_id)
        self.game_id = game_id


class _TrialWriteDone(Exception):
    """Ends the trial write of :meth:`Storage._check_writable`, undoing it."""


class Statements(Protocol):
    """What a transaction offers: statements with ``?`` placeholders."""

    def execute(self, sql: str, params: Sequence[Any] = ...) -> Any: ...

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Any: ...


def _decode_actions(
    rows: list[Any],
) -> tuple[list[tuple[int, dict[str, Any]]], list[int], str | None]:
    """Stored (seat, action, at_ms) rows decoded, with their times; the first row that is not
    JSON ends them, and is named (counted from 1 in the rows given)."""
    decoded: list[tuple[int, dict[str, Any]]] = []
    times: list[int] = []
    for ply, (seat, action, at_ms) in enumerate(rows):
        try:
            decoded.append((seat, json.loads(action)))
        except (TypeError, ValueError):
            return decoded, times, f"stored action {ply + 1} is not JSON"
        times.append(int(at_ms))
    return decoded, times, None


def now_ms() -> int:
    """The wall clock in whole milliseconds since the epoch (the times of actions and seat
    changes, and of the clocks computed from them)."""
    return time.time_ns() // 1_000_000


P = ParamSpec("P")
T = TypeVar("T")


class Storage:
    """The storage contract, in SQL both backends run; a backend supplies transactions, reads
    and, if other processes share its database, news of their moves (:meth:`moves_elsewhere`).
    """

    #: the database as it may be shown (a URL without its password)
    name: str
    #: whether other server processes may use the same database (moves arrive from elsewhere)
    shared = False
    #: calls running at once in threads of the storage (:meth:`run`): more would only wait for
    #: the database; 0: each call runs at once on the caller's thread
    threads = 0
    _executor: ThreadPoolExecutor | None = None

    async def run(self, call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``call(*args)``, a method of this storage, in one of its :attr:`threads`: the event
        loop goes on serving meanwhile, and calls beyond them wait their turn in order."""
        if not self.threads:
            return call(*args, **kwargs)
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self.threads, thread_name_prefix="storage")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, functools.partial(call, *args, **kwargs))

    def _stop_threads(self) -> None:
        """For :meth:`close`: the calls under way end first."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None

    def _transaction(self, what: str) -> contextlib.AbstractContextManager[Statements]:
        """One write, all or nothing; a failure is a :class:`StorageError` naming ``what``
        could not be stored (:class:`StorageConflict` for a row stored already)."""
        raise NotImplementedError

    def _rows(self, sql: str, *params: Any) -> list[Any]:
        """The rows of a query; a failure to read is a :class:`StorageError`."""
        raise NotImplementedError

    def _announce(self, db: Statements, game_id: str) -> None:
        """Within a transaction that changes a game otherwise than by moves (expiry, a hint
        used): tell the other processes (on commit) to read it again."""

    def _announce_chat(self, db: Statements, game_id: str, lines: int) -> None:
        """Within the transaction adding a chat line: tell the other processes (on commit) that
        the game now holds ``lines`` lines."""

    def _announce_rematch(self, db: Statements, game_id: str, rematch: tuple[str, int]) -> None:
        """Within the transaction creating the game "Play again" made from ``game_id``: tell
        the other processes (on commit) its id and the seat that asked."""

    async def moves_elsewhere(self) -> AsyncIterator[News | None]:
        """:class:`News` of every game another process changed (this one's own changes may
        come too); None when news may have been missed (every game in memory must be read
        again).  Ends at once for a database no other process uses."""
        return
        yield  # an async generator that yields nothing

    def close(self) -> None:
        raise NotImplementedError

    def _check_writable(self) -> None:
        """Refuse (:class:`StorageError`) a database this process cannot write: a read-only
        file, folder or mount, a PostgreSQL user without the right or a standby. It would
        start, serve every game and fail every move; so a write is tried, then undone."""
        try:
            with self._transaction("anything") as db:
                db.execute("UPDATE meta SET value = value WHERE key = 'schema'")
                raise _TrialWriteDone
        except _TrialWriteDone:
            return
        except StorageError as exc:
            raise StorageError(
                f"{self.name}: the games database cannot be written ({exc}); give the server "
                "a database it may write"
            ) from None

    # ------------------------------------------------------------------------ games

    def create_game(
        self,
        game_id: str,
        options: dict[str, Any],
        seats: list[dict[str, Any]],
        hotseat_digest: str | None,
        creator: str = "",
        bot_turn: bool = False,
        rematch_of: tuple[str, int] | None = None,
        listed: bool = False,
    ) -> None:
        """Store a new game; ``creator`` is :func:`creator_digest` of its creator's address,
        ``bot_turn`` whether a bot makes the first move, ``listed`` whether the table is on the
        open tables' list (its seats of kind ``open`` are counted: :mod:`.opentablesdb`).
        ``rematch_of`` (a finished game's id, the seat asking): the game is that one's "Play
        again", kept with it in the same transaction only if it has none yet, else
        :class:`RematchTaken` names the one it has (a second asker, in any process, waits for
        the first's row lock and then sees it)."""
        now = time.time()
        with self._transaction(f"game {game_id}") as db:
            if rematch_of is not None:
                old_id, _ = rematch_of
                kept = db.execute(
                    "UPDATE games SET rematch=? WHERE id=? AND finished=? AND rematch IS NULL",
                    (game_id, old_id, FINISHED),
                )
                if kept.rowcount != 1:
                    raise RematchTaken(self._rematch_in(db, old_id))
                self._announce_rematch(db, old_id, (game_id, rematch_of[1]))
            db.execute(
                "INSERT INTO games (id, created, options, seats, hotseat_digest, updated, creator, "
                "bot_turn, listed, open_seats) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    now,
                    json.dumps(options),
                    json.dumps(seats),
                    hotseat_digest,
                    now,
                    creator,
                    int(bot_turn),
                    int(listed),
                    sum(1 for seat in seats if seat["kind"] == "open"),
                ),
            )

    def append_actions(
        self,
        game_id: str,
        first_ply: int,
        actions: list[tuple[int, dict[str, Any]]],
        over: bool,
        bot_turn: bool = False,
        at_ms: int | None = None,
    ) -> None:
        """Commit actions ``first_ply, first_ply+1, …`` atomically (all or none), made at
        ``at_ms`` (default: now); :class:`StorageConflict` if one of these plies is stored
        already.  ``bot_turn``: the game needs a process to tend it (see the module)."""
        at = now_ms() if at_ms is None else at_ms
        with self._transaction(f"the moves of game {game_id}") as db:
            db.executemany(
                "INSERT INTO actions (game_id, ply, seat, action, at_ms) VALUES (?, ?, ?, ?, ?)",
                [
                    (game_id, first_ply + i, seat, json.dumps(action), at)
                    for i, (seat, action) in enumerate(actions)
                ],
            )
            db.execute(
                "UPDATE games SET updated=?, finished=?, bot_turn=? WHERE id=?",
                (
                    time.time(),
                    FINISHED if over else UNFINISHED,
                    int(bot_turn and not over),
                    game_id,
                ),
            )

    def add_seat_change(self, game_id: str, change: dict[str, Any], bot_turn: bool) -> None:
        """Store a seat change (``{"ply", "seat", "change", "at_ms"}``) after the game's
        others, only if the game still has ``ply`` actions and is unfinished: else (another
        process moved or changed a seat first) :class:`StorageConflict`.  ``bot_turn`` as in
        :meth:`append_actions`, for the game after the change.  The game's row is written
        first: a concurrent move (which writes it too) waits for this transaction, and this
        one's count of actions then sees that move."""
        game_id_ply = (game_id, int(change["ply"]))
        with self._transaction(f"a seat change of game {game_id}") as db:
            updated = db.execute(
                "UPDATE games SET updated=?, bot_turn=? WHERE id=? AND finished=?",
                (time.time(), int(bot_turn), game_id, UNFINISHED),
            )
            if updated.rowcount != 1:
                raise StorageConflict(f"cannot store a seat change of game {game_id}: it ended")
            added = db.execute(
                "INSERT INTO seat_changes (game_id, n, ply, seat, change, at_ms) "
                "SELECT ?, (SELECT COUNT(*) FROM seat_changes WHERE game_id=?), ?, ?, ?, ? "
                "WHERE (SELECT COUNT(*) FROM actions WHERE game_id=?) = ?",
                (
                    game_id,
                    game_id,
                    change["ply"],
                    change["seat"],
                    change["change"],
                    change["at_ms"],
                    *game_id_ply,
                ),
            )
            if added.rowcount != 1:
                raise StorageConflict(
                    f"cannot store a seat change of game {game_id} at ply {change['ply']}: "
                    "the game has moved on"
                )
            self._announce(db, game_id)

    def _seat_changes(self, game_id: str) -> list[dict[str, Any]]:
        rows = self._rows(
            "SELECT ply, seat, change, at_ms FROM seat_changes WHERE game_id=? ORDER BY n",
            game_id,
        )
        return [
            {"ply": int(ply), "seat": int(seat), "change": change, "at_ms": int(at_ms)}
            for ply, seat, change, at_ms in rows
        ]

    def record_hint(self, game_id: str, ply: int, seat: int) -> None:
        """Keep that ``seat`` used a hint at ``ply`` (again: nothing changes)."""
        with self._transaction(f"a hint of game {game_id}") as db:
            db.execute(
                "INSERT INTO hints (game_id, ply, seat) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (game_id, ply, seat),
            )
            self._announce(db, game_id)

    def _hints(self, game_id: str) -> list[tuple[int, int]]:
        rows = self._rows("SELECT seat, ply FROM hints WHERE game_id=? ORDER BY ply", game_id)
        return [(int(seat), int(ply)) for seat, ply in rows]

    def save_review(self, game_id: str, review: str, at_ms: int) -> None:
        """Keep the review (JSON text) of a finished game; a review stored already (another
        process computed the same one) stays."""
        with self._transaction(f"the review of game {game_id}") as db:
            db.execute(
                "INSERT INTO reviews (game_id, review, at_ms) VALUES (?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                (game_id, review, at_ms),
            )

    def load_review(self, game_id: str) -> str | None:
        """The stored review (JSON text) of a game, None if it has none."""
        rows = self._rows("SELECT review FROM reviews WHERE game_id=?", game_id)
        return str(rows[0][0]) if rows else None

    def add_chat(
        self,
        game_id: str,
        audience: str,
        seat: int | None,
        name: str,
        said: tuple[str | None, str | None],
        at_ms: int,
        most: int,
    ) -> ChatLine | None:
        """Store a chat line (``said``: its text or phrase id) after the game's others; None
        when the game holds ``most`` lines already (:data:`.chat.MAX_CHAT_LINES`).  The game's
        row is written first, so that two processes adding lines at once number them one after
        the other (the second waits for the first's transaction)."""
        text, phrase = said
        with self._transaction(f"a chat line of game {game_id}") as db:
            db.execute("UPDATE games SET claimed=claimed WHERE id=?", (game_id,))
            (n,) = db.execute("SELECT COUNT(*) FROM chat WHERE game_id=?", (game_id,)).fetchone()
            if n >= most:
                return None
            db.execute(
                "INSERT INTO chat (game_id, n, audience, seat, name, text, phrase, at_ms) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, n, audience, seat, name, text, phrase, at_ms),
            )
            self._announce_chat(db, game_id, n + 1)
        return ChatLine(int(n), audience, seat, name, text, phrase, at_ms)

    def chat_since(self, game_id: str, n: int) -> list[ChatLine]:
        """The chat lines of a game from number ``n`` on, in order."""
        rows = self._rows(
            "SELECT n, audience, seat, name, text, phrase, at_ms FROM chat "
            "WHERE game_id=? AND n >= ? ORDER BY n",
            game_id,
            n,
        )
        return [ChatLine.of_row(row) for row in rows]

    @staticmethod
    def _rematch_in(db: Statements, game_id: str) -> str:
        """Within a transaction: the rematch a finished game has (a game without one is no
        finished game: it cannot have one)."""
        row = db.execute("SELECT rematch FROM games WHERE id=?", (game_id,)).fetchone()
        if row is None or row[0] is None:
            raise StorageError(f"game {game_id} is not a finished game: it cannot be played again")
        return str(row[0])

    def rematch_of(self, game_id: str) -> str | None:
        """The id of the game "Play again" made from ``game_id``, if any."""
        rows = self._rows("SELECT rematch FROM games WHERE id=?", game_id)
        return rows[0][0] if rows else None

    def count_unfinished(self, creator: str | None = None) -> int:
        """Unfinished games, all of them or those of one creator."""
        if creator is None:
            rows = self._rows("SELECT COUNT(*) FROM games WHERE finished=?", UNFINISHED)
        else:
            rows = self._rows(
                "SELECT COUNT(*) FROM games WHERE finished=? AND creator=?", UNFINISHED, creator
            )
        return int(rows[0][0])

    def games_of_biggest_creators(self, more_than: int, limit: int = 100) -> list[str]:
        """Unfinished games of the creators holding more than ``more_than`` of them: those of
        the creator holding the most first, each creator's least recently moved first."""
        rows = self._rows(
            "WITH holders AS (SELECT creator, COUNT(*) AS held FROM games WHERE finished=? "
            "GROUP BY creator HAVING COUNT(*) > ?) "
            "SELECT games.id FROM games JOIN holders ON games.creator = holders.creator "
            "WHERE games.finished=? ORDER BY holders.held DESC, games.updated LIMIT ?",
            UNFINISHED,
            more_than,
            UNFINISHED,
            limit,
        )
        return [r[0] for r in rows]

    def expire(self, game_ids: list[str], reason: str) -> None:
        """End these unfinished games unfinished, with the reason shown to their players."""
        with self._transaction("expired games") as db:
            db.executemany(
                "UPDATE games SET finished=?, expired=? WHERE id=? AND finished=?",
                [(EXPIRED, reason, game_id, UNFINISHED) for game_id in game_ids],
            )
            for game_id in game_ids:
                self._announce(db, game_id)

    def idle_since(self, cutoff: float, unclaimed: bool = False) -> list[str]:
        """Unfinished games nobody has moved in since ``cutoff`` (seconds since the epoch);
        with ``unclaimed``, only those nobody took up.  Otherwise a game a process tends
        (``bot_turn``: a bot or stand-in to move, or a clock running) is not idle: it goes on by
        itself, and a turn-based bank may be longer than the expiry.  A table waiting for
        players has an expiry of its own (:func:`.opentablesdb.waiting_since`)."""
        rows = self._rows(
            "SELECT id FROM games WHERE finished=? AND updated < ? AND claimed <= ? "
            "AND bot_turn <= ? AND open_seats = 0",
            UNFINISHED,
            cutoff,
            0 if unclaimed else 1,
            1 if unclaimed else 0,
        )
        return [r[0] for r in rows]

    def oldest_unclaimed(self, held_at_least: int, limit: int = 100) -> list[str]:
        """Unfinished games nobody took up whose creators hold at least ``held_at_least``
        unfinished games, the least recently moved (or created) first."""
        rows = self._rows(
            "WITH holders AS (SELECT creator FROM games WHERE finished=? "
            "GROUP BY creator HAVING COUNT(*) >= ?) "
            "SELECT games.id FROM games JOIN holders ON games.creator = holders.creator "
            "WHERE games.finished=? AND games.claimed=0 ORDER BY games.updated LIMIT ?",
            UNFINISHED,
            held_at_least,
            UNFINISHED,
            limit,
        )
        return [r[0] for r in rows]

    def claim(self, game_id: str) -> None:
        """The game was taken up (see :class:`StoredGame`): it keeps the long expiry."""
        with self._transaction(f"that game {game_id} was taken up") as db:
            db.execute("UPDATE games SET claimed=1 WHERE id=? AND claimed=0", (game_id,))

    def load_game(self, game_id: str) -> StoredGame | None:
        """The stored game, or None if there is none with this id.

        Raises :class:`StorageError` if its rows cannot be read or its options or seats are not
        JSON; an action row that is not JSON ends the actions there and is named in ``damaged``,
        so that the game can still be shown (frozen) while every other game goes on.
        """
        try:
            rows = self._rows(
                "SELECT id, created, options, seats, hotseat_digest, finished, expired, "
                "creator, claimed, rematch FROM games WHERE id=?",
                game_id,
            )
            if not rows:
                return None
            actions = self._rows(
                "SELECT seat, action, at_ms FROM actions WHERE game_id=? ORDER BY ply", game_id
            )
            hints = self._hints(game_id)
            changes = self._seat_changes(game_id)
            chat = self.chat_since(game_id, 0)
        except StorageError as exc:
            raise StorageError(
                f"game {game_id}: its rows cannot be read ({exc.__cause__ or exc})"
            ) from None
        row = rows[0]
        try:
            options, seats = json.loads(row[2]), json.loads(row[3])
        except (TypeError, ValueError) as exc:
            raise StorageError(f"game {game_id}: its stored setup is not JSON ({exc})") from None
        decoded, times, damaged = _decode_actions(actions)
        return StoredGame(
            id=row[0],
            created=row[1],
            options=options,
            seats=seats,
            hotseat_digest=row[4],
            finished=row[5] == FINISHED,
            actions=decoded,
            damaged=damaged,
            expired=row[6] if row[5] == EXPIRED else None,
            hints=hints,
            creator=row[7],
            claimed=bool(row[8]),
            times=times,
            changes=changes,
            chat=chat,
            rematch=row[9],
        )

    def moves_since(self, game_id: str, ply: int) -> Since:
        """The actions stored from ``ply`` on (up to the first that is not JSON), why the game
        expired, every hint used and every seat change: what a process learns of changes
        made elsewhere."""
        status = self._rows("SELECT finished, expired, seats FROM games WHERE id=?", game_id)
        rows = self._rows(
            "SELECT seat, action, at_ms FROM actions WHERE game_id=? AND ply >= ? ORDER BY ply",
            game_id,
            ply,
        )
        expired = status[0][1] if status and status[0][0] == EXPIRED else None
        moves, times, _ = _decode_actions(rows)
        seats = json.loads(status[0][2]) if status else []
        return Since(
            moves, times, expired, self._hints(game_id), self._seat_changes(game_id), seats
        )

    def unfinished_game_ids(self) -> list[str]:
        rows = self._rows("SELECT id FROM games WHERE finished=? ORDER BY created", UNFINISHED)
        return [r[0] for r in rows]

    # ------------------------------------------------------------------------ bot leases

    def take_bot_lease(self, game_id: str, owner: str, until: float) -> bool:
        """Become (or stay) the process playing this game's bots until ``until``, unless
        another holds a lease that has not run out; returns whether ``owner`` holds it."""
        with self._transaction(f"the bot lease of game {game_id}") as db:
            taken = db.execute(
                "UPDATE games SET bot_owner=?, bot_lease_until=? WHERE id=? AND finished=? "
                "AND (bot_owner IS NULL OR bot_owner=? OR bot_lease_until < ?)",
                (owner, until, game_id, UNFINISHED, owner, time.time()),
            )
            return bool(taken.rowcount == 1)

    def release_bot_lease(self, owner: str, game_id: str | None = None) -> None:
        """Let go of one game's bots, or (no ``game_id``) of all held by ``owner``."""
        with self._transaction("bot leases") as db:
            if game_id is None:
                db.execute(
                    "UPDATE games SET bot_owner=NULL, bot_lease_until=0 WHERE bot_owner=?",
                    (owner,),
                )
            else:
                db.execute(
                    "UPDATE games SET bot_owner=NULL, bot_lease_until=0 WHERE id=? AND bot_owner=?",
                    (game_id, owner),
                )

    def renew_bot_leases(self, owner: str, until: float) -> None:
        """``owner`` is alive: its leases last until ``until``."""
        with self._transaction("bot leases") as db:
            db.execute(
                "UPDATE games SET bot_lease_until=? WHERE bot_owner=? AND finished=?",
                (until, owner, UNFINISHED),
            )

    def orphaned_bot_games(self, limit: int = 50) -> list[str]:
        """Unfinished games with a bot to move whose bots nobody plays: never leased, let go
        of, or leased by a process that stopped renewing (it died)."""
        rows = self._rows(
            "SELECT id FROM games WHERE finished=? AND bot_turn=1 AND bot_lease_until < ? "
            "ORDER BY updated LIMIT ?",
            UNFINISHED,
            time.time(),
            limit,
        )
        return [r[0] for r in rows]
