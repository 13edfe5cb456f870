"""Games on a long-running server (issue 9, findings 4, 5 and 7).

Memory holds only the games in use; abandoned games expire; the caps on unfinished games count
per address, survive restarts and, when the server is full, cost the address holding the most
games rather than the next player; a database that refuses writes for a while stops nothing for
good, and every failure is answered with the documented JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from web_helpers import TestClient, auth, finished_game

from carcassonne.formats.actions import action_from_json, action_to_json
from carcassonne.web import create_app
from carcassonne.web.database import open_storage
from carcassonne.web.outbox import Principal
from carcassonne.web.protocol import ProtocolError, parse_options, parse_seats
from carcassonne.web.ratelimit import Limit, RateLimits
from carcassonne.web.roombots import MAX_STORE_RETRY
from carcassonne.web.server import (
    EXPIRE_AFTER,
    IDLE_ROOM_SECONDS,
    MAX_IDLE_ROOMS,
    UNCLAIMED_EXPIRE_AFTER,
    GameServer,
)
from carcassonne.web.storage import Storage

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]
#: one tile: placing it and passing ends the game
ONE_TILE = {"stack": ["base/E"]}
CLOSE_CITY = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
PASS = {"type": "pass"}
PLENTY = Limit(10_000, burst=10_000)
GENEROUS = RateLimits(create=PLENTY, replay=PLENTY, read=PLENTY)


class Clock:
    """Seconds since the epoch, moved by hand."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def storage(games_db: str) -> Storage:
    """The storage on each backend in turn: the caps and expiry are counted in it."""
    return open_storage(games_db)


def new_game(server: GameServer, creator: str = "10.0.0.1", **options: Any) -> Any:
    room, _ = asyncio.run(
        server.create(parse_seats(HUMANS), parse_options(options, 2), False, creator)
    )
    return room


def seat0() -> Principal:
    return Principal(frozenset({0}))


# ------------------------------------------------------------------------------ memory


def test_finished_games_do_not_stay_in_memory(tmp_path: Path) -> None:
    """Issue: 300 unwatched bot games 34 -> 132 MB; one GET /record per game after a restart
    33 -> 148 MB. Only the games in use and a few recent ones stay in memory."""
    games = MAX_IDLE_ROOMS + 16
    db = tmp_path / "games.sqlite3"
    ids = []
    with TestClient(create_app(db, bot_delay=0, limits=GENEROUS)) as client:
        for _ in range(games):
            ids.append(finished_game(client))
        assert len(client.app.state.server.rooms) <= MAX_IDLE_ROOMS
    app = create_app(db, bot_delay=0, limits=GENEROUS)  # after a restart, read each record
    with TestClient(app) as client:
        for game_id in ids:
            assert client.get(f"/api/games/{game_id}/record").status_code == 200
        assert len(app.state.server.rooms) <= MAX_IDLE_ROOMS


def test_an_unused_room_leaves_memory_and_comes_back_unchanged(storage: Storage) -> None:
    clock = Clock()
    server = GameServer(storage, bot_delay=0, clock=clock)
    room = new_game(server, **ONE_TILE)
    asyncio.run(server.sweep())
    assert room.id in server.rooms  # recently used
    clock.now += IDLE_ROOM_SECONDS + 1
    asyncio.run(server.sweep())
    assert room.id not in server.rooms
    with pytest.raises(ProtocolError) as stale:  # the old object can no longer act
        asyncio.run(room.submit(seat0(), [action_from_json(CLOSE_CITY)]))
    assert stale.value.code == "stale"
    again = asyncio.run(server.get(room.id))
    assert again is not None and again is not room
    asyncio.run(again.submit(seat0(), [action_from_json(CLOSE_CITY)]))
    assert len(storage.load_game(room.id).actions) == 1


# ------------------------------------------------------------------------------ expiry and caps


def test_abandoned_games_expire_and_finished_ones_stay(games_db: str, storage: Storage) -> None:
    clock = Clock()
    # the long expiry alone (the short one of games nobody took up: below)
    server = GameServer(
        storage, bot_delay=0, expire_after=3600, expire_unclaimed_after=None, clock=clock
    )
    abandoned = new_game(server, **ONE_TILE)
    finished = new_game(server, **ONE_TILE)
    asyncio.run(finished.submit(seat0(), [action_from_json(CLOSE_CITY), action_from_json(PASS)]))
    clock.now += 3599
    asyncio.run(server.sweep())
    assert storage.count_unfinished() == 1
    clock.now += 2
    asyncio.run(server.sweep())
    assert storage.count_unfinished() == 0
    room = asyncio.run(server.get(abandoned.id))
    assert room is not None and room.expired == "it expired: nobody moved for 0.0416667 days"
    with pytest.raises(ProtocolError) as refused:
        asyncio.run(room.submit(seat0(), [action_from_json(CLOSE_CITY)]))
    assert refused.value.code == "expired"
    with TestClient(create_app(games_db, bot_delay=0)) as client:
        state = client.get(f"/api/games/{abandoned.id}/state").json()
        assert state["broken"] == room.expired and state["ply"] == 0
        assert client.get(f"/api/games/{finished.id}/record").status_code == 200


def test_the_cap_per_address_holds_across_restarts(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    for restart in range(2):
        app = create_app(db, bot_delay=0, limits=GENEROUS, max_games_per_address=2)
        with (
            TestClient(app, client=("10.0.0.1", 1000)) as flooder,
            TestClient(app, client=("10.0.0.2", 1000)) as other,
        ):
            body = {"seats": HUMANS, "options": {}}
            if restart == 0:
                assert flooder.post("/api/games", json=body).status_code == 201
                assert flooder.post("/api/games", json=body).status_code == 201
            refused = flooder.post("/api/games", json=body)
            assert refused.status_code == 503 and refused.json()["error"] == "too-many-games"
            assert "2 unfinished games" in refused.json()["message"]
            assert other.post("/api/games", json=body).status_code == 201


def test_a_full_server_ends_a_game_of_the_biggest_holder_not_the_newcomer(
    storage: Storage,
) -> None:
    """Issue: 110 addresses x 10 creates filled --max-games for good. When full, a newcomer's
    game takes the place of the least recently moved game of the address holding the most."""
    clock = Clock()
    server = GameServer(
        storage, bot_delay=0, max_live_games=4, max_games_per_address=3, clock=clock
    )
    flood = []
    for _ in range(3):
        flood.append(new_game(server, "10.6.6.6"))
        clock.now += 1
    other = new_game(server, "10.0.0.9")
    honest = new_game(server, "10.0.0.1")  # full: the flood's oldest game makes room
    assert flood[0].expired is not None and "the server was full" in flood[0].expired
    assert [room.expired for room in (*flood[1:], other, honest)] == [None] * 4
    with pytest.raises(ProtocolError) as refused:  # the flooder now holds 2, no one more
        new_game(server, "10.6.6.6")
    assert refused.value.code == "too-many-games"
    assert storage.count_unfinished() == 4


def test_a_game_nobody_took_up_expires_after_minutes(storage: Storage) -> None:
    """Issue 22: games nobody ever opened or moved in held the server's places for 7 days."""
    clock = Clock()
    server = GameServer(storage, bot_delay=0, clock=clock)
    untouched, played, joined, own = (new_game(server, "10.0.0.1", **ONE_TILE) for _ in range(4))
    asyncio.run(played.submit(seat0(), [action_from_json(CLOSE_CITY)]))
    asyncio.run(server.opened(joined, Principal(frozenset({1})), "10.0.0.2"))  # a friend came
    asyncio.run(server.opened(own, seat0(), "10.0.0.1"))  # only the creator
    asyncio.run(server.opened(own, Principal(frozenset()), "10.0.0.2"))  # and a spectator
    games = (untouched, played, joined, own)

    def expired() -> list[str | None]:
        return [storage.load_game(room.id).expired for room in games]  # type: ignore[union-attr]

    clock.now += UNCLAIMED_EXPIRE_AFTER - 1
    asyncio.run(server.sweep())
    assert expired() == [None] * 4
    clock.now += 60
    asyncio.run(server.sweep())
    reason = "it expired: nobody joined it or moved for 15 minutes"
    assert expired() == [reason, None, None, reason]
    assert storage.count_unfinished() == 2
    clock.now += EXPIRE_AFTER  # the games taken up keep the long expiry
    asyncio.run(server.sweep())
    assert storage.count_unfinished() == 0


def test_a_bot_moving_first_does_not_take_a_game_up(storage: Storage) -> None:
    clock = Clock()
    server = GameServer(storage, bot_delay=0, clock=clock)
    seats = parse_seats([{"kind": "bot", "bot": "random"}, {"kind": "human"}])
    room, _ = asyncio.run(server.create(seats, parse_options({}, 2), False, "10.0.0.1"))
    room.game.apply(room.game.legal_actions()[0])  # as its bot would, without a loop to run it
    storage.append_actions(room.id, 0, [(0, action_to_json(room.game.history[0][1]))], False)
    clock.now += UNCLAIMED_EXPIRE_AFTER + 60
    asyncio.run(server.sweep())
    assert room.expired is not None and "nobody joined it" in room.expired


def test_a_server_full_of_games_from_many_addresses_lets_a_newcomer_in(storage: Storage) -> None:
    """Issue 22: 1,000 addresses with one game each filled --max-games, and newcomers were
    refused for the 7-day expiry, even after a restart."""
    clock = Clock()
    server = GameServer(storage, bot_delay=0, max_live_games=3, clock=clock)
    flood = []
    for i in range(3):
        flood.append(new_game(server, f"10.6.0.{i}"))
        clock.now += 1
    restarted = GameServer(storage, bot_delay=0, max_live_games=3, clock=clock)
    asyncio.run(restarted.resume())
    newcomer, _ = asyncio.run(
        restarted.create(parse_seats(HUMANS), parse_options({}, 2), False, "10.0.0.1")
    )
    assert newcomer.expired is None
    assert [storage.load_game(room.id).expired for room in flood] == [  # type: ignore[union-attr]
        "it ended unplayed: the server was full and nobody had taken it up",
        None,
        None,
    ]


def test_a_game_taken_up_is_not_ended_for_a_newcomer(storage: Storage) -> None:
    server = GameServer(storage, bot_delay=0, max_live_games=2)
    played, joined = new_game(server, "10.6.0.1", **ONE_TILE), new_game(server, "10.6.0.2")
    asyncio.run(played.submit(seat0(), [action_from_json(CLOSE_CITY)]))
    asyncio.run(server.opened(joined, seat0(), "10.0.0.7"))
    with pytest.raises(ProtocolError) as refused:
        new_game(server, "10.0.0.1")
    assert refused.value.code == "too-many-games"
    assert (played.expired, joined.expired) == (None, None)


def test_one_ipv6_network_is_one_client_for_the_games_cap(tmp_path: Path) -> None:
    """Issue 22: an IPv6 /64 is 2^64 addresses, each with a cap of its own."""
    app = create_app(
        tmp_path / "games.sqlite3", bot_delay=0, limits=GENEROUS, max_games_per_address=2
    )
    body = {"seats": HUMANS}
    with contextlib.ExitStack() as stack:
        same, other = (
            [stack.enter_context(TestClient(app, client=(address, 1000))) for address in addresses]
            for addresses in (
                ["2001:db8:0:1::1", "2001:db8:0:1::2", "2001:db8:0:1:ffff::3"],
                ["2001:db8:0:2::1"],
            )
        )
        assert [c.post("/api/games", json=body).status_code for c in same] == [201, 201, 503]
        assert other[0].post("/api/games", json=body).status_code == 201


def test_a_creation_refused_for_its_options_ends_no_game(storage: Storage) -> None:
    server = GameServer(storage, bot_delay=0, max_live_games=2, max_games_per_address=5)
    held = [new_game(server, "10.6.6.6"), new_game(server, "10.6.6.6")]
    with pytest.raises(ProtocolError) as refused:  # base/D is the start tile: only 3 remain
        new_game(server, "10.0.0.1", stack=["base/D"] * 4)
    assert refused.value.code == "bad-options"
    assert [room.expired for room in held] == [None, None]
    assert storage.count_unfinished() == 2


def test_a_watched_game_is_never_the_one_ended(storage: Storage) -> None:
    server = GameServer(storage, bot_delay=0, max_live_games=2, max_games_per_address=5)
    watched, idle = new_game(server, "10.6.6.6"), new_game(server, "10.6.6.6")
    watched.players.add(object())  # type: ignore[arg-type]  # someone is connected
    new_game(server, "10.0.0.1")
    assert watched.expired is None and idle.expired is not None


# ------------------------------------------------------------------------------ storage failures


class FailingWrites:
    """The games database with a switch that makes writes fail as a full disk does: those
    whose statement starts with one of ``failing``."""

    def __init__(self, real: sqlite3.Connection) -> None:
        self.real = real
        self.failing: tuple[str, ...] = ()

    def _check(self, sql: str) -> None:
        if self.failing and sql.lstrip().startswith(self.failing):
            raise sqlite3.OperationalError("database or disk is full")

    def execute(self, sql: str, params: Any = ()) -> Any:
        self._check(sql)
        return self.real.execute(sql, params)

    def executemany(self, sql: str, rows: Any) -> Any:
        self._check(sql)
        return self.real.executemany(sql, rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def test_bots_resume_when_the_database_takes_writes_again(tmp_path: Path) -> None:
    """Issue: a failed write stopped that game's bots until a restart, and creating a game
    gave a bare 500."""
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0)
    storage = app.state.storage
    disk = storage._db = FailingWrites(storage._db)
    body = {"seats": [{"kind": "bot", "bot": "random"}, HUMANS[0]], "options": {}}
    with TestClient(app) as client:
        disk.failing = ("INSERT", "UPDATE")
        refused = client.post("/api/games", json=body)
        assert refused.status_code == 500
        assert refused.json() == {
            "error": "server",
            "message": "the server could not save the new game; try again",
            "reason": "game_not_saved",
            "params": {},
        }
        disk.failing = ("INSERT INTO actions",)  # the bot, first to move, cannot store its move
        created = client.post("/api/games", json=body).json()
        time.sleep(0.3)
        token = created["seats"][0]["token"]
        state = client.get(f"/api/games/{created['id']}/state", headers=auth(token)).json()
        assert state["ply"] == 0 and state["broken"] is None
        disk.failing = ()
        # the bots retry with a doubling back-off: on a slow machine the next try may be up to
        # MAX_STORE_RETRY seconds away when writes work again
        deadline = time.monotonic() + MAX_STORE_RETRY + 10
        while state["view"]["to_move"] != 1 and time.monotonic() < deadline:
            time.sleep(0.05)
            state = client.get(f"/api/games/{created['id']}/state", headers=auth(token)).json()
        assert state["view"]["to_move"] == 1 and state["view"]["phase"] == "tile"
        assert len(storage.load_game(created["id"]).actions) == state["ply"] >= 2


def test_a_move_that_cannot_be_stored_is_answered_and_undone(tmp_path: Path) -> None:
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0)
    disk = app.state.storage._db = FailingWrites(app.state.storage._db)
    with TestClient(app) as client:
        created = client.post("/api/games", json={"seats": HUMANS, "options": ONE_TILE}).json()
        url, token = f"/api/games/{created['id']}/actions", created["seats"][0]["token"]
        disk.failing = ("INSERT",)
        refused = client.post(url, headers=auth(token), json={"actions": [CLOSE_CITY], "ply": 0})
        assert refused.status_code == 500 and refused.json()["error"] == "server"
        disk.failing = ()
        moved = client.post(url, headers=auth(token), json={"actions": [CLOSE_CITY], "ply": 0})
        assert moved.status_code == 200 and moved.json()["ply"] == 1
