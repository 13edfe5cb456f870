"""PostgreSQL storage: the contract of :mod:`.storage` for several server processes at once.

Needs the ``postgres`` extra (psycopg 3 and its pool).  The statements are those of
:class:`~.storage.Storage`; only the placeholders differ (``?`` becomes ``%s``).  What several
processes add:

* one ply is written once: the primary key (game, ply) makes the second writer's transaction
  fail, which the room answers as ``stale`` after reading the move that won;
* every transaction that changes a game sends ``NOTIFY carcassonne_games`` with the game's id,
  its number of stored actions and the actions added (delivered on commit), and each process
  ``LISTEN``\\ s on one connection of its own (:meth:`PostgresStorage.moves_elsewhere`) to push
  such moves to its sockets without reading the database;
* a move is stored by one statement (one round trip): the actions, the game's row and the
  notification;
* schema changes are made under an advisory lock, so processes starting together do not race.

The calls are synchronous and the server makes them in :data:`POOL_SIZE` threads
(:meth:`~.storage.Storage.run`), one per pooled connection, so its event loop never waits for
the database.  Waits are bounded (:data:`STATEMENT_TIMEOUT_MS`, the pool's
checkout timeout) so that a database in trouble costs a failed move, never a stuck server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool

from .schema import (
    FINISHED,
    POSTGRES_MIGRATIONS,
    POSTGRES_SCHEMA,
    SCHEMA_VERSION,
    UNFINISHED,
)
from .storage import (
    News,
    Statements,
    Storage,
    StorageConflict,
    StorageError,
    now_ms,
)

log = logging.getLogger("carcassonne.web")

#: any statement taking longer fails (the move waiting for it fails, and the room stays as it was)
STATEMENT_TIMEOUT_MS = 5000
#: seconds to wait for a connection to the database, at start and from the pool
CONNECT_TIMEOUT = 10
#: connections each process keeps, and threads making the calls (one per connection): moves of
#: different games are stored at the same time, while a burst waits for a thread rather than
#: opening ever more connections
POOL_SIZE = 4
#: seconds between two attempts to listen again after the listening connection broke
RELISTEN_DELAY = 1.0
#: a notification's payload must be shorter than 8000 bytes: longer moves are not sent along
MAX_NEWS_CHARS = 7000
#: pg_advisory_lock key serialising schema changes ("carc" in ASCII)
SCHEMA_LOCK = 0x63617263


def _placeholders(sql: str) -> str:
    """The contract's ``?`` placeholders as psycopg's ``%s`` (no statement contains either
    character otherwise)."""
    return sql.replace("?", "%s")


def display_name(url: str) -> str:
    """The database a URL names, as it may be shown and logged: without its password."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.Error:
        return "postgresql://(unreadable URL)"
    user = f"{parts['user']}@" if parts.get("user") else ""
    host, port = str(parts.get("host") or ""), str(parts.get("port") or "")
    dbname = parts.get("dbname") or ""
    if host.startswith("/"):  # a Unix socket's folder
        return f"postgresql://{user}/{dbname}?host={host}" + (f"&port={port}" if port else "")
    return f"postgresql://{user}{host}{':' + port if port else ''}/{dbname}"


class _Transaction:
    """A transaction's statements, with the contract's placeholders."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self._conn.execute(_placeholders(sql), params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Any:
        with self._conn.cursor() as cursor:
            cursor.executemany(_placeholders(sql), rows)
            return cursor


class PostgresStorage(Storage):
    """A PostgreSQL database shared by any number of server processes."""

    shared = True
    threads = POOL_SIZE

    def __init__(self, url: str) -> None:
        self._url = url
        self.name = display_name(url)
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT) as conn:
                self._bring_up_to_date(conn)
        except psycopg.Error as exc:
            raise StorageError(f"{self.name}: cannot open games database: {_reason(exc)}") from None
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=POOL_SIZE,
            kwargs={"autocommit": True, "connect_timeout": CONNECT_TIMEOUT},
            configure=_configure,
            timeout=CONNECT_TIMEOUT,
            open=False,
            name="carcassonne",
        )
        try:
            self._pool.open(wait=True, timeout=CONNECT_TIMEOUT)
            self._check_writable()
        except psycopg.Error as exc:
            self._pool.close()
            raise StorageError(f"{self.name}: cannot open games database: {_reason(exc)}") from None
        except StorageError:
            self._pool.close()
            raise

    def _bring_up_to_date(self, conn: psycopg.Connection[Any]) -> None:
        """Create the tables or migrate them, one process at a time."""
        conn.execute("SELECT pg_advisory_lock(%s)", (SCHEMA_LOCK,))
        try:
            row = conn.execute("SELECT to_regclass('meta') IS NOT NULL").fetchone()
            if not (row and row[0]):
                with conn.transaction():
                    conn.execute(POSTGRES_SCHEMA)
            while True:
                row = conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
                version = str(row[0]) if row is not None else "none"
                step = POSTGRES_MIGRATIONS.get(int(version)) if version.isdigit() else None
                if step is None:
                    break
                with conn.transaction():
                    conn.execute(step)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (SCHEMA_LOCK,))
        if version != str(SCHEMA_VERSION):
            raise StorageError(f"{self.name}: database schema {version}, expected {SCHEMA_VERSION}")

    def close(self) -> None:
        self._stop_threads()
        self._pool.close()

    @contextlib.contextmanager
    def _transaction(self, what: str) -> Iterator[Statements]:
        with _storing(what), self._pool.connection() as conn, conn.transaction():
            yield _Transaction(conn)

    def append_actions(
        self,
        game_id: str,
        first_ply: int,
        actions: list[tuple[int, dict[str, Any]]],
        over: bool,
        bot_turn: bool = False,
        at_ms: int | None = None,
    ) -> None:
        """The contract's, in one statement: the actions, the game's row, the news."""
        at = now_ms() if at_ms is None else at_ms
        plies = first_ply + len(actions)
        news = json.dumps(
            {"id": game_id, "plies": plies, "moves": actions, "times": [at] * len(actions)}
        )
        if len(news) > MAX_NEWS_CHARS:
            news = json.dumps({"id": game_id, "plies": plies})
        with _storing(f"the moves of game {game_id}"), self._pool.connection() as conn:
            conn.execute(
                _placeholders(
                    "WITH added AS (INSERT INTO actions (game_id, ply, seat, action, at_ms) "
                    "SELECT ?, ? + a.n - 1, a.seat, a.action, ? "
                    "FROM unnest(?::integer[], ?::text[]) WITH ORDINALITY AS a(seat, action, n)), "
                    "moved AS (UPDATE games SET updated=?, finished=?, bot_turn=? WHERE id=? "
                    "RETURNING id) "
                    "SELECT pg_notify('carcassonne_games', ?) FROM moved"
                ),
                (
                    game_id,
                    first_ply,
                    at,
                    [seat for seat, _ in actions],
                    [json.dumps(action) for _, action in actions],
                    time.time(),
                    FINISHED if over else UNFINISHED,
                    int(bot_turn and not over),
                    game_id,
                    news,
                ),
            )

    def _rows(self, sql: str, *params: Any) -> list[Any]:
        try:
            with self._pool.connection() as conn:
                return conn.execute(_placeholders(sql), params).fetchall()
        except psycopg.Error as exc:
            raise StorageError(f"cannot read the games database: {_reason(exc)}") from exc

    def _announce(self, db: Statements, game_id: str) -> None:
        db.execute("SELECT pg_notify('carcassonne_games', ?)", (json.dumps({"id": game_id}),))

    def _announce_chat(self, db: Statements, game_id: str, lines: int) -> None:
        db.execute(
            "SELECT pg_notify('carcassonne_games', ?)",
            (json.dumps({"id": game_id, "chat": lines}),),
        )

    def _announce_rematch(self, db: Statements, game_id: str, rematch: tuple[str, int]) -> None:
        db.execute(
            "SELECT pg_notify('carcassonne_games', ?)",
            (json.dumps({"id": game_id, "rematch": list(rematch)}),),
        )

    async def moves_elsewhere(self) -> AsyncIterator[News | None]:
        """Listens on a connection of its own; after (re)connecting yields None first, as news
        sent while nobody listened is lost."""
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self._url, autocommit=True, connect_timeout=CONNECT_TIMEOUT
                )
                async with conn:
                    await conn.execute("LISTEN carcassonne_games")
                    yield None
                    async for note in conn.notifies():
                        yield _news(note.payload)
            except psycopg.Error as exc:
                log.warning("listening for moves made elsewhere failed (%s); again soon", exc)
            await asyncio.sleep(RELISTEN_DELAY)


def _news(payload: str) -> News | None:
    """A notification as :class:`News`; one that is not ours (another program notifying on the
    channel) as None, which has every game read again."""
    try:
        data = json.loads(payload)
        moves = tuple((int(seat), dict(action)) for seat, action in data.get("moves", ()))
        times = tuple(int(at) for at in data.get("times", ()))
        plies, chat, rematch = data.get("plies"), data.get("chat"), data.get("rematch")
        return News(
            str(data["id"]),
            None if plies is None else int(plies),
            moves,
            times,
            None if chat is None else int(chat),
            None if rematch is None else (str(rematch[0]), int(rematch[1])),
        )
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        log.warning("a notification that is not news of a game: %.100r", payload)
        return None


@contextlib.contextmanager
def _storing(what: str) -> Iterator[None]:
    """Errors of a write as the contract's: :class:`StorageConflict` for a row stored already."""
    try:
        yield
    except psycopg.errors.IntegrityError as exc:
        raise StorageConflict(f"cannot store {what}: {_reason(exc)}") from exc
    except psycopg.Error as exc:
        raise StorageError(f"cannot store {what}: {_reason(exc)}") from exc


def _reason(exc: psycopg.Error) -> str:
    """libpq's message on one line (it may add hints on lines of their own)."""
    return " ".join(str(exc).split())


def _configure(conn: psycopg.Connection[Any]) -> None:
    conn.execute("SELECT set_config('statement_timeout', %s, false)", (str(STATEMENT_TIMEOUT_MS),))
    # A commit returns once its WAL is flushed, whatever the database's own default (an
    # operator's synchronous_commit=off would lose acknowledged moves in a power failure).
    conn.execute("SELECT set_config('synchronous_commit', 'on', false)")
