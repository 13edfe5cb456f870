"""Train the expert's learned evaluation by self-play: writes ``data/evaluation.json``.

Plays seeded self-play games (2 players: greedy against greedy, or ``--bot SPEC`` against itself)
in three option sets (base; The Bets with the France map and its Map-Chips; Inns & Cathedrals with
Traders & Builders), and at the start of
every ``--every``-th tile turn records, for each seat, its :data:`learned.FEATURES` (as that seat
sees the position) and the points it still made until the end.  Each option set trains the
weights of its rule family (:data:`learned.FAMILIES`): the ridge least squares fit of the margin
one seat still made over the other on the difference of their features, in that set's games.
Every fifth game is held out, and the report gives, per family, the share of the variance of the
held-out margins (what one seat still made minus what the other did) explained by the family's
fit, by one fit of all families' games (what the evaluation was before it had families) and by
the static evaluation.

    python benchmarks/train_evaluation.py        # the shipped file (seed 26, 1000 games a set)
    python benchmarks/train_evaluation.py --games 60 --jobs 2 --out /tmp/evaluation.json
    python benchmarks/train_evaluation.py --bot expert:iterations=20,learned=0 --games 500 \
        --jobs 2 --out /tmp/evaluation.json     # margins of expert games (benchmarks/README.md)

The same command and seed write the same file (games, fit and rounding are deterministic).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from carcassonne.batch.runner import bot_seed, map_in_workers
from carcassonne.bots import check_bot_spec, make_bot
from carcassonne.bots.evaluate import Evaluator
from carcassonne.bots.learned import (
    FAMILIES,
    FEATURES,
    FORMAT,
    VERSION,
    family,
    parse_weights,
    seat_features,
)
from carcassonne.game import Game, GameOptions

OUT = Path(__file__).resolve().parent.parent / "src" / "carcassonne" / "data" / "evaluation.json"
#: the games each family's weights are trained on (the families of the issue 26 targets)
OPTION_SETS: dict[str, GameOptions] = {
    "base": GameOptions(),
    "bets+france+map-chips": GameOptions(bets=True, map="france", map_chips=True),
    "inns-cathedrals+traders-builders": GameOptions(inns_cathedrals=True, traders_builders=True),
}
assert sorted(family(options) for options in OPTION_SETS.values()) == sorted(FAMILIES)
#: ridge penalty per thousand positions: keeps weights of rarely seen features tame
RIDGE = 1.0


@dataclass(frozen=True, slots=True)
class Task:
    index: int
    options: GameOptions
    every: int
    horizon: int
    bot: str  # the spec of both seats


#: one seat at one position: (features, points still to make after its certain points, the
#: static evaluation's estimate of those points)
Sample = tuple[list[float], float, float]
#: every seat's sample at one position
Position = list[Sample]


def play(task: Task) -> tuple[int, list[Position]]:
    """One self-play game's positions.  The target of a position is what each seat's
    static value is ``horizon`` tile turns later (its final score if the game ends first, or
    with ``horizon`` 0), minus its certain points now."""
    options = task.options
    assert options.seed is not None
    game = Game(options)
    bots = [make_bot(task.bot, bot_seed(options.seed, seat)) for seat in range(game.players)]
    statics: list[list[float]] = []  # each tile turn: each seat's static value, as it sees it
    sampled: list[tuple[int, list[tuple[list[float], float]]]] = []  # turn, (features, certain)
    while not game.is_over:
        if game.phase == "tile":
            values = []
            for seat in range(game.players):
                evaluator = Evaluator(game)
                evaluator.seat = seat
                values.append(evaluator.seat_values(game)[seat])
            if len(statics) % task.every == 0:
                rows = []
                for seat in range(game.players):
                    certain, features = seat_features(game, seat)
                    rows.append((features[seat], certain[seat]))
                sampled.append((len(statics), rows))
            statics.append(values)
        game.apply(bots[game.to_move].choose(game))
    statics.append([float(s) for s in game.scores])
    end = len(statics) - 1
    positions = []
    for turn, rows in sampled:
        later = statics[end if task.horizon == 0 else min(end, turn + task.horizon)]
        now = statics[turn]
        positions.append(
            [(f, later[s] - certain, now[s] - certain) for s, (f, certain) in enumerate(rows)]
        )
    return task.index, positions


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix @ x = vector`` by Gaussian elimination with partial pivoting."""
    n = len(vector)
    rows = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        head = rows[col]
        for r in range(col + 1, n):
            factor = rows[r][col] / head[col]
            if factor:
                row = rows[r]
                for c in range(col, n + 1):
                    row[c] -= factor * head[c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (rows[r][n] - sum(rows[r][c] * x[c] for c in range(r + 1, n))) / rows[r][r]
    return x


def fit(positions: list[Position]) -> list[float]:
    """Ridge least squares weights of the first seat's margin still to come over the second
    on the difference of their features."""
    n = len(FEATURES)
    gram = [[0.0] * n for _ in range(n)]
    moment = [0.0] * n
    for (mine, my_points, _), (theirs, their_points, _) in positions:
        target = my_points - their_points
        x = [a - b for a, b in zip(mine, theirs, strict=True)]
        for i, xi in enumerate(x):
            if xi:
                moment[i] += xi * target
                row = gram[i]
                for j, xj in enumerate(x):
                    row[j] += xi * xj
    for i in range(n):
        gram[i][i] += RIDGE * len(positions) / 1000
    return solve(gram, moment)


def dot(weights: list[float], features: list[float]) -> float:
    return sum(w * x for w, x in zip(weights, features, strict=True))


def explained(positions: list[Position], predict: Callable[[Sample], float]) -> float | None:
    """Share of the variance of the margins (first seat's points still to come minus the
    second's) that ``predict``'s margins explain (R²): the bot compares seats, not totals.
    None without positions (a set of fewer than five games holds none out)."""
    if not positions:
        return None
    targets = [p[0][1] - p[1][1] for p in positions]
    guesses = [predict(p[0]) - predict(p[1]) for p in positions]
    mean = sum(targets) / len(targets)
    total = sum((t - mean) ** 2 for t in targets)
    residual = sum((t - g) ** 2 for t, g in zip(targets, guesses, strict=True))
    return 1.0 - residual / total


def _rounded(share: float | None) -> float | None:
    return None if share is None else round(share, 4)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games per option set")
    parser.add_argument("--every", type=int, default=2, help="sample every N-th tile turn")
    parser.add_argument(
        "--horizon",
        type=int,
        default=0,
        help="tile turns ahead whose static value is the target (0: the final scores)",
    )
    parser.add_argument("--seed", type=int, default=26, help="first game's shuffle seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--bot", default="greedy", type=check_bot_spec, help="bot spec of both seats (greedy)"
    )
    parser.add_argument("--out", type=Path, default=OUT, help=f"file to write (default {OUT})")
    args = parser.parse_args()
    tasks = [
        Task(
            k * args.games + i,
            options.with_(seed=args.seed + k * args.games + i),
            args.every,
            args.horizon,
            args.bot,
        )
        for k, options in enumerate(OPTION_SETS.values())
        for i in range(args.games)
    ]
    by_game: dict[int, list[Position]] = {}
    for index, samples in map_in_workers(play, tasks, len(tasks), args.jobs):
        by_game[index] = samples
        print(f"\r{len(by_game)}/{len(tasks)} games", end="", file=sys.stderr)
    print(file=sys.stderr)
    games = sorted(by_game)

    def positions(k: int | None, held: bool) -> list[Position]:
        """Option set ``k``'s (None: all sets') training or held-out positions."""
        return [
            p
            for i in games
            if (i % args.games % 5 == 4) == held and (k is None or i // args.games == k)
            for p in by_game[i]
        ]

    pooled = fit(positions(None, False))
    weights: dict[str, list[float]] = {}
    report: dict[str, dict[str, float | int | None]] = {}
    for k, options in enumerate(OPTION_SETS.values()):
        name = family(options)
        train, held_out = positions(k, False), positions(k, True)
        fitted = weights[name] = [round(w, 4) for w in fit(train)]
        report[name] = {
            "positions": len(train),
            "held_out_positions": len(held_out),
            "held_out_r2_learned": _rounded(explained(held_out, lambda s, w=fitted: dot(w, s[0]))),
            "held_out_r2_one_fit": _rounded(explained(held_out, lambda s: dot(pooled, s[0]))),
            "held_out_r2_static": _rounded(explained(held_out, lambda s: s[2])),
        }
    data = {
        "format": FORMAT,
        "version": VERSION,
        "about": (
            "Weights of the expert's learned evaluation (carcassonne.bots.learned), one list per "
            "rule family: a seat's value is its score plus the sum of weight * feature. Written "
            "by benchmarks/train_evaluation.py; do not edit by hand."
        ),
        "trained": {
            "command": "python benchmarks/train_evaluation.py "
            + f"--games {args.games} --every {args.every} --horizon {args.horizon} "
            + f"--seed {args.seed}"
            + ("" if args.bot == "greedy" else f" --bot {args.bot}"),
            "option_sets": {label: family(options) for label, options in OPTION_SETS.items()},
            "games": len(tasks),
            "families": report,
        },
        "features": list(FEATURES),
        "weights": weights,
    }
    parse_weights(data, str(args.out))  # never write a file the bot would refuse
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    for name, figures in report.items():
        print(
            f"{name}: {figures['positions']} positions ({figures['held_out_positions']} held "
            f"out): variance of the margins still to come explained by its fit "
            f"{figures['held_out_r2_learned']}, by one fit of all families "
            f"{figures['held_out_r2_one_fit']}, by the static evaluation "
            f"{figures['held_out_r2_static']}"
        )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
