"""`carcassonne play --clock … --on-timeout …` and resign (issue 24), on a fake clock: every
answer of the script takes the time it says."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

from carcassonne import Game, GameOptions
from carcassonne.cli.main import main
from carcassonne.cli.play import play_game
from carcassonne.clocks import MINUTE_MS, PRESETS, SECOND_MS
from carcassonne.formats.record import load_record, read_record
from carcassonne.standings import TableSettings

SHORT_STACK = ("base/E", "base/U", "base/B", "base/K", "base/E")
START_MS = 1_780_000_000_000
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class TimedScript:
    """Scripted input on a fake clock: each answer is ``(text, ms it took)`` or ``text`` (1 s)."""

    def __init__(self, answers: Iterable[str | tuple[str, int]]) -> None:
        self.answers = iter(answers)
        self.now = START_MS
        self.prompts: list[str] = []

    def clock(self) -> int:
        return self.now

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        answer = next(self.answers, None)
        if answer is None:
            raise EOFError
        text, took = (answer, SECOND_MS) if isinstance(answer, str) else answer
        self.now += took
        return text


def play(
    answers: Iterable[str | tuple[str, int]],
    clock: str = "5+20",
    on_timeout: str = "stand-in",
    seats: tuple[str, ...] = ("human", "random"),
    save: Path | None = None,
) -> tuple[Game, str, TimedScript]:
    script = TimedScript(answers)
    out = io.StringIO()
    settings = TableSettings.from_json(
        {
            "clock": PRESETS[clock].to_json() if clock != "none" else {"kind": "none"},
            "on_timeout": on_timeout,
        }
    )
    game = play_game(
        GameOptions(players=len(seats), stack=SHORT_STACK, seed=5),
        seats,
        script,
        out,
        terminal=(100, 60),
        hints="expert:iterations=6",
        table=settings,
        clock=script.clock,
        save_path=str(save) if save else None,
    )
    return game, ANSI.sub("", out.getvalue()), script


def test_the_clock_is_shown_and_charged_while_the_prompt_waits() -> None:
    game, out, script = play(["1", ("p", 40 * SECOND_MS), "1", "p", "1", "p"])
    assert game.is_over
    assert script.prompts[0] == "Red 5:00> "  # the first decision is not timed
    assert "Clocks (5 min + 20 s per turn): Red (you) 5:00" in out
    # the figure step took 40 s; the stint's end earned 20 s: 4:40 at the next turn
    assert script.prompts[2] == "Red 4:40> "
    assert "Red (you) 4:40 ▶" in out


def test_out_of_time_the_move_is_refused_and_the_stand_in_plays_until_taken_back() -> None:
    answers = ["1", ("p", 6 * MINUTE_MS), "y", "1", "p", "1", "p"]
    game, out, script = play(answers)
    assert game.is_over
    assert "Too late: Red (you) ran out of time: the stand-in (greedy) plays Red (you)" in out
    assert "(stand-in) placed" not in out  # the figure step was the stand-in's, not a tile
    # the stand-in took the figure step (+20 s); at the next turn the player is asked
    assert script.prompts[2] == "Red (you) is played by the stand-in. Take your seat back? [y/N] "
    assert "Red (you) is back at the table." in out
    assert script.prompts[3] == "Red 0:20> "


def test_a_seat_not_taken_back_stays_with_the_stand_in() -> None:
    game, out, script = play(["1", ("p", 6 * MINUTE_MS), "n", "n"])
    assert game.is_over
    # the player saw each of the stand-in's turns before being asked again
    assert "Turn 3 · R Red (you) (stand-in) placed" in out
    assert "Turn 5 · R Red (you) (stand-in) placed" in out
    assert [p for p in script.prompts if "Take your seat back" in p] == [
        "Red (you) is played by the stand-in. Take your seat back? [y/N] "
    ] * 2


def test_a_seat_just_given_up_is_not_offered_back_at_the_same_decision() -> None:
    # out of time at the tile step of turn 3: the stand-in plays turn 3, the player is asked
    # at turn 5 (with the 2 x 20 s the stand-in earned), not at once with 0:00
    game, out, script = play(["1", "p", ("1", 6 * MINUTE_MS), "y", "1", "p"])
    assert game.is_over
    assert "Turn 3 · R Red (you) (stand-in) placed" in out
    offers = [i for i, p in enumerate(script.prompts) if "Take your seat back" in p]
    assert offers == [3]
    assert script.prompts[4] == "Red 0:40> "


def test_d55_on_timeout_lose_ranks_the_seat_last_and_the_record_says_so(tmp_path: Path) -> None:
    path = tmp_path / "lost.json"
    game, out, script = play(["1", ("p", 6 * MINUTE_MS), "y"], on_timeout="lose", save=path)
    assert game.is_over
    assert "Red (you) ran out of time and loses (ranked last)" in out
    assert not any("Take your seat back" in p for p in script.prompts)
    final = out[out.index("Final scores") :]
    rows = [line for line in final.splitlines() if line.startswith("   ") and "(" in line]
    assert "(out of time)" in rows[-1] and "Red" in rows[-1]
    assert "Blue (random bot) wins!" in final
    data = json.loads(path.read_text())
    assert data["table"]["on_timeout"] == "lose"
    assert data["changes"] == [
        {"ply": 1, "seat": 0, "change": "timeout", "at_ms": START_MS + 1000 + 6 * MINUTE_MS}
    ]
    assert data["moves"][0]["ms"] == [0, 6 * MINUTE_MS]
    assert data["result"]["standings"] == [[1], [0]]
    assert read_record(path).table is not None and load_record(path).scores == game.scores


def test_resign_asks_first_then_the_stand_in_plays_to_the_end(tmp_path: Path) -> None:
    path = tmp_path / "resigned.json"
    game, out, script = play(["resign", "n", "resign", "y", "y"], clock="none", save=path)
    assert game.is_over
    assert "Not resigned." in out
    assert script.prompts[1].startswith("Resign Red (you)? You will be ranked last")
    assert "Red (you) resigned (ranked last); the stand-in plays on." in out
    assert "Seats (no clock): Red (you) (resigned)" not in out  # no screen after: no human left
    data = json.loads(path.read_text())
    assert [c["change"] for c in data["changes"]] == ["resign"]
    assert data["result"]["standings"][-1] == [0]


def test_resign_is_in_the_menu_and_the_help() -> None:
    _, out, _ = play(["h"], clock="none")
    assert "resign · q quit" in out
    assert "resign  leave the game: you are ranked last" in out


def test_undo_is_off_at_a_timed_table() -> None:
    game, out, _ = play(["1", "u"])
    assert "Undo is off at a timed table" in out
    assert len(game.history) == 1


def test_an_untimed_table_keeps_undo_and_saves_records_as_before(tmp_path: Path) -> None:
    path = tmp_path / "plain.json"
    game, out, _ = play(["1", "u", "1", "p", "1", "p", "1", "p", "y"], clock="none", save=path)
    assert "Undone" in out and game.is_over
    data = json.loads(path.read_text())
    assert "table" not in data and all("ms" not in move for move in data["moves"])


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--clock", "fast"], "--clock: clock 'fast': write none, a preset"),
        (["--clock", "0+5"], "--clock: clock: the initial time of a real-time clock"),
        (["--on-timeout", "lose"], "--on-timeout lose needs a --clock"),
    ],
)
def test_bad_clock_options_are_named(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", *argv]) != 0
    assert words in capsys.readouterr().err


def test_hotseat_the_other_human_plays_on_while_one_is_stood_in() -> None:
    # Red runs out at its first figure step; Blue plays its turns and sees Red stood in
    answers = ["1", ("p", 6 * MINUTE_MS), "1", "p", "n", "1", "p", "n"]
    game, out, script = play(answers, seats=("human", "human"))
    assert game.is_over
    assert script.prompts[2] == "Blue 5:00> "
    # the stand-in took the figure step for Red: +20 s; Blue's clock runs
    assert "Red 0:20 (stood in) · Blue 5:00 ▶" in out
    assert script.prompts[4] == "Red is played by the stand-in. Take your seat back? [y/N] "
    assert script.prompts[5].startswith("Blue ")


def test_the_command_line_builds_the_table_settings() -> None:
    import argparse

    from carcassonne.cli.play import table_from_args

    args = argparse.Namespace(clock="3d", on_timeout="lose", stand_in="random")
    assert table_from_args(args) == TableSettings(PRESETS["3d"], "random", "lose")
    args = argparse.Namespace(clock="none", on_timeout="stand-in", stand_in="greedy")
    assert table_from_args(args) == TableSettings()
