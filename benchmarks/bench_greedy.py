"""Bot speed, this checkout against a baseline revision, side by side in one run.

Plays the same 2-player games (bots of the same seeds) with the code of this checkout and with
the code of a baseline git revision, alternating batches between the two, and prints decisions
per second of each (time spent in ``choose`` only) with their ratio; games/s counts the whole
game (choices and the engine applying them).  Times are the process's CPU time, so that waiting
for a core other processes hold does not count.  Not a test: run it by hand and compare with
``benchmarks/README.md``.

    python benchmarks/bench_greedy.py                             # greedy vs greedy, base game
    python benchmarks/bench_greedy.py --bets --map france --map-chips
    python benchmarks/bench_greedy.py --bot random                # engine speed (random play)
    python benchmarks/bench_greedy.py --baseline HEAD~3           # any revision to compare with

The baseline's ``src`` is extracted with ``git archive`` into a temporary directory; every batch
runs in a fresh interpreter started with ``-S`` (no site packages: the engine needs none) that
imports the package from one of the two trees, so the two never share a process.  Both sides
print a digest of the games' action histories: when they match, both timed exactly the same
positions (the bot's choices did not change), and the run says so.  Figures are medians over
batches; the machine's noise moves both sides alike, which is why only the ratio is compared.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import asdict
from pathlib import Path

from carcassonne.cli.options import add_game_options, options_from_args

REPO = Path(__file__).resolve().parent.parent
#: the last revision whose greedy bot copied the whole game for every candidate placement
DEFAULT_BASELINE = "3149948"

# Runs in the child interpreter: argv = [src dir, options JSON, bot name, first seed, games].
WORKER = """
import hashlib, json, sys, time
sys.path.insert(0, sys.argv[1])
from carcassonne.bots import make_bot
from carcassonne.game import Game, GameOptions

options = json.loads(sys.argv[2])
bot, first, games = sys.argv[3], int(sys.argv[4]), int(sys.argv[5])

def play(seed):
    game = Game(GameOptions(**options, seed=seed))
    bots = [make_bot(bot, seed * 10 + seat) for seat in range(game.players)]
    choosing, decisions, clock = 0.0, 0, time.process_time
    while not game.is_over:
        t0 = clock()
        action = bots[game.to_move].choose(game)
        choosing += clock() - t0
        decisions += 1
        game.apply(action)
    return choosing, decisions, game.history

play(first - 1)  # warm-up: the engine's per-tile tables, the imports
digest = hashlib.sha256()
choosing = decisions = 0
start = time.process_time()
for seed in range(first, first + games):
    seconds, n, history = play(seed)
    choosing += seconds
    decisions += n
    digest.update(repr(history).encode())
total = time.process_time() - start
print(json.dumps([choosing, total, decisions, digest.hexdigest()]))
"""


def extract(revision: str, into: Path) -> Path:
    """The ``src`` tree of ``revision``, written under ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", revision, "src"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def run_batch(src: Path, options: dict[str, object], bot: str, first: int, games: int) -> list:
    """[seconds choosing, seconds in all, decisions, history digest] of one batch."""
    out = subprocess.run(
        [sys.executable, "-S", "-c", WORKER, str(src), json.dumps(options), bot, str(first),
         str(games)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout  # fmt: skip
    return json.loads(out)  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, help="git revision to compare")
    parser.add_argument("--bot", default="greedy", help="bot in every seat (default greedy)")
    parser.add_argument("--batches", type=int, default=5, help="batches per side (default 5)")
    parser.add_argument("--games", type=int, default=4, help="games per batch (default 4)")
    add_game_options(parser)
    parser.set_defaults(seed=1)
    args = parser.parse_args(argv)
    if args.batches < 1 or args.games < 1:
        parser.error("--batches and --games must be at least 1")
    options = asdict(options_from_args(args))
    options = {k: v for k, v in options.items() if v is not None and k not in ("seed", "stack")}
    options["start_squares"] = None
    with tempfile.TemporaryDirectory() as tmp:
        sides = {"baseline": extract(args.baseline, Path(tmp)), "this checkout": REPO / "src"}
        results: dict[str, list[list]] = {name: [] for name in sides}
        for b in range(args.batches):
            first = args.seed + b * args.games
            order = list(sides) if b % 2 == 0 else list(reversed(sides))
            for name in order:
                results[name].append(run_batch(sides[name], options, args.bot, first, args.games))
    enabled = [k.replace("_", "-") for k, v in options.items() if v is True]
    if args.map:
        enabled.insert(0, f"map {args.map}")
    print(
        f"{args.bot} in every seat, {args.players} players, base game"
        + "".join(f" + {name}" for name in enabled)
        + f"; {args.batches} batches of {args.games} games per side, alternating"
    )
    rates = {}
    for name, batches in results.items():
        decisions = [d / choosing for choosing, _, d, _ in batches]
        games = [args.games / total for _, total, _, _ in batches]
        rates[name] = (statistics.median(decisions), statistics.median(games))
        print(
            f"  {name:<14} decisions/s {rates[name][0]:9.0f} (min {min(decisions):.0f}, "
            f"max {max(decisions):.0f})   games/s {rates[name][1]:7.2f}"
        )
    base, new = rates["baseline"], rates["this checkout"]
    print(f"  ratio          decisions/s x{new[0] / base[0]:.2f}   games/s x{new[1] / base[1]:.2f}")
    same = [a[3] for a in results["baseline"]] == [a[3] for a in results["this checkout"]]
    print(
        "  positions: identical on both sides (same action histories)"
        if same
        else "  positions: DIFFERENT (the bots' choices changed, the games diverge)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
