"""Tournament throughput: the same games with --jobs 1, --jobs 2 and Ray, side by side.

Plays the games of a greedy tournament (``--players greedy,greedy`` by default: every seating,
seeds from ``--seed``) through :func:`carcassonne.batch.runner.run_tasks` in each way, batch by
batch in turn (jobs 1, jobs 2, Ray, jobs 1, ...), and prints the median games/s of each with its
ratio to ``--jobs 1``, and the Ray overhead per game: (Ray time - jobs-2 time) / games, both on
the same number of CPUs (Ray's own processes competing for them included), beside the round
trip of a Ray task that plays no game (Ray's cost alone).  Ray's start (``ray.init`` of a local
instance with ``--cpus`` CPUs, and its worker processes importing the package) and its stop are
timed apart, once: a tournament pays them once, not per game.  Wall-clock time, since the point
is how soon the games are done; the machine's load moves every way alike, which is why the
ratios are what to compare.
Every batch must give the same results (checked).  Not a test: run it by hand and compare with
``benchmarks/README.md``.

    python benchmarks/bench_tournament.py                    # 3 rounds of 100 games each way
    python benchmarks/bench_tournament.py --games 2000 --rounds 1
    python benchmarks/bench_tournament.py --players greedy,random --seats 2 --bets
"""

from __future__ import annotations

import argparse
import logging
import statistics
import time
from collections.abc import Callable
from typing import Any

from carcassonne.batch.runner import LOCAL_RAY, Result, play_games, run_tasks
from carcassonne.batch.tournament import Settings
from carcassonne.bots import split_bot_specs
from carcassonne.cli.options import add_game_options, options_from_args


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per batch (default 100)")
    parser.add_argument("--rounds", type=int, default=3, help="batches each way (default 3)")
    parser.add_argument("--players", default="greedy,greedy", help="the tournament's bots")
    parser.add_argument("--seats", type=int, default=2, help="players per game (default 2)")
    parser.add_argument("--cpus", type=int, default=2, help="workers and Ray CPUs (default 2)")
    add_game_options(parser, players=False)
    args = parser.parse_args()
    import ray

    options = options_from_args(args, players=args.seats).with_(seed=None)
    seed = args.seed if args.seed is not None else 1
    settings = Settings(tuple(split_bot_specs(args.players)), (args.seats,), options, seed)
    seatings = settings.seatings()

    def play(jobs: int, ray_address: str | None) -> tuple[float, list[Result]]:
        tasks = (settings.task(i, seatings) for i in range(args.games))
        start = time.perf_counter()
        results = sorted(run_tasks(tasks, args.games, jobs, ray_address), key=lambda r: r.index)
        return time.perf_counter() - start, results

    start = time.perf_counter()
    ray.init(num_cpus=args.cpus, include_dashboard=False, logging_level=logging.WARNING)
    # Ray starts its worker processes at the first tasks: part of the start, not of any game
    ray.get([ray.remote(_import_runner).remote() for _ in range(args.cpus)])
    ray_start = time.perf_counter() - start
    ways: dict[str, Callable[[], tuple[float, list[Result]]]] = {
        "--jobs 1": lambda: play(1, None),
        f"--jobs {args.cpus}": lambda: play(args.cpus, None),
        f"--ray local ({args.cpus} CPUs)": lambda: play(args.cpus, LOCAL_RAY),
    }
    times: dict[str, list[float]] = {name: [] for name in ways}
    reference: list[Result] | None = None
    try:
        for round_number in range(args.rounds):
            for name, way in ways.items():
                seconds, results = way()
                times[name].append(seconds)
                reference = reference or results
                assert results == reference, f"{name} gave other results"
                print(f"round {round_number + 1}: {name}: {args.games / seconds:.1f} games/s")
        empty_task = _empty_round_trip(ray)
    finally:
        start = time.perf_counter()
        ray.shutdown()
        ray_stop = time.perf_counter() - start
    medians = {name: statistics.median(seconds) for name, seconds in times.items()}
    base = medians["--jobs 1"]
    print(f"\n{args.games} games per batch, median of {args.rounds}; same results every way")
    print(f"{'way':<24} {'games/s':>8} {'vs --jobs 1':>12}")
    for name, seconds in medians.items():
        print(f"{name:<24} {args.games / seconds:>8.1f} {base / seconds:>11.2f}x")
    names = list(ways)
    overhead = (medians[names[2]] - medians[names[1]]) / args.games
    print(f"\nRay overhead per game (Ray - {names[1]}, same CPUs): {1000 * overhead:.2f} ms")
    print(f"Ray round trip of one task playing no game: {1000 * empty_task:.2f} ms")
    print(f"Ray start {ray_start:.1f} s, stop {ray_stop:.1f} s (once per run)")


def _empty_round_trip(ray: Any, tasks: int = 200) -> float:
    """Seconds per Ray task that plays no game, sent one after the other: Ray's own cost of a
    task (scheduling, pickling, the round trip), without any competition for the CPUs."""
    remote = ray.remote(play_games)
    start = time.perf_counter()
    for _ in range(tasks):
        ray.get(remote.remote([]))
    return (time.perf_counter() - start) / tasks


def _import_runner() -> None:
    import carcassonne.batch.runner  # noqa: F401


if __name__ == "__main__":
    main()
