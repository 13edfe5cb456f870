"""Carcassonne for learning agents: a PettingZoo AEC environment and a Gymnasium wrapper.

Needs the ``rl`` extra (``pip install -e '.[rl]'``: numpy, gymnasium, pettingzoo)::

    from carcassonne.env import env
    e = env(bets=True, map="france", map_chips=True, inns_cathedrals=True, traders_builders=True)
    e.reset(seed=1)
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, info = e.last()
        mask = observation["action_mask"]
        e.step(None if terminated or truncated else e.action_space(agent).sample(mask))

The environment sits at the edge of the package: it uses the engine and the bots, and nothing in
the engine knows it exists.  ``docs/env.md`` documents the action layout, the observation
channels, the rewards and the options.
"""

import gymnasium

from .actions import WAIT, ActionLayout, Window
from .aec import IllegalActionError, env, parallel_env, raw_env
from .observations import (
    BOARD_CHANNELS,
    EXTENDED_CHANNELS,
    EXTENDED_GAME_FIELDS,
    EXTENDED_SEAT_FIELDS,
    GAME_FIELDS,
    PHASES,
    SEAT_FIELDS,
    tile_catalogue,
)
from .single import SingleAgentEnv

#: ``gymnasium.make(GYMNASIUM_ID, opponents="greedy", bets=True)`` makes a SingleAgentEnv
GYMNASIUM_ID = "carcassonne/Carcassonne-v0"
if GYMNASIUM_ID not in gymnasium.registry:
    gymnasium.register(id=GYMNASIUM_ID, entry_point="carcassonne.env.single:SingleAgentEnv")

__all__ = [
    "BOARD_CHANNELS",
    "EXTENDED_CHANNELS",
    "EXTENDED_GAME_FIELDS",
    "EXTENDED_SEAT_FIELDS",
    "GAME_FIELDS",
    "GYMNASIUM_ID",
    "PHASES",
    "SEAT_FIELDS",
    "WAIT",
    "ActionLayout",
    "IllegalActionError",
    "SingleAgentEnv",
    "Window",
    "env",
    "parallel_env",
    "raw_env",
    "tile_catalogue",
]
