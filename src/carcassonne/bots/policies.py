"""The greedy bot's registry of phase policies: who decides an expansion's phases for it.

Its own module so that the policies (``bets_policy``, ``mapchips_policy``, or a third party's)
and the greedy bot both depend on it and not on each other: a policy sees the bot only through
:class:`PolicyBot`, what ``greedy.GreedyBot`` offers it.  See ``greedy.py`` for how a policy is
used.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ..game import Game
from .evaluate import Evaluator


class PolicyBot(Protocol):
    """What a policy may use of the bot deciding (``greedy.GreedyBot``)."""

    #: the bot's seeded generator: use it for any random choice, so the bot stays deterministic
    rng: random.Random

    def evaluator(self, game: Game) -> Evaluator: ...

    def lookahead(
        self, game: Game, actions: Sequence[Any] | None = None
    ) -> list[tuple[float, Any]]: ...

    def pick(self, scored: Sequence[tuple[float, Any]]) -> Any: ...


#: ``policy(game, bot) -> action``: one of ``game.legal_actions()``
Policy = Callable[[Game, PolicyBot], Any]

_POLICIES: dict[str, Policy] = {}


def register_policy(phase: str, fn: Policy) -> None:
    """Let the greedy bot decide ``phase`` with ``fn(game, bot) -> action`` (replaces any)."""
    if phase in ("tile", "figure"):
        raise ValueError(f"the greedy bot plays phase {phase!r} itself")
    _POLICIES[phase] = fn


def policy_for(phase: str) -> Policy | None:
    """The policy registered for ``phase``, if any."""
    return _POLICIES.get(phase)
