"""The web server's HTTP and websocket API: creation, authorisation, validation, persistence.

Every refusal must reach only the client that sent the bad message, name what is wrong and leave
the game unchanged; every accepted action must be in the database before anyone hears of it.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from web_helpers import TestClient, auth, expand_frames, hello

from carcassonne.expansions.registry import EXPANSIONS, VARIANTS
from carcassonne.formats.record import read_record, replay_record
from carcassonne.web import create_app
from carcassonne.web.database import open_storage

HUMAN = {"kind": "human", "name": "Ana"}
BOT = {"kind": "bot", "bot": "random"}
# Start tile D has its city to the north; base/E turned 180° closes it into a 2-tile city.
CITY_STACK = ["base/E", "base/U", "base/V"]


@pytest.fixture
def app(games_db: str) -> Any:
    """The app on each backend in turn (SQLite, PostgreSQL): the same contract."""
    return create_app(games_db, bot_delay=0)


@pytest.fixture
def client(app: Any) -> Any:
    with TestClient(app) as c:
        yield c


def create(client: Any, seats: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    hotseat = options.pop("hotseat", False)
    response = client.post(
        "/api/games", json={"seats": seats, "options": options, "hotseat": hotseat}
    )
    assert response.status_code == 201, response.text
    return response.json()


def two_humans(client: Any, **options: Any) -> tuple[str, str, str]:
    created = create(client, [HUMAN, {"kind": "human", "name": "Bo"}], **options)
    return created["id"], created["seats"][0]["token"], created["seats"][1]["token"]


def state_of(client: Any, game_id: str, token: str) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}/state", headers=auth(token))
    assert response.status_code == 200, response.text
    return response.json()


# ------------------------------------------------------------------------------ creation


def test_meta_serves_the_expansions_and_variants_the_lobby_offers(client: Any) -> None:
    served = client.get("/api/meta").json()
    expansions = {e["option"]: e for e in served["expansions"]}
    assert list(expansions) == [spec.field for spec in EXPANSIONS]
    assert expansions["map_chips"] == {
        "name": "map-chips",
        "option": "map_chips",
        "label": "option.map_chips",
        "tile_sets": [],
        "needs_map": True,
        "never_on_map": False,
    }
    assert expansions["inns_cathedrals"]["tile_sets"] == ["ic"]
    assert expansions["river"]["never_on_map"]
    variants = {v["option"]: v for v in served["variants"]}
    assert list(variants) == [variant.field for variant in VARIANTS]
    assert variants["farmers"]["checkbox"] == "no_farmers" and variants["farmers"]["default"]
    assert variants["plain_unfinished_inns_cathedrals"]["needs_any_of"] == ["inns", "cathedrals"]
    # what the lobby sends back for each is a create request the server takes
    options = {
        e["option"]: not e["needs_map"] and not e["never_on_map"] for e in expansions.values()
    }
    created = create(client, [HUMAN, BOT], **options, **{v: False for v in variants})
    assert created["game"]["options"]["traders_builders"]


def test_create_gives_each_human_seat_its_own_token(client: Any) -> None:
    created = create(client, [HUMAN, BOT, {"kind": "human"}], seed=7)
    tokens = [s["token"] for s in created["seats"]]
    assert [s["seat"] for s in created["seats"]] == [0, 2]
    assert len(set(tokens)) == 2 and all(len(t) >= 20 for t in tokens)
    assert created["hotseat_token"] is None
    game = created["game"]
    assert [s["kind"] for s in game["seats"]] == ["human", "bot", "human"]
    assert game["seats"][2]["name"] == "Player 3"


def test_public_info_hides_seed_and_stack(client: Any) -> None:
    created = create(client, [HUMAN, BOT], seed=12345, stack=CITY_STACK)
    info = client.get(f"/api/games/{created['id']}").json()
    text = json.dumps(info)
    assert "12345" not in text
    assert "base/U" not in text
    assert info["options"]["fixed_stack"] is True
    assert "seed" not in info["options"]


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"seats": [HUMAN]}, "'seats' must be a list of 2 to 6"),
        ({"seats": [HUMAN] * 7}, "'seats' must be a list of 2 to 6"),
        ({"seats": [HUMAN, {"kind": "alien"}]}, "'kind' must be 'human', 'bot' or 'open'"),
        (
            {"seats": [HUMAN, {"kind": "bot", "bot": "oracle"}]},
            "unknown bot 'oracle' (choose a level: beginner",
        ),
        ({"seats": [HUMAN, HUMAN], "colour": "red"}, "unknown keys ['colour']"),
        ({"seats": [HUMAN, HUMAN], "options": {"river": "yes"}}, "'river' must be true or false"),
        ({"seats": [HUMAN, HUMAN], "options": {"seed": -1}}, "'seed' must be a whole number"),
        (
            {"seats": [HUMAN, HUMAN], "options": {"river": True, "map": "france"}},
            "River cannot be played on a map",
        ),
        ({"seats": [HUMAN, HUMAN], "options": {"stack": ["base/ZZ"]}}, "unknown tile"),
        ({"seats": [HUMAN, HUMAN], "options": {"map": "atlantis"}}, "cannot set up this game"),
    ],
)
def test_create_rejects_bad_requests_with_a_clear_error(
    client: Any, body: dict[str, Any], fragment: str
) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert fragment in response.json()["message"]


def test_create_rejects_non_json(client: Any) -> None:
    response = client.post(
        "/api/games", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert "not JSON" in response.json()["message"]


def test_unknown_game_is_404(client: Any) -> None:
    assert client.get("/api/games/nosuchgame").status_code == 404
    with client.websocket_connect("/ws/nosuchgame") as ws:
        message = ws.receive_json()
    assert message["code"] == "not-found"


# ------------------------------------------------------------------------------ websocket


def test_first_message_must_be_hello(client: Any) -> None:
    game_id, _, _ = two_humans(client)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        ws.send_json({"type": "act", "actions": [{"type": "pass"}], "ply": 0})
        error = ws.receive_json()
    assert error == {
        "type": "error",
        "code": "bad-message",
        "message": error["message"],
        "reason": "hello_first",
        "params": {},
    }
    assert "first message must be hello" in error["message"]


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"type": "dance"}', "unknown message type 'dance'"),
        ('{"type": "act", "actions": []}', "'actions' must be a list of 1 to 2"),
        ('{"type": "act", "actions": [{"type": "fly"}]}', "unknown action type 'fly'"),
        (
            '{"type": "act", "actions": [{"type": "place-tile", "x": "1", "y": 0, "rotation": 0}]}',
            "'x' must be a whole number",
        ),
        ('{"type": "act", "actions": [{"type": "pass"}], "extra": 1}', "unknown keys ['extra']"),
        ('{"type": "act", "actions": [{"type": "pass"}], "ply": "0"}', "'ply' must be"),
    ],
)
def test_malformed_messages_get_an_error_and_change_nothing(
    client: Any, raw: str, fragment: str
) -> None:
    game_id, token, _ = two_humans(client, seed=3)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        before = hello(ws, token)
        ws.send_text(raw)
        error = ws.receive_json()
        assert error["type"] == "error" and error["code"] == "bad-message"
        assert fragment in error["message"]
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
    after = state_of(client, game_id, token)
    assert after["ply"] == before["ply"] == 0
    assert after["view"]["tiles"] == before["view"]["tiles"]


def test_binary_and_oversized_messages_are_refused(client: Any) -> None:
    game_id, token, _ = two_humans(client)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        hello(ws, token)
        ws.send_bytes(b"\x00\x01")
        assert "JSON text frames" in ws.receive_json()["message"]
        ws.send_text(json.dumps({"type": "ping", "pad": "x" * 70_000}))
        assert "larger than" in ws.receive_json()["message"]


def test_wrong_token_is_unauthorised(client: Any) -> None:
    game_id, _, _ = two_humans(client)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        ws.send_json({"type": "hello", "token": "forged-token"})
        error = ws.receive_json()
    assert error["code"] == "unauthorised"
    response = client.get(f"/api/games/{game_id}/state", headers=auth("forged"))
    assert response.status_code == 403


def test_token_of_another_game_is_unauthorised(client: Any) -> None:
    game_a, token_a, _ = two_humans(client)
    game_b, _, _ = two_humans(client)
    response = client.get(f"/api/games/{game_b}/state", headers=auth(token_a))
    assert response.status_code == 403
    assert state_of(client, game_a, token_a)["perspective"] == 0


def test_spectator_sees_public_view_and_cannot_act(client: Any) -> None:
    game_id, _, _ = two_humans(client, seed=5)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        state = hello(ws, None)
        assert state["perspective"] is None
        assert "legal_actions" not in state["view"]
        ws.send_json({"type": "act", "actions": [{"type": "pass"}], "ply": state["ply"]})
        error = ws.receive_json()
    assert error["code"] == "unauthorised"
    assert "spectators cannot act" in error["message"]


def test_seat_not_to_move_is_refused(client: Any) -> None:
    game_id, _, token_b = two_humans(client, stack=CITY_STACK)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        state = hello(ws, token_b)
        assert "legal_actions" not in state["view"]
        tile = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
        ws.send_json({"type": "act", "actions": [tile], "ply": state["ply"]})
        error = ws.receive_json()
    assert error["code"] == "not-your-turn"
    assert "seat 1's move" in error["message"]


def test_illegal_action_is_refused_by_the_engine_and_changes_nothing(client: Any) -> None:
    game_id, token, _ = two_humans(client, stack=CITY_STACK)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        hello(ws, token)
        tile = {"type": "place-tile", "x": 0, "y": -1, "rotation": 0}
        ws.send_json({"type": "act", "actions": [tile], "ply": 0})
        error = ws.receive_json()
    assert error["code"] == "illegal"
    assert "does not match its neighbours" in error["message"]
    assert state_of(client, game_id, token)["ply"] == 0


def test_batch_is_all_or_none(client: Any) -> None:
    game_id, token, _ = two_humans(client, stack=CITY_STACK)
    tile = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
    bad_figure = {"type": "place-figure", "figure": "meeple", "location": "monastery"}
    response = client.post(
        f"/api/games/{game_id}/actions",
        headers=auth(token),
        json={"actions": [tile, bad_figure], "ply": 0},
    )
    assert response.status_code == 409
    assert response.json()["error"] == "illegal"
    assert response.json()["message"].startswith("action 2:")
    state = state_of(client, game_id, token)
    assert state["ply"] == 0 and len(state["view"]["tiles"]) == 1
    assert state["view"]["phase"] == "tile"


def test_stale_ply_is_refused(client: Any) -> None:
    game_id, token, _ = two_humans(client, stack=CITY_STACK)
    tile = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
    response = client.post(
        f"/api/games/{game_id}/actions", headers=auth(token), json={"actions": [tile], "ply": 3}
    )
    assert response.status_code == 409 and response.json()["error"] == "stale"


def test_completed_city_scores_4_and_everyone_is_told(client: Any) -> None:
    game_id, token_a, token_b = two_humans(client, stack=CITY_STACK)
    with (
        client.websocket_connect(f"/ws/{game_id}") as ws_a,
        client.websocket_connect(f"/ws/{game_id}") as ws_b,
    ):
        hello(ws_a, token_a)
        hello(ws_b, token_b)
        ws_a.receive_json()  # the presence update after b joined
        tile = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
        figure = {"type": "place-figure", "figure": "meeple", "location": "S"}
        ws_a.send_json({"type": "act", "actions": [tile, figure], "ply": 0})
        seen_a = ws_a.receive_json()
        seen_b = ws_b.receive_json()
    for seen in (seen_a, seen_b):
        assert seen["ply"] == 2
        assert seen["view"]["scores"] == [4, 0]
        (score,) = [e for e in seen["events"] if e["type"] == "score"]
        assert score["source"] == "city" and score["tiles"] == 2 and score["points"] == {"0": 4}
    assert "legal_actions" in seen_b["view"] and "legal_actions" not in seen_a["view"]


def test_inns_cathedrals_and_the_rule_variants_through_the_api(client: Any) -> None:
    options = {"inns_cathedrals": True, "small_city_scores_2": True, "farmers": False}
    game_id, token, _ = two_humans(client, stack=CITY_STACK, **options)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        state = hello(ws, token)
        assert state["view"]["supply"][0] == {"meeple": 7, "large-meeple": 1}
        tile = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
        figure = {"type": "place-figure", "figure": "large-meeple", "location": "S"}
        ws.send_json({"type": "act", "actions": [tile, figure], "ply": 0})
        seen = ws.receive_json()
    assert seen["view"]["scores"] == [2, 0]  # a two-tile city scores 2 with the variant
    info = client.get(f"/api/games/{game_id}").json()
    assert {key: info["options"][key] for key in options} == options


@pytest.mark.parametrize(
    ("variant", "source", "points"),
    [
        ({}, "inn", 0),
        ({"plain_unfinished_inns_cathedrals": True}, "inn", 2),
        ({"inns": False}, "road", 2),
    ],
)
def test_d51_d52_the_inns_cathedrals_variants_through_the_api(
    client: Any, variant: dict[str, bool], source: str, points: int
) -> None:
    # The only tile, ic/O east of the start tile, leaves a road of 2 tiles with an inn unfinished.
    options = {"inns_cathedrals": True, **variant}
    game_id, token, _ = two_humans(client, stack=["ic/O"], **options)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        hello(ws, token)
        tile = {"type": "place-tile", "x": 1, "y": 0, "rotation": 0}
        figure = {"type": "place-figure", "figure": "meeple", "location": "E"}
        ws.send_json({"type": "act", "actions": [tile, figure], "ply": 0})
        seen = ws.receive_json()
    (score,) = [e for e in seen["events"] if e["type"] == "score"]
    assert (score["source"], score["points"]) == (source, {"0": points})
    assert score["detail"]["per_tile"] == points // 2  # the rate the log shows: 2 tiles
    assert seen["view"]["scores"] == [points, 0]
    info = client.get(f"/api/games/{game_id}").json()
    assert {key: info["options"][key] for key in options} == options
    record = client.get(f"/api/games/{game_id}/record").json()
    assert replay_record(read_record(record)).scores == [points, 0]


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"inns": False}, "--no-inns needs Inns & Cathedrals (--inns-cathedrals)"),
        ({"cathedrals": False}, "--no-cathedrals needs Inns & Cathedrals"),
        ({"plain_unfinished_inns_cathedrals": True}, "needs Inns & Cathedrals"),
        ({"inns_cathedrals": True, "inns": "no"}, "'inns' must be true or false"),
    ],
)
def test_d54_the_api_refuses_an_inns_cathedrals_variant_without_it(
    client: Any, options: dict[str, Any], fragment: str
) -> None:
    response = client.post("/api/games", json={"seats": [HUMAN, HUMAN], "options": options})
    assert response.status_code == 400
    assert fragment in response.json()["message"]


def test_preview_lists_figure_actions_without_changing_the_game(client: Any) -> None:
    game_id, token, _ = two_humans(client, stack=CITY_STACK)
    tile = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        hello(ws, token)
        ws.send_json({"type": "preview", "action": tile, "ply": 0})
        preview = ws.receive_json()
    assert preview["type"] == "preview" and preview["action"] == tile
    locations = {a.get("location") for a in preview["legal_actions"]}
    assert {"S", None} <= locations  # the city, and pass
    assert {"type": "pass"} in preview["legal_actions"]
    assert set(preview) == {"type", "ply", "action", "legal_actions"}
    assert state_of(client, game_id, token)["ply"] == 0


def test_hotseat_token_plays_every_human_seat(client: Any) -> None:
    created = create(client, [HUMAN, {"kind": "human"}], stack=CITY_STACK, hotseat=True)
    token = created["hotseat_token"]
    assert created["seats"] == []
    game_id = created["id"]
    first = [{"type": "place-tile", "x": 0, "y": -1, "rotation": 180}, {"type": "pass"}]
    reply = client.post(
        f"/api/games/{game_id}/actions", headers=auth(token), json={"actions": first, "ply": 0}
    )
    assert reply.status_code == 200
    assert reply.json()["perspective"] == 1  # the screen now shows seat 1, to move
    second = reply.json()["view"]["legal_actions"][0]
    reply = client.post(
        f"/api/games/{game_id}/actions",
        headers=auth(token),
        json={"actions": [second], "ply": reply.json()["ply"]},
    )
    assert reply.status_code == 200 and reply.json()["ply"] == 3


def test_bot_moves_on_its_own(client: Any) -> None:
    created = create(client, [HUMAN, BOT], stack=CITY_STACK)
    game_id, token = created["id"], created["seats"][0]["token"]
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        hello(ws, token)
        tile = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
        ws.send_json({"type": "act", "actions": [tile, {"type": "pass"}], "ply": 0})
        state = ws.receive_json()
        while state["view"]["to_move"] != 0 or state["view"]["phase"] != "tile":
            state = ws.receive_json()
    assert state["ply"] == 4  # two actions of ours, tile and figure step of the bot
    assert len(state["view"]["tiles"]) == 3


# ------------------------------------------------------------------------------ persistence


def test_actions_survive_a_restart(games_db: str) -> None:
    db = games_db
    with TestClient(create_app(db, bot_delay=0)) as first:
        game_id, token, _ = two_humans(first, stack=CITY_STACK)
        tile = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}
        figure = {"type": "place-figure", "figure": "meeple", "location": "S"}
        reply = first.post(
            f"/api/games/{game_id}/actions",
            headers=auth(token),
            json={"actions": [tile, figure], "ply": 0},
        )
        assert reply.status_code == 200
        before = reply.json()
    stored = open_storage(db).load_game(game_id)
    assert stored is not None and [a for _, a in stored.actions] == [tile, figure]
    with TestClient(create_app(db, bot_delay=0)) as second:
        after = state_of(second, game_id, token)
    assert after["ply"] == before["ply"] == 2
    assert after["view"]["scores"] == [4, 0]
    assert after["view"]["tiles"] == before["view"]["tiles"]


def test_unfinished_bot_game_resumes_after_restart(games_db: str) -> None:
    db = games_db
    app = create_app(db, bot_delay=0)
    storage = app.state.storage
    from carcassonne.web.protocol import options_to_json, parse_options, parse_seats

    # stored as a server stopped before its bots moved leaves it (no lease held)
    created = "resumed"
    storage.create_game(
        created,
        options_to_json(parse_options({"stack": CITY_STACK, "seed": 1}, 2), True),
        [{**seat, "digest": None} for seat in parse_seats([BOT, BOT])],
        None,
        bot_turn=True,
    )
    with TestClient(create_app(db, bot_delay=0)) as client:
        # poll (429s included: the read limit) for as long as a loaded machine may need
        deadline = time.monotonic() + 60
        while True:
            info = client.get(f"/api/games/{created}/replay")
            if info.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
    assert info.status_code == 200
    assert storage.load_game(created).finished  # type: ignore[union-attr]


# ------------------------------------------------------------------------------ records


def finish_short_game(client: Any) -> tuple[str, str]:
    game_id, token, token_b = two_humans(client, stack=CITY_STACK)
    tokens = [token, token_b]
    for _ in range(20):
        state = state_of(client, game_id, token)
        view = state["view"]
        if view["phase"] == "over":
            return game_id, token
        mover = tokens[view["to_move"]]
        legal = state_of(client, game_id, mover)["view"]["legal_actions"]
        reply = client.post(
            f"/api/games/{game_id}/actions",
            headers=auth(mover),
            json={"actions": [legal[-1]], "ply": state["ply"]},
        )
        assert reply.status_code == 200, reply.text
    raise AssertionError("the short game did not end")


def test_record_only_of_a_finished_game(client: Any) -> None:
    game_id, token, _ = two_humans(client, stack=CITY_STACK)
    response = client.get(f"/api/games/{game_id}/record")
    assert response.status_code == 409
    assert "reveal the draw order" in response.json()["message"]
    assert client.get(f"/api/games/{game_id}/replay").status_code == 409


def test_finished_game_record_replays_to_the_same_scores(client: Any) -> None:
    game_id, token = finish_short_game(client)
    final = state_of(client, game_id, token)
    assert final["summary"]["scores"] == final["view"]["scores"]
    record = client.get(f"/api/games/{game_id}/record").json()
    assert record["seats"][0] == {"name": "Ana", "kind": "human"}
    game = replay_record(read_record(record))
    assert game.is_over and game.scores == final["view"]["scores"]
    frames = expand_frames(client.get(f"/api/games/{game_id}/replay").json())
    assert len(frames["frames"]) == len(record_actions(frames)) + 1
    assert frames["frames"][-1]["view"]["scores"] == final["view"]["scores"]
    uploaded = expand_frames(client.post("/api/replay", json=record).json())
    assert [f["view"]["scores"] for f in uploaded["frames"]] == [
        f["view"]["scores"] for f in frames["frames"]
    ]


def record_actions(frames: dict[str, Any]) -> list[Any]:
    return [f["action"] for f in frames["frames"] if f["action"] is not None]


def test_uploaded_bad_record_gets_a_clear_error(client: Any) -> None:
    response = client.post("/api/replay", json={"format": "carcassonne-record/1", "moves": 3})
    assert response.status_code == 400
    assert "'moves' must be a list" in response.json()["message"]


def test_tile_geometry_matches_the_engine(client: Any) -> None:
    from carcassonne.tiles import tile_by_id

    tiles = client.get("/api/tiles").json()["tiles"]
    d = tiles["base/D"]
    assert d["rotations"][0]["edges"] == "CRFR"
    assert d["rotations"][1]["edges"] == "RCRF"  # rotated 90° clockwise: the city faces east
    engine = tile_by_id("base/D").orientations[1]
    assert [s["location"] for s in d["rotations"][1]["segments"]] == [
        s.location for s in engine.segments
    ]
    assert {"bets/01", "river/A", "base/X"} <= set(tiles)


def test_pages_carry_a_strict_content_security_policy(client: Any) -> None:
    response = client.get("/")
    assert response.status_code == 200 and '<main id="app">' in response.text
    assert "default-src 'self'" in response.headers["content-security-policy"]
    assert client.get("/static/js/app.js").status_code == 200


def test_flooding_client_is_rate_limited(client: Any) -> None:
    game_id, token, _ = two_humans(client)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        hello(ws, token)
        for _ in range(150):
            ws.send_json({"type": "ping"})
        replies = [ws.receive_json() for _ in range(150)]
    codes = [r.get("code") for r in replies if r["type"] == "error"]
    assert "rate-limited" in codes
    assert sum(r["type"] == "pong" for r in replies) == 150 - len(codes)
