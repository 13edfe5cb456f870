"""The chat per table (issue 25, item 2): the seats' chat and the spectators' apart, plain text
of at most 500 code points or a quick phrase's id, rate-limited per client, kept with the game
(schema 7) and bounded per game, brought by hello, shown in the finished game's replay, and
delivered across processes on PostgreSQL; on both backends."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_hidden_info import hidden_leaks
from test_multiprocess import Serve
from web_helpers import TestClient, auth, undo_schema_8

from carcassonne.board import decode
from carcassonne.expansions.mapchips import MapChips
from carcassonne.web import create_app, roomchat
from carcassonne.web.chat import MAX_CHAT_CHARS
from carcassonne.web.database import open_storage
from carcassonne.web.ratelimit import Limit, RateLimits
from carcassonne.web.schema import SCHEMA_VERSION

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]
STACK = ["base/E", "base/U"]
#: a wall clock in milliseconds beyond 2**31, exact as an integer
AT = 1_764_590_400_123


class Clock:
    """The rate limits' monotonic clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_client(db: str, clock: Clock | None = None, generous: bool = True) -> TestClient:
    # the chat's own limit is tested with the default; the others test the chat itself
    limits = RateLimits(chat=Limit(per_minute=6000, burst=1000)) if generous else RateLimits()
    app = create_app(db, bot_delay=0, limits=limits, clock=clock or Clock(), wall_clock=lambda: AT)
    return TestClient(app)


def create(client: TestClient) -> Any:
    answer = client.post("/api/games", json={"seats": HUMANS, "options": {"stack": STACK}})
    assert answer.status_code == 201, answer.json()
    return answer.json()


@contextlib.contextmanager
def seat_and_spectator(client: Any, game: dict[str, Any]) -> Iterator[tuple[Any, Any]]:
    """Seat 0's websocket and a spectator's on ``game``, both greeted."""
    with (
        client.websocket_connect(f"/ws/{game['id']}") as seat,
        client.websocket_connect(f"/ws/{game['id']}") as spectator,
    ):
        greet(seat, game["seats"][0]["token"])
        greet(spectator, None)
        yield seat, spectator


def greet(ws: Any, token: str | None) -> dict[str, Any]:
    """Hello on a websocket; the welcome (the state after it is read and dropped)."""
    ws.send_json({"type": "hello", "token": token})
    welcome = ws.receive_json()
    assert welcome["type"] == "welcome"
    assert ws.receive_json()["type"] == "state"
    return welcome  # type: ignore[no-any-return]


def next_of(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` (states and presence on the way are skipped)."""
    while True:
        message = ws.receive_json()
        if message["type"] == kind:
            return message  # type: ignore[no-any-return]
        assert message["type"] in ("state", "presence"), message


def refused(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    ws.send_json(message)
    return next_of(ws, "error")


def ping(ws: Any) -> None:
    """Every message before the pong was sent: nothing else is on its way."""
    ws.send_json({"type": "ping"})
    next_of(ws, "pong")


def test_seats_and_spectators_each_read_their_own_chat(games_db: str) -> None:
    with make_client(games_db) as client:
        game = create(client)
        ws_path = f"/ws/{game['id']}"
        with (
            client.websocket_connect(ws_path) as ana,
            client.websocket_connect(ws_path) as bo,
            client.websocket_connect(ws_path) as watcher,
            client.websocket_connect(ws_path) as other_watcher,
        ):
            greet(ana, game["seats"][0]["token"])
            greet(bo, game["seats"][1]["token"])
            greet(watcher, None)
            greet(other_watcher, None)
            ana.send_json({"type": "chat", "text": "  hello Bo  "})
            said = {"type": "chat", "from": 0, "name": "Ana", "text": "hello Bo", "at_ms": AT,
                    "n": 0}  # fmt: skip
            assert next_of(bo, "chat") == said
            assert next_of(ana, "chat") == said  # the writer sees it stored
            watcher.send_json({"type": "chat", "phrase": "wp"})
            heard = {"type": "chat", "from": None, "name": "", "phrase": "wp", "at_ms": AT, "n": 1}
            assert next_of(other_watcher, "chat") == heard
            assert next_of(watcher, "chat") == heard
            # the spectators never heard the seats, nor the seats the spectators
            ping(ana)
            ping(bo)
            ping(watcher)
            # hello brings each audience its own recent lines
            with client.websocket_connect(ws_path) as late:
                assert greet(late, None)["chat"] == [heard]
            with client.websocket_connect(ws_path) as again:
                assert greet(again, game["seats"][1]["token"])["chat"] == [said]


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ({"type": "chat"}, "chat_shape"),
        ({"type": "chat", "text": "hi", "phrase": "gg"}, "chat_shape"),
        ({"type": "chat", "text": 5}, "chat_shape"),
        ({"type": "chat", "text": "   "}, "chat_length"),
        ({"type": "chat", "text": "x" * (MAX_CHAT_CHARS + 1)}, "chat_length"),
        ({"type": "chat", "text": "bell\x07"}, "chat_control"),
        ({"type": "chat", "phrase": "you lose"}, "chat_phrase"),
        ({"type": "chat", "text": "hi", "to": 1}, "unknown_keys"),
    ],
)
def test_a_bad_chat_message_is_refused_with_its_reason(
    tmp_path: Path, message: dict[str, Any], reason: str
) -> None:
    with make_client(str(tmp_path / "games.sqlite3")) as client:
        game = create(client)
        with client.websocket_connect(f"/ws/{game['id']}") as ana:
            greet(ana, game["seats"][0]["token"])
            assert refused(ana, message)["reason"] == reason
            ana.send_json({"type": "chat", "text": "still here"})
            assert next_of(ana, "chat")["n"] == 0  # nothing was stored of the refused ones


def test_the_length_is_counted_in_code_points_and_lone_surrogates_are_refused(
    tmp_path: Path,
) -> None:
    with make_client(str(tmp_path / "games.sqlite3")) as client:
        game = create(client)
        with client.websocket_connect(f"/ws/{game['id']}") as ana:
            greet(ana, game["seats"][0]["token"])
            # 500 emoji are 1000 UTF-16 units (a page's string length) but 500 characters
            ana.send_json({"type": "chat", "text": "😀" * MAX_CHAT_CHARS})
            assert next_of(ana, "chat")["text"] == "😀" * MAX_CHAT_CHARS
            ana.send_text('{"type": "chat", "text": "half \\ud83d"}')
            assert next_of(ana, "error")["reason"] == "lone_surrogate"


def test_chat_is_rate_limited_per_client_five_at_once_ten_a_minute(tmp_path: Path) -> None:
    clock = Clock()
    with make_client(str(tmp_path / "games.sqlite3"), clock, generous=False) as client:
        game = create(client)
        with seat_and_spectator(client, game) as (ana, watcher):
            for i in range(5):
                ana.send_json({"type": "chat", "text": f"line {i}"})
                assert next_of(ana, "chat")["n"] == i
            # a second connection of the same client shares the bucket
            error = refused(watcher, {"type": "chat", "text": "one more"})
            assert error["reason"] == "rate_limited" and error["params"]["per_minute"] == 10
            clock.now += 6  # 10 a minute: one more every 6 seconds
            ana.send_json({"type": "chat", "text": "after a while"})
            assert next_of(ana, "chat")["n"] == 5
            assert refused(ana, {"type": "chat", "phrase": "gg"})["reason"] == "rate_limited"


def test_a_games_chat_is_bounded_and_the_game_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(roomchat, "MAX_CHAT_LINES", 3)
    with make_client(str(tmp_path / "games.sqlite3")) as client:
        game = create(client)
        with client.websocket_connect(f"/ws/{game['id']}") as ana:
            greet(ana, game["seats"][0]["token"])
            for i in range(3):
                ana.send_json({"type": "chat", "text": f"line {i}"})
                assert next_of(ana, "chat")["n"] == i
            error = refused(ana, {"type": "chat", "text": "one too many"})
            assert error["reason"] == "chat_full" and error["code"] == "chat-full"
        assert client.get(f"/api/games/{game['id']}/state").status_code == 200
        stored = open_storage(str(tmp_path / "games.sqlite3")).load_game(game["id"])
        assert stored is not None and [line.text for line in stored.chat] == [
            "line 0",
            "line 1",
            "line 2",
        ]


def test_the_chat_is_kept_with_the_game_and_the_replay_shows_the_seats_chat(
    games_db: str,
) -> None:
    with make_client(games_db) as client:
        game = create(client)
        with seat_and_spectator(client, game) as (ana, watcher):
            ana.send_json({"type": "chat", "phrase": "gg"})
            next_of(ana, "chat")
            watcher.send_json({"type": "chat", "text": "the spectators' own"})
            next_of(watcher, "chat")
    # a new server on the same database: the lines were stored
    with make_client(games_db) as client:
        with client.websocket_connect(f"/ws/{game['id']}") as bo:
            welcome = greet(bo, game["seats"][1]["token"])
            assert [line.get("phrase") for line in welcome["chat"]] == ["gg"]
        finish(client, game)
        replayed = client.get(f"/api/games/{game['id']}/replay").json()
        assert replayed["chat"] == [
            {"type": "chat", "from": 0, "name": "Ana", "phrase": "gg", "at_ms": AT, "n": 0}
        ]


def finish(client: TestClient, game: Any) -> None:
    """Play the two-tile game to its end through the API (each seat its first legal action)."""
    while True:
        seat_states = [
            client.get(f"/api/games/{game['id']}/state", headers=auth(s["token"])).json()
            for s in game["seats"]
        ]
        view = seat_states[0]["view"]
        if view["phase"] == "over":
            return
        mover = seat_states[view["to_move"]]
        answer = client.post(
            f"/api/games/{game['id']}/actions",
            headers=auth(game["seats"][view["to_move"]]["token"]),
            json={"actions": [mover["view"]["legal_actions"][0]], "ply": mover["ply"]},
        )
        assert answer.status_code == 200, answer.json()


def test_a_database_of_schema_6_is_migrated(games_db: str) -> None:
    """Schema 7 added the chat."""
    old = open_storage(games_db)
    old.create_game("g", {}, HUMANS, None)
    with old._transaction("schema 6") as db:
        undo_schema_8(db)
        db.execute("DROP TABLE chat")
        db.execute("UPDATE meta SET value='6' WHERE key='schema'")
    old.close()
    migrated = open_storage(games_db)
    assert migrated._rows("SELECT value FROM meta WHERE key='schema'") == [(str(SCHEMA_VERSION),)]
    line = migrated.add_chat("g", "seats", 1, "Bo", ("hi", None), AT, most=10)
    assert line is not None and line.n == 0
    stored = migrated.load_game("g")
    assert stored is not None and stored.chat == [line]
    assert migrated.chat_since("g", 1) == []


def test_two_servers_chat_across_processes(pg_url: str) -> None:
    with Serve(pg_url) as one, Serve(pg_url) as two:
        created = one.post("/api/games", {"seats": HUMANS, "options": {"stack": STACK}})
        game_id = created["id"]
        with (
            one.socket(game_id, created["seats"][0]["token"]) as ana,
            two.socket(game_id, created["seats"][1]["token"]) as bo,
            two.socket(game_id, None) as watcher,
        ):
            for ws in (ana, bo, watcher):
                wait_for(ws, "state")
            ana.send(json.dumps({"type": "chat", "text": "from process one"}))
            heard = wait_for(bo, "chat")
            assert heard["from"] == 0 and heard["text"] == "from process one"
            bo.send(json.dumps({"type": "chat", "phrase": "thanks"}))
            assert wait_for(ana, "chat")["n"] == 0  # its own line first
            answer = wait_for(ana, "chat")
            assert answer["from"] == 1 and answer["phrase"] == "thanks" and answer["n"] == 1
            watcher.send(json.dumps({"type": "ping"}))
            assert wait_for(watcher, "pong") == {"type": "pong"}  # no seat's line reached it


def wait_for(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of ``kind`` on a websockets client (states, presence skipped)."""
    while True:
        message = json.loads(ws.recv(timeout=60))
        if message["type"] == kind:
            return message  # type: ignore[no-any-return]
        assert message["type"] in ("welcome", "state", "presence"), message


def test_no_chat_message_or_chat_error_carries_hidden_information(tmp_path: Path) -> None:
    """Item 5: a chat line, the chat brought by hello and every chat error tell only what was
    said: no stack order, bet chip or face-down map chip (checked as the hidden-information
    test checks every state)."""
    with make_client(str(tmp_path / "games.sqlite3")) as client:
        created = client.post(
            "/api/games",
            json={
                "seats": [{"kind": "human"}, {"kind": "human"}],
                "options": {"bets": True, "map": "france", "map_chips": True, "seed": 11},
            },
        ).json()
        room = client.app.state.server.rooms[created["id"]]  # type: ignore[attr-defined]
        chip_squares = {decode(pos) for pos in room.game.expansion(MapChips).face_down}
        stack = [tile.id for tile in room.game.stack]
        with client.websocket_connect(f"/ws/{created['id']}") as ws:
            greet(ws, created["seats"][0]["token"])
            ws.send_json({"type": "chat", "text": "what's next?"})
            got = [next_of(ws, "chat")]
            for bad in ({"type": "chat", "phrase": stack[0]}, {"type": "chat", "text": "x" * 501}):
                got.append(refused(ws, bad))
        with client.websocket_connect(f"/ws/{created['id']}") as again:
            got.append(greet(again, created["seats"][1]["token"]))
    assert got[0].keys() == {"type", "from", "name", "text", "at_ms", "n"}
    for message in got:
        assert hidden_leaks(message, chip_squares) == []
        said = json.dumps({k: v for k, v in message.items() if k != "game"})
        assert not any(tile_id in said for tile_id in stack), message


def test_the_state_read_over_http_brings_the_chat_heard_since_the_last_read(
    tmp_path: Path,
) -> None:
    with make_client(str(tmp_path / "games.sqlite3")) as client:
        game = create(client)
        path, bo = f"/api/games/{game['id']}/state", auth(game["seats"][1]["token"])
        with client.websocket_connect(f"/ws/{game['id']}") as ana:
            greet(ana, game["seats"][0]["token"])
            # read (and kept) while nothing changes the game: the chat line must renew it
            assert client.get(path, headers=bo).json()["chat"] == []
            ana.send_json({"type": "chat", "phrase": "sorry"})
            next_of(ana, "chat")
            chat = client.get(path, headers=bo).json()["chat"]
            assert [line["phrase"] for line in chat] == ["sorry"]
            assert client.get(path).json()["chat"] == []  # a spectator reads the spectators'
