"""Every integer the server sends a page, or accepts from one, is exact in a browser.

A page's numbers are doubles: an integer beyond 2^53 - 1 (``Number.MAX_SAFE_INTEGER``) is
rounded as it is parsed, so a page that shows, keeps or sends it back gets another number
(issue 21: a downloaded record's 64-bit seed was rounded and the record no longer replayed).
The rule (docs/web.md, *Integers*): seeds are drawn and accepted within 0 .. 2^53 - 1, and the
page never parses a record (it saves and uploads the file's bytes as they are).
"""

from __future__ import annotations

import json
import random
import secrets
from pathlib import Path
from typing import Any

import pytest
from web_helpers import TestClient, auth, finished_game

from carcassonne.web import create_app
from carcassonne.web.protocol import MAX_SAFE_INTEGER, MAX_SEED, ProtocolError, parse_options
from carcassonne.web.ratelimit import Limit, RateLimits

# Every expansion at once: the River cannot go on a map, so the map games have the others.
ALL_EXPANSIONS: list[dict[str, Any]] = [
    {"river": True, "abbot": True, "bets": True, "inns_cathedrals": True,
     "traders_builders": True},
    {"map": "france", "map_chips": True, "abbot": True, "bets": True, "inns_cathedrals": True,
     "traders_builders": True},
]  # fmt: skip


def unsafe_integers(data: Any, path: str = "$") -> list[str]:
    """Where ``data`` (decoded JSON) holds an integer a JavaScript number cannot hold exactly."""
    if isinstance(data, bool):
        return []
    if isinstance(data, int):
        return [f"{path} = {data}"] if abs(data) > MAX_SAFE_INTEGER else []
    if isinstance(data, dict):
        return [bad for key, item in data.items() for bad in unsafe_integers(item, f"{path}.{key}")]
    if isinstance(data, list):
        return [bad for i, item in enumerate(data) for bad in unsafe_integers(item, f"{path}[{i}]")]
    return []


def test_the_seed_bound_is_the_largest_integer_a_page_holds() -> None:
    assert MAX_SEED == MAX_SAFE_INTEGER == 2**53 - 1
    assert parse_options({"seed": 2**53 - 1}, 2).seed == 2**53 - 1
    assert parse_options({"seed": 0}, 2).seed == 0
    for seed in (2**53, 2184952143081912475, -1):
        with pytest.raises(
            ProtocolError, match="'seed' must be a whole number from 0 to 9007199254740991"
        ):
            parse_options({"seed": seed}, 2)


def test_a_seed_beyond_the_bound_is_refused_by_the_api(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0)) as client:
        seats = [{"kind": "human"}, {"kind": "human"}]
        refused = client.post(
            "/api/games", json={"seats": seats, "options": {"seed": 2184952143081912475}}
        )
        assert refused.status_code == 400
        assert "from 0 to 9007199254740991" in refused.json()["message"]
        accepted = client.post("/api/games", json={"seats": seats, "options": {"seed": MAX_SEED}})
        assert accepted.status_code == 201, accepted.text


def test_the_seed_the_server_draws_is_within_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The largest seed the server can draw, drawn: it must still be exact in a page.
    monkeypatch.setattr(secrets, "randbelow", lambda n: n - 1)
    with TestClient(create_app(tmp_path / "games.sqlite3", bot_delay=0)) as client:
        record = client.get(f"/api/games/{finished_game(client)}/record").json()
    assert 0 <= record["seed"] <= MAX_SAFE_INTEGER


def received(ws: Any, sent: list[Any]) -> dict[str, Any]:
    """The next websocket message, kept (as decoded with exact integers) in ``sent``."""
    message = json.loads(ws.receive_text())
    sent.append(message)
    return message  # type: ignore[no-any-return]


def play_to_the_end(client: Any, options: dict[str, Any], rng: random.Random) -> list[Any]:
    """A three-seat hotseat game of random legal actions over the websocket; every JSON the
    server sent on the way: the create answer, the messages, then the finished game's info,
    state, record and replay, and the replay of its uploaded record."""
    seats = [{"kind": "human"} for _ in range(3)]
    created = client.post("/api/games", json={"seats": seats, "options": options, "hotseat": True})
    assert created.status_code == 201, created.text
    game_id, token = created.json()["id"], created.json()["hotseat_token"]
    sent: list[Any] = [created.json()]
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        ws.send_json({"type": "hello", "token": token})
        state = received(ws, sent)
        while state.get("type") != "state":
            state = received(ws, sent)
        while state["view"]["phase"] != "over":
            legal = state["view"]["legal_actions"]
            ply = state["ply"]
            tiles = [a for a in legal if a["type"] == "place-tile"]
            if tiles:
                ws.send_json({"type": "preview", "action": rng.choice(tiles), "ply": ply})
                assert received(ws, sent)["type"] == "preview"
            ws.send_json({"type": "act", "actions": [rng.choice(legal)], "ply": ply})
            state = received(ws, sent)
            while state.get("type") != "state" or state["ply"] == ply:
                assert state.get("type") != "error", state
                state = received(ws, sent)
        ws.send_json({"type": "ping"})
        assert received(ws, sent)["type"] == "pong"
    for path in ("", "/state", "/replay"):
        answer = client.get(f"/api/games/{game_id}{path}", headers=auth(token))
        assert answer.status_code == 200, answer.text
        sent.append(answer.json())
    record = client.get(f"/api/games/{game_id}/record")
    sent.append(record.json())
    uploaded = client.post(
        "/api/replay", content=record.content, headers={"content-type": "application/json"}
    )
    assert uploaded.status_code == 200, uploaded.text
    sent.append(uploaded.json())
    return sent


@pytest.mark.parametrize("options", ALL_EXPANSIONS, ids=["river", "map"])
def test_every_integer_the_server_sends_in_a_game_is_exact_in_a_page(
    tmp_path: Path, options: dict[str, Any]
) -> None:
    rng = random.Random(21)
    unlimited = Limit(per_minute=10**6, burst=10**6)  # the games go as fast as the machine
    app = create_app(tmp_path / "games.sqlite3", bot_delay=0, limits=RateLimits(message=unlimited))
    with TestClient(app) as client:
        sent: list[Any] = [client.get("/api/meta").json(), client.get("/api/tiles").json()]
        for _ in range(2):
            sent += play_to_the_end(client, options, rng)
    assert len(sent) > 300
    assert unsafe_integers(sent) == []
