"""The random bot: a uniformly random legal action (the baseline, and the benchmark's player)."""

from __future__ import annotations

import random
from typing import Any

from ..game import Game


class RandomBot:
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game) -> Any:
        actions = game.legal_actions()
        return actions[int(self.rng.random() * len(actions))]
