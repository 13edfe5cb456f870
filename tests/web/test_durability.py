"""What the games database promises (issue 22, items 5, 9 and 10): a move acknowledged to a
player survives a power failure, a write that fails is reported with its real cause, and a
database the server cannot write is refused at start instead of failing every move."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from carcassonne.web.database import open_storage
from carcassonne.web.outbox import Principal
from carcassonne.web.protocol import ProtocolError, parse_options, parse_seats
from carcassonne.web.server import GameServer
from carcassonne.web.sqlitestorage import SqliteStorage
from carcassonne.web.storage import StorageError

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
from carcassonne.web.sqlitestorage import SqliteStorage
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


# ------------------------------------------------------------------------------ read-only


@contextlib.contextmanager
def read_only(path: Path) -> Iterator[None]:
    """``path`` as a file this process may read but not write: its mode, and for root (whom
    modes do not stop) the immutable attribute. Skips the test where neither holds."""
    path.chmod(0o444)
    immutable = os.geteuid() == 0 and shutil.which("chattr") is not None
    if immutable:
        subprocess.run(["chattr", "+i", str(path)], check=False, capture_output=True)
    try:
        try:
            path.open("r+b").close()
        except OSError:
            pass
        else:
            pytest.skip("cannot make a file read-only here")
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=False, capture_output=True)
        path.chmod(0o644)


def test_a_read_only_database_is_refused_at_start(tmp_path: Path) -> None:
    """Issue 22: a read-only database started silently, served reads and failed every write."""
    db = tmp_path / "games.sqlite3"
    SqliteStorage(db).close()
    with read_only(db), pytest.raises(StorageError) as refused:
        SqliteStorage(db)
    assert "the games database cannot be written" in str(refused.value)
    assert "readonly database (SQLITE_READONLY)" in str(refused.value)


def test_serve_refuses_a_read_only_database(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    SqliteStorage(db).close()
    command = [sys.executable, "-m", "carcassonne.cli.main", "serve", "--db", str(db)]
    with read_only(db):
        try:
            ran = subprocess.run(
                [*command, "--port", "0"], capture_output=True, text=True, timeout=30
            )
        except subprocess.TimeoutExpired:
            pytest.fail("the server started on a database it cannot write")
    assert ran.returncode == 1
    assert "the games database cannot be written" in ran.stderr
    assert "open http" not in ran.stdout


def test_a_read_only_postgres_database_is_refused_at_start(pg_url: str) -> None:
    import psycopg

    open_storage(pg_url).close()  # its tables exist: opening it again writes nothing
    with psycopg.connect(pg_url, autocommit=True) as conn:
        dbname = conn.info.dbname
        conn.execute(f'ALTER DATABASE "{dbname}" SET default_transaction_read_only = on')
    try:
        with pytest.raises(StorageError) as refused:
            open_storage(pg_url)
        assert "the games database cannot be written" in str(refused.value)
        assert "read-only transaction" in str(refused.value)
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("SET default_transaction_read_only = off")  # this session's, first
            conn.execute(f'ALTER DATABASE "{dbname}" RESET default_transaction_read_only')
