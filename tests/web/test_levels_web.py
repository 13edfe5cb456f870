"""The ladder's levels in the web app (issue 26, item 1): a bot seat names a level, /api/meta
lists them, the level keeps its name on the page and its budget is the server's."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from web_helpers import TestClient

from carcassonne.bots.levels import LEVEL_NAMES
from carcassonne.web import create_app
from carcassonne.web.protocol import ProtocolError, parse_seats, seat_public, think_time

ANA = {"kind": "human", "name": "Ana"}


def test_a_bot_seat_may_name_a_level() -> None:
    (seat, _) = parse_seats([{"kind": "bot", "bot": " Casual"}, ANA])
    assert seat["bot"] == "casual"
    assert seat["name"] == "Casual bot"
    assert seat_public(0, seat["name"], "bot", seat["bot"]) == {
        "name": "Casual bot",
        "kind": "bot",
        "bot": "casual",
        "think": None,  # the novice answers at once
        "default_name": True,
    }


def test_a_searching_level_thinks_within_its_own_cap() -> None:
    """The decision's time-out on the server (think time + grace) covers the level's cap."""
    (seat, _) = parse_seats([{"kind": "bot", "bot": "master"}, ANA])
    assert think_time(seat["bot"]) == 20.0
    assert seat_public(0, seat["name"], "bot", seat["bot"])["think"] == 20.0


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("casual:seed=4", "takes only 'seconds', not 'seed'"),
        ("master:seconds=1", "bot 'master' has no parameter 'seconds'"),
        ("champion", "unknown bot 'champion' \\(choose a level: beginner"),
    ],
)
def test_a_level_takes_no_parameter_from_a_client(spec: str, why: str) -> None:
    with pytest.raises(ProtocolError, match=why):
        parse_seats([{"kind": "bot", "bot": spec}, ANA])


def test_meta_lists_the_levels_weakest_first(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "games.sqlite3")) as client:
        meta = client.get("/api/meta").json()
    assert meta["levels"] == list(LEVEL_NAMES)
    assert meta["levels"][0] == "beginner" and meta["levels"][-1] == "master"


def test_levels_play_a_web_game_to_the_end(tmp_path: Path) -> None:
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0)
    stack = ["base/E", "base/U", "base/V", "base/D"]
    seats = [{"kind": "bot", "bot": "strong"}, {"kind": "bot", "bot": "beginner"}]
    with TestClient(app) as client:
        response = client.post("/api/games", json={"seats": seats, "options": {"stack": stack}})
        assert response.status_code == 201, response.text
        game_id = response.json()["id"]
        deadline = time.monotonic() + 60
        state: dict[str, Any] = {}
        while time.monotonic() < deadline:
            state = client.get(f"/api/games/{game_id}/state").json()
            if state["view"]["phase"] == "over":
                break
            time.sleep(0.1)
    assert state["view"]["phase"] == "over" and state["broken"] is None, state
    assert [s["bot"] for s in state["game"]["seats"]] == ["strong", "beginner"]
    stored = app.state.storage.load_game(game_id)
    assert [s["bot"] for s in stored.seats] == ["strong", "beginner"]
