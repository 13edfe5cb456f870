"""A game's audience costs the server per change, not per pair of clients (issue 9, finding 1).

Joining used to rebuild a state message for every connection, so a thousand spectators cost
a million views. Now a message is built once per perspective and change, a spectator arriving
tells the others nothing, a seat coming online is a small ``presence`` message, and a client
that stops reading is cut off instead of making the server buffer without limit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from web_helpers import TestClient, hello

from carcassonne.web import create_app
from carcassonne.web.rooms import MAX_QUEUED, MAX_QUEUED_CHARS, SPECTATOR, Connection, Room

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]
CLOSE_CITY = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
SPECTATORS = 12


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
    assert by_count.overflowed and by_count.queue.qsize() == MAX_QUEUED + 1  # then the end mark

    by_size = Connection(SPECTATOR)
    big = "x" * (MAX_QUEUED_CHARS // 3)
    for _ in range(4):
        by_size.push(big)
    assert by_size.overflowed and by_size.queue.qsize() == 4  # three texts and the end mark
    assert by_size.queued_chars == 3 * len(big)
