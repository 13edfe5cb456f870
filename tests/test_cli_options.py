"""Game options are never accepted silently: a value is used as given or refused with a reason.

The engine decides what makes a game (at least one figure per seat, start squares only on a
map, at most ``MAX_COPIES`` copies of the base set); the command line refuses the same values
while parsing, and records and the web share the same bound.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from carcassonne import Game, GameOptions
from carcassonne.cli.main import main
from carcassonne.cli.simulate import win_count
from carcassonne.formats.record import RecordError, read_record
from carcassonne.game import MAX_COPIES, GameSetupError
from carcassonne.web import protocol


def error_line(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().err.splitlines()[-1]


# ----------------------------------------------------------------------------------- meeples


@pytest.mark.parametrize("meeples", [0, -3])
def test_a_seat_without_figures_is_not_a_game(meeples: int) -> None:
    with pytest.raises(GameSetupError, match=f"meeples must be at least 1, not {meeples}"):
        Game(GameOptions(meeples=meeples))


@pytest.mark.parametrize(("meeples", "expected"), [(1, 1), (None, 7), (12, 12)])
def test_meeples_are_used_as_given(meeples: int | None, expected: int) -> None:
    game = Game(GameOptions(players=3, meeples=meeples))
    assert [supply["meeple"] for supply in game.supply] == [expected] * 3


def test_meeples_default_to_nine_on_a_map() -> None:
    assert Game(GameOptions(map="france")).supply[0]["meeple"] == 9


@pytest.mark.parametrize("command", ["play", "simulate"])
@pytest.mark.parametrize("value", ["0", "-3"])
def test_the_command_line_refuses_meeples_below_one(
    command: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, "--meeples", value]) == 2
    assert error_line(capsys) == (
        f"carcassonne {command}: error: argument --meeples: must be at least 1, not {value}"
    )


def test_simulate_plays_with_the_meeples_asked_for(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "1", "--seed", "3", "--meeples", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["options"]["meeples"] == 1


# ------------------------------------------------------------------------------------ copies


def test_one_bound_on_copies_for_engine_records_and_web() -> None:
    assert MAX_COPIES == 3
    assert protocol.MAX_COPIES is MAX_COPIES
    game = Game(GameOptions(copies=MAX_COPIES, seed=1))
    # the start tile on the board, the first tile drawn, the rest in the stack
    assert len(game.board) + 1 + len(game.stack) == 3 * 72
    with pytest.raises(GameSetupError, match="copies must be from 1 to 3, not 4"):
        Game(GameOptions(copies=MAX_COPIES + 1))
    with pytest.raises(GameSetupError, match="copies must be from 1 to 3, not 0"):
        Game(GameOptions(copies=0))


def test_a_record_with_too_many_copies_is_refused() -> None:
    record = {"format": "carcassonne-record/1", "options": {"copies": 4}, "moves": []}
    with pytest.raises(RecordError, match="options: 'copies' must be from 1 to 3"):
        read_record(record)


@pytest.mark.parametrize("value", ["0", "4", "100"])
def test_the_command_line_refuses_copies_out_of_range(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "--copies", value]) == 2
    assert error_line(capsys) == (
        f"carcassonne simulate: error: argument --copies: must be from 1 to 3, not {value}"
    )


# ----------------------------------------------------------------------------- start squares


def test_start_squares_need_a_map() -> None:
    with pytest.raises(GameSetupError, match=r"start squares need a map \(--map\)"):
        Game(GameOptions(start_squares=("Nancy", "Limoges")))


@pytest.mark.parametrize("command", ["play", "simulate"])
def test_the_command_line_refuses_start_squares_without_map(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, "--start-squares", "Nancy,Limoges"]) == 2
    assert error_line(capsys) == f"carcassonne {command}: error: start squares need a map (--map)"


@pytest.mark.parametrize("value", ["Nancy", "Nancy,", "Nancy,Limoges,Le Mans", ""])
def test_start_squares_are_exactly_two_names(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "--map", "france", "--start-squares", value]) == 2
    assert error_line(capsys) == (
        "carcassonne simulate: error: --start-squares takes exactly two names, e.g. Nancy,Limoges"
    )


def test_start_squares_on_a_map_are_used(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--games", "1", "--seed", "2", "--map", "france", "--start-squares", "Limoges,Nancy"]
    assert main(["simulate", *argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["options"]["start_squares"] == ["Limoges", "Nancy"]


# ------------------------------------------------------------- Inns & Cathedrals variants

IC_VARIANT_FLAGS = ("--plain-unfinished-inns-cathedrals", "--no-inns", "--no-cathedrals")


@pytest.mark.parametrize("command", ["play", "simulate"])
@pytest.mark.parametrize("flag", IC_VARIANT_FLAGS)
def test_d54_the_command_line_refuses_an_inns_cathedrals_variant_without_it(
    command: str, flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, flag]) == 2
    assert error_line(capsys) == (
        f"carcassonne {command}: error: {flag} needs Inns & Cathedrals (--inns-cathedrals)"
    )


def test_d54_the_command_line_refuses_all_three_variants_together(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["simulate", "--inns-cathedrals", *IC_VARIANT_FLAGS]) == 2
    assert "has nothing to change with both --no-inns and --no-cathedrals" in error_line(capsys)


@pytest.mark.parametrize(
    ("flags", "options"),
    [
        (["--plain-unfinished-inns-cathedrals"], {"plain_unfinished_inns_cathedrals": True}),
        (["--no-inns"], {"inns": False}),
        (
            ["--no-cathedrals", "--plain-unfinished-inns-cathedrals"],
            {"cathedrals": False, "plain_unfinished_inns_cathedrals": True},
        ),
    ],
)
def test_d51_d52_d53_simulate_plays_the_variants_asked_for(
    flags: list[str], options: dict[str, bool], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--games", "1", "--seed", "2", "--inns-cathedrals", *flags, "--json"]
    assert main(["simulate", *argv]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {key: report["options"].get(key) for key in options} == options


def test_d51_d52_d53_simulate_and_replay_name_the_variants(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    variants = ["--inns-cathedrals", "--no-cathedrals", "--plain-unfinished-inns-cathedrals"]
    argv = ["simulate", "--games", "1", "--seed", "3", *variants, "--save-records", str(tmp_path)]
    assert main(argv) == 0
    assert (
        capsys.readouterr()
        .out.splitlines()[0]
        .startswith(
            "1 games, 2 players (greedy, random), "
            "base game + inns-cathedrals + plain-unfinished-inns-cathedrals + no cathedrals, seeds"
        )
    )
    (record,) = tmp_path.glob("*.json")
    assert main(["replay", str(record)]) == 0
    assert (
        capsys.readouterr()
        .out.splitlines()[0]
        .startswith(
            f"{record}: 2 players, base game, inns & cathedrals, "
            "unfinished inns and cathedrals score as plain ones, no cathedrals, "
        )
    )


# ------------------------------------------------------------------------------- simulate wins


@pytest.mark.parametrize(
    ("wins", "shown"), [(200.0, 200), (0.0, 0), (99.5, 99.5), (1 / 3 + 1 / 3 + 1 / 3, 1)]
)
def test_wins_are_counted_in_whole_games_unless_a_tie_was_shared(
    wins: float, shown: int | float
) -> None:
    assert win_count(wins) == shown
    assert type(win_count(wins)) is type(shown)


def test_simulate_prints_whole_wins_without_a_decimal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["simulate", "--games", "3", "--seed", "1", "--players", "greedy,random"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    for row in report["bots"] + report["seats"]:
        wins = row["wins"]
        assert isinstance(wins, int) or not float(wins).is_integer()
    rows = {line.split()[0]: line.split() for line in text.splitlines() if line.strip()}
    for row in report["bots"]:
        assert rows[row["bot"]][1:3] == [str(row["games"]), str(row["wins"])]


def test_a_missing_map_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--map", str(tmp_path)]) == 2
    assert error_line(capsys).startswith(
        f"carcassonne simulate: error: {tmp_path}: cannot read map file"
    )


@pytest.mark.parametrize(
    "command", ["", "play", "simulate", "tournament", "bots", "replay", "serve"]
)
def test_every_help_text_reads_as_written(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    # argparse %-formats argument help but prints descriptions as they are: a doubled '%%'
    # meant for one kind shows up literally in the other.
    assert main([*command.split(), "--help"]) == 0
    shown = capsys.readouterr().out
    assert "usage: carcassonne" in shown
    assert "%%" not in shown
    assert "%(" not in shown
