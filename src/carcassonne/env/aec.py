"""The PettingZoo AEC environment: one agent per seat, one step per decision.

In the default ``turn_order="game"`` the agent selected is always the seat whose decision it is
(``game.to_move``), so a turn is a tile step, a figure step, then any expansion decisions (bets of
every seat, settle choices, a wine sale).  ``turn_order="cycle"`` selects the agents in a fixed
cycle instead: in each cycle the seat to move at its start makes one decision and the others take
the ``WAIT`` action: the form PettingZoo's parallel API and ``max_cycles`` need
(:func:`parallel_env`).

Rewards are score deltas, every seat's after every step (an opponent's completed city pays you
too when you have a knight in it); with ``reward="win"`` only the end pays: +1 for a sole
winner, 0 for a shared first place, -1 for the others.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import aec_to_parallel

from ..game import Game
from ..options import GameOptions
from .actions import WAIT, ActionLayout, Window, needs_extended
from .observations import (
    BOARD_CHANNELS,
    EXTENDED_CHANNELS,
    EXTENDED_VECTOR_SIZE,
    VECTOR_SIZE,
    Observer,
    tile_catalogue,
)

REWARDS = ("score", "win")
TURN_ORDERS = ("game", "cycle")
ILLEGAL_ACTIONS = ("raise", "random")
#: the open table's default window: 31 × 31 squares around the start tile
DEFAULT_WINDOW = 31
#: highest score the observation space admits (no game comes near it)
MAX_SCORE = 10_000
_OPTION_NAMES = frozenset(f.name for f in fields(GameOptions))
#: what an agent may do now: the engine actions and their indices, position by position
Legal = tuple[Sequence[Any], Sequence[int]]
_NO_MOVE: Legal = ((), ())


class IllegalActionError(ValueError):
    """An action index that is not legal for the agent now (with ``illegal_action="raise"``)."""


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    """Carcassonne as a PettingZoo AEC environment (see the module docstring and docs/env.md).

    Game options are those of :class:`~carcassonne.GameOptions` (``players``, ``river``,
    ``abbot``, ``bets``, ``inns_cathedrals``, ``traders_builders``, ``map``, ``map_chips``,
    ``meeples``, ``copies``, ``start_squares``, ``seed``, ``stack``, the rule variants);
    ``seed`` seeds the first :meth:`reset` that gets none.  ``extended_spaces`` chooses the
    extended action layout and observations (:mod:`carcassonne.env.actions`): None uses them
    when the game has Inns & Cathedrals or Traders & Builders, True always (one network for
    every game).
    """

    metadata = {"name": "carcassonne_v0", "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(
        self,
        *,
        window: int = DEFAULT_WINDOW,
        reward: str = "score",
        turn_order: str = "game",
        illegal_action: str = "raise",
        max_cycles: int | None = None,
        render_mode: str | None = None,
        extended_spaces: bool | None = None,
        **game_options: Any,
    ) -> None:
        super().__init__()
        unknown = set(game_options) - _OPTION_NAMES
        if unknown:
            known = ", ".join(sorted(_OPTION_NAMES))
            raise ValueError(f"unknown game options {sorted(unknown)} (known: {known})")
        for name, value, allowed in (
            ("reward", reward, REWARDS),
            ("turn_order", turn_order, TURN_ORDERS),
            ("illegal_action", illegal_action, ILLEGAL_ACTIONS),
        ):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(f"max_cycles must be at least 1, not {max_cycles}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.options = GameOptions(**game_options)
        probe = Game(self.options)  # checks the options; GameSetupError names what is wrong
        if extended_spaces is None:
            extended_spaces = needs_extended(self.options)
        elif not isinstance(extended_spaces, bool):
            raise ValueError(
                f"extended_spaces must be None, True or False, not {extended_spaces!r}"
            )
        elif not extended_spaces and needs_extended(self.options):
            raise ValueError(
                "extended_spaces=False cannot cover Inns & Cathedrals or Traders & Builders: "
                "their figures have indices only in the extended action layout"
            )
        self.extended_spaces: bool = extended_spaces
        self.reward_mode = reward
        self.turn_order = turn_order
        self.illegal_action = illegal_action
        self.max_cycles = max_cycles
        self.render_mode = render_mode
        self.layout = ActionLayout(Window.for_game(probe, window), extended_spaces)
        self.possible_agents = [f"player_{seat}" for seat in range(self.options.players)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        #: the only move of an agent whose decision it is not, in turn_order="cycle"
        self._wait: Legal = ((WAIT,), (self.layout.wait_index,))
        self._legal: Legal = _NO_MOVE
        channels = len(BOARD_CHANNELS) + (len(EXTENDED_CHANNELS) if extended_spaces else 0)
        vector = EXTENDED_VECTOR_SIZE if extended_spaces else VECTOR_SIZE
        tiles = len(tile_catalogue(extended_spaces))
        board = (channels, self.layout.window.height, self.layout.window.width)
        space = spaces.Dict(
            {
                "observation": spaces.Dict(
                    {
                        "board": spaces.Box(0, 255, board, np.uint8),
                        "tile": spaces.Box(0, 1, (tiles,), np.uint8),
                        "vector": spaces.Box(0, MAX_SCORE, (vector,), np.float32),
                    }
                ),
                "action_mask": spaces.Box(0, 1, (self.layout.size,), np.int8),
            }
        )
        self.observation_spaces = {agent: space for agent in self.possible_agents}
        self.action_spaces = {
            agent: spaces.Discrete(self.layout.size) for agent in self.possible_agents
        }
        self._seeds = random.Random(self.options.seed)
        self.game: Game = probe

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ---------------------------------------------------------------------------- the game

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: from ``seed`` if given, else the next of the current seed sequence.
        ``options`` is accepted as PettingZoo's API wants and unused: the game's options are
        the environment's."""
        if seed is not None:
            self._seeds = random.Random(seed)
        self.game = Game(self.options.with_(seed=self._seeds.getrandbits(32)))
        self._rng = random.Random(self._seeds.getrandbits(64))
        self.observer = Observer(self.game, self.layout.window, self.extended_spaces)
        self.agents = self.possible_agents.copy()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._scores = [0] * self.game.players
        #: whether a reward is not zero (all are zero until something is scored)
        self._paying = False
        self._steps = 0
        self._cursor = 0
        self._cycle_mover = 0
        self._next_decision()

    def _next_decision(self) -> None:
        """Index the legal actions of the decision now due, select the agent, fill the infos."""
        game = self.game
        legal = self.layout.index_actions(game.legal_actions())
        self._legal = legal
        indices = legal[1]
        self._legal_indices = np.fromiter(indices, np.intp, len(indices))
        # Over, or every placement of the drawn tile lies outside the window: then the game
        # cannot go on inside the action space (rare, docs/env.md) and the episode is cut.
        finished = game.is_over or not indices
        if self.turn_order == "cycle":
            # One decision per cycle, that of the seat to move when the cycle starts, and the
            # episode ends only between cycles: every agent's mask, taken before a cycle,
            # holds for the whole cycle (what the parallel API needs).
            position = self._cursor % game.players
            if position == 0:
                if finished:
                    self._end()
                    return
                self._cycle_mover = game.to_move
            self.agent_selection = self.possible_agents[position]
        elif finished:
            self._end()
            return
        else:
            self.agent_selection = self.possible_agents[game.to_move]
        selected = self.agent_selection
        # in turn_order="game" the selected agent's move is the decision's (the usual case,
        # without _legal_now's checks: every agent is alive until _end)
        own = legal if self.turn_order == "game" else self._legal_now(selected)
        infos = self.infos
        for agent in self.agents:
            infos[agent] = {}
        infos[selected] = {"legal_actions": list(own[0])}

    def _legal_now(self, agent: str) -> Legal:
        """What ``agent`` may do now: the engine actions and their indices, position by
        position (both empty when it has no move)."""
        if self.terminations.get(agent, True) or self.truncations.get(agent, True):
            return _NO_MOVE
        if self.turn_order == "game":
            return self._legal if agent == self.agent_selection else _NO_MOVE
        seat = self._seat[agent]
        if seat < self._cursor % self.game.players:
            return _NO_MOVE  # it has acted in this cycle
        if seat == self._cycle_mover:
            return self._legal
        return self._wait

    def observe(self, agent: str) -> dict[str, Any]:
        mask = np.zeros(self.layout.size, np.int8)
        if agent == self.agent_selection and self.turn_order == "game":
            # the decision's move (what _legal_now gives it; after _end the decision is
            # cleared, so a finished agent's mask stays empty)
            mask[self._legal_indices] = 1
        else:
            legal = self._legal_now(agent)
            if legal is self._legal:
                mask[self._legal_indices] = 1
            elif legal[1]:
                mask[list(legal[1])] = 1
        return self.observer.observe(self._seat[agent], mask)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        # the selected agent, alive: in turn_order="game" its move is the decision's
        actions, indices = self._legal if self.turn_order == "game" else self._legal_now(agent)
        try:
            # an int or numpy integer, never a float nor a bool
            position = -1 if isinstance(action, bool) else indices.index(operator.index(action))
        except (TypeError, ValueError):
            position = -1
        illegal = position < 0
        if illegal:
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    f"{agent}: action {action!r} is not legal now ({len(indices)} legal actions; "
                    "see the action mask or infos['legal_actions'])"
                )
            position = indices.index(self._rng.choice(indices))
        self.play(actions[position])
        if illegal:
            self.infos[agent]["illegal_action"] = action

    def play(self, action: Any) -> None:
        """Carry out an engine action for the selected agent (a legal one, or ``WAIT``): the
        step behind :meth:`step`, also used by the single-agent wrapper for its bots, whose
        placements may lie outside the window."""
        agent = self.agent_selection
        self._cumulative_rewards[agent] = 0.0
        game = self.game
        if action is not WAIT:
            phase = game.phase
            game.apply(action)
            if phase == "tile":
                assert game.last_placed is not None
                self.observer.tile_placed(game.last_placed)
            self.observer.sync_figures()
        self._steps += 1
        self._cursor += 1
        paid = self._pay(action is not WAIT and game.is_over)
        if self.max_cycles is not None and self._steps >= self.max_cycles * game.players:
            self._end(reason="max_cycles")
        else:
            self._next_decision()
        if paid:  # rewards of zero would add nothing to the cumulative ones
            self._accumulate_rewards()

    def _pay(self, just_ended: bool) -> bool:
        """Set every agent's reward for the step just played; whether any is not zero.

        Most steps pay nothing: when the rewards are all zero already and nothing was scored,
        nothing is rewritten."""
        scores = self.game.scores
        if self.reward_mode == "score":
            if not self._paying and scores == self._scores:
                return False
            for seat, agent in enumerate(self.possible_agents):
                if agent in self.rewards:
                    self.rewards[agent] = float(scores[seat] - self._scores[seat])
            self._scores = list(scores)
            self._paying = any(self.rewards.values())
            return self._paying
        if not self._paying and not just_ended:
            return False
        for agent in self.agents:
            self.rewards[agent] = 0.0
        if just_ended:
            winners = self.game.winners()
            for seat, agent in enumerate(self.possible_agents):
                if seat in winners:
                    self.rewards[agent] = 1.0 if len(winners) == 1 else 0.0
                else:
                    self.rewards[agent] = -1.0
        self._paying = any(self.rewards.values())
        return self._paying

    def _end(self, reason: str | None = None) -> None:
        """Terminate every agent when the game is over, else truncate (``reason`` or the window)."""
        game = self.game
        truncated = not game.is_over
        if not truncated:
            reason = None
        elif reason is None:
            reason = "the board outgrew the window"
        for agent in self.agents:
            if truncated:
                self.truncations[agent] = True
            else:
                self.terminations[agent] = True
            info: dict[str, Any] = {"scores": list(game.scores), "winners": game.winners()}
            if reason is not None:
                info["truncated_because"] = reason
            self.infos[agent] = info
        self._legal = _NO_MOVE
        self._legal_indices = np.zeros(0, np.intp)
        self.agent_selection = self.possible_agents[self._cursor % game.players]

    # ---------------------------------------------------------------------------- mapping

    def action_to_index(self, action: Any) -> int | None:
        """The index of an engine action (None: a placement outside the window)."""
        return self.layout.action_to_index(action)

    def index_to_action(self, index: int) -> Any:
        """The engine action of ``index`` in the current game."""
        return self.layout.index_to_action(index, self.game)

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        game = self.game
        scores = ", ".join(
            f"{agent} {game.scores[s]}" for s, agent in enumerate(self.possible_agents)
        )
        tile = game.current_tile.id if game.current_tile else "-"
        return (
            f"turn {game.turn}, phase {game.phase}, {self.possible_agents[game.to_move]} to move, "
            f"tile {tile}, {len(game.stack)} left; scores: {scores}"
        )

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> AECEnv:
    """:class:`raw_env` with PettingZoo's order checks (the usual way to make one)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


def parallel_env(**kwargs: Any) -> Any:
    """The parallel form: every agent acts each step, all but the one to move with ``WAIT``.

    It runs :class:`raw_env` with ``turn_order="cycle"``; each parallel step is one cycle, in
    which the seat to move at its start makes one decision.
    """
    if kwargs.setdefault("turn_order", "cycle") != "cycle":
        raise ValueError("the parallel environment plays in turn_order='cycle'")
    return aec_to_parallel(raw_env(**kwargs))
