"""A game's audience costs the server per change, not per pair of clients (issue 9, finding 1).

Joining used to rebuild a state message for every connection, so a thousand spectators cost
a million views. Now a message is built once per perspective and change, a spectator arriving
tells the others nothing, a seat coming online is a small ``presence`` message, a client that
reads slowly gets the latest state rather than every frame, and one that sends requests
without reading the answers is cut off instead of making the server buffer without limit.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect
from web_helpers import TestClient, auth, hello

from carcassonne.web import create_app
from carcassonne.web.outbox import MAX_QUEUED, MAX_QUEUED_CHARS, SPECTATOR, Connection, Principal
from carcassonne.web.protocol import parse_options, parse_seats
from carcassonne.web.rooms import Room
from carcassonne.web.server import GameServer
from carcassonne.web.sqlitestorage import SqliteStorage

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]
CLOSE_CITY = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
SPECTATORS = 12
#: more states than the queue of texts held before a reader was dropped (a base game has ~140)
UNREAD_MOVES = MAX_QUEUED + 36


@pytest.fixture
def views(monkeypatch: pytest.MonkeyPatch) -> list[int | None]:
    """Every state (the one place the room has the engine build a view), by perspective."""
    built: list[int | None] = []
    real = Room._state

    def counted(room: Room, seat: int | None, events_from: int) -> dict[str, Any]:
        built.append(seat)
        return real(room, seat, events_from)

    monkeypatch.setattr(Room, "_state", counted)
    return built


def test_spectators_joining_and_a_move_build_each_view_once(
    tmp_path: Path, views: list[int | None]
) -> None:
    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0)) as client:
        created = client.post(
            "/api/games", json={"seats": HUMANS, "options": {"stack": ["base/E", "base/U"]}}
        ).json()
        game_id, token = created["id"], created["seats"][0]["token"]
        audience = [client.websocket_connect(f"/ws/{game_id}") for _ in range(SPECTATORS)]
        sockets = [ws.__enter__() for ws in audience]
        try:
            views.clear()
            for ws in sockets:
                first = hello(ws, None)
                assert first["ply"] == 0 and first["online"] == []
            assert views == [None]  # one spectator's view, shared by all who joined

            with client.websocket_connect(f"/ws/{game_id}") as player:
                hello(player, token)
                for ws in sockets:  # seat 0 came online: a small message, not a state
                    assert ws.receive_json() == {"type": "presence", "online": [0]}
                views.clear()
                player.send_json({"type": "act", "actions": [CLOSE_CITY], "ply": 0})
                moved = player.receive_json()
                assert moved["type"] == "state" and moved["ply"] == 1
                for ws in sockets:
                    seen = ws.receive_json()
                    assert seen["type"] == "state" and seen["ply"] == 1
                    assert seen["view"]["tiles"] == moved["view"]["tiles"]
                assert sorted(views, key=str) == [0, None]  # once per perspective
            for ws in sockets:  # seat 0 left
                assert ws.receive_json() == {"type": "presence", "online": []}
        finally:
            for ws in audience:
                ws.__exit__(None, None, None)


def test_a_client_that_stops_reading_is_dropped_not_buffered() -> None:
    by_count = Connection(SPECTATOR)
    for _ in range(MAX_QUEUED + 5):
        by_count.push("{}")
    assert by_count.overflowed and by_count.waiting == MAX_QUEUED + 1  # then the end mark

    by_size = Connection(SPECTATOR)
    big = "x" * (MAX_QUEUED_CHARS // 3)
    for _ in range(4):
        by_size.push(big)
    assert by_size.overflowed and by_size.waiting == 4  # three texts and the end mark
    assert by_size.queued_chars == 3 * len(big)


def test_a_slow_reader_gets_the_latest_state_not_every_frame(tmp_path: Path) -> None:
    """Issue 11: a spectator of a fast bot game was dropped once 64 states waited for it.  Now
    what waits is one mark, and the state read is the game as it is, with every event since the
    last state the reader got; a seat still gets its own view."""
    hotseat = Principal(frozenset({0, 1}), hotseat=True)

    async def scenario() -> None:
        server = GameServer(SqliteStorage(tmp_path / "games.sqlite3"), bot_delay=0)
        room, _ = await server.create(parse_seats(HUMANS), parse_options({"seed": 3}, 2), True)
        watcher, seat1 = Connection(SPECTATOR), Connection(Principal(frozenset({1})))
        room.join(seat1)
        room.join(watcher)
        rng = random.Random(5)

        async def play(moves: int) -> None:
            for _ in range(moves):
                await room.submit(hotseat, [rng.choice(room.game.legal_actions())])
                assert watcher.waiting <= 2 and not watcher.overflowed  # welcome and a state

        async def read_all(conn: Connection) -> list[dict[str, Any]]:
            return [json.loads(await conn.next() or "null") for _ in range(conn.waiting)]

        await play(UNREAD_MOVES)
        seen = await read_all(watcher)
        assert [m["type"] for m in seen] == ["welcome", "state"]
        state = seen[-1]
        assert state["ply"] == len(room.game.history) == UNREAD_MOVES
        assert state["events_from"] == 0 and len(state["events"]) == len(room.game.events)
        assert state["view"] == room.game.view(None)
        await play(5)
        (later,) = await read_all(watcher)
        assert later["ply"] == UNREAD_MOVES + 5 and later["events_from"] == len(state["events"])
        assert later["events_from"] + len(later["events"]) == len(room.game.events)
        seat_state = (await read_all(seat1))[-1]
        assert seat_state["perspective"] == 1 and seat_state["view"] == room.game.view(1)

    asyncio.run(scenario())


def test_a_state_that_cannot_be_built_ends_that_connection_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """States are built when sent, in the connection's sending task: a bug there closes that
    connection (1011), and the game and its other clients go on."""
    real = Room._state

    def failing_for_spectators(room: Room, seat: int | None, events_from: int) -> dict[str, Any]:
        if seat is None:
            raise RuntimeError("a bug in building the spectators' view")
        return real(room, seat, events_from)

    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0)) as client:
        created = client.post(
            "/api/games", json={"seats": HUMANS, "options": {"stack": ["base/E", "base/U"]}}
        ).json()
        game_id, token = created["id"], created["seats"][0]["token"]
        with client.websocket_connect(f"/ws/{game_id}") as watcher:
            hello(watcher, None)
            monkeypatch.setattr(Room, "_state", failing_for_spectators)
            moved = client.post(
                f"/api/games/{game_id}/actions",
                headers=auth(token),
                json={"actions": [CLOSE_CITY], "ply": 0},
            )
            assert moved.status_code == 200 and moved.json()["ply"] == 1
            with pytest.raises(WebSocketDisconnect) as closed:
                watcher.receive_json()
            assert closed.value.code == 1011
        state = client.get(f"/api/games/{game_id}/state", headers=auth(token)).json()
        assert state["ply"] == 1
