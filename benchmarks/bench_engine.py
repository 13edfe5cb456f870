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

**Builds side by side** (pure Python against the compiled engine, this commit against an older
one, or any installs)::

    python benchmarks/bench_engine.py --build pure=.venv/bin/python \
        --build compiled=.venv-compiled/bin/python [--simulate-games 2000]
    python benchmarks/bench_engine.py --build pure-before=.venv/bin/python:/tmp/old/src ...

A build is ``LABEL=PYTHON``: an interpreter with the package installed; ``LABEL=PYTHON:SRCDIR``
runs that interpreter with ``SRCDIR`` (another checkout's ``src``) on ``PYTHONPATH``, the pure
build of another tree.  The comparison runs rounds in turn on each build (a fresh process per
round, the order alternating, so that a busy machine slows all alike; the rates are per CPU
second) and prints, per build, the median over rounds of: random games/s (base, "everything" =
France + Map-Chips + Abbot + Bets, I&C + T&B), greedy decisions/s, the µs a whole tile turn
costs around turns 10, 60 and 200 of a 216-tile game (three copies of the base set: how the cost
grows with the board), the µs of ``Game.copy()`` and ``Game.determinized()`` at a mid-game
position, the environment's steps/s (``bench_env.py``'s random masked agent) and the expert's
playouts/s at a fixed budget; then the ratios (``--ratio A/B``, default each build to the
first).  Only public API is used, so older engines can be measured too; a figure an engine
cannot give (an option or module it lacks) shows as "–".  ``--simulate-games N`` adds the
whole-process figure: the wall time of ``carcassonne simulate --games N --players
random,random`` per build.  ``benchmarks/README.md`` ("Issue 27") has the command and what each
figure is.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import random
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import carcassonne
from carcassonne.bots.greedy import GreedyBot
from carcassonne.cli.options import add_game_options, options_from_args
from carcassonne.game import Game, GameOptions

#: which build runs; engines from before the compiled build had no marker and were all pure,
#: so that older commits can be measured side by side too
BUILD = getattr(carcassonne, "BUILD", "pure")


def option_set(**fields: object) -> GameOptions | None:
    """``GameOptions(**fields)``, or None when this engine predates one of those options (the
    builds comparison then leaves that figure out for this build)."""
    try:
        return GameOptions(**fields)  # type: ignore[arg-type]
    except TypeError:
        return None


#: the builds comparison's random games: (name, options, a round plays --games // this many)
GAME_SETS: tuple[tuple[str, GameOptions | None, int], ...] = (
    ("base", GameOptions(), 1),
    # every expansion that can share a game (the River cannot join a map)
    ("everything", option_set(map="france", map_chips=True, abbot=True, bets=True), 2),
    ("I&C + T&B", option_set(inns_cathedrals=True, traders_builders=True), 2),
)
#: the long game whose tile turns the builds comparison times: three copies of the base set,
#: 216 tiles, 215 tile turns
LONG_GAME_COPIES = 3
#: the tile turns timed in it; each figure is the mean over the turns within TURN_SPAN of it
TURNS = (10, 60, 200)
TURN_SPAN = 2
#: the mid-game position (a base game's tile decision of this turn, of 71) that copy(),
#: determinized() and the expert's searches are timed on
MID_TURN = 36
COPY_REPEATS = 50
#: the expert's budget per timed decision (playouts)
EXPERT_ITERATIONS = 40


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


def _timer_overhead_ns(clock: Callable[[], int] = time.perf_counter_ns) -> float:
    """The cost of the two ``clock`` calls around a timed call, to subtract it."""
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


def tile_turn_costs(options: GameOptions, games: int, first_seed: int) -> dict[int, float]:
    """Mean CPU µs of a whole tile turn (every decision from drawing the tile to the next draw,
    random actions) around each of :data:`TURNS`: the mean over the turns within
    :data:`TURN_SPAN` of it, over ``games`` random 2-player games of ``options``."""
    clock = time.process_time_ns
    overhead = _timer_overhead_ns(clock)
    timed = {t + d: t for t in TURNS for d in range(-TURN_SPAN, TURN_SPAN + 1)}
    totals = dict.fromkeys(TURNS, 0.0)
    counts = dict.fromkeys(TURNS, 0)
    rng = random.Random(first_seed)
    for i in range(games):
        game = Game(options.with_(seed=first_seed + i))
        while not game.is_over:
            turn = game.turn + 1  # the turn whose tile is being placed
            t0 = clock()
            while True:  # up to the next tile decision, or the end
                actions = game.legal_actions()
                game.apply(actions[int(rng.random() * len(actions))])
                if game.is_over or (game.phase == "tile" and game.turn == turn):
                    break
            elapsed = clock() - t0
            if turn in timed:
                totals[timed[turn]] += elapsed - overhead
                counts[timed[turn]] += 1
    return {t: totals[t] / counts[t] / 1000 for t in TURNS if counts[t]}


def mid_game(first_seed: int, games: int) -> list[Game]:
    """``games`` random 2-player base games stopped at the tile decision of :data:`MID_TURN`."""
    positions = []
    rng = random.Random(first_seed)
    for i in range(games):
        game = Game(GameOptions(seed=first_seed + i))
        while not (game.phase == "tile" and game.turn + 1 == MID_TURN):
            actions = game.legal_actions()
            game.apply(actions[int(rng.random() * len(actions))])
        positions.append(game)
    return positions


def copy_costs(positions: list[Game], repeats: int) -> dict[str, float]:
    """Mean CPU µs of ``Game.copy()`` and of ``Game.determinized()`` (for the seat to move),
    each called ``repeats`` times on every position."""
    clock = time.process_time
    rng = random.Random(0)
    copying = determinizing = 0.0
    for game in positions:
        t0 = clock()
        for _ in range(repeats):
            game.copy()
        t1 = clock()
        for _ in range(repeats):
            game.determinized(game.to_move, rng)
        copying += t1 - t0
        determinizing += clock() - t1
    calls = len(positions) * repeats
    return {"copy": copying / calls * 1e6, "determinized": determinizing / calls * 1e6}


def env_steps_per_second(games: int, first_seed: int) -> float | None:
    """Steps per CPU second of the PettingZoo environment with a random masked agent, base
    games (:func:`bench_env.env_batch`); None for an engine without the environment."""
    try:
        from bench_env import env_batch
    except ImportError:
        return None
    env_batch({}, 1, 0)  # warm-up: the tile vectors and the per-tile tables
    seconds, steps, _ = env_batch({}, games, first_seed)
    return steps / seconds


def expert_playouts_per_second(positions: list[Game], seed: int) -> float | None:
    """Playouts per CPU second of the expert bot's searches at :data:`EXPERT_ITERATIONS`
    playouts per decision, one decision at each position (the priors and the sampled worlds
    included).  A playout ends in one evaluation of the position reached: the expert's unit of
    work.  None for an engine without the expert."""
    try:
        from carcassonne.bots.expert import ExpertBot
    except ImportError:
        return None
    playouts = 0
    seconds = 0.0
    for i, game in enumerate(positions):
        bot = ExpertBot(seed + i, iterations=EXPERT_ITERATIONS)
        t0 = time.process_time()
        bot.choose(game)
        seconds += time.process_time() - t0
        playouts += bot.stats.playouts
    return playouts / seconds


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
    """One round of the builds comparison, in this process (see the module docstring).

    ``games`` base games; the longer games and the other figures take the shares of it given
    here, so that one number scales the whole round."""
    round_: dict[str, float] = {}
    for name, options, share in GAME_SETS:
        if options is not None:
            played = max(1, games // share)
            seconds, _ = run_batch(options, played, seed)
            round_[f"random games/s, {name}"] = played / seconds
    round_["greedy decisions/s, base"] = greedy_decisions_per_second(max(1, games // 100), seed)
    long_game = option_set(copies=LONG_GAME_COPIES)
    if long_game is not None:
        for turn, micros in tile_turn_costs(long_game, max(1, games // 4), seed).items():
            round_[f"µs per tile turn {turn}"] = micros
    positions = mid_game(seed, max(1, games // 20))
    for name, micros in copy_costs(positions, COPY_REPEATS).items():
        round_[f"µs per Game.{name}()"] = micros
    steps = env_steps_per_second(max(1, games // 10), seed)
    if steps is not None:
        round_["env steps/s, base"] = steps
    playouts = expert_playouts_per_second(positions[: max(1, games // 40)], seed)
    if playouts is not None:
        round_[f"expert playouts/s ({EXPERT_ITERATIONS}/decision)"] = playouts
    return round_


def simulate_seconds(python: str, games: int, env: dict[str, str]) -> float:
    """Wall time of a whole ``carcassonne simulate`` process of random games."""
    command = [python, "-m", "carcassonne.cli.main", "simulate", "--games", str(games)]
    t0 = time.perf_counter()
    subprocess.run(
        [*command, "--players", "random,random", "--seed", "1"],
        check=True,
        stdout=subprocess.DEVNULL,
        env=env,
    )
    return time.perf_counter() - t0


@dataclass(frozen=True)
class Build:
    """One interpreter of the comparison, with the package installed or, for a pure build of
    another tree, found through ``PYTHONPATH``."""

    label: str
    python: str
    source: str | None = None

    @classmethod
    def parse(cls, spec: str) -> Build:
        """``LABEL=PYTHON`` or ``LABEL=PYTHON:SRCDIR``; ValueError naming what is wrong."""
        label, equals, rest = spec.partition("=")
        python, _, source = rest.partition(":")
        if not equals or not label or not python:
            raise ValueError(f"--build takes LABEL=PYTHON or LABEL=PYTHON:SRCDIR, not {spec!r}")
        if not Path(python).is_file():
            raise ValueError(f"--build {label}: no interpreter at {python}")
        if source and not (Path(source) / "carcassonne").is_dir():
            raise ValueError(f"--build {label}: {source} holds no carcassonne package")
        return cls(label, python, source or None)

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        if self.source is not None:
            env["PYTHONPATH"] = str(Path(self.source).resolve())
        return env


def compare_builds(
    builds: list[Build], rounds: int, games: int, simulate: int, ratios: list[tuple[str, str]]
) -> int:
    """Run :func:`measure_round` in each build's interpreter in turn; print medians and ratios
    (``ratios``: (numerator, denominator) labels; each build to the first when empty)."""
    script = str(Path(__file__).resolve())
    results: dict[str, list[dict[str, float]]] = {b.label: [] for b in builds}
    load_before = os.getloadavg()
    started = time.perf_counter()
    for r in range(rounds):
        order = builds if r % 2 == 0 else builds[::-1]
        for build in order:
            command = [build.python, script, "--round", str(games), "--seed", str(1 + r * games)]
            out = subprocess.run(
                command, check=True, capture_output=True, text=True, env=build.environment()
            ).stdout
            reply = json.loads(out)
            built, engine = reply.pop("build"), reply.pop("engine")
            if r == 0:
                print(f"{build.label}: {built} engine {engine} ({build.python})")
            results[build.label].append(reply)
            if simulate:
                seconds = simulate_seconds(build.python, simulate, build.environment())
                results[build.label][-1][f"simulate {simulate} games, games/s"] = simulate / seconds
    first = builds[0].label
    ratios = ratios or [(b.label, first) for b in builds[1:]]
    # the figures in the order of the build that gives the most (an older engine gives fewer)
    fullest = sorted(results.values(), key=lambda rows: -len(rows[0]))
    names = list(dict.fromkeys(n for rows in fullest for n in rows[0]))
    medians = {
        label: {n: statistics.median(r[n] for r in rows) for n in names if n in rows[0]}
        for label, rows in results.items()
    }
    print(
        f"builds side by side: medians of {rounds} rounds ({games} base games per round), "
        f"{time.perf_counter() - started:.0f} s; load average {load_before[0]:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after"
    )
    width = max(12, *(len(b.label) + 2 for b in builds))
    header = "".join(f"{b.label:>{width}}" for b in builds)
    ratio_width = max(10, *(len(f"{a}/{b}") + 2 for a, b in ratios))
    ratio_header = "".join(f"{a + '/' + b:>{ratio_width}}" for a, b in ratios)
    print(f"{'':<38}{header}{ratio_header}")
    for n in names:
        values = "".join(
            f"{medians[b.label][n]:{width}.1f}" if n in medians[b.label] else f"{'–':>{width}}"
            for b in builds
        )
        shown = ""
        for a, b in ratios:
            if n in medians[a] and n in medians[b]:
                shown += f"{medians[a][n] / medians[b][n]:{ratio_width - 1}.2f}x"
            else:
                shown += f"{'–':>{ratio_width}}"
        print(f"{n:<38}{values}{shown}")
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
        metavar="LABEL=PYTHON[:SRCDIR]",
        help="compare builds side by side (twice or more): an interpreter with the package "
        "installed, or with :SRCDIR a source tree's src folder to put on PYTHONPATH (a pure "
        "build of another checkout); --batches rounds of --games base games",
    )
    parser.add_argument(
        "--ratio",
        action="append",
        default=[],
        metavar="LABEL/LABEL",
        help="with --build: a ratio column to print (default: each build to the first)",
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
        for _, options, _ in GAME_SETS:  # tile data and per-tile tables, outside the timings
            if options is not None:
                play_random(options.with_(seed=0), random.Random(0))
        engine = str(Path(carcassonne.__file__).parent)
        reply = {"build": BUILD, "engine": engine, **measure_round(args.round, args.seed)}
        print(json.dumps(reply))
        return 0
    if args.build:
        try:
            builds = [Build.parse(spec) for spec in args.build]
        except ValueError as error:
            parser.error(str(error))
        labels = [b.label for b in builds]
        if len(builds) < 2 or len(set(labels)) < len(labels):
            parser.error("--build needs at least two builds, with different labels")
        ratios = [tuple(spec.split("/", 1)) for spec in args.ratio]
        for spec, ratio in zip(args.ratio, ratios, strict=True):
            if len(ratio) != 2 or not set(ratio) <= set(labels):
                parser.error(f"--ratio takes two build labels as A/B, not {spec!r}")
        return compare_builds(builds, args.batches, args.games, args.simulate_games, ratios)  # type: ignore[arg-type]
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
