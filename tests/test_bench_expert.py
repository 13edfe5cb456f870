"""benchmarks/bench_expert.py's paired comparison of two experts' runs on the same seeds."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from carcassonne.batch.runner import Result
from carcassonne.game import GameOptions
from scenario import scenario


def _bench() -> ModuleType:
    path = Path(__file__).parent.parent / "benchmarks" / "bench_expert.py"
    spec = importlib.util.spec_from_file_location("bench_expert", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_expert"] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


bench = _bench()


def _result(index: int, scores: list[int], winners: list[int]) -> Result:
    return Result(index, scores, winners, [{}, {}])


def test_the_paired_difference_compares_the_experts_margins_game_by_game() -> None:
    # game 0: the expert sits in seat 0, game 1 in seat 1 (seats alternate)
    mine = [_result(0, [100, 90], [0]), _result(1, [80, 95], [1])]  # margins +10, +15: won
    theirs = [
        _result(0, [90, 100], [1]),  # -10: lost
        _result(1, [80, 80], [0, 1]),  # 0: a tie, half a win
        _result(2, [70, 60], [0]),  # not played by this run: left out
    ]
    found = bench.paired_difference(mine, theirs, 2)
    assert (found.games, found.wins, found.other_wins) == (2, 2.0, 0.5)
    # differences 20 and 15: mean 17.5, sample deviation 5 / sqrt(2)
    assert found.margin_difference == pytest.approx(17.5)
    assert found.half_width == pytest.approx(1.96 * (5 / 2**0.5) / 2**0.5)
    assert (found.turned_into_wins, found.turned_into_losses) == (2, 0)
    assert bench.paired_difference(mine[:1], theirs, 2) is None  # one game: no interval


def test_a_run_against_other_opponents_or_options_is_refused(tmp_path: Path) -> None:
    options = GameOptions()
    tasks = [bench.Task(0, options.with_(seed=1000), ("expert:iterations=9", "greedy"))]
    path = tmp_path / "other.jsonl"
    settings = bench.settings_line(tasks, True)
    game = json.dumps({"result": _result(0, [3, 2], [0]).to_json(), "searches": []})
    other_expert = settings | {"specs": ["expert:iterations=5,depth=4", "greedy"]}
    path.write_text(json.dumps(other_expert) + "\n" + game + "\n")
    assert [r.scores for r in bench.load_other_run(path, tasks, True)] == [[3, 2]]
    path.write_text(json.dumps(settings | {"specs": ["expert:iterations=9", "random"]}) + "\n")
    with pytest.raises(SystemExit, match="other.jsonl: its games were played against other opp"):
        bench.load_other_run(path, tasks, True)
    path.write_text(json.dumps(settings | {"options": "GameOptions(bets=True)"}) + "\n")
    with pytest.raises(SystemExit, match="other.jsonl: its games were played with other options"):
        bench.load_other_run(path, tasks, True)
    with pytest.raises(SystemExit, match="missing.jsonl: no such file"):
        bench.load_other_run(tmp_path / "missing.jsonl", tasks, True)


def test_the_fields_of_a_finished_game_are_its_final_field_scorings() -> None:
    # seat 0 farms the start tile's north field, which borders the start city: never closed
    game = scenario([("base/U", 1, 0, 0, ("meeple", "NL"))])
    assert game.is_over
    assert bench.farms_of(game) == [([1, 0], [0, 0])]
    closed = scenario([("base/E", 0, -1, 180, ("meeple", "NL"))])  # the city closed: 3 points
    assert bench.farms_of(closed) == [([1, 0], [3, 0])]


def test_fields_are_tallied_per_bot_alone_won_shared_or_lost() -> None:
    def played(index: int, farms: list[tuple[list[int], list[int]]] | None) -> object:
        return bench.Played(_result(index, [0, 0], [0, 1]), [], farms)

    games = [
        # game 0: the expert (entrant 0) in seat 0
        played(0, [([1, 0], [9, 0]), ([2, 1], [12, 0])]),
        # game 1: the expert in seat 1
        played(1, [([1, 1], [6, 6]), ([0, 1], [0, 3]), ([2, 1], [15, 0])]),
        played(2, None),  # saved before fields were kept: left out
    ]
    count, (expert, other) = bench.farm_tallies(games, 2)
    assert count == 2
    assert (expert.alone, expert.won, expert.shared, expert.lost) == (
        [2, 12],
        [1, 12],
        [1, 6],
        [1, 15],
    )
    assert (other.alone, other.won, other.shared, other.lost) == ([0, 0], [1, 15], [1, 6], [1, 12])
