"""Game records (``carcassonne-record/1``) and ``carcassonne replay``.

The hand-typed records in ``tests/records`` were written from the rules, not from the engine's
output: their expected scores are worked out in the comments of each test.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from carcassonne.board import encode
from carcassonne.bots import SPEC_NAMES, check_bot_spec, make_bot
from carcassonne.cli.main import main
from carcassonne.events import ScoreEvent
from carcassonne.formats.record import RecordError, load_record, read_record, replay_record
from carcassonne.formats.record_writer import record_from_game, save_record
from carcassonne.game import Game, GameOptions

RECORDS = Path(__file__).parent / "records"
SCHEMA = json.loads(
    (Path(__file__).parents[1] / "src/carcassonne/formats/schema/record.schema.json").read_text()
)
HAND_TYPED = RECORDS / "short-base-hand-typed.json"
TABLE_GAME = RECORDS / "table-game-partial.json"
RIVER_DISCARD = RECORDS / "river-discard.json"


def raw(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def play_out(game: Game, seed: int, stop_after: int | None = None) -> Game:
    """Random bots play ``game`` to the end (or for ``stop_after`` actions)."""
    bots = [make_bot("random", seed * 10 + seat) for seat in range(game.players)]
    actions = 0
    while not game.is_over and (stop_after is None or actions < stop_after):
        game.apply(bots[game.to_move].choose(game))
        actions += 1
    return game


def events_json(game: Game) -> list[dict[str, Any]]:
    return [event.to_json() for event in game.events]


def replay_error(data: dict[str, Any]) -> str:
    # Read as the replay command and the web upload do: with the bot registry's check.
    with pytest.raises(RecordError) as info:
        replay_record(read_record(data, check_bot_spec))
    return str(info.value)


# ------------------------------------------------------------------------ hand-typed records


def test_hand_typed_record_two_tile_city_scores_4_road_5_and_final_scoring():
    # Move 1: E closes the start tile's city: 2 tiles, no coat of arms -> 2 x 2 = 4 for Ann.
    # Move 5: the road L(village)-D-U-V-A(monastery) ends at both ends: 5 tiles -> 5 for Bob.
    # End: Ann's monk has 2 of 8 neighbours -> 1 + 2 = 3; Bob's farmer's field borders one
    # completed city (the 2-tile one; L's city is open) -> 3.
    game = load_record(HAND_TYPED)
    assert game.is_over
    assert game.scores == [7, 8]
    scored = [
        (e.turn, e.source, e.reason, e.points, e.tiles, e.coats_of_arms)
        for e in game.events
        if isinstance(e, ScoreEvent)
    ]
    assert scored == [
        (1, "city", "completed", {0: 4}, 2, 0),
        (5, "road", "completed", {1: 5}, 5, 0),
        (5, "monastery", "final", {0: 3}, 1, 0),
        (5, "field", "final", {1: 3}, 0, 0),
    ]


def test_typed_in_game_without_seed_draws_the_named_tiles_then_the_rest():
    # The same five turns typed in from a table game: no seed, no stack.  After them the city (4)
    # and the road (5) are scored; the game goes on with the 71 - 5 = 66 tiles not yet named.
    game = load_record(TABLE_GAME)
    assert not game.is_over
    assert game.scores == [4, 5]
    assert [tile for tile, _ in game.draws[:5]] == [
        "base/E",
        "base/U",
        "base/L",
        "base/V",
        "base/A",
    ]
    assert len(game.stack) + 1 == 66  # the stack, plus the tile already drawn for turn 6
    again = load_record(TABLE_GAME)
    assert again.draws == game.draws and again.stack == game.stack  # the rest is deterministic


def test_typed_in_game_naming_a_tile_too_often():
    data = raw(TABLE_GAME)
    data["moves"][0]["tile"] = "base/C"  # the one tile with four city edges
    data["moves"][1] = {"seat": 1, "tile": "base/C", "x": 0, "y": -2, "rotation": 0, "figure": None}
    message = replay_error(data)
    assert message.startswith("move 2 (seat 1, base/C): ")
    assert "more often than the enabled tile sets hold (1)" in message


def test_typed_in_game_naming_a_tile_of_a_set_not_in_play():
    data = raw(TABLE_GAME)
    data["moves"][2]["tile"] = "river/D"
    message = replay_error(data)
    assert message.startswith("move 3 (seat 0, river/D): river/D is not in this game's tile sets")


def test_unplaceable_tile_is_discarded_and_recorded():
    # Land tiles around the spring leave the river square (0, 1) with placed tiles south, east
    # and west of it: the straight river/D cannot continue anywhere, the lake still fits.
    game = load_record(RIVER_DISCARD)
    assert game.is_over
    assert [t.id for t in game.discarded] == ["river/D"]
    assert game.board[encode(0, 1)].tile.id == "river/L"
    record = record_from_game(game)
    assert record["moves"][6] == {"discard": "river/D"}
    assert load_record(record).draws == game.draws


def test_missing_discard_is_an_error():
    data = raw(RIVER_DISCARD)
    del data["moves"][6]
    message = replay_error(data)
    assert message.startswith("move 7 (seat 0, river/L): river/D fits nowhere and was discarded")
    assert '{"discard": "river/D"}' in message


def test_discard_of_a_tile_that_fits_is_an_error():
    data = raw(RIVER_DISCARD)
    data["moves"].insert(0, {"discard": "base/B"})
    message = replay_error(data)
    assert message.startswith("move 1 (discard base/B): wrong discard: base/B fits on the board")


def test_discard_of_another_tile_is_an_error():
    data = raw(RIVER_DISCARD)
    data["moves"][6] = {"discard": "river/F"}
    message = replay_error(data)
    assert message == (
        "move 7 (discard river/F): wrong discard: the record discards river/F, but river/D was "
        "discarded"
    )


# ------------------------------------------------------------------------ round trips


@pytest.mark.parametrize(
    "options",
    [
        GameOptions(seed=11),
        GameOptions(seed=12, river=True),
        GameOptions(seed=13, abbot=True, players=3),
        GameOptions(seed=14, river=True, abbot=True, players=4),
        GameOptions(seed=15, map="test-tiny", map_chips=True),
        GameOptions(seed=16, bets=True, players=3),
        GameOptions(seed=17, inns_cathedrals=True, small_city_scores_2=True, farmers=False),
        GameOptions(
            seed=20, inns_cathedrals=True, inns=False, plain_unfinished_inns_cathedrals=True
        ),
    ],
    ids=[
        "base",
        "river",
        "abbot",
        "river+abbot",
        "map-chips",
        "bets",
        "inns+variants",
        "ic-variants",
    ],
)
def test_saved_random_games_replay_every_score_and_event(options, tmp_path):
    game = play_out(Game(options), options.seed)
    path = tmp_path / "game.json"
    save_record(game, path, seats=[{"kind": "random"}] * game.players)
    replayed = load_record(path)
    assert replayed.is_over
    assert replayed.scores == game.scores
    assert events_json(replayed) == events_json(game)
    assert replayed.history == game.history
    jsonschema.validate(json.loads(path.read_text()), SCHEMA)


def test_new_options_are_written_only_when_set(tmp_path):
    plain = play_out(Game(GameOptions(seed=18)), 18)
    save_record(plain, tmp_path / "plain.json")
    written = json.loads((tmp_path / "plain.json").read_text())["options"]
    assert not {
        "inns_cathedrals",
        "small_city_scores_2",
        "farmers",
        "plain_unfinished_inns_cathedrals",
        "inns",
        "cathedrals",
    } & set(written)
    options = GameOptions(seed=19, inns_cathedrals=True, farmers=False)
    save_record(play_out(Game(options), 19), tmp_path / "ic.json")
    written = json.loads((tmp_path / "ic.json").read_text())["options"]
    assert (written["inns_cathedrals"], written["farmers"]) == (True, False)
    assert load_record(tmp_path / "ic.json").options == options


@pytest.mark.parametrize(
    "variant",
    [
        {"plain_unfinished_inns_cathedrals": True},
        {"inns": False},
        {"cathedrals": False},
        {"inns": False, "plain_unfinished_inns_cathedrals": True},
    ],
)
def test_d51_d52_d53_the_inns_cathedrals_variants_round_trip_in_records(tmp_path, variant):
    options = GameOptions(seed=21, inns_cathedrals=True, **variant)
    game = play_out(Game(options), 21)
    save_record(game, tmp_path / "variant.json")
    data = json.loads((tmp_path / "variant.json").read_text())
    assert {key: data["options"][key] for key in variant} == variant
    jsonschema.validate(data, SCHEMA)
    replayed = load_record(tmp_path / "variant.json")
    assert replayed.options == options
    assert (replayed.scores, events_json(replayed)) == (game.scores, events_json(game))


@pytest.mark.parametrize(
    ("variant", "flag"),
    [
        ({"plain_unfinished_inns_cathedrals": True}, "--plain-unfinished-inns-cathedrals"),
        ({"inns": False}, "--no-inns"),
        ({"cathedrals": False}, "--no-cathedrals"),
    ],
)
def test_d54_a_record_with_an_inns_cathedrals_variant_but_not_the_expansion_is_refused(
    variant, flag
):
    data = record_from_game(play_out(Game(GameOptions(seed=22)), 22))
    data["options"].update(variant)
    assert replay_error(data) == f"setup: {flag} needs Inns & Cathedrals (--inns-cathedrals)"


def test_abbot_recalls_round_trip():
    records = [record_from_game(play_out(Game(seed=s, abbot=True), s)) for s in range(3)]
    recalls = [m["recall"] for r in records for m in r["moves"] if "recall" in m]
    assert recalls, "random abbot games recall the abbot"
    for record in records:
        assert load_record(record).scores == record["result"]["scores"]


def test_expansion_decisions_round_trip_as_generic_actions():
    # Wine sales (Map-Chips) and bets are expansions' decisions, registered with
    # register_action: the record stores them as generic JSON actions with their seat.
    game = play_out(Game(seed=5, map="test-tiny", map_chips=True), 5)
    record = record_from_game(game)
    decisions = [a["action"]["type"] for m in record["moves"] for a in m.get("actions", [])]
    assert "sell-wine" in decisions
    game = play_out(Game(seed=16, bets=True, players=3), 16)
    record = record_from_game(game)
    decisions = [a["action"]["type"] for m in record["moves"] for a in m.get("actions", [])]
    assert "place-bet" in decisions
    assert events_json(load_record(json.loads(json.dumps(record)))) == events_json(game)
    assert events_json(load_record(json.loads(json.dumps(record)))) == events_json(game)


def test_game_without_seed_gets_one_and_its_record_replays():
    game = play_out(Game(players=3), 3)
    record = record_from_game(game)
    assert isinstance(record["seed"], int) and "stack" not in record
    replayed = load_record(record)
    assert replayed.scores == game.scores
    assert events_json(replayed) == events_json(game)


def test_map_chips_game_without_seed_replays_its_chip_layout():
    game = play_out(Game(map="test-tiny", map_chips=True), 4)
    record = record_from_game(game)
    replayed = load_record(json.loads(json.dumps(record)))
    assert replayed.scores == game.scores
    assert events_json(replayed) == events_json(game)
    jsonschema.validate(record, SCHEMA)


@pytest.mark.parametrize("actions", [1, 2, 9])
def test_record_of_an_unfinished_game_replays_to_the_same_state(actions):
    # 1 action: a tile placed, its figure step not taken; 2: one whole turn; 9: mid-game.
    game = play_out(Game(seed=21, abbot=True), 21, stop_after=actions)
    record = record_from_game(game)
    assert record["result"]["finished"] is False
    replayed = load_record(record)
    assert (replayed.phase, replayed.to_move, replayed.turn) == (
        game.phase,
        game.to_move,
        game.turn,
    )
    assert replayed.history == game.history
    assert replayed.current_tile is game.current_tile


def test_only_the_last_move_may_stop_before_its_figure_step():
    data = raw(HAND_TYPED)
    del data["moves"][1]["figure"]
    message = replay_error(data)
    assert message.startswith("move 2 (seat 1, base/U): no 'figure'")


# ------------------------------------------------------------------------ errors


def seeded_record() -> dict[str, Any]:
    return record_from_game(play_out(Game(seed=7), 7, stop_after=12))


def test_unknown_tile_id():
    data = raw(HAND_TYPED)
    data["moves"][2]["tile"] = "base/Z"
    assert replay_error(data) == ("move 3: unknown tile 'base/Z' (ids look like 'base/E')")


def test_illegal_square():
    data = raw(HAND_TYPED)
    data["moves"][1].update(x=5, y=5)
    assert replay_error(data) == (
        "move 2 (seat 1, base/U): illegal placement at (5, 5) rotation 0: square (5, 5) does "
        "not touch a placed tile"
    )


def test_occupied_square():
    data = raw(HAND_TYPED)
    data["moves"][1].update(x=0, y=-1)
    message = replay_error(data)
    assert message.endswith("square (0, -1) is already occupied")
    assert message.startswith("move 2 (seat 1, base/U): illegal placement")


def test_tile_that_does_not_match_its_neighbours():
    data = raw(HAND_TYPED)
    data["moves"][0]["rotation"] = 0  # E's city would face north, its field the start's city
    message = replay_error(data)
    assert message.startswith("move 1 (seat 0, base/E): illegal placement")
    assert "does not match its neighbours" in message


def test_tile_mismatch_with_the_seed():
    data = seeded_record()
    drawn = data["moves"][2]["tile"]
    other = "base/X" if drawn != "base/X" else "base/C"
    data["moves"][2]["tile"] = other
    assert replay_error(data) == (
        f"move 3 (seat 0, {other}): tile mismatch: the record says {other}, but the shuffle of "
        f"seed 7 draws {drawn} here"
    )


def test_tile_mismatch_with_the_stack():
    data = raw(HAND_TYPED)
    data["moves"][1]["tile"] = "base/X"
    assert replay_error(data) == (
        "move 2 (seat 1, base/X): tile mismatch: the record says base/X, but the record's stack "
        "draws base/U here"
    )


def test_bad_rotation():
    data = raw(HAND_TYPED)
    data["moves"][3]["rotation"] = 45
    assert replay_error(data) == (
        "move 4 (seat 1, base/V): 'rotation' must be 0, 90, 180 or 270, not 45"
    )


def test_bad_json(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"format": "carcassonne-record/1",\n "moves": [}\n')
    with pytest.raises(RecordError, match=r"broken.json: not valid JSON \(line 2, column 12"):
        load_record(path)
    with pytest.raises(RecordError, match="missing.json: cannot read the record: No such file"):
        load_record(tmp_path / "missing.json")


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d["moves"][2].pop("rotation"), "move 3: missing 'rotation'"),
        (lambda d: d["moves"][0].pop("seat"), "move 1: missing 'seat'"),
        (lambda d: d.pop("moves"), "record: missing 'moves'"),
        (lambda d: d.update(format="pgn"), "record: 'format' must be 'carcassonne-record/1'"),
        (
            lambda d: d["moves"][1].update(x="1"),
            "move 2 (seat 1, base/U): 'x' must be a whole number, not a string",
        ),
        (lambda d: d["moves"][1].update(tiel="base/U"), "move 2: unknown key(s) 'tiel'"),
        (lambda d: d["options"].update(rivers=True), "options: unknown key(s) 'rivers'"),
        (
            lambda d: d["moves"][0]["figure"].pop("location"),
            "move 1 (seat 0, base/E): 'figure': missing 'location'",
        ),
        (lambda d: d["moves"].__setitem__(2, []), "move 3: must be a JSON object, not a list"),
        (lambda d: d["seats"].pop(), "record: 'seats' lists 1 for 2 players"),
        (
            lambda d: d["seats"][0].update(kind="robot"),
            "seats[0]: 'kind' must be human or a bot spec, optionally with parameters: "
            "unknown bot 'robot' (choose a level: beginner, casual, intermediate, strong, "
            "master; or a bot: random, novice, greedy, expert)",
        ),
    ],
)
def test_malformed_records_name_the_place(mutate, message):
    data = raw(HAND_TYPED)
    mutate(data)
    assert replay_error(data).startswith(message)


def test_seat_out_of_turn():
    data = raw(HAND_TYPED)
    data["moves"][1]["seat"] = 0
    assert replay_error(data) == "move 2 (seat 0, base/U): it is seat 1's turn, not seat 0's"


def test_illegal_figure_gives_the_engine_reason():
    data = raw(HAND_TYPED)
    data["moves"][2]["figure"] = {"type": "meeple", "location": "E"}  # the road Bob already holds
    assert replay_error(data) == (
        "move 3 (seat 0, base/L): illegal meeple on E: the road at E is already occupied"
    )


def test_abbot_recall_without_the_abbot():
    data = raw(HAND_TYPED)
    data["moves"][2]["figure"] = None
    data["moves"][2]["recall"] = {"x": 2, "y": 1}
    message = replay_error(data)
    assert message.startswith("move 3 (seat 0, base/L): illegal abbot recall from (2, 1): ")


def test_decision_with_unknown_action_type():
    data = raw(HAND_TYPED)
    data["moves"][0]["actions"] = [{"seat": 1, "action": {"type": "juggle", "balls": 3}}]
    assert replay_error(data).startswith(
        "move 1 (seat 0, base/E), action 1: unknown action type 'juggle'"
    )


def test_decision_when_none_is_pending():
    data = raw(HAND_TYPED)
    data["moves"][0]["actions"] = [{"seat": 1, "action": {"type": "pass"}}]
    assert replay_error(data) == (
        "move 1 (seat 0, base/E), action 1: no decision is pending (the next turn has begun)"
    )


def test_move_after_the_last_tile():
    data = raw(HAND_TYPED)
    data["moves"].append(dict(data["moves"][-1], seat=1))
    assert replay_error(data) == ("move 6 (seat 1, base/A): the game is over (no tiles left)")


def test_result_that_does_not_match_the_replay():
    data = raw(HAND_TYPED)
    data["result"]["scores"] = [8, 7]
    assert replay_error(data) == ("result: the record says scores [8, 7], the replay gives [7, 8]")


def test_a_failed_replay_leaves_the_input_untouched():
    data = raw(HAND_TYPED)
    data["moves"][4]["x"] = 9
    before = copy.deepcopy(data)
    replay_error(data)
    assert data == before


# ------------------------------------------------------------------------ schema


@pytest.mark.parametrize("path", sorted(RECORDS.glob("*.json")), ids=lambda p: p.name)
def test_example_records_follow_the_schema_and_replay(path):
    jsonschema.validate(raw(path), SCHEMA)
    read_record(path)
    load_record(path)


@pytest.mark.parametrize(
    "kind",
    [
        "human",
        *SPEC_NAMES,
        "expert:seconds=0.5",
        "expert:iterations=200,seed=3",
        "casual:seed=3",
        "robot",
        "greedy:",
    ],
)
def test_schema_seat_kinds_match_the_reader(kind):
    """The schema and the reader accept the same seat kinds: human and bot specs."""
    record = {
        "format": "carcassonne-record/1",
        "seats": [{"kind": kind}, {"kind": "human"}],
        "moves": [],
    }
    try:
        read_record(record, check_bot_spec)
        reader_accepts = True
    except RecordError:
        reader_accepts = False
    kind_schema = SCHEMA["properties"]["seats"]["items"]["properties"]["kind"]
    schema_accepts = jsonschema.Draft202012Validator(kind_schema).is_valid(kind)
    assert schema_accepts == reader_accepts == (kind not in ("robot", "greedy:"))


def test_a_bot_spec_with_parameters_survives_a_record_round_trip(tmp_path):
    game = Game(players=2, seed=4)
    game.apply(game.legal_actions()[0])
    path = tmp_path / "game.json"
    seats = [{"kind": "expert:seconds=0.5,iterations=9"}, {"kind": "human"}]
    save_record(game, path, seats, check_bot=check_bot_spec)
    assert [seat.kind for seat in read_record(path, check_bot_spec).seats] == [
        "expert:iterations=9,seconds=0.5",
        "human",
    ]
    with pytest.raises(RecordError, match="expert.* has no parameter 'speed'"):
        save_record(
            game, path, [{"kind": "expert:speed=9"}, {"kind": "human"}], check_bot=check_bot_spec
        )


# ------------------------------------------------------------------------ the replay command


def test_replay_command_json(capsys):
    assert main(["replay", str(HAND_TYPED), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"] == [7, 8]
    assert out["finished"] is True
    assert out["winners"] == [1]
    assert [s["name"] for s in out["seats"]] == ["Ann", "Bob"]
    assert out["by_source"] == [{"city": 4, "monastery": 3}, {"road": 5, "field": 3}]
    scores = [e for e in out["events"] if e["type"] == "score"]
    assert [(e["turn"], e["source"], e["points"]) for e in scores] == [
        (1, "city", {"0": 4}),
        (5, "road", {"1": 5}),
        (5, "monastery", {"0": 3}),
        (5, "field", {"1": 3}),
    ]
    assert scores[0]["tiles"] == 2 and scores[0]["coats_of_arms"] == 0


def test_replay_command_marks_an_unfinished_game(capsys):
    assert main(["replay", str(TABLE_GAME)]) == 0
    out = capsys.readouterr().out
    assert "UNFINISHED: 66 tiles left" in out
    assert "city completed, 2 tiles, 0 coats of arms, per tile 2: Ann +4" in out
    assert main(["replay", str(TABLE_GAME), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["finished"], data["scores"], data["tiles_left"]) == (False, [4, 5], 66)


def test_replay_command_text_breakdown(capsys):
    assert main(["replay", str(HAND_TYPED)]) == 0
    out = capsys.readouterr().out
    assert "Final scores:" in out
    assert "road completed, 5 tiles, per tile 1: Bob +5 (figures: Bob 1 figure)" in out
    assert "field final, completed cities 1, per city Bob 3: Bob +3" in out
    assert "Winner: Bob" in out


def test_replay_command_bad_record_exits_1_with_the_reason(capsys, tmp_path):
    data = raw(HAND_TYPED)
    data["moves"][1].update(x=5, y=5)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["replay", str(path), "--json"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "move 2 (seat 1, base/U): illegal placement" in captured.err


def test_documented_example_is_the_hand_typed_record_and_its_replay(capsys, monkeypatch):
    root = Path(__file__).parents[1]
    monkeypatch.chdir(root)  # the documented output names the record by its repository path
    doc = (root / "docs/record-format.md").read_text()
    blocks = doc.split("```")
    example = next(b for b in blocks if b.startswith("json\n{"))
    assert json.loads(example[len("json\n") :]) == raw(HAND_TYPED)
    printed = next(b for b in blocks if b.startswith("\ntests/records/short-base-hand-typed"))
    assert main(["replay", "tests/records/short-base-hand-typed.json"]) == 0
    assert capsys.readouterr().out == printed.lstrip("\n")
