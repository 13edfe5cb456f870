"""Train a small masked policy against the random bot with REINFORCE, in numpy only.

The policy scores each *legal* action (the mask says which) with a linear function of a few
features read from the observation arrays, and picks by softmax; nothing else about the game is
used.  Features of a tile placement: how many tiles and whose figures surround the square; of a
figure placement: the kind of feature it goes on (read from the placed tile's edge planes) and how
many meeples are left; every other action gets a bias of its block.  Training plays the
Gymnasium environment (``carcassonne.env.SingleAgentEnv``) against ``random``, alternating seats,
and pushes the weights toward the actions of games won by a wide margin.

    python examples/train_masked_policy.py                 # the documented budget
    python examples/train_masked_policy.py --games 20 --eval-games 10   # a quick try

Prints the win rate against the random bot of the untrained policy (uniform over legal actions,
i.e. the random bot itself) and of the trained one played greedily (its best-scored action), on
the same seeds; docs/env.md shows a run.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from carcassonne.env import BOARD_CHANNELS, GAME_FIELDS, SEAT_FIELDS, SingleAgentEnv
from carcassonne.env.actions import FIGURE_SLOTS, ActionLayout

CH = {name: i for i, name in enumerate(BOARD_CHANNELS)}
MEEPLES = SEAT_FIELDS.index("meeples")
TILES_LEFT = 6 * len(SEAT_FIELDS) + GAME_FIELDS.index("tiles_left")
KINDS = ("city", "road", "field", "monastery", "garden")
# feature blocks: tile placement, figure placement (kind × [1, meeples left]), pass, other
TILE_FEATURES = ("bias", "neighbours", "ring", "own_next", "their_next", "own_ring")
FIGURE_FEATURES = tuple(f"{kind}{extra}" for kind in KINDS for extra in ("", "*meeples"))
PASS_FEATURES = ("pass", "pass*meeples", "pass*tiles_left")
FEATURES = (*TILE_FEATURES, *FIGURE_FEATURES, *PASS_FEATURES, "other")
T0, F0, P0, OTHER = (
    0,
    len(TILE_FEATURES),
    len(TILE_FEATURES) + len(FIGURE_FEATURES),
    len(FEATURES) - 1,
)
EDGE_SIDES = {"N": 0, "E": 1, "S": 2, "W": 3}


def shifted_sum(plane: np.ndarray, offsets: list[tuple[int, int]]) -> np.ndarray:
    """For every square, the sum of ``plane`` over the squares at ``offsets`` (0 off the board)."""
    padded = np.pad(plane.astype(np.float32), 1)
    h, w = plane.shape
    total = np.zeros((h, w), np.float32)
    for dy, dx in offsets:
        total += padded[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]
    return total


FOUR = [(-1, 0), (1, 0), (0, -1), (0, 1)]
RING = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx]


def action_features(
    observation: dict[str, Any], layout: ActionLayout
) -> tuple[np.ndarray, np.ndarray]:
    """(legal indices, one feature row per legal index) for one observation."""
    legal = np.flatnonzero(observation["action_mask"])
    board = observation["observation"]["board"]
    vector = observation["observation"]["vector"]
    meeples = vector[MEEPLES] / 7.0
    rows = np.zeros((len(legal), len(FEATURES)), np.float32)
    tiles = legal < layout.tiles
    if tiles.any():
        cells = legal[tiles] // 4
        r, c = np.divmod(cells, layout.window.width)
        mine = board[CH["figure_seat"]] == 1
        theirs = board[CH["figure_seat"]] > 1
        tile_rows = rows[tiles]
        tile_rows[:, T0] = 1
        tile_rows[:, T0 + 1] = shifted_sum(board[CH["tile"]], FOUR)[r, c] / 4
        tile_rows[:, T0 + 2] = shifted_sum(board[CH["tile"]], RING)[r, c] / 8
        tile_rows[:, T0 + 3] = shifted_sum(mine, FOUR)[r, c]
        tile_rows[:, T0 + 4] = shifted_sum(theirs, FOUR)[r, c]
        tile_rows[:, T0 + 5] = shifted_sum(mine, RING)[r, c]
        rows[tiles] = tile_rows
    last = np.argwhere(board[CH["last_placed"]] == 1)
    for i, index in enumerate(legal):
        if index < layout.tiles:
            continue
        if index == layout.pass_index:
            rows[i, P0 : P0 + 3] = (1, meeples, vector[TILES_LEFT] / 72)
        elif layout.figure_start <= index < layout.recall_index and len(last):
            figure, location = FIGURE_SLOTS[index - layout.figure_start]
            kind = figure_kind(board, tuple(last[0]), location)
            rows[i, F0 + 2 * kind : F0 + 2 * kind + 2] = (1, meeples)
        else:
            rows[i, OTHER] = 1
    return legal, rows


def figure_kind(board: np.ndarray, cell: tuple[int, int], location: str) -> int:
    """Index in KINDS of the feature at ``location`` of the tile on ``cell``."""
    if location in ("monastery", "garden"):
        return KINDS.index(location)
    if location in EDGE_SIDES:  # a city or road, named by an edge
        code = board[CH["edge_n"] + EDGE_SIDES[location], cell[0], cell[1]]
        return 0 if code == 1 else 1
    return 2  # a field, named by a half-edge


def choose(
    weights: np.ndarray,
    observation: dict[str, Any],
    layout: ActionLayout,
    rng: np.random.Generator | None,
) -> tuple[int, np.ndarray]:
    """(index, gradient of its log-probability); greedy when ``rng`` is None."""
    legal, rows = action_features(observation, layout)
    scores = rows @ weights
    if rng is None:
        return int(legal[int(np.argmax(scores))]), np.zeros_like(weights)
    probabilities = np.exp(scores - scores.max())
    probabilities /= probabilities.sum()
    k = int(rng.choice(len(legal), p=probabilities))
    return int(legal[k]), rows[k] - probabilities @ rows


def play(
    weights: np.ndarray,
    seat: int,
    seed: int,
    rng: np.random.Generator | None,
    env_cache: dict[int, SingleAgentEnv],
) -> tuple[float, np.ndarray]:
    """One game against the random bot: (margin over it, summed log-probability gradient)."""
    env = env_cache.setdefault(seat, SingleAgentEnv("random", seat=seat))
    observation, _ = env.reset(seed=seed)
    gradient = np.zeros_like(weights)
    done = False
    while not done:
        action, step_gradient = choose(weights, observation, env.aec.layout, rng)
        gradient += step_gradient
        observation, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    scores = env.aec.game.scores
    return float(scores[seat] - scores[1 - seat]), gradient


def win_rate(
    weights: np.ndarray, games: int, first_seed: int, rng: np.random.Generator | None
) -> float:
    """Share of ``games`` won against the random bot, seats alternating (greedy if no rng)."""
    envs: dict[int, SingleAgentEnv] = {}
    wins = sum(play(weights, g % 2, first_seed + g, rng, envs)[0] > 0 for g in range(games))
    return wins / games


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="training games (the budget)")
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--learning-rate", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    weights = np.zeros(len(FEATURES), np.float32)
    # untrained, the policy picks uniformly among legal actions: it is the random bot
    before = win_rate(weights, args.eval_games, 10_000, rng)
    print(f"before training: the policy wins {before:.1%} of {args.eval_games} games vs random")
    start = time.perf_counter()
    envs: dict[int, SingleAgentEnv] = {}
    baseline = 0.0
    for game in range(args.games):
        margin, gradient = play(weights, game % 2, args.seed * 100_000 + game, rng, envs)
        advantage = (margin - baseline) / 50.0
        baseline += 0.05 * (margin - baseline)
        weights += args.learning_rate * advantage * gradient
        if (game + 1) % max(1, args.games // 5) == 0:
            print(f"  {game + 1} games, mean margin {baseline:+.1f}")
    seconds = time.perf_counter() - start
    after = win_rate(weights, args.eval_games, 10_000, None)
    print(f"trained on {args.games} games in {seconds:.0f} s")
    print(
        f"after training: the policy (best-scored action) wins {after:.1%} "
        f"of {args.eval_games} games vs random"
    )
    print("weights: " + ", ".join(f"{n}={w:+.2f}" for n, w in zip(FEATURES, weights, strict=True)))
    return {"before": before, "after": after}


if __name__ == "__main__":
    main()
