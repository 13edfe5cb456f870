"""Bots in the web app (issue 8, item 5 and 6): chosen in the lobby with a bounded think time,
thinking in worker processes rather than on the event loop, and hints for human seats."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from web_helpers import TestClient, auth, hello

from carcassonne import Game, GameOptions
from carcassonne.bots import make_bot
from carcassonne.replaying import Move
from carcassonne.web import botworker, create_app, roombots, roomhints
from carcassonne.web.protocol import ProtocolError, parse_seats, seat_public
from carcassonne.web.roomload import GameLoadError, checked_seats
from carcassonne.web.storage import StorageError

#: a quick expert for tests: a fixed number of playouts, so its choices are reproducible
QUICK_EXPERT = "expert:iterations=12,seconds=600"
ANA = {"kind": "human", "name": "Ana"}
BO = {"kind": "human", "name": "Bo"}


def create(client: TestClient, seats: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    response = client.post("/api/games", json={"seats": seats, "options": options})
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


# ------------------------------------------------------------------------------ the lobby


def test_a_bot_seat_takes_a_think_time_in_canonical_form() -> None:
    (seat, human) = parse_seats([{"kind": "bot", "bot": "Expert: seconds = 1"}, ANA])
    assert seat["bot"] == "expert:seconds=1.0"
    assert seat["name"] == "Expert bot"
    assert seat_public(0, seat["name"], "bot", seat["bot"]) == {
        "name": "Expert bot",
        "kind": "bot",
        "bot": "expert",
        "think": 1.0,
        "default_name": True,
    }
    assert seat_public(1, "Ana", "human", None)["think"] is None


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("expert:iterations=5000", "takes only 'seconds', not 'iterations'"),
        ("expert:seconds=30", "think time must be 0.1 to 2.0 seconds"),
        ("expert:seconds=0.01", "think time must be 0.1 to 2.0 seconds"),
        ("expert:seconds=fast", "seconds must be a number"),
        ("oracle", "unknown bot 'oracle'"),
        (
            7,
            "'bot' must be one of beginner, casual, intermediate, strong, master, random, novice, "
            "greedy, expert",
        ),
    ],
)
def test_the_lobby_refuses_unbounded_or_unknown_bots(spec: Any, why: str) -> None:
    with pytest.raises(ProtocolError, match=why):
        parse_seats([{"kind": "bot", "bot": spec}, ANA])


def test_meta_offers_think_times_for_the_expert_only(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "games.sqlite3")) as client:
        meta = client.get("/api/meta").json()
    assert meta["levels"] == ["beginner", "casual", "intermediate", "strong", "master"]
    assert meta["bots"] == ["random", "novice", "greedy", "expert"]
    assert meta["think_times"] == {"expert": [0.5, 1.0, 2.0]}


def test_a_stored_seat_with_a_broken_bot_spec_is_named() -> None:
    seats = [{"kind": "bot", "bot": "expert:seconds=zz", "name": "X", "digest": None}, ANA]
    seats[1] = {**ANA, "digest": None}
    with pytest.raises(GameLoadError, match="stored seat 1 has no usable bot"):
        checked_seats(seats, 2)


# ------------------------------------------------------------------------------ workers


def _position(seed: int, plies: int, **options: Any) -> tuple[GameOptions, list[Move], Game]:
    game = Game(GameOptions(seed=seed, **options))
    rng = random.Random(seed)
    for _ in range(plies):
        game.apply(rng.choice(game.legal_actions()))
    return game.options, list(game.history), game


@pytest.mark.parametrize("spec", ["greedy", QUICK_EXPERT])
def test_a_worker_decides_as_the_bot_would_here(spec: str) -> None:
    """The worker replays the moves and asks a fresh bot with the same seed: the same choice
    as that bot in this process."""
    options, moves, game = _position(5, 9, players=2, bets=True)
    chosen = asyncio.run(botworker.decide(spec, 77, options, moves, 0.0))
    assert chosen == make_bot(spec, 77).choose(game)
    assert chosen in game.legal_actions()


def test_hints_come_from_a_worker_best_first() -> None:
    options, played, game = _position(8, 4, players=2)
    moves = asyncio.run(botworker.hints(QUICK_EXPERT, 3, options, played, 3, 0.0))
    expected = make_bot(QUICK_EXPERT, 3).hints(game, 3)  # type: ignore[attr-defined]
    assert moves == [(h.action, h.expected_points) for h in expected]
    assert len(moves) == 3 and all(a in game.legal_actions() for a, _ in moves)


def test_a_dead_worker_delays_the_bot_but_does_not_stop_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = botworker.decide
    failures = []

    async def failing_once(*args: Any) -> Any:
        if not failures:
            failures.append(args)
            raise botworker.BotWorkerError("a bot worker stopped")
        return await real(*args)

    monkeypatch.setattr(botworker, "decide", failing_once)
    monkeypatch.setattr(roombots, "STORE_RETRY", 0.05)
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0)
    with TestClient(app) as client:
        created = create(client, [{"kind": "bot", "bot": "greedy"}, ANA])
        token = created["seats"][0]["token"]
        deadline = time.monotonic() + 30
        state: dict[str, Any] = {}
        while time.monotonic() < deadline:
            state = client.get(f"/api/games/{created['id']}/state", headers=auth(token)).json()
            if state["view"]["to_move"] == 1:
                break
            time.sleep(0.05)
    assert failures, "the first decision failed"
    assert state["view"]["to_move"] == 1 and state["broken"] is None and state["ply"] >= 2


def test_an_expert_game_plays_to_the_end(tmp_path: Path) -> None:
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0)
    stack = ["base/E", "base/U", "base/V", "base/D"]
    with TestClient(app) as client:
        created = create(
            client,
            [{"kind": "bot", "bot": "expert:seconds=0.1"}, {"kind": "bot", "bot": "greedy"}],
            stack=stack,
        )
        deadline = time.monotonic() + 60
        state: dict[str, Any] = {}
        while time.monotonic() < deadline:
            state = client.get(f"/api/games/{created['id']}/state").json()
            if state["view"]["phase"] == "over":
                break
            time.sleep(0.1)
    assert state["view"]["phase"] == "over" and state["broken"] is None, state
    stored = app.state.storage.load_game(created["id"])
    assert sum(1 for _, a in stored.actions if a["type"] == "place-tile") == len(stack)


# ------------------------------------------------------------------------------ hints


@pytest.fixture
def hint_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """An app whose hints come from the quick expert."""
    monkeypatch.setattr(roomhints, "HINT_BOT", QUICK_EXPERT)
    return create_app(tmp_path / "games.sqlite3", bot_delay=0)


def test_a_human_seat_gets_three_hints_for_its_turn(hint_app: Any) -> None:
    app = hint_app
    with TestClient(app) as client:
        # seed 3: the first tile fits the start tile in more than three ways
        created = create(client, [ANA, {"kind": "bot", "bot": "greedy"}], seed=3)
        token = created["seats"][0]["token"]
        with client.websocket_connect(f"/ws/{created['id']}") as ws:
            state = hello(ws, token)
            legal = state["view"]["legal_actions"]
            assert len(legal) > 3
            ws.send_json({"type": "hint", "ply": 0})
            hint = ws.receive_json()
            assert hint["type"] == "hint" and hint["ply"] == 0 and hint["seat"] == 0
            assert len(hint["moves"]) == 3
            assert all(m["action"] in legal for m in hint["moves"])
            assert all(isinstance(m["expected_points"], float) for m in hint["moves"])
            # alone against a bot: nobody needs to be told
            ws.send_json({"type": "ping"})
            assert ws.receive_json() == {"type": "pong"}
            ws.send_json({"type": "hint", "ply": 5})
            assert ws.receive_json()["code"] == "stale"
        game_room = app.state.server.rooms[created["id"]]
        assert game_room.hints_used == []


def test_a_hint_is_not_for_a_seat_that_is_not_to_move(hint_app: Any) -> None:
    with TestClient(hint_app) as client:
        created = create(client, [ANA, BO])
        with client.websocket_connect(f"/ws/{created['id']}") as ws:
            hello(ws, created["seats"][1]["token"])
            ws.send_json({"type": "hint", "ply": 0})
            assert ws.receive_json()["code"] == "not-your-turn"
        with client.websocket_connect(f"/ws/{created['id']}") as ws:
            hello(ws, None)
            ws.send_json({"type": "hint", "ply": 0})
            assert ws.receive_json()["code"] == "unauthorised"


def test_with_several_humans_a_used_hint_is_shown_to_everyone(hint_app: Any) -> None:
    with TestClient(hint_app) as client:
        created = create(client, [ANA, BO])
        ana, bo = (s["token"] for s in created["seats"])
        with (
            client.websocket_connect(f"/ws/{created['id']}") as ws_bo,
            client.websocket_connect(f"/ws/{created['id']}") as ws_ana,
        ):
            assert hello(ws_bo, bo)["hints_used"] == []
            hello(ws_ana, ana)
            assert ws_bo.receive_json()["type"] == "presence"
            ws_ana.send_json({"type": "hint", "ply": 0})
            told = ws_bo.receive_json()
            assert told["type"] == "state"
            assert told["hints_used"] == [{"seat": 0, "ply": 0}]
            # Bo's own view still hides Ana's hint itself
            assert "moves" not in told


def use_hint(client: TestClient, game_id: str, token: str, ply: int) -> dict[str, Any]:
    """Ask for a hint on a websocket of its own; the hint."""
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        hello(ws, token)
        ws.send_json({"type": "hint", "ply": ply})
        while (message := ws.receive_json())["type"] != "hint":
            assert message["type"] != "error", message
        return message


def test_the_hints_used_survive_a_restart(games_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue: ``hints_used`` was kept in memory only, so a restart hid the hints used."""
    monkeypatch.setattr(roomhints, "HINT_BOT", QUICK_EXPERT)
    with TestClient(create_app(games_db, bot_delay=0)) as client:
        created = create(client, [ANA, BO], stack=["base/E", "base/U", "base/V"])
        game_id = created["id"]
        ana, bo = (s["token"] for s in created["seats"])
        use_hint(client, game_id, ana, 0)
        close_city = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
        played = client.post(
            f"/api/games/{game_id}/actions",
            headers=auth(ana),
            json={"actions": [close_city, {"type": "pass"}], "ply": 0},
        )
        assert played.json()["view"]["to_move"] == 1
        use_hint(client, game_id, bo, 2)
        use_hint(client, game_id, bo, 2)  # asking again in the same turn is not another hint
    with TestClient(create_app(games_db, bot_delay=0)) as restarted:
        state = restarted.get(f"/api/games/{game_id}/state", headers=auth(bo)).json()
        assert state["hints_used"] == [{"seat": 0, "ply": 0}, {"seat": 1, "ply": 2}]
        with restarted.websocket_connect(f"/ws/{game_id}") as ws:
            assert hello(ws, None)["hints_used"] == state["hints_used"]


def test_a_hint_whose_use_cannot_be_stored_is_not_given(
    hint_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(*args: Any) -> None:
        raise StorageError("cannot store a hint of game g: database or disk is full")

    with TestClient(hint_app) as client:
        created = create(client, [ANA, BO])
        monkeypatch.setattr(hint_app.state.storage, "record_hint", full_disk)
        with client.websocket_connect(f"/ws/{created['id']}") as ws:
            hello(ws, created["seats"][0]["token"])
            ws.send_json({"type": "hint", "ply": 0})
            error = ws.receive_json()
        assert error["type"] == "error" and error["code"] == "server"
        assert "disk" not in error["message"]  # the server's troubles are not the client's
        assert hint_app.state.server.rooms[created["id"]].hints_used == []


def test_workers_end_with_a_server_that_was_killed(tmp_path: Path) -> None:
    """A worker waits for work on a pipe it also holds open itself: without a watch on its
    parent, a killed server (or one stopped by SIGTERM, which uvicorn re-raises) left its
    workers behind for good."""
    script = tmp_path / "server.py"
    script.write_text(
        "import asyncio, os, signal\n"
        "from carcassonne.web import botworker\n"
        "if __name__ == '__main__':\n"
        "    print(asyncio.run(botworker._run(60, os.getpid)), flush=True)\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == -9, done.stderr
    worker = int(done.stdout)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and _alive(worker):
        time.sleep(0.1)
    assert not _alive(worker), f"worker {worker} outlived its server"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False
