"""A move is stored in a storage thread while the event loop goes on (issue 11: PostgreSQL's
calls are made so): until its commit is done nobody sees it, and the other changes of its game
(a second move, news of a move made elsewhere) wait for it instead of interleaving with it."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from carcassonne.formats.actions import action_from_json
from carcassonne.web.outbox import SPECTATOR, Connection, Principal
from carcassonne.web.protocol import ProtocolError, parse_options, parse_seats
from carcassonne.web.rooms import Room
from carcassonne.web.server import GameServer
from carcassonne.web.sqlitestorage import SqliteStorage
from carcassonne.web.storage import News

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]
CITY_STACK = ["base/E", "base/U", "base/V"]
CLOSE_CITY = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
SEAT0 = Principal(frozenset({0}))


class SlowCommits(SqliteStorage):
    """An SQLite database whose commits of moves wait until the test lets them through, called
    from a thread as PostgreSQL's storage is (SQLite's own calls are too short for threads)."""

    threads = 1

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.storing = threading.Event()
        self.go_on = threading.Event()

    def append_actions(self, *args: Any, **kwargs: Any) -> None:
        self.storing.set()
        if not self.go_on.wait(10):
            raise AssertionError("the test never let the commit through")
        super().append_actions(*args, **kwargs)


async def _room_storing_a_move(
    tmp_path: Path,
) -> tuple[SlowCommits, Room, Connection, asyncio.Task[None]]:
    """A two-player game, a spectator, and seat 0's first move waiting in its commit."""
    storage = SlowCommits(tmp_path / "games.sqlite3")
    server = GameServer(storage, bot_delay=0)
    room, _ = await server.create(
        parse_seats(HUMANS), parse_options({"stack": CITY_STACK}, 2), False
    )
    watcher = Connection(SPECTATOR)
    room.join(watcher)
    while watcher.waiting:
        await watcher.next()
    move = asyncio.create_task(room.submit(SEAT0, [action_from_json(CLOSE_CITY)], 0))
    assert await asyncio.to_thread(storage.storing.wait, 10)
    return storage, room, watcher, move


def test_while_a_move_is_stored_the_loop_serves_and_nobody_sees_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        storage, room, watcher, move = await _room_storing_a_move(tmp_path)
        # this code runs: the loop is free while the commit waits in the storage's thread
        assert room.game.history == [] and room.state(SEAT0)["ply"] == 0
        assert not watcher.waiting
        # a second move of the same game waits for the first ...
        second = asyncio.create_task(room.submit(SEAT0, [action_from_json(CLOSE_CITY)], 0))
        await asyncio.sleep(0.05)
        assert not second.done()
        storage.go_on.set()
        await move
        assert len(room.game.history) == 1
        assert '"ply":1' in (await watcher.next() or "")
        # ... and then finds the game moved on, rather than being applied after it
        with pytest.raises(ProtocolError) as refused:
            await second
        assert refused.value.code == "stale"
        stored = storage.load_game(room.id)
        assert stored is not None and [a for _, a in stored.actions] == [CLOSE_CITY]

    asyncio.run(scenario())


def test_news_of_a_move_being_stored_waits_for_it_and_adds_nothing(tmp_path: Path) -> None:
    """Another process's listener may hear of this process's own move before its commit
    returns: the catch-up waits, then finds the move there already (it is not applied twice)."""

    async def scenario() -> None:
        storage, room, watcher, move = await _room_storing_a_move(tmp_path)
        news = News(room.id, 1, ((0, CLOSE_CITY),))
        catching_up = asyncio.create_task(room.catch_up(news))
        await asyncio.sleep(0.05)
        assert not catching_up.done() and room.game.history == []
        storage.go_on.set()
        await asyncio.gather(move, catching_up)
        assert len(room.game.history) == 1 and len(room.stored.actions) == 1
        assert room.broken is None

    asyncio.run(scenario())


def test_a_failed_commit_leaves_the_game_as_everyone_saw_it(tmp_path: Path) -> None:
    class FullDisk(SqliteStorage):
        def append_actions(self, *args: Any, **kwargs: Any) -> None:
            from carcassonne.web.storage import StorageError

            raise StorageError("cannot store the moves: database or disk is full")

    async def scenario() -> None:
        server = GameServer(FullDisk(tmp_path / "games.sqlite3"), bot_delay=0)
        room, _ = await server.create(
            parse_seats(HUMANS), parse_options({"stack": CITY_STACK}, 2), False
        )
        before = room.state(SEAT0)
        watcher = Connection(SPECTATOR)
        room.join(watcher)
        queued = watcher.waiting
        with pytest.raises(ProtocolError) as refused:
            await room.submit(SEAT0, [action_from_json(CLOSE_CITY)], 0)
        assert refused.value.code == "server"
        assert str(refused.value) == "the server could not save this move; try again"
        assert room.state(SEAT0) == before and room.stored.actions == []
        assert watcher.waiting == queued  # nobody was told of it

    asyncio.run(scenario())
