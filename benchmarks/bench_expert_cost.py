"""What two bot specs cost per decision on the same positions: equal time as playout budgets.

Collects the tile decisions with a choice of a few seeded greedy games, then times each spec's
``choose`` over all of them (process time, the specs interleaved, median of ``--rounds``).  Two
experts play "at equal time" when their iteration budgets are in the inverse ratio of what a
playout costs them: the learned evaluation makes a base decision dearer than the static one at
the same playouts, so the static expert gets more playouts at the same time.

    python benchmarks/bench_expert_cost.py expert:iterations=200 expert:iterations=200,learned=0
    python benchmarks/bench_expert_cost.py expert:iterations=108 expert:iterations=108,learned=0 \
        --bets --map france --map-chips

Not a test: the figures (and the budgets they give) go in ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from carcassonne.bots import check_bot_spec, make_bot
from carcassonne.cli.options import add_game_options, options_from_args
from carcassonne.game import Game, GameOptions


def positions(options: GameOptions, games: int, every: int) -> list[Game]:
    """Every ``every``-th tile decision with more than one legal action of greedy games."""
    found: list[Game] = []
    for seed in range(games):
        game = Game(options.with_(seed=seed))
        bots = [make_bot("greedy", seat) for seat in range(game.players)]
        decisions = 0
        while not game.is_over:
            if game.phase == "tile" and len(game.legal_actions()) > 1:
                if decisions % every == 0:
                    found.append(game.copy())
                decisions += 1
            game.apply(bots[game.to_move].choose(game))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("specs", nargs="+", help="bot specs to compare")
    parser.add_argument("--games", type=int, default=2, help="greedy games to take positions from")
    parser.add_argument("--every", type=int, default=3, help="take every N-th decision")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds (median)")
    add_game_options(parser)
    args = parser.parse_args()
    for spec in args.specs:
        check_bot_spec(spec)
    found = positions(options_from_args(args), args.games, args.every)
    seconds: dict[str, list[float]] = {spec: [] for spec in args.specs}
    for _ in range(args.rounds):
        for spec in args.specs:
            bot = make_bot(spec, 7)
            start = time.process_time()
            for game in found:
                bot.choose(game)
            seconds[spec].append(time.process_time() - start)
    first = statistics.median(seconds[args.specs[0]])
    for spec in args.specs:
        median = statistics.median(seconds[spec])
        print(
            f"{spec}: {1000 * median / len(found):.1f} ms per decision "
            f"({len(found)} decisions, median of {args.rounds}), {median / first:.3f}x the first"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
