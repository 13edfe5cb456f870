"""SQLite persistence of web games: the options, the seats and the list of accepted actions.

A game is fully determined by its options (with a concrete seed) and its actions, so that is all
that is stored; after a restart the server rebuilds each game by replaying the actions through the
engine.  Every accepted action is committed in its own transaction *before* any client hears of
it, so a client never sees a move the database could lose.

Seat tokens are stored as SHA-256 digests: the links are handed out once, at creation, and a
leaked database file does not let anyone act for a seat.  Likewise a game's creator is kept only
as a digest of its address, enough to count the unfinished games of each address.

A game is unfinished (``finished`` 0), finished (1) or expired (2: ended unfinished, because
nobody moved for a long time or its place was needed); ``updated`` is the time of its last move.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 2

UNFINISHED, FINISHED, EXPIRED = 0, 1, 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    options TEXT NOT NULL,
    seats TEXT NOT NULL,
    hotseat_digest TEXT,
    finished INTEGER NOT NULL DEFAULT 0,
    updated REAL NOT NULL DEFAULT 0,
    creator TEXT NOT NULL DEFAULT '',
    expired TEXT
);
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE INDEX IF NOT EXISTS games_unfinished ON games (finished, creator, updated);
"""

#: schema 1 had no times of the last move, creators or expiry reasons
_MIGRATE_FROM_1 = """
BEGIN;
ALTER TABLE games ADD COLUMN updated REAL NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN creator TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN expired TEXT;
UPDATE games SET updated = created;
CREATE INDEX IF NOT EXISTS games_unfinished ON games (finished, creator, updated);
UPDATE meta SET value = '2' WHERE key = 'schema';
COMMIT;
"""


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


class StorageError(RuntimeError):
    """The database cannot be opened, read or written, or is not a games database we know."""


class Storage:
    """One SQLite file; safe to call from any thread (calls are serialised by a lock)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL: a commit survives a crash or restart of the server process (what
            # "every game continues after a restart" needs) without an fsync per move; only a
            # power failure may lose the last moves.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            row = self._open()
        except sqlite3.DatabaseError as exc:
            raise StorageError(f"{path}: cannot open games database: {exc}") from exc
        if row != str(SCHEMA_VERSION):
            raise StorageError(f"{path}: database schema {row}, expected {SCHEMA_VERSION}")
        self._lock = threading.Lock()

    def _open(self) -> str:
        """Create the tables or bring an older database up to date; returns its schema."""
        db = self._db
        has_games = db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='games'"
        ).fetchone()
        if has_games:
            db.execute(
                "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is not None and row[0] == "1":
                db.executescript(_MIGRATE_FROM_1)
        db.executescript(_SCHEMA)
        row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None:
            db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            return str(SCHEMA_VERSION)
        return str(row[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextlib.contextmanager
    def _transaction(self, what: str) -> Iterator[sqlite3.Connection]:
        """One write, all or nothing; a failure (disk full, file too large, I/O) is a
        :class:`StorageError` naming ``what`` could not be stored."""
        with self._lock:
            db = self._db
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                    db.execute("COMMIT")
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
            except (sqlite3.Error, OSError) as exc:
                raise StorageError(f"cannot store {what}: {exc}") from exc

    def create_game(
        self,
        game_id: str,
        options: dict[str, Any],
        seats: list[dict[str, Any]],
        hotseat_digest: str | None,
        creator: str = "",
    ) -> None:
        """Store a new game; ``creator`` is :func:`creator_digest` of its creator's address."""
        now = time.time()
        with self._transaction(f"game {game_id}") as db:
            db.execute(
                "INSERT INTO games (id, created, options, seats, hotseat_digest, updated, creator) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    now,
                    json.dumps(options),
                    json.dumps(seats),
                    hotseat_digest,
                    now,
                    creator,
                ),
            )

    def append_actions(
        self, game_id: str, first_ply: int, actions: list[tuple[int, dict[str, Any]]], over: bool
    ) -> None:
        """Commit actions ``first_ply, first_ply+1, …`` atomically (all or none)."""
        with self._transaction(f"the moves of game {game_id}") as db:
            db.executemany(
                "INSERT INTO actions (game_id, ply, seat, action) VALUES (?, ?, ?, ?)",
                [
                    (game_id, first_ply + i, seat, json.dumps(action))
                    for i, (seat, action) in enumerate(actions)
                ],
            )
            db.execute(
                "UPDATE games SET updated=?, finished=? WHERE id=?",
                (time.time(), FINISHED if over else UNFINISHED, game_id),
            )

    def _rows(self, sql: str, *params: Any) -> list[Any]:
        """The rows of a query; a failure to read is a :class:`StorageError`."""
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except (sqlite3.Error, OSError) as exc:
                raise StorageError(f"cannot read the games database: {exc}") from exc

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
            "GROUP BY creator HAVING held > ?) "
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

    def idle_since(self, cutoff: float) -> list[str]:
        """Unfinished games nobody has moved in since ``cutoff`` (seconds since the epoch)."""
        rows = self._rows(
            "SELECT id FROM games WHERE finished=? AND updated < ?", UNFINISHED, cutoff
        )
        return [r[0] for r in rows]

    def load_game(self, game_id: str) -> StoredGame | None:
        """The stored game, or None if there is none with this id.

        Raises :class:`StorageError` if its rows cannot be read or its options or seats are not
        JSON; an action row that is not JSON ends the actions there and is named in ``damaged``,
        so that the game can still be shown (frozen) while every other game goes on.
        """
        with self._lock:
            try:
                row = self._db.execute(
                    "SELECT id, created, options, seats, hotseat_digest, finished, expired "
                    "FROM games WHERE id=?",
                    (game_id,),
                ).fetchone()
                if row is None:
                    return None
                actions = self._db.execute(
                    "SELECT seat, action FROM actions WHERE game_id=? ORDER BY ply", (game_id,)
                ).fetchall()
            except sqlite3.DatabaseError as exc:
                raise StorageError(f"game {game_id}: its rows cannot be read ({exc})") from None
        try:
            options, seats = json.loads(row[2]), json.loads(row[3])
        except (TypeError, ValueError) as exc:
            raise StorageError(f"game {game_id}: its stored setup is not JSON ({exc})") from None
        decoded: list[tuple[int, dict[str, Any]]] = []
        damaged = None
        for ply, (seat, action) in enumerate(actions):
            try:
                decoded.append((seat, json.loads(action)))
            except (TypeError, ValueError):
                damaged = f"stored action {ply + 1} is not JSON"
                break
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
        )

    def unfinished_game_ids(self) -> list[str]:
        rows = self._rows("SELECT id FROM games WHERE finished=? ORDER BY created", UNFINISHED)
        return [r[0] for r in rows]
