"""What one client can make the server spend on hints, state reads and refused batches (issue 22,
items 1, 2 and 4: an attack run found each of them slowing every game of the server), and the
garbage collector's pauses under many games (item 6).

The figures of the attacks themselves are in ``benchmarks/README.md`` (``attack_web.py``
scenarios ``hints``, ``state-reads`` and ``refused-batches``).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from web_helpers import TestClient, auth, hello

from carcassonne.cli import serve
from carcassonne.game import Game
from carcassonne.web import botworker, create_app
from carcassonne.web.ratelimit import Limit, RateLimits
from carcassonne.web.rooms import Room

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]
STACK = ["base/E", "base/U", "base/V", "base/U"]
# Start tile D has its city to the north; base/E turned 180° closes it.
CLOSE_CITY = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def create(client: TestClient) -> tuple[str, str, str]:
    response = client.post("/api/games", json={"seats": HUMANS, "options": {"stack": STACK}})
    assert response.status_code == 201, response.text
    created = response.json()
    ana, bo = (seat["token"] for seat in created["seats"])
    return created["id"], ana, bo


def play_first_turn(client: TestClient, game_id: str, ana: str) -> None:
    """Ana closes the city and keeps her meeple: Bo is to move at ply 2."""
    played = client.post(
        f"/api/games/{game_id}/actions",
        headers=auth(ana),
        json={"actions": [CLOSE_CITY, {"type": "pass"}], "ply": 0},
    )
    assert played.status_code == 200, played.text
    assert played.json()["view"]["to_move"] == 1


# ------------------------------------------------------------------------------ refused batches


def test_a_refused_batch_replays_nothing_and_leaves_game_and_storage_as_they_were(
    games_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22, item 4: on SQLite a batch refused at its second action replayed the whole game
    from the database to undo the first, so a flood of refused batches, each one under the
    rate limit, cost more than sixty times what as many single illegal actions did."""
    app = create_app(games_db, bot_delay=0)
    with TestClient(app) as client:
        game_id, ana, bo = create(client)
        play_first_turn(client, game_id, ana)
        room: Room = app.state.server.rooms[game_id]
        stored_before = app.state.storage.load_game(game_id).actions
        states_before = [client.get(f"/api/games/{game_id}/state", headers=auth(t)).json()
                         for t in (ana, bo)]  # fmt: skip
        views_before = [room.game.view(seat) for seat in (0, 1, None)]
        placement = states_before[1]["view"]["legal_actions"][0]
        replays: list[int] = []
        real_rebuild = Room._rebuild

        def counted_rebuild(self: Room) -> Game:
            replays.append(len(self.stored.actions))
            return real_rebuild(self)

        monkeypatch.setattr(Room, "_rebuild", counted_rebuild)
        refused = client.post(
            f"/api/games/{game_id}/actions",
            headers=auth(bo),
            # a second tile where the figure action must come: refused by the engine
            json={"actions": [placement, placement], "ply": 2},
        )
        assert refused.status_code == 409, refused.text
        assert refused.json()["error"] == "illegal"
        assert refused.json()["message"].startswith("action 2:")
        assert replays == []
        assert [room.game.view(seat) for seat in (0, 1, None)] == views_before
        assert len(room.game.history) == 2
        assert app.state.storage.load_game(game_id).actions == stored_before
        assert [client.get(f"/api/games/{game_id}/state", headers=auth(t)).json()
                for t in (ana, bo)] == states_before  # fmt: skip
        # and the game goes on from there
        played = client.post(
            f"/api/games/{game_id}/actions",
            headers=auth(bo),
            json={"actions": [placement, {"type": "pass"}], "ply": 2},
        )
        assert played.status_code == 200, played.text
        assert len(app.state.storage.load_game(game_id).actions) == 4


# ------------------------------------------------------------------------------ state reads


def test_state_reads_are_rate_limited_per_address(tmp_path: Path) -> None:
    """Issue 22, item 2: ``GET /state`` had no limit; one address took the server's CPU."""
    clock = Clock()
    limits = RateLimits(state=Limit(per_minute=60, burst=3))
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0, limits=limits, clock=clock)
    with TestClient(app) as client:
        game_id, ana, _ = create(client)
        path = f"/api/games/{game_id}/state"
        assert [client.get(path, headers=auth(ana)).status_code for _ in range(3)] == [200] * 3
        refused = client.get(path, headers=auth(ana))
        assert refused.status_code == 429
        assert refused.json()["error"] == "rate-limited"
        assert refused.headers["retry-after"] == "1"
        clock.now += 1
        assert client.get(path, headers=auth(ana)).status_code == 200


def test_state_reads_are_served_from_the_text_encoded_once_per_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22, item 2: every read built the view anew (99 % CPU from one address); now a
    read until the next change is a lookup, and the change shows at once."""
    views: list[int | None] = []
    real_view = Game.view

    def counted_view(self: Game, seat: int | None = None) -> dict[str, Any]:
        views.append(seat)
        return real_view(self, seat)

    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0)) as client:
        game_id, ana, bo = create(client)
        path = f"/api/games/{game_id}/state"
        monkeypatch.setattr(Game, "view", counted_view)
        first = [client.get(path, headers=auth(ana)).text for _ in range(5)]
        assert views == [0] and len(set(first)) == 1
        # each perspective its own text: Bo's and a spectator's hide Ana's legal actions
        as_bo, as_nobody = client.get(path, headers=auth(bo)), client.get(path)
        assert views == [0, 1, None]
        assert "legal_actions" not in as_bo.json()["view"]
        assert as_nobody.json()["you"]["spectator"] is True
        assert json.loads(first[0]) == client.get(path, headers=auth(ana)).json()
        play_first_turn(client, game_id, ana)
        views.clear()
        after = client.get(path, headers=auth(bo)).json()
        assert after["ply"] == 2 and "legal_actions" in after["view"]
        assert views == [1]


# ------------------------------------------------------------------------------ hints


def answer_to(ws: Any) -> dict[str, Any]:
    """The next message on ``ws`` that answers a request (states and presence skipped)."""
    while (message := ws.receive_json())["type"] in ("state", "presence"):
        pass
    return message  # type: ignore[no-any-return]


def test_a_game_computes_one_hint_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22, item 1: a hint still being computed for a turn played meanwhile kept its
    worker busy while the next turn's hint was queued behind it, without bound: moving and
    asking again in a loop filled the workers' queue."""
    asked: list[int] = []

    async def slow_hints(
        spec: str, seed: int, options: Any, actions: list[Any], n: int, think: float
    ) -> list[tuple[Any, float]]:
        asked.append(len(actions))
        await asyncio.sleep(1.5)
        return []

    monkeypatch.setattr(botworker, "hints", slow_hints)
    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0)) as client:
        game_id, ana, bo = create(client)
        with (
            client.websocket_connect(f"/ws/{game_id}") as ws_ana,
            client.websocket_connect(f"/ws/{game_id}") as ws_bo,
        ):
            hello(ws_ana, ana)
            hello(ws_bo, bo)
            ws_ana.send_json({"type": "hint", "ply": 0})
            play_first_turn(client, game_id, ana)  # before the hint came
            ws_bo.send_json({"type": "hint", "ply": 2})
            answer = answer_to(ws_bo)
            assert answer["type"] == "error" and answer["code"] == "busy"
            assert "earlier move" in answer["message"]
            assert asked == [0]
            assert answer_to(ws_ana)["type"] == "hint"
            ws_bo.send_json({"type": "hint", "ply": 2})  # the earlier one is done: computed
            answer = answer_to(ws_bo)
            assert answer["type"] == "hint" and answer["ply"] == 2
            assert asked == [0, 2]


def test_the_server_refuses_hints_beyond_its_bound_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 22, item 1: hints waited in an unbounded queue; now at most
    :data:`botworker.MAX_HINTS_PENDING` are pending and the next is refused, not queued."""
    release = asyncio.Event()

    async def held(timeout: float, fn: Any, *args: Any, pool: Any = None) -> Any:
        await release.wait()
        return []

    monkeypatch.setattr(botworker, "_run", held)
    monkeypatch.setattr(botworker, "MAX_HINTS_PENDING", 2)

    async def flood() -> None:
        pending = [asyncio.ensure_future(botworker.hints("x", 0, None, [], 3, 0.0))
                   for _ in range(2)]  # fmt: skip
        await asyncio.sleep(0)
        with pytest.raises(botworker.HintsBusy):
            await botworker.hints("x", 0, None, [], 3, 0.0)
        release.set()
        assert await asyncio.gather(*pending) == [[], []]
        assert await botworker.hints("x", 0, None, [], 3, 0.0) == []  # room again

    asyncio.run(flood())


def test_hints_are_rate_limited_per_client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 22, item 1: one client asked for hints in ten games at once, as fast as the
    message limit let it."""

    async def quick_hints(*args: Any) -> list[tuple[Any, float]]:
        return []

    monkeypatch.setattr(botworker, "hints", quick_hints)
    clock = Clock()
    limits = RateLimits(hint=Limit(per_minute=6, burst=2))
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0, limits=limits, clock=clock)
    with TestClient(app) as client:
        game_id, ana, _ = create(client)
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            hello(ws, ana)
            answers = []
            for _ in range(3):
                ws.send_json({"type": "hint", "ply": 0})
                answers.append(answer_to(ws))
            assert [a["type"] for a in answers] == ["hint", "hint", "error"]
            assert answers[2]["code"] == "rate-limited"
            clock.now += 10
            ws.send_json({"type": "hint", "ply": 0})
            assert answer_to(ws)["type"] == "hint"


#: a hint of the real hint bot's length: long enough for a queue behind it to show
HINT_SECONDS = 1.0


def test_a_bot_move_never_waits_behind_hints(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 22, item 1: bots and hints shared one pool of workers and its queue, so hints
    asked for in many games stalled every bot of the server (78 s in the attack run). Hints
    now have workers of their own: a bot decides while the hint workers are all taken."""
    from carcassonne import GameOptions

    monkeypatch.setattr(botworker, "_workers", 1)  # one bot worker, as on a two-core server
    botworker._bots.discard()
    options = GameOptions(seed=4)
    spec = f"expert:seconds={HINT_SECONDS}"

    async def race() -> tuple[float, float]:
        await botworker.decide("random", 1, options, [], 0.0)  # the bots' worker is up
        began = time.monotonic()
        hints = [asyncio.ensure_future(botworker.hints(spec, i, options, [], 3, HINT_SECONDS))
                 for i in range(botworker.MAX_HINTS_PENDING)]  # fmt: skip
        await asyncio.sleep(0.2)  # the hints are queued first
        await botworker.decide("random", 2, options, [], 0.0)
        decided = time.monotonic() - began
        await asyncio.gather(*hints)
        return decided, time.monotonic() - began

    try:
        decided, hinted = asyncio.run(race())
    finally:
        botworker._bots.discard()
    assert hinted >= botworker.MAX_HINTS_PENDING * HINT_SECONDS  # they did queue
    assert decided < HINT_SECONDS


# ------------------------------------------------------------------------------ garbage collector


def test_the_server_serves_with_start_up_frozen_and_rarer_collections(tmp_path: Path) -> None:
    """Issue 22, item 6: at 600 games a full collection stopped the server for a quarter of a
    second every few seconds. ``carcassonne serve`` now freezes what start-up left alive and
    raises the thresholds before serving (a process of its own: the collector is global)."""
    script = tmp_path / "serve.py"
    script.write_text(
        "import gc, json, sys, uvicorn\n"
        "from carcassonne.cli.main import main\n"
        "def report(self, sockets=None):\n"
        "    print(json.dumps([gc.get_threshold(), gc.get_freeze_count()]), flush=True)\n"
        "uvicorn.Server.run = report\n"
        "sys.exit(main(['serve', '--port', '0', '--db', sys.argv[1]]))\n"
    )
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "games.sqlite3")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    thresholds, frozen = json.loads(done.stdout.splitlines()[-1])
    assert tuple(thresholds) == serve.GC_THRESHOLDS
    assert thresholds[0] > 700 and thresholds[2] >= 10  # Python's defaults: 700, 10, 10
    assert frozen > 10_000  # the modules, the tiles' tables, the app
