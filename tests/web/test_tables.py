"""Tables that always finish (issue 24), through the API with the server's injectable wall
clock: clocks counted from the stored times (exact after a restart), a seat out of time goes
to the stand-in (or loses), an away seat of an untimed table may be handed over, resigning
until no human is left has the stand-ins finish at once, and every refusal says why."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from web_helpers import TestClient, auth, hello

from carcassonne.web import create_app

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]
STACK = ["base/E", "base/U", "base/V", "base/D", "base/U", "base/V"]
FIVE_PLUS_TWENTY = {"kind": "real-time", "initial_ms": 300_000, "increment_ms": 20_000}
T0 = 1_764_590_400_000


class FakeClock:
    """The wall clock in milliseconds, moved by the test."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        return self.now


def app_at(db: str | Path, clock: FakeClock, bot_delay: float = 0) -> Any:
    return create_app(db, bot_delay=bot_delay, wall_clock=clock)


def create(client: Any, table: dict[str, Any] | None = None, seats: Any = HUMANS) -> Any:
    body: dict[str, Any] = {"seats": seats, "options": {"stack": STACK}}
    if table is not None:
        body["table"] = table
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 201, answer.json()
    return answer.json()


def state(client: Any, game: Any, seat: int | None = None) -> Any:
    headers = auth(game["seats"][seat]["token"]) if seat is not None else {}
    return client.get(f"/api/games/{game['id']}/state", headers=headers).json()


def play_turn(client: Any, game: Any, seat: int) -> Any:
    """``seat`` plays its whole turn (the first legal action until the turn passes)."""
    now = state(client, game, seat)
    while now["view"]["to_move"] == seat and now["view"]["phase"] != "over":
        legal = now["view"]["legal_actions"]
        answer = client.post(
            f"/api/games/{game['id']}/actions",
            headers=auth(game["seats"][seat]["token"]),
            json={"actions": [legal[0]], "ply": now["ply"]},
        )
        assert answer.status_code == 200, answer.json()
        now = answer.json()
    return now


def seat_change(client: Any, game: Any, seat: int, body: dict[str, Any]) -> Any:
    return client.post(
        f"/api/games/{game['id']}/seat", headers=auth(game["seats"][seat]["token"]), json=body
    )


def wait_for(client: Any, game: Any, done: Any, seconds: float = 20) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        now = state(client, game, 0)
        if done(now):
            return now
        time.sleep(0.05)
    raise AssertionError(f"not reached in {seconds} s: {now}")


def test_the_clock_runs_for_the_seat_to_move_from_ply_1(tmp_path: Path) -> None:
    clock = FakeClock()
    with TestClient(app_at(tmp_path / "g.sqlite3", clock)) as client:
        game = create(client, {"clock": FIVE_PLUS_TWENTY})
        assert game["game"]["table"]["clock"] == FIVE_PLUS_TWENTY
        first = state(client, game, 0)
        # the first decision is not timed: nobody's clock runs
        assert first["clocks"]["running"] is None
        assert first["clocks"]["remaining_ms"] == [300_000, 300_000]
        clock.now += 60_000
        play_turn(client, game, 0)  # seat 0 took a minute, untimed: ply 0
        clock.now += 7_250
        now = state(client, game, 1)
        assert now["clocks"] == {
            "remaining_ms": [320_000, 292_750],  # seat 0 earned its increment
            "running": 1,
            "deadline_ms": T0 + 60_000 + 300_000,
            "server_now_ms": clock.now,
        }
        assert now["seat_status"] == [{"status": "playing", "since_ply": None}] * 2
        assert now["may"] == {"resign": True, "return": False, "stand_in": []}
        assert now["changes"] == []


def test_a_restart_continues_the_clock_to_the_millisecond(games_db: str) -> None:
    clock = FakeClock()
    with TestClient(app_at(games_db, clock)) as client:
        game = create(client, {"clock": FIVE_PLUS_TWENTY})
        play_turn(client, game, 0)
        clock.now += 12_345
        play_turn(client, game, 1)  # seat 1 spent 12.345 s
        clock.now += 61_001
        before = state(client, game, 0)["clocks"]
    clock.now += 100_000  # the server was down for 100 s: the clock ran on
    with TestClient(app_at(games_db, clock)) as restarted:
        after = state(restarted, game, 0)["clocks"]
    assert before["remaining_ms"] == [300_000 + 20_000 - 61_001, 300_000 - 12_345 + 20_000]
    assert after["remaining_ms"] == [300_000 + 20_000 - 161_001, 300_000 - 12_345 + 20_000]
    assert after["deadline_ms"] == before["deadline_ms"] and after["running"] == 0


def test_out_of_time_the_stand_in_plays_until_the_player_takes_the_seat_back(
    tmp_path: Path,
) -> None:
    """Real-time, two humans, one closes the tab for good: at its deadline the stand-in
    plays its turns; the game goes on, and the player takes the seat back with one click."""
    clock = FakeClock()
    with TestClient(app_at(tmp_path / "g.sqlite3", clock)) as client:
        game = create(client, {"clock": FIVE_PLUS_TWENTY})
        play_turn(client, game, 0)
        clock.now += 299_999
        assert state(client, game, 0)["changes"] == []  # a millisecond left
        clock.now += 1
        now = wait_for(client, game, lambda s: s["view"]["to_move"] == 0 and s["changes"])
        assert now["changes"] == [
            {"ply": 2, "seat": 1, "change": "stand-in", "at_ms": T0 + 300_000}
        ]
        assert now["seat_status"][1] == {"status": "stood-in", "since_ply": 2}
        # the stand-in played seat 1's turn (its decisions from ply 2 on): its clock did not
        # run, and each decision earned the increment
        assert now["clocks"]["remaining_ms"][1] == 20_000 * (now["ply"] - 2)
        assert state(client, game, 1)["may"] == {"resign": True, "return": True, "stand_in": []}
        back = seat_change(client, game, 1, {"change": "return", "ply": now["ply"]})
        assert back.status_code == 200, back.json()
        assert back.json()["seat_status"][1] == {"status": "playing", "since_ply": now["ply"]}
        play_turn(client, game, 0)
        assert state(client, game, 1)["clocks"]["running"] == 1  # its own clock again


def test_on_timeout_lose_ranks_the_seat_last(tmp_path: Path) -> None:
    clock = FakeClock()
    with TestClient(app_at(tmp_path / "g.sqlite3", clock)) as client:
        game = create(client, {"clock": FIVE_PLUS_TWENTY, "on_timeout": "lose"})
        play_turn(client, game, 0)
        clock.now += 300_000
        # the stand-in plays seat 1's turn; then seat 0 is to move (the ply stays put)
        now = wait_for(client, game, lambda s: bool(s["changes"]) and s["view"]["to_move"] == 0)
        assert now["changes"][0]["change"] == "timeout"
        assert now["seat_status"][1]["status"] == "timed-out"
        assert (
            seat_change(client, game, 1, {"change": "return", "ply": now["ply"]}).json()["reason"]
            == "seat_not_stood_in"
        )
        while state(client, game, 0)["view"]["phase"] != "over":
            play_turn(client, game, 0)
            wait_for(client, game, lambda s: s["view"]["to_move"] == 0 or "summary" in s)
        over = state(client, game, 0)
        assert over["summary"]["standings"] == [[0], [1]]
        assert over["summary"]["winners"] == [0]  # whatever the scores


def test_an_untimed_seat_away_for_three_minutes_may_be_handed_to_the_stand_in(
    tmp_path: Path,
) -> None:
    clock = FakeClock()
    with TestClient(app_at(tmp_path / "g.sqlite3", clock)) as client:
        game = create(client)
        assert state(client, game, 0)["clocks"] is None
        with client.websocket_connect(f"/ws/{game['id']}") as ws:
            hello(ws, game["seats"][1]["token"])
        play_turn(client, game, 0)  # seat 1 has left: its turn now
        clock.now += 179_999
        now = state(client, game, 0)
        assert now["may"]["stand_in"] == []
        early = seat_change(client, game, 0, {"change": "stand-in", "seat": 1, "ply": now["ply"]})
        assert early.status_code == 409
        assert early.json()["reason"] == "seat_not_away"
        assert early.json()["params"] == {"seat": 2, "minutes": 3}
        clock.now += 1
        now = state(client, game, 0)
        assert now["may"]["stand_in"] == [1]
        handed = seat_change(client, game, 0, {"change": "stand-in", "seat": 1, "ply": now["ply"]})
        assert handed.status_code == 200, handed.json()
        now = wait_for(client, game, lambda s: s["view"]["to_move"] == 0)
        assert now["seat_status"][1]["status"] == "stood-in"


def test_resigning_until_no_human_is_left_finishes_the_game_at_once(tmp_path: Path) -> None:
    clock = FakeClock()
    # bots wait 30 s before each move: the stand-ins of a game nobody plays do not
    with TestClient(app_at(tmp_path / "g.sqlite3", clock, bot_delay=30)) as client:
        game = create(client)
        play_turn(client, game, 0)
        ply = state(client, game, 0)["ply"]
        assert seat_change(client, game, 0, {"change": "resign", "ply": ply}).status_code == 200
        again = seat_change(client, game, 0, {"change": "resign", "ply": ply})
        assert again.json()["reason"] == "seat_left"
        clock.now += 5_000
        assert seat_change(client, game, 1, {"change": "resign", "ply": ply}).status_code == 200
        over = wait_for(client, game, lambda s: s["view"]["phase"] == "over", seconds=10)
        assert [c["change"] for c in over["changes"]] == ["resign", "resign"]
        # both left: the later to leave ranks higher
        assert over["summary"]["standings"] == [[1], [0]]
        replay = client.get(f"/api/games/{game['id']}/replay").json()
        assert replay["changes"] == over["changes"] and replay["standings"] == [[1], [0]]
        assert replay["summary"]["standings"] == [[1], [0]]
        assert over["summary"]["winners"] == replay["summary"]["winners"] == [1]
        assert replay["table"]["clock"] == {"kind": "none"}
        assert len(replay["spent_ms"]) == over["ply"]
        record = client.get(f"/api/games/{game['id']}/record").json()
        assert record["changes"] == over["changes"]
        assert record["result"]["standings"] == [[1], [0]]
        # the record, uploaded to the replay viewer, shows the same table
        uploaded = client.post("/api/replay", json=record).json()
        for key in ("table", "changes", "spent_ms", "standings"):
            assert uploaded[key] == replay[key], key
        assert uploaded["summary"]["winners"] == [1]


def test_seat_changes_are_refused_with_a_reason(tmp_path: Path) -> None:
    clock = FakeClock()
    with TestClient(app_at(tmp_path / "g.sqlite3", clock)) as client:
        game = create(client, {"clock": FIVE_PLUS_TWENTY})
        play_turn(client, game, 0)
        ply = state(client, game, 0)["ply"]
        url = f"/api/games/{game['id']}/seat"
        refusals = {
            "spectator": client.post(url, json={"change": "resign", "ply": ply}),
            "stale_ply": seat_change(client, game, 0, {"change": "resign", "ply": ply - 1}),
            "seat_not_stood_in": seat_change(client, game, 0, {"change": "return", "ply": ply}),
            "seat_has_time": seat_change(
                client, game, 0, {"change": "stand-in", "seat": 1, "ply": ply}
            ),
            "stand_in_own_seat": seat_change(
                client, game, 1, {"change": "stand-in", "seat": 1, "ply": ply}
            ),
            "seat_not_to_move": seat_change(
                client, game, 1, {"change": "stand-in", "seat": 0, "ply": ply}
            ),
            "seat_change_request": seat_change(
                client, game, 0, {"change": "resign", "seat": 1, "ply": ply}
            ),
        }
        assert {reason: r.json()["reason"] for reason, r in refusals.items()} == {
            reason: reason for reason in refusals
        }
        assert state(client, game, 0)["changes"] == []  # nothing was stored
        # the eighth to tenth request of this client this minute are still answered...
        for _ in range(3):
            assert seat_change(client, game, 0, {"change": "return", "ply": ply}).status_code == 409
        # ... the eleventh is not
        limited = seat_change(client, game, 0, {"change": "return", "ply": ply})
        assert limited.status_code == 429 and limited.json()["reason"] == "rate_limited"


def test_seat_changes_over_the_websocket(tmp_path: Path) -> None:
    clock = FakeClock()
    with TestClient(app_at(tmp_path / "g.sqlite3", clock)) as client:
        game = create(client)
        with client.websocket_connect(f"/ws/{game['id']}") as ws:
            first = hello(ws, game["seats"][1]["token"])
            assert first["may"] == {"resign": True, "return": False, "stand_in": []}
            ws.send_json({"type": "return", "ply": 0})
            refused = ws.receive_json()
            assert refused["type"] == "error" and refused["reason"] == "seat_not_stood_in"
            ws.send_json({"type": "resign", "ply": 0})
            after = ws.receive_json()
            assert after["type"] == "state"
            assert after["changes"] == [{"ply": 0, "seat": 1, "change": "resign", "at_ms": T0}]
            assert after["may"] == {"resign": False, "return": False, "stand_in": []}


@pytest.mark.parametrize(
    ("table", "reason", "says"),
    [
        ({"clock": {"kind": "blitz"}}, "clock_kind", "'kind' must be one of"),
        (
            {"clock": {"kind": "real-time", "initial_ms": 1000, "increment_ms": 0}},
            "clock_range",
            "the initial time of a real-time clock must be from 1 min to 3 h, not 1 s",
        ),
        ({"stand_in": "expert"}, "stand_in_bot", "'stand_in' must be one of greedy, random"),
        ({"on_timeout": "draw"}, "on_timeout", "'on_timeout' must be one of stand-in, lose"),
        ({"clocks": "none"}, "table_shape", "unknown key(s) 'clocks'"),
    ],
)
def test_bad_table_settings_are_refused_naming_what_is_wrong(
    tmp_path: Path, table: Any, reason: str, says: str
) -> None:
    with TestClient(create_app(tmp_path / "g.sqlite3")) as client:
        answer = client.post(
            "/api/games", json={"seats": HUMANS, "options": {"stack": STACK}, "table": table}
        )
    assert answer.status_code == 400
    assert answer.json()["error"] == "bad-options" and answer.json()["reason"] == reason
    assert says in answer.json()["message"]


def test_a_stand_in_is_the_tables_bot_deciding_in_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in decides as every bot does, in a worker (which searches worlds dealt for its
    seat), never on the server's own game: its spec is the table's."""
    from carcassonne.web import botworker

    asked: list[str] = []
    real_decide = botworker.decide

    async def decide(spec: str, *args: Any) -> Any:
        asked.append(spec)
        return await real_decide(spec, *args)

    monkeypatch.setattr(botworker, "decide", decide)
    clock = FakeClock()
    with TestClient(app_at(tmp_path / "g.sqlite3", clock)) as client:
        game = create(client, {"stand_in": "random"})
        play_turn(client, game, 0)
        ply = state(client, game, 1)["ply"]
        assert seat_change(client, game, 1, {"change": "resign", "ply": ply}).status_code == 200
        wait_for(client, game, lambda s: s["view"]["to_move"] == 0)
    assert asked and set(asked) == {"random"}


def test_a_seat_out_of_time_is_taken_back_only_once_it_has_time_again(tmp_path: Path) -> None:
    """Taken back with no time left, a seat would go to the stand-in again at once: with no
    increment, the stand-in earns it nothing, and the seat stays the stand-in's."""
    clock = FakeClock()
    no_increment = {"kind": "real-time", "initial_ms": 60_000, "increment_ms": 0}
    with TestClient(app_at(tmp_path / "g.sqlite3", clock)) as client:
        game = create(client, {"clock": no_increment})
        play_turn(client, game, 0)
        clock.now += 60_000
        now = wait_for(client, game, lambda s: bool(s["changes"]) and s["view"]["to_move"] == 0)
        mine = state(client, game, 1)
        assert mine["clocks"]["remaining_ms"][1] == 0
        assert mine["may"] == {"resign": True, "return": False, "stand_in": []}
        refused = seat_change(client, game, 1, {"change": "return", "ply": now["ply"]})
        assert refused.status_code == 409
        assert refused.json()["reason"] == "seat_out_of_time"
        assert refused.json()["params"] == {"seat": 2}
