"""Environment speed and memory: steps per second of the PettingZoo env with a random agent.

Each step is what a learner pays for: ``env.last()`` (the observation with its action mask), a
uniformly random choice among the legal indices, ``env.step``.  The same games are also played on
the bare engine in the same run, so the price of the environment shows as a ratio on this
machine's load of the moment.  ``--against-base`` also plays base games through the environment,
batch by batch in turn with the chosen options, so that the two rates are measured side by side.
Memory is the Python heap growth for 40 environments (tracemalloc), divided by 40: right after
reset, 60 steps into a game, and at its end.  Not a test: run it by hand and compare with
``benchmarks/README.md``.

    python benchmarks/bench_env.py                               # base game
    python benchmarks/bench_env.py --bets --map france --map-chips
    python benchmarks/bench_env.py --inns-cathedrals --traders-builders --against-base
    python benchmarks/bench_env.py --extended-spaces --against-base   # price of the extension

Instruction counts (load-independent): ``--play-only --batches 1 --games N`` under cachegrind,
a short run subtracted from a long one, with ``OPENBLAS_NUM_THREADS=1``: numpy's BLAS threads
otherwise spin for a varying while and the counts spread by 5 %.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import tracemalloc

import numpy as np

from carcassonne.env import raw_env
from carcassonne.game import Game


def env_batch(kwargs: dict, games: int, seed: int) -> tuple[float, int, list[int]]:
    """(CPU seconds, steps, the games' seeds) for ``games`` random games through the environment."""
    e = raw_env(**kwargs)
    # The agent's own cost kept small, so that the rate is the environment's: the legal
    # indices from the mask's bool view (nonzero() of the int8 mask itself is seven times
    # slower), the choice by random.Random (numpy's Generator.integers costs six times more)
    rng = random.Random(seed)
    steps = 0
    seeds = []
    start = time.process_time()
    for i in range(games):
        e.reset(seed=seed + i)
        seeds.append(e.game.options.seed)
        while True:
            observation, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                break
            legal = observation["action_mask"].view(np.bool_).nonzero()[0]  # the mask is 0/1
            e.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
    return time.process_time() - start, steps, seeds


def engine_batch(kwargs: dict, seeds: list[int]) -> tuple[float, int]:
    """(CPU seconds, decisions) for the games of ``seeds`` on the bare engine, random players."""
    options = raw_env(**kwargs).options
    rng = random.Random(seeds[0])
    decisions = 0
    start = time.process_time()
    for seed in seeds:
        game = Game(options.with_(seed=seed))
        while not game.is_over:
            actions = game.legal_actions()
            game.apply(actions[int(rng.random() * len(actions))])
            decisions += 1
    return time.process_time() - start, decisions


def memory_per_env(kwargs: dict, steps: int, count: int = 40) -> float:
    """Bytes of Python heap per environment, each advanced ``steps`` random steps (or to the
    end of its game)."""
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    envs = []
    rng = np.random.default_rng(0)
    for i in range(count):
        e = raw_env(**kwargs)
        e.reset(seed=i)
        for _ in range(steps):
            observation, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                break
            legal = np.flatnonzero(observation["action_mask"])
            e.step(int(legal[rng.integers(len(legal))]))
        envs.append(e)
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return used / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--abbot", action="store_true")
    parser.add_argument("--bets", action="store_true")
    parser.add_argument("--map", default=None)
    parser.add_argument("--map-chips", action="store_true")
    parser.add_argument("--inns-cathedrals", action="store_true")
    parser.add_argument("--traders-builders", action="store_true")
    parser.add_argument(
        "--extended-spaces",
        action="store_true",
        help="the extended action layout and observations even without those expansions",
    )
    parser.add_argument(
        "--against-base",
        action="store_true",
        help="also time base games through the environment, batch by batch in turn",
    )
    parser.add_argument(
        "--play-only",
        action="store_true",
        help="only the games through the environment (no engine games, no memory): for "
        "instruction counts",
    )
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--games", type=int, default=20, help="games per batch")
    args = parser.parse_args()
    kwargs = {
        "players": args.players,
        "abbot": args.abbot,
        "bets": args.bets,
        "map": args.map,
        "map_chips": args.map_chips,
        "inns_cathedrals": args.inns_cathedrals,
        "traders_builders": args.traders_builders,
    }
    if args.extended_spaces:
        kwargs["extended_spaces"] = True
    base = {"players": args.players}
    env_batch(kwargs, 1, 0)  # warm-up: per-tile tables, tile vectors
    if args.against_base:
        env_batch(base, 1, 0)
    env_rates, engine_rates, base_rates, base_engine_rates = [], [], [], []
    for b in range(args.batches):
        seed = 1000 + b * args.games
        seconds, steps, seeds = env_batch(kwargs, args.games, seed)
        env_rates.append(steps / seconds)
        if args.play_only:
            print(f"batch {b}: {steps} steps, {steps / seconds:,.0f} steps/s")
            continue
        seconds, decisions = engine_batch(kwargs, seeds)
        engine_rates.append(decisions / seconds)
        if args.against_base:
            seconds, steps, base_seeds = env_batch(base, args.games, seed)
            base_rates.append(steps / seconds)
            seconds, decisions = engine_batch(base, base_seeds)
            base_engine_rates.append(decisions / seconds)
    if args.play_only:
        return
    env_rate = statistics.median(env_rates)
    engine_rate = statistics.median(engine_rates)
    print(f"options: {kwargs}")
    print(f"env steps/s (random masked agent, observations): {env_rate:,.0f}")
    print(f"engine decisions/s (same games, no env):        {engine_rate:,.0f}")
    print(f"env / engine: {env_rate / engine_rate:.3f}")
    if base_rates:
        base_rate = statistics.median(base_rates)
        base_engine_rate = statistics.median(base_engine_rates)
        print(f"base game env steps/s (same run, in turn):      {base_rate:,.0f}")
        print(f"base game engine decisions/s (same run):        {base_engine_rate:,.0f}")
        for what, ours, theirs in (
            ("env", env_rates, base_rates),
            ("engine", engine_rates, base_engine_rates),
        ):
            ratio = statistics.median(o / t for o, t in zip(ours, theirs, strict=True))
            print(f"{what} with these options / in the base game: {ratio:.3f} (median of batches)")
    memory = ", ".join(
        f"{label} {memory_per_env(kwargs, steps) / 1024:,.0f} KiB"
        for label, steps in (("after reset", 0), ("after 60 steps", 60), ("at the end", 10_000))
    )
    print(f"memory per environment: {memory}")


if __name__ == "__main__":
    main()
