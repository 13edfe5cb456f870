"""The embedded games database: one SQLite file, for one server process.

It speaks the SQL of :class:`~.storage.Storage` (the contract both backends keep; why each
commit is flushed to the disk is said there), and brings an older file up to date with the steps
of :mod:`.schema`.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .schema import SCHEMA_VERSION, SQLITE_MIGRATIONS, SQLITE_SCHEMA
from .storage import Statements, Storage, StorageConflict, StorageError

log = logging.getLogger("carcassonne.web")


class SqliteStorage(Storage):
    """One SQLite file, for one server process; safe to call from any thread (calls are
    serialised by a lock)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.name = str(path)
        try:
            if str(path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # WAL + FULL: every commit is flushed to the disk before it returns, so a move a
            # player was told of survives a power failure too (with NORMAL a commit survived
            # a crash of the process only: an ext4 shutdown without flush lost 120 of 120
            # acknowledged moves); its price is measured in benchmarks/README.md
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            version = self._open()
        except (sqlite3.DatabaseError, OSError) as exc:
            raise StorageError(f"{path}: cannot open games database: {exc}") from exc
        if version != str(SCHEMA_VERSION):
            raise StorageError(f"{path}: database schema {version}, expected {SCHEMA_VERSION}")
        self._lock = threading.Lock()
        self._check_writable()

    def _open(self) -> str:
        """Create the tables or bring an older database up to date; returns its schema."""
        db = self._db
        has_games = db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='games'"
        ).fetchone()
        if not has_games:
            db.executescript(SQLITE_SCHEMA)
        else:
            db.execute(
                "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )
        while True:
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            version = str(row[0]) if row is not None else "none"
            step = SQLITE_MIGRATIONS.get(int(version)) if version.isdigit() else None
            if step is None:
                return version
            db.executescript(step)

    def close(self) -> None:
        self._stop_threads()
        with self._lock:
            self._db.close()

    @contextlib.contextmanager
    def _transaction(self, what: str) -> Iterator[Statements]:
        with self._lock:
            db = self._db
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                    db.execute("COMMIT")
                except BaseException:
                    self._roll_back()
                    raise
            except sqlite3.IntegrityError as exc:
                raise StorageConflict(f"cannot store {what}: {_sqlite_reason(exc)}") from exc
            except (sqlite3.Error, OSError) as exc:
                raise StorageError(f"cannot store {what}: {_sqlite_reason(exc)}") from exc

    def _roll_back(self) -> None:
        """Undo the transaction a failure interrupted. SQLite may have rolled it back itself
        (on a full disk, an I/O error): rolling back again would fail and the report would
        name that ("no transaction is active") instead of the cause. A rollback that fails
        is logged; the failure that made it is what the caller hears of."""
        if not self._db.in_transaction:
            return
        try:
            self._db.execute("ROLLBACK")
        except sqlite3.Error as exc:
            log.error("%s: cannot roll back a failed write: %s", self.name, _sqlite_reason(exc))

    def _rows(self, sql: str, *params: Any) -> list[Any]:
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except (sqlite3.Error, OSError) as exc:
                raise StorageError(
                    f"cannot read the games database: {_sqlite_reason(exc)}"
                ) from exc


def _sqlite_reason(exc: Exception) -> str:
    """SQLite's message with its error code, which tells a full disk (``SQLITE_FULL``) from an
    I/O error (``SQLITE_IOERR_WRITE``) or a database it may not write (``SQLITE_READONLY``)."""
    code = getattr(exc, "sqlite_errorname", None)
    return f"{exc} ({code})" if code else str(exc)
