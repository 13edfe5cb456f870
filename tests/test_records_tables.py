"""Records of games played at a table (issue 24): clock settings, seat changes, each decision's
time and the standings; old records read as before."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from carcassonne.bots import make_bot
from carcassonne.clocks import PRESETS
from carcassonne.formats.record import RecordError, load_record, read_record
from carcassonne.formats.record_writer import dumps_record, record_from_game
from carcassonne.game import Game, GameOptions
from carcassonne.standings import SeatChange, TableRecord, TableSettings

SCHEMA = json.loads(
    (Path(__file__).parents[1] / "src/carcassonne/formats/schema/record.schema.json").read_text()
)
HAND_TYPED = Path(__file__).parent / "records" / "short-base-hand-typed.json"
SEATS = [{"name": "Ann", "kind": "human"}, {"name": "Bob", "kind": "human"}]


def played(seed: int = 3, stop_after: int | None = None) -> Game:
    game = Game(GameOptions(seed=seed))
    bots = [make_bot("random", seed * 10 + seat) for seat in range(game.players)]
    while not game.is_over and (stop_after is None or len(game.history) < stop_after):
        game.apply(bots[game.to_move].choose(game))
    return game


def table_of(game: Game, *changes: SeatChange, on_timeout: str = "lose") -> TableRecord:
    settings = TableSettings.from_json(
        {"clock": PRESETS["5+20"].to_json(), "on_timeout": on_timeout}
    )
    spent = [0] + [1000 + ply for ply in range(1, len(game.history))]
    return TableRecord.of(settings, changes, spent)


def error(data: dict[str, Any]) -> str:
    with pytest.raises(RecordError) as caught:
        load_record(data)
    return str(caught.value)


@pytest.fixture(scope="module")
def game() -> Game:
    return played()


@pytest.fixture
def record(game: Game) -> dict[str, Any]:
    table = table_of(game, SeatChange(6, 1, "stand-in", 5), SeatChange(9, 1, "timeout", 9))
    return record_from_game(game, SEATS, table)


def test_a_table_record_round_trips(game: Game, record: dict[str, Any]) -> None:
    assert record["table"] == {
        "clock": {"kind": "real-time", "initial_ms": 300000, "increment_ms": 20000},
        "stand_in": "greedy",
        "on_timeout": "lose",
        "aids": True,
    }
    assert record["changes"][1] == {"ply": 9, "seat": 1, "change": "timeout", "at_ms": 9}
    first = record["moves"][0]
    assert first["ms"] == [0, 1001] and list(first)[-1] == "ms"
    # seat 1 timed out: last, whatever the scores
    assert record["result"]["standings"] == [[0], [1]]
    jsonschema.validate(record, SCHEMA)
    # through the text a file holds, too
    read = read_record(json.loads(dumps_record(record)))
    assert read.table == table_of(
        game, SeatChange(6, 1, "stand-in", 5), SeatChange(9, 1, "timeout", 9)
    )
    assert load_record(record).scores == game.scores


def test_ties_share_a_place_in_the_standings() -> None:
    game = played(stop_after=1)  # nobody has scored yet
    table = table_of(game, SeatChange(1, 0, "stand-in", 5))
    assert record_from_game(game, SEATS, table)["result"]["standings"] == [[0, 1]]


def test_a_table_without_changes_writes_no_standings(game: Game) -> None:
    record = record_from_game(game, SEATS, table_of(game))
    assert "changes" not in record and "standings" not in record["result"]
    assert read_record(record).table == table_of(game)


def test_times_may_be_left_out(game: Game) -> None:
    table = TableRecord.of(TableSettings(), [SeatChange(4, 0, "resign", 1)])
    record = record_from_game(game, SEATS, table)
    assert all("ms" not in move for move in record["moves"])
    assert read_record(record).table == table


def test_old_records_read_as_before() -> None:
    record = read_record(HAND_TYPED)
    assert record.table is None
    assert record_from_game(load_record(HAND_TYPED)).keys() == {
        "format",
        "options",
        "seed",
        "stack",
        "moves",
        "result",
    }


def test_the_writer_refuses_times_that_do_not_fit(game: Game) -> None:
    table = TableRecord.of(TableSettings(), (), [0, 1, 2])
    with pytest.raises(RecordError, match=r"table: 3 times \(spent_ms\) for the \d+ actions"):
        record_from_game(game, SEATS, table)


def test_the_writer_refuses_changes_that_cannot_be(game: Game) -> None:
    table = table_of(game, SeatChange(3, 0, "return", 1))
    with pytest.raises(RecordError, match=r"changes\[0\] .*not played by the stand-in"):
        record_from_game(game, SEATS, table)


def mutated(record: dict[str, Any], change: Any) -> dict[str, Any]:
    data = copy.deepcopy(record)
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            lambda r: r["moves"][0].update(ms=[0]),
            r"move 1 \(seat 0, base/\w+\): 'ms' lists 1 times",
        ),
        (lambda r: r["moves"][1].update(ms=[5, -1]), r"move 2 .*'ms' must be a list of whole"),
        (lambda r: r["moves"][1].update(ms=[5, 1.5]), r"move 2 .*'ms' must be a list of whole"),
        (lambda r: r["moves"][2].pop("ms"), r"move 3 .*no 'ms', while other moves have"),
        (lambda r: r["table"].update(clock={"kind": "fast"}), r"table: clock: 'kind' must be"),
        (
            lambda r: r["table"].update(
                clock={"kind": "real-time", "initial_ms": 1, "increment_ms": 0}
            ),
            r"initial time",
        ),
        (lambda r: r["table"].update(stand_in="expert"), r"table: 'stand_in' must be one of"),
        (lambda r: r["table"].update(on_timeout="x"), r"table: 'on_timeout' must be one of"),
        (lambda r: r.update(table=[]), r"table: must be a JSON object"),
        (lambda r: r.update(changes={}), r"'changes' must be a list"),
        (lambda r: r["changes"][0].update(change="quit"), r"changes\[0\]: 'change' must be"),
        (lambda r: r["changes"][0].pop("at_ms"), r"changes\[0\]: missing 'at_ms'"),
        (
            lambda r: r["changes"][0].update(ply=10_000),
            r"changes\[0\] \(stand-in of seat 1 at ply 10000, after the last move\): the moves "
            r"hold only",
        ),
        (
            lambda r: r["changes"].reverse(),
            r"changes\[1\] \(stand-in of seat 1 at ply 6, in move 4 .*\): the changes must be "
            r"in ply order \(ply 9 came before\)",
        ),
        (
            lambda r: r["changes"][0].update(change="return"),
            r"changes\[0\] \(return of seat 1 at ply 6, in move 4 \(seat 1, base/\w+\)\): the "
            r"seat is not played by the stand-in",
        ),
        (
            lambda r: r["seats"][1].update(kind="greedy"),
            r"changes\[0\] .*seat 1 is a bot, only people leave a seat",
        ),
        (
            lambda r: r["table"].update(on_timeout="stand-in"),
            r"changes\[1\] \(timeout .*on a timed table with \"on_timeout\": \"lose\"",
        ),
        (
            lambda r: r["result"].update(standings=[[1], [0]]),
            r"result: the record says standings \[\[1\], \[0\]\], the replay and the seat "
            r"changes give \[\[0\], \[1\]\]",
        ),
        (lambda r: r["result"].update(standings=[[0]]), r"result: 'standings' must list"),
        (lambda r: r["result"].update(standings=[[0, 0], [1]]), r"result: 'standings' must"),
        (
            lambda r: (r.pop("changes"), r.pop("table"), [m.pop("ms", 0) for m in r["moves"]]),
            r"result: 'standings' come with the seat 'changes'",
        ),
    ],
)
def test_bad_table_parts_name_the_place(record: dict[str, Any], change: Any, words: str) -> None:
    assert json.dumps(record) != json.dumps(mutated(record, change))
    assert pytest.raises(RecordError, load_record, mutated(record, change)).match(words)


def test_the_schema_refuses_bad_table_parts(record: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    assert validator.is_valid(record)
    for change in (
        lambda r: r["table"].update(on_timeout="x"),
        lambda r: r["table"].update(aids="no"),
        lambda r: r["changes"][0].update(change="quit"),
        lambda r: r["moves"][0].update(ms=[-1, 0]),
        lambda r: r["result"].update(standings=[[]]),
    ):
        assert not validator.is_valid(mutated(record, change))


# ------------------------------------------------------------------- carcassonne replay


def replayed(tmp_path: Path, record: dict[str, Any], *flags: str) -> str:
    from carcassonne.cli.main import main

    path = tmp_path / "table.json"
    path.write_text(dumps_record(record))
    assert main(["replay", str(path), *flags]) == 0
    return path.name


def test_replay_tells_the_clock_the_changes_and_their_turns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], record: dict[str, Any]
) -> None:
    replayed(tmp_path, record)
    out = capsys.readouterr().out
    assert "Clock: 5 min + 20 s per turn; stand-in greedy; a timeout loses" in out
    # ply 6 is in move 4, ply 9 in move 5
    assert "from turn   4  Bob played by the stand-in (greedy)" in out
    assert "from turn   5  Bob out of time (ranked last)" in out
    assert "  2. Bob" in out and "(out of time at turn 5)" in out
    # every turn's time: move 1 took 0 + 1001 ms, move 2 1002 + 1003 ms
    assert "  1 Ann     0:01     2 Bob     0:02" in out


def test_replay_winner_is_the_first_place_not_the_best_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: Game
) -> None:
    best = game.winners()[0]
    table = TableRecord.of(TableSettings(), [SeatChange(20, best, "resign", 7)])
    replayed(tmp_path, record_from_game(game, SEATS, table))
    out = capsys.readouterr().out
    assert f"Winner: {SEATS[1 - best]['name']}\n" in out
    assert f"{SEATS[best]['name']} resigned (ranked last)" in out
    assert "Clock: no clock; stand-in greedy\n" in out
    assert "Time per turn" not in out  # no times recorded
    replayed(tmp_path, record_from_game(game, SEATS, table), "--json")
    assert json.loads(capsys.readouterr().out)["winners"] == [1 - best]


def test_replay_json_has_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: Game, record: dict[str, Any]
) -> None:
    replayed(tmp_path, record, "--json")
    out = json.loads(capsys.readouterr().out)
    assert out["table"] == record["table"] and out["changes"] == record["changes"]
    assert out["standings"] == [[0], [1]]
    assert out["spent_ms"][:3] == [0, 1001, 1002] and len(out["spent_ms"]) == len(game.history)
    replayed(tmp_path, record_from_game(game, SEATS), "--json")
    assert "table" not in json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (999, "0:00"),
        (7_000, "0:07"),
        (750_000, "12:30"),
        (3_723_000, "1:02:03"),
        (2 * 86_400_000 + 11_045_000, "2d 03:04:05"),
    ],
)
def test_duration_text(ms: int, text: str) -> None:
    from carcassonne.cli.wording import duration_text

    assert duration_text(ms) == text
