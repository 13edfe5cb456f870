"""HTTP rate limits per client address and the cap on unfinished games.

The app runs on a hand-driven clock so that waiting is exact and instant.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import TestClient

from carcassonne.web import create_app
from carcassonne.web.ratelimit import Limit, RateLimits, TokenBuckets

HUMANS = [{"kind": "human"}, {"kind": "human"}]
# One tile after the start tile: the game ends after a tile and a figure decision.
SHORT = {"stack": ["base/E"]}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def make_app(tmp_path: Path, clock: Clock, **kwargs: Any) -> Any:
    return create_app(tmp_path / "games.sqlite3", bot_delay=0, clock=clock, **kwargs)


@pytest.fixture
def tiny(tmp_path: Path, clock: Clock) -> Iterator[Any]:
    """Two games a minute, one replay and one action a minute per client."""
    limits = RateLimits(
        create=Limit(2, burst=2), replay=Limit(1, burst=1), action=Limit(1, burst=1)
    )
    with TestClient(make_app(tmp_path, clock, limits=limits)) as c:
        yield c


def create(client: Any, **options: Any) -> Any:
    return client.post("/api/games", json={"seats": HUMANS, "options": options})


def assert_limited(response: Any, retry_after: str) -> None:
    assert response.status_code == 429, response.text
    assert response.json()["error"] == "rate-limited"
    assert "a minute" in response.json()["message"]
    assert response.headers["retry-after"] == retry_after


def test_game_creation_beyond_the_burst_is_refused_with_retry_after(tiny: Any) -> None:
    assert [create(tiny).status_code for _ in range(2)] == [201, 201]
    # 2 a minute: the next token comes in 30 s
    assert_limited(create(tiny), "30")


def test_creation_recovers_once_the_bucket_refills(tiny: Any, clock: Clock) -> None:
    for _ in range(2):
        assert create(tiny).status_code == 201
    clock.now += 29.5
    assert_limited(create(tiny), "1")  # half a second left, rounded up
    clock.now += 0.5
    assert create(tiny).status_code == 201
    assert_limited(create(tiny), "30")  # the one refilled token is spent again


def test_a_limited_client_does_not_limit_others(tiny: Any) -> None:
    for _ in range(2):
        assert create(tiny).status_code == 201
    assert_limited(create(tiny), "30")
    other = TestClient(tiny.app, client=("192.0.2.7", 40000))
    assert create(other).status_code == 201
    assert_limited(create(tiny), "30")


def test_replay_uploads_are_limited_before_the_record_is_read(tiny: Any) -> None:
    first = tiny.post("/api/replay", json={"not": "a record"})
    assert first.status_code == 400
    assert_limited(tiny.post("/api/replay", json={"not": "a record"}), "60")


def test_action_posts_are_limited_refused_ones_included(tiny: Any) -> None:
    created = create(tiny, **SHORT).json()
    game_id, token = created["id"], created["seats"][0]["token"]
    url, headers = f"/api/games/{game_id}/actions", {"authorization": f"Bearer {token}"}
    assert tiny.post(url, headers=headers, json={"actions": []}).status_code == 400
    assert_limited(tiny.post(url, headers=headers, json={"actions": []}), "60")
    # reading is not limited
    assert tiny.get(f"/api/games/{game_id}/state", headers=headers).status_code == 200


def play_out(client: Any, game_id: str, token: str) -> None:
    """Play a two-human game to its end over HTTP (the token acts for every human seat)."""
    headers = {"authorization": f"Bearer {token}"}
    for _ in range(20):
        state = client.get(f"/api/games/{game_id}/state", headers=headers).json()
        if state["view"]["phase"] == "over":
            return
        action = state["view"]["legal_actions"][0]
        posted = client.post(
            f"/api/games/{game_id}/actions",
            headers=headers,
            json={"actions": [action], "ply": state["ply"]},
        )
        assert posted.status_code == 200, posted.text
    raise AssertionError("the game did not end")


def test_unfinished_games_are_capped_and_a_finished_one_frees_its_place(
    tmp_path: Path, clock: Clock
) -> None:
    with TestClient(make_app(tmp_path, clock, max_live_games=2)) as client:
        hotseat = client.post(
            "/api/games", json={"seats": HUMANS, "options": SHORT, "hotseat": True}
        ).json()
        assert create(client).status_code == 201
        refused = create(client)
        assert refused.status_code == 503
        assert refused.json()["error"] == "too-many-games"
        assert "2 unfinished games" in refused.json()["message"]
        play_out(client, hotseat["id"], hotseat["hotseat_token"])
        assert create(client).status_code == 201
        assert create(client).status_code == 503


def test_default_limits_let_people_play(tmp_path: Path, clock: Clock) -> None:
    """At the defaults a client creates 10 games at once, plays one out and watches replays."""
    with TestClient(make_app(tmp_path, clock)) as client:
        created = [
            client.post(
                "/api/games", json={"seats": HUMANS, "options": SHORT, "hotseat": True}
            ).json()
            for _ in range(10)
        ]
        assert all("id" in game for game in created)
        assert_limited(create(client), "6")  # 10 a minute
        play_out(client, created[0]["id"], created[0]["hotseat_token"])
        record = client.get(f"/api/games/{created[0]['id']}/record").json()
        for _ in range(10):
            assert client.post("/api/replay", json=record).status_code == 200
        clock.now += 6
        assert create(client).status_code == 201


def test_buckets_are_pruned_when_refilled_and_capped_in_number(clock: Clock) -> None:
    buckets = TokenBuckets(Limit(60, burst=2), clock, max_clients=3)
    for name in "abcde":
        assert buckets.take(name) == 0
    assert len(buckets) == 3  # the oldest were dropped; they only get a fresh burst
    clock.now += 2  # a bucket refills in burst / rate = 2 s: all are as good as new
    assert buckets.take("f") == 0
    assert len(buckets) == 1
