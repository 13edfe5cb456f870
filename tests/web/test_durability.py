"""What the games database promises (issue 22, items 5, 9 and 10): a move acknowledged to a
player survives a power failure, a write that fails is reported with its real cause, and a
database the server cannot write is refused at start instead of failing every move."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from carcassonne.web.database import open_storage
from carcassonne.web.protocol import ProtocolError, parse_options, parse_seats
from carcassonne.web.rooms import GameServer, Principal
from carcassonne.web.storage import SqliteStorage, StorageError

HUMANS = [{"kind": "human", "name": "Ana", "bot": None, "digest": None}] * 2
PASS = {"type": "pass"}


# ------------------------------------------------------------------------------ power failures


def test_an_sqlite_commit_is_flushed_to_the_disk(tmp_path: Path) -> None:
    """Issue 22: with synchronous=NORMAL an ext4 shutdown without flush lost 120 of 120
    acknowledged moves. WAL + FULL flushes the log at every commit."""
    storage = SqliteStorage(tmp_path / "games.sqlite3")
    assert storage._rows("PRAGMA journal_mode") == [("wal",)]
    assert storage._rows("PRAGMA synchronous") == [(2,)]  # FULL


MOVES = 30
FLUSHING = """
import sys
from carcassonne.web.storage import SqliteStorage
storage = SqliteStorage(sys.argv[1])
storage.create_game("g", {}, [], None)
print("moves", flush=True)
for ply in range(int(sys.argv[2])):
    storage.append_actions("g", ply, [(0, {"type": "pass"})], False)
"""


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
def test_every_stored_move_waits_for_the_disk(tmp_path: Path) -> None:
    """Each commit of a move calls fsync (or fdatasync) before it returns, as strace sees it:
    what the move's player is then told of is on the disk."""
    trace = tmp_path / "trace"
    command = [sys.executable, "-c", FLUSHING, str(tmp_path / "games.sqlite3"), str(MOVES)]
    traced = ["strace", "-f", "-qq", "-e", "trace=fsync,fdatasync,write", "-o", str(trace)]
    subprocess.run([*traced, *command], check=True, capture_output=True, timeout=120)
    lines = trace.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if 'write(1, "moves' in line)
    flushes = [line for line in lines[start:] if "fsync(" in line or "fdatasync(" in line]
    assert len(flushes) >= MOVES


def test_postgres_commits_wait_for_the_disk_whatever_the_database_default(pg_url: str) -> None:
    """A database (or its server) set to synchronous_commit=off would acknowledge moves it
    could lose; the storage's connections turn it on for themselves."""
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        dbname = conn.info.dbname
        conn.execute(f'ALTER DATABASE "{dbname}" SET synchronous_commit = off')
    try:
        storage = open_storage(pg_url)
        assert storage._rows("SHOW synchronous_commit") == [("on",)]
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f'ALTER DATABASE "{dbname}" RESET synchronous_commit')


# ------------------------------------------------------------------------------ write failures


def fill_up(storage: SqliteStorage) -> None:
    """No page more may be added to the database file, and the free room in its pages is
    taken (by the moves of a game of its own): as a full disk."""
    pages = storage._rows("PRAGMA page_count")[0][0]
    storage._db.execute(f"PRAGMA max_page_count={pages}")
    storage.create_game("filler", {}, HUMANS, None)
    with contextlib.suppress(StorageError):
        for ply in range(10_000):
            storage.append_actions("filler", ply, [(0, {"padding": "x" * (ply % 50)})], False)


def test_a_full_disk_is_reported_as_such(tmp_path: Path) -> None:
    """Issue 22: write failures were logged as "cannot rollback - no transaction is active"
    (SQLite had rolled back by itself) instead of the disk being full."""
    storage = SqliteStorage(tmp_path / "games.sqlite3")
    storage.create_game("g", {}, HUMANS, None)
    fill_up(storage)
    with pytest.raises(StorageError) as failed:
        storage.append_actions("g", 0, [(0, PASS)], False)
    message = str(failed.value)
    assert "database or disk is full (SQLITE_FULL)" in message, message
    assert "rollback" not in message
    storage._db.execute("PRAGMA max_page_count=1000000")  # room again: writes go on
    storage.append_actions("g", 0, [(0, PASS)], False)
    assert storage.load_game("g").actions == [(0, PASS)]  # type: ignore[union-attr]


def test_a_move_on_a_full_disk_is_logged_with_its_cause(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    storage = SqliteStorage(tmp_path / "games.sqlite3")
    server = GameServer(storage, bot_delay=0)
    seats = parse_seats([{"kind": "human"}, {"kind": "human"}])
    room, _ = asyncio.run(server.create(seats, parse_options({}, 2), False, "10.0.0.1"))
    fill_up(storage)
    move = room.game.legal_actions()[0]
    with pytest.raises(ProtocolError) as refused:
        asyncio.run(room.submit(Principal(frozenset({0})), [move]))
    assert refused.value.code == "server" and room.game.history == []
    logged = "\n".join(r.getMessage() + str(r.exc_info and r.exc_info[1]) for r in caplog.records)
    assert "database or disk is full (SQLITE_FULL)" in logged, logged
    assert "no transaction is active" not in logged
