"""Bots: objects that choose an action for the seat to move.

Every bot has ``choose(game) -> action`` and must return one of ``game.legal_actions()``.
``make_bot(name, seed)`` builds one by name (``random``, ``greedy``).
"""

from __future__ import annotations

from typing import Any, Protocol

from ..game import Game


class Bot(Protocol):
    name: str

    def choose(self, game: Game) -> Any: ...


BOT_NAMES = ("random", "greedy")


def make_bot(name: str, seed: int | None = None) -> Bot:
    if name == "random":
        from .random_bot import RandomBot

        return RandomBot(seed)
    if name == "greedy":
        from .greedy import GreedyBot

        return GreedyBot(seed)
    raise ValueError(f"unknown bot {name!r} (choose from {', '.join(BOT_NAMES)})")
