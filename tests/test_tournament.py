"""`carcassonne tournament`: schedule, ratings, report, plots, resuming, tallies, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openskill.models import PlackettLuce

from carcassonne.batch import runner, tournament
from carcassonne.batch.runner import Result, Task
from carcassonne.batch.tallies import bet_tally, wine_tally
from carcassonne.batch.tournament import Settings, build_report, rate
from carcassonne.bots import make_bot
from carcassonne.cli import tournament as tournament_cli
from carcassonne.cli.main import main
from carcassonne.events import ScoreEvent
from carcassonne.game import Game, GameOptions


def run_tournament(
    capsys: pytest.CaptureFixture[str], out: Path, *args: str, games: int = 6
) -> dict[str, Any]:
    argv = ["tournament", "--out", str(out), "--games", str(games), "--seed", "3", "--json"]
    assert main([*argv, *args]) == 0
    return json.loads(capsys.readouterr().out)


def stored_games(out: Path) -> list[dict[str, Any]]:
    lines = (out / tournament.GAMES_FILE).read_text().splitlines()
    return sorted((json.loads(line) for line in lines), key=lambda g: g["index"])


def test_greedy_rates_above_random_with_intervals_apart_and_plots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's 'done when': 40 games, greedy's interval wholly above random's."""
    argv = ["tournament", "--players", "random,greedy", "--games", "40", "--seed", "1"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert printed.splitlines()[0].startswith("40 games; ratings")
    assert f"report: {tmp_path / 'report.md'}" in printed
    report = json.loads((tmp_path / "report.json").read_text())
    greedy, random = (
        next(b for b in report["bots"] if b["bot"] == n) for n in ("greedy", "random")
    )
    assert greedy["rating"]["low"] > random["rating"]["high"]
    assert report["ranking"] == ["greedy", "random"]
    assert report["tournament"]["games"] == 40 and report["tournament"]["full_rounds"] == 20
    assert greedy["games"] == random["games"] == 40
    assert report["seats"]["2"][0]["games"] == report["seats"]["2"][1]["games"] == 40
    assert len(report["scores"]["greedy"]) == 40
    assert greedy["wins"] + random["wins"] == 40
    for name in ("ratings", "scores", "sources"):
        for suffix, magic in (("png", b"\x89PNG"), ("svg", b"<?xml")):
            assert (tmp_path / "plots" / f"{name}.{suffix}").read_bytes().startswith(magic)
        assert f"![{name}](plots/{name}.svg)" in (tmp_path / "report.md").read_text()
    markdown = (tmp_path / "report.md").read_text()
    assert "| 1 | greedy |" in markdown and "| 2 | random |" in markdown


def test_every_bot_meets_every_other_in_every_seating() -> None:
    settings = Settings(("a", "b", "c"), (2, 3), GameOptions(), seed=10)
    seatings = settings.seatings()
    assert seatings[:6] == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    assert sorted(seatings[6:]) == [
        (0, 1, 2),
        (0, 2, 1),
        (1, 0, 2),
        (1, 2, 0),
        (2, 0, 1),
        (2, 1, 0),
    ]
    task = settings.task(13, seatings)  # the second round's second seating
    assert task == Task(13, GameOptions(players=2, seed=23), ("a", "c"))
    assert settings.task(8, seatings).options.players == 3


def result(index: int, scores: list[int], tallies: Any = None) -> Result:
    best = max(scores)
    winners = [seat for seat, score in enumerate(scores) if score == best]
    by_source = [{"city": score} for score in scores]
    return Result(index, scores, winners, by_source, [], tallies or {})


def test_ratings_follow_the_ranking_of_each_game_and_ties_share_it() -> None:
    settings = Settings(("a", "b", "c"), (3,), GameOptions(), seed=0)
    # seating 0 is (0, 1, 2): b first, c second, a last
    first = rate(settings, [result(0, [10, 30, 20])])
    assert first[1].mu > first[2].mu > first[0].mu
    model = PlackettLuce(tau=0.0)
    fresh = [[model.rating()] for _ in range(3)]
    expected = model.rate(fresh, ranks=[3.0, 1.0, 2.0])  # the highest score ranks first
    assert [r.mu for r in first] == pytest.approx([team[0].mu for team in expected])
    tied = rate(settings, [result(0, [20, 20, 20])])
    assert tied[0].mu == tied[1].mu == tied[2].mu == pytest.approx(25)
    assert tied[0].sigma < 25 / 3  # a game was still learnt from
    assert tied[0].low == pytest.approx(tied[0].mu - 1.96 * tied[0].sigma)


def test_report_totals_from_hand_made_games() -> None:
    settings = Settings(("a", "b"), (2,), GameOptions(bets=True), seed=5)
    chips = ("2/6", "3/5", "3/6", "4", "4/7+", "5/8+")

    def bets(settled: int, won: int, points: int) -> list[dict[str, dict[str, int]]]:
        """Seat 0 settled ``settled`` 4/7+ chips; seat 1 nothing."""
        seat0 = {chip: {"settled": 0, "won": 0, "points": 0} for chip in chips}
        seat0["4/7+"] = {"settled": settled, "won": won, "points": points}
        seat1 = {chip: {"settled": 0, "won": 0, "points": 0} for chip in chips}
        return [seat0, seat1]

    # game 0 seats (a, b), game 1 seats (b, a), game 2 seats (a, b)
    results = [
        result(0, [50, 40], {"bets": bets(2, 1, 7)}),
        result(1, [30, 30], {"bets": bets(1, 1, 4)}),
        result(2, [10, 60], {"bets": bets(1, 0, 0)}),
    ]
    report = build_report(settings, results)
    a, b = report["bots"]
    assert (a["games"], a["wins"], b["wins"]) == (3, 1.5, 1.5)
    assert a["mean_score"] == pytest.approx((50 + 30 + 10) / 3, abs=0.01)
    assert a["mean_points_by_source"]["city"] == a["mean_score"]
    assert report["head_to_head"] == {"a": {"b": 0.5}, "b": {"a": 0.5}}
    assert report["seats"]["2"] == [
        {"seat": 0, "games": 3, "win_rate": 0.5, "mean_score": 30.0},
        {"seat": 1, "games": 3, "win_rate": 0.5, "mean_score": pytest.approx(43.33)},
    ]
    # a settled the chip in games 0 and 2 (seat 0), b in game 1 (seat 0)
    a_chip = report["tallies"]["bets"]["a"]["4/7+"]
    assert a_chip["settled_per_game"] == 1.0  # 3 chips in 3 games
    assert a_chip["won_per_settled"] == pytest.approx(1 / 3, abs=1e-3)
    assert a_chip["points_per_settled"] == pytest.approx(7 / 3, abs=1e-3)
    b_chip = report["tallies"]["bets"]["b"]["4/7+"]
    assert (b_chip["points_per_game"], b_chip["points_per_settled"]) == (
        pytest.approx(4 / 3, abs=1e-3),
        4.0,
    )
    assert report["tallies"]["bets"]["b"]["2/6"]["points_per_settled"] is None  # never settled
    assert report["scores"] == {"a": [50, 30, 10], "b": [40, 30, 60]}


def played(options: GameOptions) -> Game:
    game = Game(options)
    bots = [make_bot("greedy", runner.bot_seed(options.seed or 0, s)) for s in range(2)]
    while not game.is_over:
        game.apply(bots[game.to_move].choose(game))
    return game


def test_tallies_count_every_bet_and_wine_sale_of_a_game() -> None:
    game = played(GameOptions(bets=True, map="france", map_chips=True, seed=4))
    events = [e for e in game.events if isinstance(e, ScoreEvent)]
    bets, wine = bet_tally(game), wine_tally(game)
    for seat in range(2):
        bet_points = sum(e.points.get(seat, 0) for e in events if e.source == "bet")
        wine_points = sum(e.points.get(seat, 0) for e in events if e.source == "wine")
        assert sum(c["points"] for c in bets[seat].values()) == bet_points
        assert sum(c["points"] for c in wine[seat].values()) == wine_points
        mine = [e for e in events if e.source == "bet" and e.detail["owner"] == seat]
        assert sum(c["settled"] for c in bets[seat].values()) == len(mine)
        assert sum(c["won"] for c in bets[seat].values()) == sum(e.detail["paid"] > 0 for e in mine)
        assert wine[seat]["export"]["points"] == 5 * wine[seat]["export"]["sold"]
        assert wine[seat]["town"]["points"] == 9 * wine[seat]["town"]["sold"]
    assert any(sum(c["settled"] for c in seat.values()) for seat in bets)  # the game had bets
    outcome = runner.play_game(Task(0, game.options, ("greedy", "greedy")))
    assert outcome.tallies == {"bets": bets, "wine": wine}
    assert runner.play_game(Task(0, GameOptions(seed=4), ("random", "random"))).tallies == {}


def test_an_interrupted_tournament_resumes_without_replaying_its_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = run_tournament(capsys, tmp_path / "whole", "--players", "random,greedy,random:seed=1")
    assert whole["run"]["games_played"] == 6
    cut = tmp_path / "cut"
    run_tournament(capsys, cut, "--players", "random,greedy,random:seed=1")
    games = (cut / tournament.GAMES_FILE).read_text().splitlines(keepends=True)
    # an interruption: two games kept, the third half written
    (cut / tournament.GAMES_FILE).write_text("".join(games[:2]) + games[2][:20])
    again = run_tournament(capsys, cut, "--players", "random,greedy,random:seed=1")
    assert again["run"]["games_played"] == 4
    assert stored_games(cut) == stored_games(tmp_path / "whole")
    for key in ("bots", "head_to_head", "seats", "scores", "ranking"):
        assert again[key] == whole[key]
    # more games extend it; the same command without --players uses the folder's bots (and a
    # whole last line without its newline, as an editor may leave it, is kept and ended)
    path = cut / tournament.GAMES_FILE
    path.write_text(path.read_text().rstrip("\n"))
    more = run_tournament(capsys, cut, games=8)
    assert more["run"]["games_played"] == 2 and more["tournament"]["games"] == 8
    assert more["tournament"]["players"] == ["random", "greedy", "random:seed=1"]
    assert [game["index"] for game in stored_games(cut)] == list(range(8))


def test_a_folder_of_another_tournament_is_refused_with_what_differs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_tournament(capsys, tmp_path, "--players", "random,greedy", games=2)
    argv = ["tournament", "--out", str(tmp_path), "--games", "2", "--seed", "3"]
    assert main([*argv, "--players", "random,greedy", "--bets"]) == 2
    err = capsys.readouterr().err
    assert "holds a tournament with other settings" in err and "bets True (it has False)" in err
    assert main([*argv, "--players", "greedy,random"]) == 2
    assert "players ['greedy', 'random'] (it has ['random', 'greedy'])" in capsys.readouterr().err


def test_a_damaged_games_file_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_tournament(capsys, tmp_path, "--players", "random,greedy", games=3)
    lines = (tmp_path / tournament.GAMES_FILE).read_text().splitlines(keepends=True)
    lines[1] = '{"index": 1, "scores": [1]}\n'
    (tmp_path / tournament.GAMES_FILE).write_text("".join(lines))
    assert main(["tournament", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("carcassonne tournament: error: ")
    assert f"{tmp_path / tournament.GAMES_FILE} line 2: not a game result" in err
    assert "\n" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "--players is needed to start a tournament"),
        (["--players", "random"], "a tournament needs at least two bots"),
        (["--players", "random,greedy", "--seats", "3"], "tables of 3 need at least 3 bots"),
        (["--players", "random,greedy", "--seats", "2,x"], "--seats takes numbers of players"),
        (["--players", "random,greedy", "--seats", "1"], "a table has 2 to 6 seats, not 1"),
        (["--players", "random,clever"], "unknown bot 'clever'"),
        (
            ["--players", ",".join(["random"] * 12), "--seats", "6"],
            "12 bots at tables of 6 make 665280 seatings per round, more than 200000",
        ),
        (["--players", "random,greedy", "--map-chips"], "map chips need a map"),
        (["--players", "random,greedy", "--ray", " "], "--ray takes 'local' or the address"),
    ],
)
def test_tournament_refuses_bad_settings_in_one_line(
    tmp_path: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tournament", "--out", str(tmp_path / "t"), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("carcassonne tournament: error: ") and message in err
    assert not (tmp_path / "t" / tournament.GAMES_FILE).exists()


def test_tournament_says_which_extra_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tournament_cli.importlib.util.find_spec
    monkeypatch.setattr(
        tournament_cli.importlib.util,
        "find_spec",
        lambda name: None if name == "openskill" else real(name),
    )
    assert main(["tournament", "--players", "random,greedy", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == (
        "carcassonne tournament: error: tournament needs openskill: "
        "pip install 'carcassonne-engine[tournament]'"
    )


def test_ray_runs_the_same_games_as_local_workers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same seeds give the same games as Ray tasks on a local instance (started by the
    command) as in forked workers."""
    pytest.importorskip("ray")
    bots = ("--players", "random,greedy,random:seed=2", "--bets")
    local = run_tournament(capsys, tmp_path / "local", *bots, "--jobs", "2", games=6)
    on_ray = run_tournament(
        capsys, tmp_path / "ray", *bots, "--ray", "local", "--jobs", "2", games=6
    )
    assert on_ray["run"]["ray"] == "local" and on_ray["run"]["games_played"] == 6
    assert stored_games(tmp_path / "ray") == stored_games(tmp_path / "local")
    for key in ("bots", "head_to_head", "tallies", "scores"):
        assert on_ray[key] == local[key]
