"""Engine speed: random games per second and the cost of generating legal actions.

Plays random games (2 players, base game unless flags add expansions; farmers are always part
of the base game) in which every action is drawn uniformly from the full ``legal_actions()``
list, so the figure is the engine's own cost with a near-free player.  Not a test: run it by hand
and compare with ``benchmarks/README.md``.

    python benchmarks/bench_engine.py                   # base game
    python benchmarks/bench_engine.py --abbot --river   # with expansions
    python benchmarks/bench_engine.py --profile         # top cProfile entries of one batch

games/s is the median over batches, so one slow batch (another process waking up) does not move
it.  The legal-action figures come from a separate pass, so their timers do not slow the games
down: at every decision the game's cached list is dropped and the first ``legal_actions()`` call
is timed; for tile decisions the placement search the engine does when it draws a tile
(``Game._legal_placements``) is timed as well.  Both reach into engine internals on purpose, as
they measure exactly those internals.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import sys
import time
from collections import defaultdict

from carcassonne.cli.options import add_game_options, options_from_args
from carcassonne.game import Game, GameOptions


def play_random(options: GameOptions, rng: random.Random) -> int:
    """Play one game with uniformly random actions; returns the number of decisions."""
    game = Game(options)
    decisions = 0
    while not game.is_over:
        actions = game.legal_actions()
        game.apply(actions[int(rng.random() * len(actions))])
        decisions += 1
    return decisions


def run_batch(options: GameOptions, games: int, first_seed: int) -> tuple[float, int]:
    """(seconds, decisions) for ``games`` random games with consecutive seeds."""
    rng = random.Random(first_seed)
    decisions = 0
    start = time.perf_counter()
    for i in range(games):
        decisions += play_random(options.with_(seed=first_seed + i), rng)
    return time.perf_counter() - start, decisions


def _timer_overhead_ns() -> float:
    """The cost of the two perf_counter_ns calls around a timed call, to subtract it."""
    clock = time.perf_counter_ns
    samples = []
    for _ in range(2000):
        t0 = clock()
        samples.append(clock() - t0)
    return statistics.median(samples)


def legal_action_costs(options: GameOptions, games: int, first_seed: int) -> dict[str, float]:
    """Mean µs of a fresh ``legal_actions()`` per phase, and of the placement search."""
    clock = time.perf_counter_ns
    overhead = _timer_overhead_ns()
    totals: dict[str, int] = defaultdict(int)
    counts: dict[str, int] = defaultdict(int)
    rng = random.Random(first_seed)
    for i in range(games):
        game = Game(options.with_(seed=first_seed + i))
        while not game.is_over:
            phase = game.phase
            if phase == "tile":
                tile = game.current_tile
                t0 = clock()
                game._legal_placements(tile)  # type: ignore[arg-type]
                totals["placement search"] += clock() - t0
                counts["placement search"] += 1
            game._legal = None  # time a fresh generation, not the cached list
            t0 = clock()
            actions = game.legal_actions()
            elapsed = clock() - t0
            totals[phase] += elapsed
            counts[phase] += 1
            totals["all decisions"] += elapsed
            counts["all decisions"] += 1
            game.apply(actions[int(rng.random() * len(actions))])
    return {
        name: max(0.0, totals[name] / counts[name] - overhead) / 1000 for name in sorted(totals)
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=5, help="timed batches (default 5)")
    parser.add_argument("--games", type=int, default=200, help="games per batch (default 200)")
    add_game_options(parser)
    parser.set_defaults(seed=1)  # the first game's seed; game i is shuffled with seed + i
    parser.add_argument("--profile", action="store_true", help="profile one batch instead")
    parser.add_argument("--top", type=int, default=25, help="profile entries to print")
    args = parser.parse_args(argv)
    if args.batches < 1 or args.games < 1:
        parser.error("--batches and --games must be at least 1")
    options = options_from_args(args)
    enabled = [
        n.replace("_", "-") for n in ("river", "abbot", "bets", "map_chips") if getattr(args, n)
    ]
    if args.map:
        enabled.insert(0, f"map {args.map}")
    label = f"{args.players} players, base game" + "".join(f" + {n}" for n in enabled)
    # One whole game draws every tile type: tile data and the engine's per-tile tables are built
    # here, outside the timings.
    play_random(options.with_(seed=0), random.Random(0))

    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        run_batch(options, args.games, args.seed)
        profiler.disable()
        print(f"profile of {args.games} random games ({label}), by own time:")
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(args.top)
        return 0

    print(f"engine benchmark: {label}, uniformly random legal actions")
    rates = []
    decisions = 0
    for b in range(args.batches):
        seconds, batch_decisions = run_batch(options, args.games, args.seed + b * args.games)
        rates.append(args.games / seconds)
        decisions += batch_decisions
    per_game = decisions / (args.batches * args.games)
    print(
        f"games/s: {statistics.median(rates):.0f} (median of {args.batches} batches of "
        f"{args.games}; min {min(rates):.0f}, max {max(rates):.0f}); "
        f"{per_game:.0f} decisions per game"
    )
    costs = legal_action_costs(options, args.games, args.seed)
    print("µs per fresh legal_actions() call, by phase:")
    for name, micros in costs.items():
        print(f"  {name:<18} {micros:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
