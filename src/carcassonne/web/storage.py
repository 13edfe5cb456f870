"""SQLite persistence of web games: the options, the seats and the list of accepted actions.

A game is fully determined by its options (with a concrete seed) and its actions, so that is all
that is stored; after a restart the server rebuilds each game by replaying the actions through the
engine.  Every accepted action is committed in its own transaction *before* any client hears of
it, so a client never sees a move the database could lose.

Seat tokens are stored as SHA-256 digests: the links are handed out once, at creation, and a
leaked database file does not let anyone act for a seat.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1

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
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
"""


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/carcassonne/games.sqlite3`` (``~/.local/share`` when unset)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "carcassonne" / "games.sqlite3"


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


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


class StorageError(RuntimeError):
    """The database cannot be opened or is not a games database of this version."""


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
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise StorageError(f"{path}: cannot open games database: {exc}") from exc
        if row is None:
            self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        elif row[0] != str(SCHEMA_VERSION):
            raise StorageError(f"{path}: database schema {row[0]}, expected {SCHEMA_VERSION}")
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def create_game(
        self,
        game_id: str,
        options: dict[str, Any],
        seats: list[dict[str, Any]],
        hotseat_digest: str | None,
    ) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO games (id, created, options, seats, hotseat_digest) "
                "VALUES (?, ?, ?, ?, ?)",
                (game_id, time.time(), json.dumps(options), json.dumps(seats), hotseat_digest),
            )

    def append_actions(
        self, game_id: str, first_ply: int, actions: list[tuple[int, dict[str, Any]]], over: bool
    ) -> None:
        """Commit actions ``first_ply, first_ply+1, …`` atomically (all or none)."""
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(
                    "INSERT INTO actions (game_id, ply, seat, action) VALUES (?, ?, ?, ?)",
                    [
                        (game_id, first_ply + i, seat, json.dumps(action))
                        for i, (seat, action) in enumerate(actions)
                    ],
                )
                if over:
                    db.execute("UPDATE games SET finished=1 WHERE id=?", (game_id,))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def load_game(self, game_id: str) -> StoredGame | None:
        """The stored game, or None if there is none with this id.

        Raises :class:`StorageError` if its rows cannot be read or its options or seats are not
        JSON; an action row that is not JSON ends the actions there and is named in ``damaged``,
        so that the game can still be shown (frozen) while every other game goes on.
        """
        with self._lock:
            try:
                row = self._db.execute(
                    "SELECT id, created, options, seats, hotseat_digest, finished FROM games "
                    "WHERE id=?",
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
            finished=bool(row[5]),
            actions=decoded,
            damaged=damaged,
        )

    def unfinished_game_ids(self) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id FROM games WHERE finished=0 ORDER BY created"
            ).fetchall()
        return [r[0] for r in rows]
