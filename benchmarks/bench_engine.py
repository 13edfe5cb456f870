"""Engine speed: random games per second and the cost of generating legal actions.

Plays random games (2 players, base game unless flags add expansions; farmers are always part
of the base game) in which every action is drawn uniformly from the full ``legal_actions()``
list, so the figure is the engine's own cost with a near-free player.  Not a test: run it by hand
and compare with ``benchmarks/README.md``.

    python benchmarks/bench_engine.py                   # base game
    python benchmarks/bench_engine.py --abbot --river   # with expansions
    python benchmarks/bench_engine.py --profile         # top cProfile entries of one batch

games/s (per CPU second of this process) is the median over batches, so one slow batch (another
process waking up) does not move it.  The legal-action figures come from a separate pass, so
their timers do not slow the games down: at every decision the game's cached list is dropped and
the first ``legal_actions()`` call is timed; for tile decisions the placement search the engine
does when it draws a tile (``Game._legal_placements``) is timed as well.  Both reach into engine
internals on purpose, as they measure exactly those internals.

**Builds side by side** (pure Python against the compiled engine, or any two installs)::

    python benchmarks/bench_engine.py --build pure=.venv/bin/python \
        --build compiled=.venv-compiled/bin/python [--simulate-games 2000]

runs rounds in turn on each interpreter (a fresh process per round, the builds alternating so
that a busy machine slows both alike) and prints, per build, the median over rounds of: random
games/s, base game and "everything" (France + Map-Chips + Abbot + Bets; the River cannot join a
map), greedy decisions/s, and the µs a whole tile turn costs at turns 10 and 60 of random base
games (flat is the goal: the incremental engine should not slow down as the board fills); then
each build's ratio to the first.  ``--simulate-games N`` adds the whole-process figure: the wall
time of ``carcassonne simulate --games N --players random,random`` per build.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import random
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import carcassonne
from carcassonne.bots.greedy import GreedyBot
from carcassonne.cli.options import add_game_options, options_from_args
from carcassonne.game import Game, GameOptions

#: which build runs; engines from before the compiled build had no marker and were all pure,
#: so that older commits can be measured side by side too
BUILD = getattr(carcassonne, "BUILD", "pure")
#: the "everything" of the builds comparison: every expansion that can share a game
EVERYTHING = GameOptions(map="france", map_chips=True, abbot=True, bets=True)
#: tile turns whose cost the builds comparison reports
TURNS = (10, 60)


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
    """(CPU seconds, decisions) for ``games`` random games with consecutive seeds.

    CPU time of this process, not wall time: on a shared machine the time spent waiting for a
    core is not the engine's.
    """
    rng = random.Random(first_seed)
    decisions = 0
    start = time.process_time()
    for i in range(games):
        decisions += play_random(options.with_(seed=first_seed + i), rng)
    return time.process_time() - start, decisions


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


def tile_turn_costs(games: int, first_seed: int) -> dict[int, float]:
    """Mean µs of whole tile turns (every decision from drawing to the next draw, random
    actions) at each of :data:`TURNS`, over ``games`` random 2-player base games."""
    clock = time.perf_counter_ns
    totals = dict.fromkeys(TURNS, 0)
    rng = random.Random(first_seed)
    for i in range(games):
        game = Game(GameOptions(seed=first_seed + i))
        while not game.is_over:
            turn = game.turn + 1  # the turn whose tile is being placed
            t0 = clock()
            while True:  # up to the next tile decision, or the end
                actions = game.legal_actions()
                game.apply(actions[int(rng.random() * len(actions))])
                if game.is_over or (game.phase == "tile" and game.turn == turn):
                    break
            if turn in totals:
                totals[turn] += clock() - t0
    return {turn: total / games / 1000 for turn, total in totals.items()}


def greedy_decisions_per_second(games: int, first_seed: int) -> float:
    """Decisions per CPU second of the greedy bot playing itself, 2-player base games."""
    decisions = 0
    seconds = 0.0
    for i in range(games):
        game = Game(GameOptions(seed=first_seed + i))
        bots = [GreedyBot(2 * i), GreedyBot(2 * i + 1)]
        while not game.is_over:
            t0 = time.process_time()
            action = bots[game.to_move].choose(game)
            seconds += time.process_time() - t0
            decisions += 1
            game.apply(action)
    return decisions / seconds


def measure_round(games: int, seed: int) -> dict[str, float]:
    """One round of the builds comparison, in this process (see the module docstring)."""
    base_seconds, _ = run_batch(GameOptions(), games, seed)
    everything_seconds, _ = run_batch(EVERYTHING, max(1, games // 2), seed)
    round_: dict[str, float] = {
        "random games/s, base": games / base_seconds,
        "random games/s, everything": max(1, games // 2) / everything_seconds,
        "greedy decisions/s, base": greedy_decisions_per_second(max(1, games // 100), seed),
    }
    for turn, micros in tile_turn_costs(games, seed).items():
        round_[f"µs per tile turn {turn}"] = micros
    return round_


def simulate_seconds(python: str, games: int) -> float:
    """Wall time of a whole ``carcassonne simulate`` process of random games."""
    command = [python, "-m", "carcassonne.cli.main", "simulate", "--games", str(games)]
    t0 = time.perf_counter()
    subprocess.run(
        [*command, "--players", "random,random", "--seed", "1"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - t0


def compare_builds(builds: list[tuple[str, str]], rounds: int, games: int, simulate: int) -> int:
    """Run :func:`measure_round` in each build's interpreter in turn; print medians and ratios."""
    script = str(Path(__file__).resolve())
    results: dict[str, list[dict[str, float]]] = {label: [] for label, _ in builds}
    for r in range(rounds):
        order = builds if r % 2 == 0 else builds[::-1]
        for label, python in order:
            command = [python, script, "--round", str(games), "--seed", str(1 + r * games)]
            out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            reply = json.loads(out)
            built = reply.pop("build")
            if label in ("pure", "compiled") and built != label:
                print(f"note: {python} runs the {built!r} build, labelled {label!r}")
            results[label].append(reply)
            if simulate:
                seconds = simulate_seconds(python, simulate)
                results[label][-1][f"simulate {simulate} games, games/s"] = simulate / seconds
    first = builds[0][0]
    names = list(results[first][0])
    medians = {
        label: {n: statistics.median(r[n] for r in rows) for n in names}
        for label, rows in results.items()
    }
    print(f"builds side by side: medians of {rounds} rounds ({games} base games per round)")
    header = "".join(f"{label:>14}" for label, _ in builds)
    ratios = "".join(f"{label + '/' + first:>14}" for label, _ in builds[1:])
    print(f"{'':<36}{header}{ratios}")
    for n in names:
        values = "".join(f"{medians[label][n]:14.1f}" for label, _ in builds)
        ratio = "".join(
            f"{medians[label][n] / medians[first][n]:13.2f}x" for label, _ in builds[1:]
        )
        print(f"{n:<36}{values}{ratio}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=5, help="timed batches (default 5)")
    parser.add_argument("--games", type=int, default=200, help="games per batch (default 200)")
    add_game_options(parser)
    parser.set_defaults(seed=1)  # the first game's seed; game i is shuffled with seed + i
    parser.add_argument("--profile", action="store_true", help="profile one batch instead")
    parser.add_argument("--top", type=int, default=25, help="profile entries to print")
    parser.add_argument(
        "--play-only",
        action="store_true",
        help="only play the batches, print nothing (for an instruction counter; see README)",
    )
    parser.add_argument(
        "--build",
        action="append",
        default=[],
        metavar="LABEL=PYTHON",
        help="compare builds side by side: an interpreter with the package installed (twice or "
        "more); --batches rounds of --games games",
    )
    parser.add_argument(
        "--simulate-games",
        type=int,
        default=0,
        metavar="N",
        help="with --build: also time whole 'carcassonne simulate --games N' processes",
    )
    parser.add_argument("--round", type=int, metavar="GAMES", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.batches < 1 or args.games < 1:
        parser.error("--batches and --games must be at least 1")
    if args.round is not None:  # one round of a builds comparison, for compare_builds
        play_random(GameOptions(seed=0), random.Random(0))
        play_random(EVERYTHING.with_(seed=0), random.Random(0))
        print(json.dumps({"build": BUILD, **measure_round(args.round, args.seed)}))
        return 0
    if args.build:
        builds = [tuple(spec.split("=", 1)) for spec in args.build]
        if len(builds) < 2 or any(len(b) != 2 for b in builds):
            parser.error("--build takes LABEL=PYTHON, at least twice")
        return compare_builds(builds, args.batches, args.games, args.simulate_games)  # type: ignore[arg-type]
    options = options_from_args(args)
    enabled = [
        n.replace("_", "-")
        for n in ("river", "abbot", "bets", "map_chips", "traders_builders")
        if getattr(args, n, False)  # older engines lack the newer options
    ]
    if args.map:
        enabled.insert(0, f"map {args.map}")
    label = f"{args.players} players, base game" + "".join(f" + {n}" for n in enabled)
    # One whole game draws every tile type: tile data and the engine's per-tile tables are built
    # here, outside the timings.
    play_random(options.with_(seed=0), random.Random(0))

    if args.play_only:
        for b in range(args.batches):
            run_batch(options, args.games, args.seed + b * args.games)
        return 0

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
