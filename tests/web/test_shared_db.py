"""Several servers on one database (issue 11), within one process: each ply is stored once and
the server that comes second answers ``stale`` and shows the move that won; news of a move
reaches the other server's sockets; bot leases; schema versions and migrations.

The same contract holds on SQLite and PostgreSQL, so most tests run on both (``games_db``);
what only PostgreSQL does (news between processes) runs on it alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import TestClient, auth, hello, undo_schema_8

from carcassonne.formats.actions import action_from_json, action_to_json
from carcassonne.web import create_app, roomhints
from carcassonne.web.database import open_storage
from carcassonne.web.outbox import Principal
from carcassonne.web.protocol import ProtocolError, parse_options, parse_seats
from carcassonne.web.schema import SCHEMA_VERSION
from carcassonne.web.server import GameServer
from carcassonne.web.storage import News, StorageError

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]
CITY_STACK = ["base/E", "base/U", "base/V"]
CLOSE_CITY = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
SEAT0 = Principal(frozenset({0}))


def two_servers(games_db: str) -> tuple[GameServer, GameServer]:
    return (
        GameServer(open_storage(games_db), bot_delay=0),
        GameServer(open_storage(games_db), bot_delay=0),
    )


def test_a_ply_is_stored_once_and_the_second_server_answers_stale(games_db: str) -> None:
    first, second = two_servers(games_db)
    room, _ = asyncio.run(
        first.create(parse_seats(HUMANS), parse_options({"stack": CITY_STACK}, 2), False)
    )
    other = asyncio.run(second.get(room.id))
    assert other is not None and other.game.history == []
    # the same tile placed elsewhere: legal too, and not the move that will be stored
    beside = next(a for a in other.game.legal_actions() if action_to_json(a) != CLOSE_CITY)
    asyncio.run(room.submit(SEAT0, [action_from_json(CLOSE_CITY)], 0))
    # the second server has not heard of that move: the database refuses its ply 0
    with pytest.raises(ProtocolError) as refused:
        asyncio.run(other.submit(SEAT0, [beside], 0))
    assert refused.value.code == "stale"
    assert refused.value.args[0] == "the game has moved on: another move was stored first"
    # ... and it now shows the move that won, not its own
    assert [a for _, a in other.stored.actions] == [CLOSE_CITY]
    assert other.game.view(0) == room.game.view(0)
    stored = first.storage.load_game(room.id)
    assert stored is not None and [a for _, a in stored.actions] == [CLOSE_CITY]


def test_a_move_from_elsewhere_that_does_not_replay_breaks_the_game_after_the_good_ones(
    games_db: str,
) -> None:
    """Catching up applies the good moves news brings, keeps them, and stops at the first that
    fails, naming its ply."""
    first, second = two_servers(games_db)
    room, _ = asyncio.run(
        first.create(parse_seats(HUMANS), parse_options({"stack": CITY_STACK}, 2), False)
    )
    other = asyncio.run(second.get(room.id))
    assert other is not None
    news = News(room.id, 2, ((0, CLOSE_CITY), (0, {"type": "fly"})))
    asyncio.run(other.catch_up(news))
    assert other.broken is not None
    assert other.broken.startswith("stored action 2 no longer replays: unknown action type 'fly'")
    assert other.stored.actions == [(0, CLOSE_CITY)]
    assert [action_to_json(a) for _, a in other.game.history] == [CLOSE_CITY]


def test_a_client_ahead_of_its_server_is_not_told_stale(games_db: str) -> None:
    """A player who heard of a move through another server and answers it at once: this server
    reads the move first instead of refusing the answer."""
    first, second = two_servers(games_db)
    room, _ = asyncio.run(
        first.create(parse_seats(HUMANS), parse_options({"stack": CITY_STACK}, 2), False)
    )
    other = asyncio.run(second.get(room.id))
    assert other is not None
    asyncio.run(room.submit(SEAT0, [action_from_json(CLOSE_CITY)], 0))
    figure = room.game.legal_actions()[-1]  # the figure phase: pass
    asyncio.run(other.submit(SEAT0, [figure], 1))
    assert len(first.storage.load_game(room.id).actions) == 2  # type: ignore[union-attr]


def test_bot_leases(games_db: str) -> None:
    storage = open_storage(games_db)
    bots = [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    storage.create_game("g1", {}, bots, None, bot_turn=True)
    storage.create_game("g2", {}, HUMANS, None, bot_turn=False)
    assert storage.orphaned_bot_games() == ["g1"]  # a bot to move, nobody playing it
    soon = time.time() + 60
    assert storage.take_bot_lease("g1", "A", soon)
    assert not storage.take_bot_lease("g1", "B", soon)  # A is alive
    assert storage.take_bot_lease("g1", "A", soon)  # renewing
    assert storage.orphaned_bot_games() == []
    assert storage.take_bot_lease("g1", "A", time.time() - 1)  # A stops renewing ...
    assert storage.orphaned_bot_games() == ["g1"]
    assert storage.take_bot_lease("g1", "B", soon)  # ... and B takes over
    assert not storage.take_bot_lease("g1", "A", soon)
    storage.renew_bot_leases("A", soon)  # A renews nothing it does not hold
    assert storage.orphaned_bot_games() == []
    storage.release_bot_lease("B")
    assert storage.take_bot_lease("g1", "A", soon)
    storage.append_actions("g1", 0, [(0, {"type": "pass"})], over=False, bot_turn=False)
    storage.release_bot_lease("A", "g1")
    assert storage.orphaned_bot_games() == []  # a human's turn: nothing to take over


@contextlib.contextmanager
def two_apps_and_a_game(pg_url: str) -> Iterator[tuple[Any, Any, str, str, str]]:
    """Two apps on one PostgreSQL database, as two server processes, and a game of two humans
    created through the first: both apps' clients, the game's id and its seats' tokens."""
    with (
        TestClient(create_app(pg_url, bot_delay=0)) as one,
        TestClient(create_app(pg_url, bot_delay=0)) as two,
    ):
        created = one.post(
            "/api/games", json={"seats": HUMANS, "options": {"stack": CITY_STACK}}
        ).json()
        token0, token1 = (s["token"] for s in created["seats"])
        yield one, two, created["id"], token0, token1


def test_news_of_a_move_reaches_the_other_servers_sockets(pg_url: str) -> None:
    """PostgreSQL only: LISTEN/NOTIFY between the servers; each seat sees its own view."""
    with two_apps_and_a_game(pg_url) as (one, two, game_id, token0, token1):
        with two.websocket_connect(f"/ws/{game_id}") as ws:
            assert hello(ws, token1)["ply"] == 0
            moved = one.post(
                f"/api/games/{game_id}/actions",
                headers=auth(token0),
                json={"actions": [CLOSE_CITY, {"type": "pass"}], "ply": 0},
            )
            assert moved.status_code == 200
            state = ws.receive_json()
            assert state["type"] == "state" and state["ply"] == 2
            assert state["perspective"] == 1 and state["view"]["seat"] == 1
            assert state["view"]["to_move"] == 1 and "legal_actions" in state["view"]
            # and the other way: seat 1 moves through the second server
            reply = state["view"]["legal_actions"][0]
            ws.send_json({"type": "act", "actions": [reply], "ply": 2})
            assert ws.receive_json()["ply"] == 3
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            state = one.get(f"/api/games/{game_id}/state", headers=auth(token0)).json()
            if state["ply"] == 3:
                break
            time.sleep(0.02)
        assert state["ply"] == 3


def test_a_hint_used_through_one_server_is_shown_by_the_other(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL only: the hint is stored with a notification, as a move is."""
    monkeypatch.setattr(roomhints, "HINT_BOT", "expert:iterations=12,seconds=600")
    with (
        two_apps_and_a_game(pg_url) as (one, two, game_id, token0, token1),
        two.websocket_connect(f"/ws/{game_id}") as watcher,
        one.websocket_connect(f"/ws/{game_id}") as asker,
    ):
        assert hello(watcher, token1)["hints_used"] == []
        hello(asker, token0)
        asker.send_json({"type": "hint", "ply": 0})
        while (state := watcher.receive_json())["type"] != "state":
            pass
        assert state["hints_used"] == [{"seat": 0, "ply": 0}]


# ------------------------------------------------------------------------------ schema


V2_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (
    id TEXT PRIMARY KEY, created REAL NOT NULL, options TEXT NOT NULL, seats TEXT NOT NULL,
    hotseat_digest TEXT, finished INTEGER NOT NULL DEFAULT 0, updated REAL NOT NULL DEFAULT 0,
    creator TEXT NOT NULL DEFAULT '', expired TEXT
);
CREATE TABLE actions (
    game_id TEXT NOT NULL REFERENCES games(id), ply INTEGER NOT NULL, seat INTEGER NOT NULL,
    action TEXT NOT NULL, PRIMARY KEY (game_id, ply)
);
INSERT INTO meta VALUES ('schema', '2');
INSERT INTO games (id, created, options, seats, updated) VALUES
    ('old', 1.0, '{"players": 2, "seed": 5, "stack": ["base/E"]}',
     '[{"kind": "human", "name": "Ana", "bot": null, "digest": null},
       {"kind": "bot", "name": "Bot", "bot": "random", "digest": null}]', 1.0);
INSERT INTO actions VALUES
    ('old', 0, 0, '{"type": "place-tile", "x": 0, "y": -1, "rotation": 180}');
"""


def test_an_sqlite_database_of_schema_2_is_migrated(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    with sqlite3.connect(db) as old:
        old.executescript(V2_SCHEMA)
    storage = open_storage(db)
    stored = storage.load_game("old")
    assert stored is not None and [a for _, a in stored.actions] == [CLOSE_CITY]
    assert storage._rows("SELECT value FROM meta WHERE key='schema'") == [(str(SCHEMA_VERSION),)]
    assert storage.take_bot_lease("old", "A", time.time() + 60)  # the new columns are there
    storage.record_hint("old", 1, 1)  # and the new table
    assert storage.load_game("old").hints == [(1, 1)]  # type: ignore[union-attr]


def test_a_database_of_schema_3_is_migrated(games_db: str) -> None:
    """Schema 4 added the hints used; a schema 3 database is schema 4 without that table."""
    storage = open_storage(games_db)
    storage.create_game("g", {}, HUMANS, None)
    storage.append_actions("g", 0, [(0, CLOSE_CITY)], over=False)
    with storage._transaction("schema 3") as db:
        undo_schema_8(db)
        db.execute("DROP TABLE hints")
        db.execute("ALTER TABLE games DROP COLUMN claimed")  # schema 5's
        db.execute("DROP TABLE seat_changes")  # schema 6's
        db.execute("ALTER TABLE actions DROP COLUMN at_ms")
        db.execute("UPDATE meta SET value='3' WHERE key='schema'")
    storage.close()
    migrated = open_storage(games_db)
    assert migrated._rows("SELECT value FROM meta WHERE key='schema'") == [(str(SCHEMA_VERSION),)]
    migrated.record_hint("g", 1, 0)
    migrated.record_hint("g", 1, 0)  # kept once
    stored = migrated.load_game("g")
    assert stored is not None and stored.hints == [(0, 1)]
    assert [a for _, a in stored.actions] == [CLOSE_CITY]


def test_a_database_of_schema_4_is_migrated(games_db: str) -> None:
    """Schema 5 tells the games taken up (which keep the long expiry): after the migration,
    those with moves stored are, the others are not."""
    storage = open_storage(games_db)
    storage.create_game("played", {}, HUMANS, None)
    storage.append_actions("played", 0, [(0, CLOSE_CITY)], over=False)
    storage.create_game("untouched", {}, HUMANS, None)
    with storage._transaction("schema 4") as db:
        undo_schema_8(db)
        db.execute("ALTER TABLE games DROP COLUMN claimed")
        db.execute("DROP TABLE seat_changes")  # schema 6's
        db.execute("ALTER TABLE actions DROP COLUMN at_ms")
        db.execute("UPDATE meta SET value='4' WHERE key='schema'")
    storage.close()
    migrated = open_storage(games_db)
    assert migrated._rows("SELECT value FROM meta WHERE key='schema'") == [(str(SCHEMA_VERSION),)]
    assert migrated.load_game("played").claimed  # type: ignore[union-attr]
    assert not migrated.load_game("untouched").claimed  # type: ignore[union-attr]
    assert migrated.idle_since(time.time() + 1, unclaimed=True) == ["untouched"]


def test_a_database_of_a_newer_schema_is_refused(games_db: str) -> None:
    storage = open_storage(games_db)
    storage.create_game("g", {}, HUMANS, None)
    newer = SCHEMA_VERSION + 1
    with storage._transaction("a newer schema") as db:
        db.execute("UPDATE meta SET value=? WHERE key='schema'", (str(newer),))
    storage.close()
    with pytest.raises(StorageError, match=f"database schema {newer}, expected {SCHEMA_VERSION}"):
        open_storage(games_db)


def test_opening_twice_keeps_the_games(games_db: str) -> None:
    open_storage(games_db).create_game("g", {"players": 2}, HUMANS, None)
    again: Any = open_storage(games_db).load_game("g")
    assert again.options == {"players": 2} and again.actions == []


def test_news_is_read_from_notifications_and_foreign_ones_have_all_read_again() -> None:
    from carcassonne.web.pgstorage import _news

    moved = '{"id": "g", "plies": 3, "moves": [[1, {"type": "pass"}]]}'
    assert _news(moved) == News("g", 3, ((1, {"type": "pass"}),))
    assert _news('{"id": "g"}') == News("g", None, ())  # expired: read from the database
    assert _news("someone else's notification") is None
    assert _news('{"plies": 3}') is None
