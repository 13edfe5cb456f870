"""`carcassonne simulate`: the report, its JSON shape, seats, jobs, records and hooks."""

from __future__ import annotations

import io
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from carcassonne.batch import runner
from carcassonne.cli import options, simulate
from carcassonne.cli.main import main
from carcassonne.game import Game, GameOptions


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["simulate", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_simulate_prints_a_table_per_bot_and_seat(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "4", "--players", "greedy,random", "--seed", "7"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].startswith("4 games, 2 players (greedy, random), base game, seeds 7..10")
    header = next(line for line in lines if line.startswith("bot "))
    assert header.split()[:5] == ["bot", "games", "wins", "win", "%"]
    for source in ("city", "road", "monastery", "field"):
        assert source in header.split()
    assert any(line.startswith("greedy ") for line in lines)
    assert any(line.startswith("random ") for line in lines)
    assert "games/s" in lines[-1]
    assert captured.err == ""  # no progress bar when stderr is not a terminal


def test_simulate_json_shape_and_totals(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, "--games", "6", "--seed", "3", "--abbot")
    assert report["games"] == 6
    assert report["players"] == ["greedy", "random"]
    assert report["options"]["abbot"] is True and report["options"]["players"] == 2
    assert report["seeds"] == [3, 8]
    assert report["rotate_seats"] is True
    assert report["games_per_second"] > 0
    assert [row["bot"] for row in report["bots"]] == ["greedy", "random"]
    for row in report["bots"]:
        assert set(row) == {
            "bot",
            "games",
            "wins",
            "win_rate",
            "mean_score",
            "mean_points_by_source",
        }
        assert row["games"] == 6
        assert row["win_rate"] == pytest.approx(row["wins"] / 6, abs=1e-3)
        # every point comes from a score event, so the sources add up to the score
        assert sum(row["mean_points_by_source"].values()) == pytest.approx(
            row["mean_score"], abs=0.05
        )
    assert sum(row["wins"] for row in report["bots"]) == pytest.approx(6)
    assert [row["seat"] for row in report["seats"]] == [0, 1]
    assert all(row["games"] == 6 for row in report["seats"])
    assert report["notes"] == []


def test_rotating_seats_give_each_bot_each_seat() -> None:
    assert [simulate.seat_order(i, 3, rotate=True) for i in range(3)] == [
        (0, 1, 2),
        (1, 2, 0),
        (2, 0, 1),
    ]
    assert simulate.seat_order(1, 3, rotate=False) == (0, 1, 2)


def test_same_bot_twice_gets_numbered_labels(capsys: pytest.CaptureFixture[str]) -> None:
    report = run_json(capsys, "--games", "2", "--seed", "1", "--players", "random,random,greedy")
    assert [row["bot"] for row in report["bots"]] == ["random1", "random2", "greedy"]


def test_jobs_do_not_change_the_results(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--games", "4", "--seed", "5", "--players", "greedy,random")
    one = run_json(capsys, *args, "--jobs", "1")
    two = run_json(capsys, *args, "--jobs", "2")
    assert one["bots"] == two["bots"] and one["seats"] == two["seats"]


def test_save_records_writes_games_that_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from carcassonne.formats.record import load_record

    report = run_json(
        capsys, "--games", "3", "--seed", "2", "--abbot", "--save-records", str(tmp_path / "out")
    )
    files = sorted((tmp_path / "out").iterdir())
    assert [f.name for f in files] == ["game-00001.json", "game-00002.json", "game-00003.json"]
    total = [0, 0]  # per bot: greedy, random
    for index, path in enumerate(files):
        data = json.loads(path.read_text())
        kinds = [seat["kind"] for seat in data["seats"]]
        assert sorted(kinds) == ["greedy", "random"]
        game = load_record(path)
        assert game.is_over and game.options.abbot
        assert data["seed"] == 2 + index
        for seat, kind in enumerate(kinds):
            total[0 if kind == "greedy" else 1] += game.scores[seat]
    assert [row["mean_score"] for row in report["bots"]] == pytest.approx(
        [total[0] / 3, total[1] / 3], abs=0.01
    )


def test_registered_summary_runs_only_with_its_expansion(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[list[Game]] = []

    def abbot_lines(games: list[Game]) -> list[str]:
        seen.append(games)
        return [f"abbot games: {len(games)}"]

    monkeypatch.setattr(simulate, "_SUMMARIES", {})
    simulate.register_summary("abbot", abbot_lines)
    plain = run_json(capsys, "--games", "2", "--seed", "1")
    assert plain["notes"] == [] and seen == []
    report = run_json(capsys, "--games", "2", "--seed", "1", "--abbot")
    assert report["notes"] == ["abbot games: 2"]
    (games,) = seen
    assert all(g.is_over and g.options.abbot for g in games)
    assert [g.options.seed for g in games] == [1, 2]
    assert main(["simulate", "--games", "2", "--seed", "1", "--abbot"]) == 0
    assert "abbot games: 2" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "greedy,clever"], "unknown bot 'clever'"),
        (["--players", "greedy"], "players must be between 2 and 6"),
        (["--games", "0"], "argument --games: must be at least 1, not 0"),
        (["--jobs", "0"], "argument --jobs: must be at least 1, not 0"),
        (["--map-chips"], "map chips need a map"),
        (
            ["--ray", "127.0.0.1:6379", "--save-records", "records"],
            "--save-records with --ray ADDRESS would write the records on the cluster's machines",
        ),
    ],
)
def test_simulate_rejects_bad_arguments(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", *args]) == 2
    err = capsys.readouterr().err
    assert "error" in err and message in err


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_draws_on_a_terminal_and_clears_itself() -> None:
    stream = FakeTerminal()
    progress = runner.Progress(4, stream)
    progress.update(4)
    progress.close()
    text = stream.getvalue()
    assert text.startswith("\r[" + "#" * runner.Progress.WIDTH + "] 4/4 games")
    assert text.endswith("\r\033[K")


def test_progress_bar_stays_silent_when_told_to_even_on_a_terminal() -> None:
    stream = FakeTerminal()
    progress = runner.Progress(4, stream, enabled=False)  # what --json asks for
    progress.update(4)
    progress.close()
    assert stream.getvalue() == ""


def test_a_result_carries_moves_only_when_a_summary_will_replay_them() -> None:
    """A long run keeps a few numbers per game, not every move (or every game object)."""
    options = GameOptions(seed=5)
    plain = runner.play_game(runner.Task(0, options, ("random", "random"), None))
    kept = runner.play_game(runner.Task(0, options, ("random", "random"), None, True))
    assert plain.history == []
    assert len(kept.history) > 72  # a tile and a figure step per turn
    assert (plain.scores, plain.by_source) == (kept.scores, kept.by_source)
    assert not simulate.active_summaries(options)
    assert simulate.active_summaries(options.with_(bets=True)) == [simulate._SUMMARIES["bets"]]


def test_replays_rebuild_each_game_of_a_run_when_read() -> None:
    options = GameOptions(bets=True, seed=11)
    tasks = [
        runner.Task(i, options.with_(seed=11 + i), bots, None, True)
        for i, bots in enumerate([("greedy", "random"), ("random", "greedy")])
    ]
    results = [runner.play_game(task) for task in reversed(tasks)]
    games = simulate.Replays(options, results)
    assert len(games) == 2
    for game, result in zip(games, results, strict=True):
        assert game.is_over and game.options.seed == 11 + result.index
        assert game.scores == result.scores
        assert [a for _, a in game.history] == [a for _, a in result.history]
    assert [g.scores for g in games[1:]] == [results[1].scores]


def test_ray_without_ray_installed_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = options.importlib.util.find_spec
    monkeypatch.setattr(
        options.importlib.util, "find_spec", lambda name: None if name == "ray" else real(name)
    )
    assert main(["simulate", "--ray", "local"]) == 2
    assert capsys.readouterr().err.strip() == (
        "carcassonne simulate: error: --ray needs Ray, which is not installed: "
        "pip install 'carcassonne-engine[ray]'"
    )


def test_ray_at_an_address_nobody_answers_is_one_line_at_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("ray")
    with socket.socket() as unused:  # a port just freed: nothing listens there
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    assert main(["simulate", "--games", "1", "--ray", f"127.0.0.1:{port}"]) == 1
    assert capsys.readouterr().err.strip() == (
        f"carcassonne simulate: error: cannot reach a Ray cluster's head at 127.0.0.1:{port}: "
        "Connection refused"
    )
