"""`carcassonne review FILE`: the accuracy and mistakes table, --json, the seats reviewed, and
clear errors for a bad record, seat or budget."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from carcassonne.cli.main import main

RECORD = Path("tests/records/short-base-hand-typed.json")


def _record_with_seats(tmp_path: Path, seats: list[dict[str, str]]) -> str:
    data = json.loads(RECORD.read_text())
    data["seats"] = seats
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_review_prints_accuracy_and_the_biggest_mistakes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["review", str(RECORD), "--iterations", "10", "--json"]) == 0
    marks = json.loads(capsys.readouterr().out)["marks"]
    worst = sorted((m for m in marks if m["lost"] > 0), key=lambda m: (-m["lost"], m["ply"]))
    assert main(["review", str(RECORD), "--iterations", "10", "--top", "2"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].endswith("decisions of Ann, Bob reviewed (10 playouts each, seed 0)")
    assert any(
        line.startswith("  Ann ") and "best " in line and "blunder " in line for line in lines
    )
    header = lines.index("Biggest mistakes (expected points lost):")
    assert lines[header + 1].split() == ["turn", "seat", "mark", "lost", "played", "better"]
    rows = lines[header + 2 :]
    assert len(rows) == 2  # --top 2
    for row, mark in zip(rows, worst, strict=False):  # the worst first
        name = ["Ann", "Bob"][mark["seat"]]
        assert row.split()[:4] == [str(mark["turn"]), name, mark["mark"], f"{mark['lost']:.1f}"]
        if " at (" in row:  # a placement: the better one is of the same tile
            tile = row.split()[4]
            assert row.count(f"{tile} at (") == 2


def test_review_json_is_the_review_document(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(RECORD), "--iterations", "10", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["names"] == ["Ann", "Bob"] and data["seats"] == [0, 1]
    assert data["iterations"] == 10 and len(data["marks"]) == 10
    assert {m["mark"] for m in data["marks"]} <= {
        "best",
        "good",
        "inaccuracy",
        "mistake",
        "blunder",
    }
    assert set(data["accuracy"]) == {"0", "1"}
    # the same budget and seed: the same review
    assert main(["review", str(RECORD), "--iterations", "10", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == data


def test_only_human_seats_are_reviewed_unless_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _record_with_seats(tmp_path, [{"name": "Ann", "kind": "human"}, {"kind": "greedy"}])
    assert main(["review", path, "--iterations", "5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["seats"] == [0] and {m["seat"] for m in data["marks"]} == {0}
    assert main(["review", path, "--iterations", "5", "--json", "--seat", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["seats"] == [1] and {m["seat"] for m in data["marks"]} == {1}


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["--seat", "2"], 2, "--seat 2: the game has seats 0 to 1"),
        (["--iterations", "0"], 2, "--iterations must be 1 to 2000, not 0"),
        (["--top", "-1"], 2, "--top must be at least 0"),
    ],
)
def test_bad_arguments_are_named(
    args: list[str], status: int, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", str(RECORD), *args]) == status
    assert f"carcassonne review: error: {message}" in capsys.readouterr().err


def test_a_bad_record_or_a_game_of_bots_is_refused_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(RECORD.read_text())
    data["moves"][2]["x"] = 9
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(["review", str(bad)]) == 1
    assert "carcassonne review: error: move 3 (seat 0, base/L)" in capsys.readouterr().err
    bots = _record_with_seats(tmp_path, [{"kind": "greedy"}, {"kind": "random"}])
    assert main(["review", bots]) == 2
    assert "every seat of this game is a bot: name the seats" in capsys.readouterr().err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_a_progress_bar_counts_the_decisions(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["review", str(RECORD), "--iterations", "3"]) == 0
    shown = terminal.getvalue()
    assert "\r[" in shown and "/10 decisions" in shown and "10/10 decisions" in shown
    assert shown.endswith("\r\033[K")  # the bar's line cleared before the report
    assert capsys.readouterr().out.startswith(str(RECORD))
    quiet = _Terminal()  # --json: no bar
    monkeypatch.setattr(sys, "stderr", quiet)
    assert main(["review", str(RECORD), "--iterations", "3", "--json"]) == 0
    assert quiet.getvalue() == ""
