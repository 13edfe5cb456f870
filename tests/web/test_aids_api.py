"""The information aids through the API (issue 25): a table shows them unless created with
"no aids", in which case no state carries their data; a bad setting is refused with a reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from web_helpers import TestClient, auth

from carcassonne.web import create_app

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]


def _create(client: Any, table: dict[str, Any] | None) -> Any:
    body: dict[str, Any] = {"seats": HUMANS, "options": {"seed": 7}}
    if table is not None:
        body["table"] = table
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 201, answer.json()
    return answer.json()


def _state(client: Any, game: Any) -> Any:
    headers = auth(game["seats"][0]["token"])
    return client.get(f"/api/games/{game['id']}/state", headers=headers).json()


def test_a_table_shows_the_aids_by_default(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "g.sqlite3")) as client:
        game = _create(client, None)
        state = _state(client, game)
        room = client.app.state.server.rooms[game["id"]]
        truth: dict[str, int] = {}
        for tile in room.game.stack:
            truth[tile.id] = truth.get(tile.id, 0) + 1
    assert state["game"]["table"]["aids"] is True
    assert state["aids"]["remaining"] == dict(sorted(truth.items()))
    assert sum(state["aids"]["remaining"].values()) == state["view"]["tiles_left"] == 70
    assert state["aids"]["unfillable"] == []


def test_a_no_aids_table_sends_none_of_their_data(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "g.sqlite3")) as client:
        game = _create(client, {"aids": False})
        state = _state(client, game)
    assert state["game"]["table"]["aids"] is False
    assert "aids" not in state


def test_a_bad_aids_setting_is_refused_naming_it(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "g.sqlite3")) as client:
        answer = client.post(
            "/api/games", json={"seats": HUMANS, "options": {"seed": 7}, "table": {"aids": "no"}}
        )
    assert answer.status_code == 400
    assert answer.json()["error"] == "bad-options"
    assert answer.json()["reason"] == "aids_setting"
    assert "'aids' must be true or false, not 'no'" in answer.json()["message"]
