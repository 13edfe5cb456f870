"""Game review cost: seconds of one core per reviewed game at a playout budget.

Plays ``--games`` base games of two greedy bots (game ``i`` shuffled with seed ``S + i``), then
reviews both seats of each, as ``carcassonne review`` does for a record of two humans, and
prints per game the decisions reviewed and the processor seconds the review took (process
time: one core's work, whatever else the machine runs), then their median and range.

    nice -n 10 python benchmarks/bench_review.py --games 5 --iterations 120
    python benchmarks/bench_review.py --games 3 --iterations 60 --json

Not a test: run it by hand and put the figures in ``docs/bots.md`` ("Review").  The budget is
a number of playouts, so the reviews (and so the work) are the same on a busy machine; only the
wall-clock time grows.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from carcassonne.bots.greedy import GreedyBot
from carcassonne.bots.review import DEFAULT_ITERATIONS, review
from carcassonne.game import Game


def played_game(seed: int) -> Game:
    game = Game(players=2, seed=seed)
    bots = [GreedyBot(seed * 2), GreedyBot(seed * 2 + 1)]
    while not game.is_over:
        game.apply(bots[game.to_move].choose(game))
    return game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for i in range(args.games):
        game = played_game(args.seed + i)
        start = time.process_time()
        result = review(game.options, game.history, [0, 1], iterations=args.iterations)
        seconds = time.process_time() - start
        rows.append({"seed": args.seed + i, "decisions": len(result.marks), "seconds": seconds})
        if not args.json:
            print(f"game {args.seed + i}: {len(result.marks)} decisions, {seconds:.1f} s")
    times = [row["seconds"] for row in rows]
    summary = {
        "games": len(rows),
        "iterations": args.iterations,
        "median_seconds": statistics.median(times),
        "min_seconds": min(times),
        "max_seconds": max(times),
        "per_decision_ms": 1000 * sum(times) / sum(row["decisions"] for row in rows),
    }
    if args.json:
        print(json.dumps({"games": rows, **summary}, indent=2))
    else:
        print(
            f"{len(rows)} games at {args.iterations} playouts a decision: median "
            f"{summary['median_seconds']:.1f} s of one core a game "
            f"({summary['min_seconds']:.1f}-{summary['max_seconds']:.1f}), "
            f"{summary['per_decision_ms']:.0f} ms a decision"
        )


if __name__ == "__main__":
    main()
