"""A Gymnasium environment for one learning seat; the other seats are played by bots.

The bots are named by specs as everywhere else (``random``, ``greedy``, ``expert:iterations=50``;
``carcassonne bots`` lists them) and see only what their seat may know.  One :meth:`step` is one
decision of the learning seat, then the bots play until it must decide again or the game ends;
its reward is what the learning seat gained meanwhile (score points by default).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from ..bots import Bot, check_bot_spec, make_bot
from .aec import raw_env


class SingleAgentEnv(gymnasium.Env):
    """Carcassonne for one learner against bots (``gymnasium.Env``).

    ``opponents`` is one bot spec for every other seat or a list with one spec per other seat
    (in seat order); ``seat`` is the learner's seat.  Every other keyword is an option of
    :class:`~carcassonne.env.raw_env` (game options, ``window``, ``reward``, ``illegal_action``,
    ``max_cycles``).  Observations, action space and masks are those of the AEC environment;
    :meth:`action_masks` gives the mask alone, as maskable learners expect.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self, opponents: str | Sequence[str] = "random", seat: int = 0, **options: Any
    ) -> None:
        if options.get("turn_order", "game") != "game":
            raise ValueError("the single-agent environment plays in turn_order='game'")
        self.aec = raw_env(**options)
        players = self.aec.options.players
        if not 0 <= seat < players:
            raise ValueError(f"seat must be from 0 to {players - 1}, not {seat}")
        others = [s for s in range(players) if s != seat]
        specs = [opponents] * len(others) if isinstance(opponents, str) else list(opponents)
        if len(specs) != len(others):
            raise ValueError(
                f"opponents needs one bot spec per other seat ({len(others)}), not {len(specs)}"
            )
        self.opponent_specs = {
            s: check_bot_spec(spec) for s, spec in zip(others, specs, strict=True)
        }
        self.seat = seat
        self.agent = self.aec.possible_agents[seat]
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self.render_mode = self.aec.render_mode
        self._bots: dict[int, Bot] = {}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        self.aec.reset(seed=seed)
        game_seed = self.aec.game.options.seed or 0
        self._bots = {
            s: make_bot(spec, seed=game_seed * 8 + s) for s, spec in self.opponent_specs.items()
        }
        self._let_bots_play()
        return self.aec.observe(self.agent), self._info()

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        aec = self.aec
        if aec.terminations[self.agent] or aec.truncations[self.agent]:
            raise RuntimeError("the episode is over: call reset()")
        aec.step(action)
        self._let_bots_play()
        reward = aec._cumulative_rewards[self.agent]
        aec._cumulative_rewards[self.agent] = 0.0
        observation = aec.observe(self.agent)
        return (
            observation,
            reward,
            aec.terminations[self.agent],
            aec.truncations[self.agent],
            self._info(),
        )

    def _let_bots_play(self) -> None:
        aec = self.aec
        while not (aec.terminations[self.agent] or aec.truncations[self.agent]):
            seat = aec.game.to_move
            if seat == self.seat:
                return
            aec.play(self._bots[seat].choose(aec.game))

    def _info(self) -> dict[str, Any]:
        return dict(self.aec.infos[self.agent])

    def action_masks(self) -> np.ndarray:
        """The learner's action mask now (what maskable policy learners call)."""
        mask: np.ndarray = self.aec.observe(self.agent)["action_mask"]
        return mask

    def render(self) -> str | None:
        return self.aec.render()
