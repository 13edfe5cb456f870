"""The web game review: ``POST``/``GET /api/games/{id}/review`` (finished games only, human seats
only, computed in the review worker, stored and served by any process sharing the database),
and its bounds (reviews at once, one per game, the rate limit)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from web_helpers import TestClient, auth, finished_game

from carcassonne.bots.review import Mark
from carcassonne.web import botworker, create_app, reviews
from carcassonne.web.ratelimit import Limit, RateLimits


def _done(client: Any, game_id: str, limit: float = 120.0) -> dict[str, Any]:
    """Poll the review until it is done; the review."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        answer = client.get(f"/api/games/{game_id}/review").json()
        if answer["status"] == "done":
            return answer["review"]  # type: ignore[no-any-return]
        assert answer["status"] == "running"
        assert 0 <= answer["done"] <= answer["total"]
        time.sleep(0.2)
    raise AssertionError("the review did not finish")


def _game_with_a_bot(client: Any) -> str:
    """A two-tile game, seat 0 human and seat 1 a bot, played to its end."""
    created = client.post(
        "/api/games",
        json={"seats": [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}],
              "options": {"stack": ["base/E", "base/U"]}},
    ).json()  # fmt: skip
    game_id, token = created["id"], created["seats"][0]["token"]
    client.post(
        f"/api/games/{game_id}/actions",
        headers=auth(token),
        json={"actions": [{"type": "place-tile", "x": 0, "y": -1, "rotation": 180},
                          {"type": "place-figure", "figure": "meeple", "location": "S"}],
              "ply": 0},
    )  # fmt: skip
    state = f"/api/games/{game_id}/state"
    deadline = time.monotonic() + 60
    while client.get(state, headers=auth(token)).json()["view"]["phase"] != "over":
        assert time.monotonic() < deadline, "the bot did not play"
        time.sleep(0.1)
    return str(game_id)


def test_a_review_is_computed_stored_and_served_by_another_process(games_db: str) -> None:
    with TestClient(create_app(games_db, bot_delay=0)) as one:
        game_id = _game_with_a_bot(one)
        assert one.get(f"/api/games/{game_id}/review").json() == {"status": "none"}
        started = one.post(f"/api/games/{game_id}/review", json={})
        assert started.status_code == 202 and started.json()["status"] == "running"
        review = _done(one, game_id)
        # seat 1 is a bot: only seat 0's decisions (more than one choice each) are reviewed
        assert review["seats"] == [0] and review["marks"]
        assert {m["seat"] for m in review["marks"]} == {0}
        assert review["iterations"] == reviews.WEB_ITERATIONS
        assert set(review["accuracy"]) == {"0"} and 0 <= review["accuracy"]["0"] <= 100
        # asked again: the stored one, nothing computed
        again = one.post(f"/api/games/{game_id}/review", json={})
        assert again.status_code == 200
        assert again.json() == {"status": "done", "review": review}
        with TestClient(create_app(games_db, bot_delay=0)) as two:  # another server process
            served = two.get(f"/api/games/{game_id}/review").json()
            assert served == {"status": "done", "review": review}
    with TestClient(create_app(games_db, bot_delay=0)) as restarted:
        served = restarted.get(f"/api/games/{game_id}/review").json()
        assert served == {"status": "done", "review": review}


def test_only_a_finished_game_is_reviewed(tmp_path: Any) -> None:
    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0)) as client:
        created = client.post(
            "/api/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}
        ).json()
        refused = client.post(f"/api/games/{created['id']}/review", json={})
        assert refused.status_code == 409
        assert refused.json()["reason"] == "review_not_finished"
        assert client.get("/api/games/nosuchgame/review").status_code == 404


def test_a_game_of_bots_only_is_not_reviewed(tmp_path: Any) -> None:
    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0)) as client:
        bot = {"kind": "bot", "bot": "greedy"}
        created = client.post(
            "/api/games", json={"seats": [bot, bot], "options": {"stack": ["base/E"]}}
        ).json()
        deadline = time.monotonic() + 60
        while client.get(f"/api/games/{created['id']}/state").json()["view"]["phase"] != "over":
            assert time.monotonic() < deadline, "the bots did not play"
            time.sleep(0.1)
        refused = client.post(f"/api/games/{created['id']}/review", json={})
        assert refused.status_code == 409 and refused.json()["reason"] == "review_no_humans"


class _HeldWorker:
    """Stands in for the review worker: each decision waits until released (counted)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0

    async def __call__(
        self, options: Any, moves: list[Any], played: Any, iterations: int, seed: int
    ) -> Mark:
        self.calls += 1
        while not self.release.is_set():
            await asyncio.sleep(0.01)
        return Mark(len(moves) + 1, 1, 0, played, played, 0.0, 0.0)


def test_reviews_at_once_are_bounded_and_one_runs_per_game(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    worker = _HeldWorker()
    monkeypatch.setattr(botworker, "review", worker)
    monkeypatch.setattr(reviews, "MAX_RUNNING", 2)
    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0)) as client:
        games = [finished_game(client) for _ in range(3)]
        for game_id in games[:2]:
            assert client.post(f"/api/games/{game_id}/review", json={}).status_code == 202
        busy = client.post(f"/api/games/{games[2]}/review", json={})
        assert busy.status_code == 409 and busy.json()["reason"] == "reviews_busy"
        assert busy.json()["params"] == {"running": 2}
        # the same game asked again: the review under way, not a second one
        assert client.post(f"/api/games/{games[0]}/review", json={}).json()["status"] == "running"
        deadline = time.monotonic() + 10
        while worker.calls < 2:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert worker.calls == 2  # one decision of each game at a time, nothing more
        worker.release.set()
        for game_id in games[:2]:
            _done(client, game_id)
        assert client.post(f"/api/games/{games[2]}/review", json={}).status_code == 202
        _done(client, games[2])


def test_review_requests_are_rate_limited(tmp_path: Any) -> None:
    limits = RateLimits(review=Limit(per_minute=1, burst=3))
    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0, limits=limits)) as client:
        created = client.post(
            "/api/games", json={"seats": [{"kind": "human"}, {"kind": "human"}]}
        ).json()
        path = f"/api/games/{created['id']}/review"
        assert [client.get(path).status_code for _ in range(3)] == [200, 200, 200]
        refused = client.post(path, json={})
        assert refused.status_code == 429 and "retry-after" in refused.headers
