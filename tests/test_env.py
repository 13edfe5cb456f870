"""The learning environments: PettingZoo's and Gymnasium's own checks, the action layout, the
observations (exact values, incremental = rebuilt, nothing hidden), rewards and errors."""

from __future__ import annotations

import importlib.util
import random
import types
import warnings
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, max_cycles_test, seed_test

from carcassonne import PASS, Game, GameOptions, GameSetupError, PlaceFigure, PlaceTile
from carcassonne.env import (
    BOARD_CHANNELS,
    EXTENDED_CHANNELS,
    EXTENDED_GAME_FIELDS,
    EXTENDED_SEAT_FIELDS,
    GAME_FIELDS,
    GYMNASIUM_ID,
    SEAT_FIELDS,
    WAIT,
    IllegalActionError,
    SingleAgentEnv,
    env,
    parallel_env,
    raw_env,
    tile_catalogue,
)
from carcassonne.env.actions import EXTENDED_FIGURE_SLOTS, FIGURE_SLOTS
from carcassonne.env.observations import FIGURE_TYPES, Observer
from carcassonne.expansions.abbot import RecallAbbot
from carcassonne.expansions.bets import CHIPS, Bets, PlaceBet, SettleAgainst
from carcassonne.expansions.mapchips import MapChips, SellWine
from carcassonne.expansions.traders import GOODS
from carcassonne.maps import GRAPES, load_map
from carcassonne.tiles import BORDER, printed_city_tile, tile_by_id, tile_set

BASE: dict[str, Any] = {}
FULL: dict[str, Any] = {"bets": True, "map": "france", "map_chips": True}
#: the expansions only the extended layout and observations cover
IC_TB: dict[str, Any] = {"inns_cathedrals": True, "traders_builders": True}
EVERYTHING: dict[str, Any] = {"abbot": True, **IC_TB, **FULL}
OPTION_SETS = [
    pytest.param(BASE, id="base"),
    pytest.param(FULL, id="bets-france-chips"),
    pytest.param({"players": 4, "river": True, "abbot": True}, id="river-abbot-4p"),
    pytest.param(IC_TB, id="inns-traders"),
    pytest.param({"players": 3, **EVERYTHING}, id="everything-3p"),
]
CHANNEL = {name: i for i, name in enumerate((*BOARD_CHANNELS, *EXTENDED_CHANNELS))}
SEATS = 6  # seat slots in the vector (MAX_PLAYERS)
#: where the extended vector's fields start: after the plain vector
EXTENDED_START = SEATS * len(SEAT_FIELDS) + len(GAME_FIELDS)


def vector_field(vector: np.ndarray, name: str, seat_slot: int | None = None) -> float:
    """A named number of the observation vector (per-seat fields need the seat slot)."""
    if name in EXTENDED_SEAT_FIELDS:
        assert seat_slot is not None
        return float(
            vector[
                EXTENDED_START
                + seat_slot * len(EXTENDED_SEAT_FIELDS)
                + EXTENDED_SEAT_FIELDS.index(name)
            ]
        )
    if name in EXTENDED_GAME_FIELDS:
        start = EXTENDED_START + SEATS * len(EXTENDED_SEAT_FIELDS)
        return float(vector[start + EXTENDED_GAME_FIELDS.index(name)])
    if seat_slot is not None:
        return float(vector[seat_slot * len(SEAT_FIELDS) + SEAT_FIELDS.index(name)])
    return float(vector[SEATS * len(SEAT_FIELDS) + GAME_FIELDS.index(name)])


def random_steps(e: raw_env, rng: random.Random, steps: int) -> None:
    """Play up to ``steps`` uniformly random legal actions (fewer if the game ends)."""
    for _ in range(steps):
        agent = e.agent_selection
        if e.terminations[agent] or e.truncations[agent]:
            return
        e.step(rng.choice(np.flatnonzero(e.observe(agent)["action_mask"]).tolist()))


# ------------------------------------------------------------------ PettingZoo and Gymnasium


@pytest.mark.parametrize("options", OPTION_SETS)
def test_pettingzoo_api_test(options: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        # nested dict observations (board planes + vectors) are expected to warn
        warnings.simplefilter("ignore", UserWarning)
        api_test(env(**options), num_cycles=1000)


@pytest.mark.parametrize("options", OPTION_SETS)
def test_pettingzoo_seed_test(options: dict[str, Any]) -> None:
    seed_test(partial(env, **options), num_cycles=300)


@pytest.mark.parametrize("options", OPTION_SETS)
def test_pettingzoo_max_cycles_test(options: dict[str, Any]) -> None:
    # max_cycles_test samples actions without the mask: those are replaced by random legal ones
    module = types.SimpleNamespace(
        env=partial(env, turn_order="cycle", illegal_action="random", **options),
        parallel_env=partial(parallel_env, illegal_action="random", **options),
    )
    max_cycles_test(module)


def test_gymnasium_make_builds_the_single_agent_env() -> None:
    made = gymnasium.make(GYMNASIUM_ID, opponents="greedy", bets=True)
    observation, info = made.reset(seed=2)
    assert isinstance(made.unwrapped, SingleAgentEnv)
    assert made.unwrapped.aec.options.bets
    assert observation["action_mask"].sum() == len(info["legal_actions"]) > 0


@pytest.mark.parametrize(
    "options",
    [
        pytest.param(BASE, id="base"),
        pytest.param(IC_TB, id="inns-traders"),
        pytest.param(EVERYTHING, id="everything"),
    ],
)
def test_gymnasium_check_env_and_a_game_against_greedy(options: dict[str, Any]) -> None:
    # check_env samples actions without the mask: those are replaced by random legal ones
    check_env(SingleAgentEnv("greedy", illegal_action="random", **options), skip_render_check=True)
    single = SingleAgentEnv("greedy", seat=1, **{**FULL, **options})
    observation, info = single.reset(seed=3)
    total = 0.0
    terminated = truncated = False
    while not (terminated or truncated):
        assert single.aec.game.to_move == 1
        legal = np.flatnonzero(observation["action_mask"])
        by_index = sorted(info["legal_actions"], key=single.aec.action_to_index)
        assert [single.aec.index_to_action(i) for i in legal] == by_index
        observation, reward, terminated, truncated, info = single.step(int(legal[0]))
        total += reward
    assert terminated and not truncated
    assert total == single.aec.game.scores[1]


# -------------------------------------------------------------------------- the action space


RARE_KINDS = (RecallAbbot, SettleAgainst, SellWine)


def test_every_legal_action_has_an_index_and_back() -> None:
    # Every option on; the rare kinds (recall, settle choices, wine) are played whenever legal,
    # so that a few games offer every kind of action.
    e = raw_env(**EVERYTHING)
    kinds: set[type] = set()
    figures: set[str] = set()
    for seed in range(4):
        e.reset(seed=seed)
        rng = random.Random(seed)
        while not (e.terminations[e.agent_selection] or e.truncations[e.agent_selection]):
            legal = e.game.legal_actions()
            indices = [e.action_to_index(a) for a in legal]
            inside = [(i, a) for i, a in zip(indices, legal, strict=True) if i is not None]
            assert len({i for i, _ in inside}) == len(inside)  # distinct actions, indices
            for index, action in inside:
                assert e.index_to_action(index) == action
                kinds.add(type(action))
                if isinstance(action, PlaceFigure):
                    figures.add(action.figure)
            mask = e.observe(e.agent_selection)["action_mask"]
            assert mask.dtype == np.int8
            assert sorted(np.flatnonzero(mask).tolist()) == sorted(i for i, _ in inside)
            rare = [i for i, a in inside if isinstance(a, RARE_KINDS)]
            e.step(rng.choice(rare or [i for i, _ in inside]))
    assert kinds == {PlaceTile, PlaceFigure, type(PASS), PlaceBet, *RARE_KINDS}
    assert figures == set(FIGURE_TYPES)


@settings(max_examples=6, deadline=None)
@given(
    options=st.sampled_from([IC_TB, EVERYTHING, {"players": 4, "abbot": True, **IC_TB}]),
    seed=st.integers(0, 2**32 - 1),
)
@example(options=IC_TB, seed=245)  # sprawls off the window: some placements have no index
def test_round_trip_of_every_legal_action_in_random_games(
    options: dict[str, Any], seed: int
) -> None:
    e = raw_env(**options)
    e.reset(seed=seed)
    rng = random.Random(seed)
    while not (e.terminations[e.agent_selection] or e.truncations[e.agent_selection]):
        legal = e.game.legal_actions()
        indexed = {}
        for action in legal:
            index = e.action_to_index(action)
            if index is None:
                # Only a tile placed off the 31 × 31 window has no index (a random game with
                # every tile may sprawl that far: the episode is cut if nothing else is legal).
                assert isinstance(action, PlaceTile)
                assert e.layout.window.cell(action.x, action.y) is None
                continue
            assert index not in indexed
            indexed[index] = action
        for index, action in indexed.items():
            assert e.index_to_action(index) == action
        e.step(rng.choice(list(indexed)))


def test_every_figure_placement_the_engine_allows_has_an_index() -> None:
    # Enumerated from the engine: each figure type of a game with every expansion, on every
    # location of every tile (every rotation) whose kind that figure may stand on.  The layouts
    # hold exactly these placements, none more.
    game = Game(GameOptions(abbot=True, bets=True, **IC_TB))
    names = ("base", "river", "bets", "ic", "traders_builders")
    possible = {
        (figure, segment.location)
        for figure, kinds in game.figure_kinds.items()
        for name in names
        for tile in tile_set(name).tiles
        for orientation in tile.orientations
        for segment in orientation.segments
        if segment.kind in kinds
    }
    assert set(FIGURE_SLOTS) | set(EXTENDED_FIGURE_SLOTS) == possible
    assert len(FIGURE_SLOTS) + len(EXTENDED_FIGURE_SLOTS) == len(possible)
    without = Game(GameOptions(abbot=True, bets=True))
    assert {(f, location) for f, location in possible if f in without.figure_kinds} >= set(
        FIGURE_SLOTS
    )


def test_layout_of_the_indices() -> None:
    e = raw_env()
    layout = e.layout
    assert (layout.window.x0, layout.window.y0, layout.window.width) == (-15, -15, 31)
    assert e.action_to_index(PlaceTile(-15, -15, 0)) == 0
    assert e.action_to_index(PlaceTile(1, 0, 90)) == ((15 * 31) + 16) * 4 + 1
    assert e.action_to_index(PlaceTile(16, 0, 0)) is None  # outside the window
    assert e.action_to_index(PASS) == 31 * 31 * 4
    assert e.action_to_index(PlaceFigure("meeple", "N")) == 31 * 31 * 4 + 1
    assert e.action_to_index(RecallAbbot(3, -2)) == e.action_to_index(RecallAbbot(0, 0))
    assert e.action_to_index(SettleAgainst(4, 1, "road", "E")) == layout.settle_start + 5
    assert e.action_to_index(SellWine("town", "orange", (2,))) == layout.wait_index - 1
    assert layout.index_to_action(layout.wait_index) is WAIT
    assert layout.size == 31 * 31 * 4 + 1 + 15 + 1 + 6 + 8 + 12 + 1
    with pytest.raises(ValueError, match="recall of the abbot"):
        layout.index_to_action(layout.recall_index)
    with pytest.raises(ValueError, match="from 0 to"):
        layout.index_to_action(layout.size)
    france = raw_env(map="france")
    assert (france.layout.window.width, france.layout.window.height) == (16, 15)
    assert france.layout.size == 16 * 15 * 4 + 44
    with pytest.raises(ValueError, match="not an action of the action space"):
        e.action_to_index(PlaceFigure("builder", "N"))


def test_the_extended_layout_appends_its_block_after_wait() -> None:
    plain, extended = raw_env().layout, raw_env(**IC_TB).layout
    assert not plain.extended and extended.extended
    assert raw_env(extended_spaces=True).layout.size == extended.size
    assert extended.size == plain.size + 28 == 3888 + 28
    start = plain.wait_index + 1
    assert extended.extended_figure_start == start == 3888
    for index in range(plain.size):  # every index of the plain layout means the same
        if index != plain.recall_index and not (plain.settle_start <= index < plain.wine_start):
            assert extended.index_to_action(index) == plain.index_to_action(index)
    assert extended.action_to_index(PlaceFigure("meeple", "inner")) == start
    assert extended.action_to_index(PlaceFigure("large-meeple", "N")) == start + 1
    assert extended.action_to_index(PlaceFigure("large-meeple", "inner")) == start + 13
    assert extended.action_to_index(PlaceFigure("large-meeple", "monastery")) == start + 14
    assert extended.action_to_index(PlaceFigure("builder", "W")) == start + 18
    assert extended.action_to_index(PlaceFigure("pig", "NL")) == start + 19
    assert extended.action_to_index(PlaceFigure("pig", "inner")) == start + 27
    assert extended.index_to_action(extended.size - 1) == PlaceFigure("pig", "inner")
    france = raw_env(map="france", **IC_TB).layout
    assert france.size == 16 * 15 * 4 + 44 + 28


# ------------------------------------------------------------------------------ observations


def test_observation_values_in_a_built_situation() -> None:
    # start tile D at (0, 0): city N, road W-E.  Seat 0 caps the city with E at (0, -1) turned
    # 180 (its city faces S) and puts a knight on it: a 2-tile city, 4 points.
    e = raw_env(stack=("base/E", "base/U", "base/B"), seed=1)
    e.reset()
    cap = e.action_to_index(PlaceTile(0, -1, 180))
    e.step(cap)
    board = e.observe("player_0")["observation"]["board"]
    row, column = 15 - 1, 15  # (0, -1) in the 31 × 31 window centred on (0, 0)
    edges = board[CHANNEL["edge_n"] : CHANNEL["edge_w"] + 1, row, column].tolist()
    assert edges == [3, 3, 1, 3]  # field, field, city (S), field
    assert board[CHANNEL["last_placed"], row, column] == 1
    assert board[CHANNEL["open"], row, column] == 0
    assert board[CHANNEL["open"], row - 1, column] == 1
    e.step(e.action_to_index(PlaceFigure("meeple", "S")))
    assert e.rewards == {"player_0": 4.0, "player_1": 0.0}
    assert e.agent_selection == "player_1"
    # seat 1 lays the road tile U east of the start and a farmer on its north field
    e.step(e.action_to_index(PlaceTile(1, 0, 0)))
    e.step(e.action_to_index(PlaceFigure("meeple", "NL")))
    mine = e.observe("player_1")
    theirs = e.observe("player_0")
    for obs, slot in ((mine, 1), (theirs, 2)):
        assert obs["observation"]["board"][CHANNEL["figure_seat"], 15, 16] == slot
        assert obs["observation"]["board"][CHANNEL["figure_kind"], 15, 16] == 3  # a field
    assert vector_field(mine["observation"]["vector"], "score", 0) == 0
    assert vector_field(mine["observation"]["vector"], "score", 1) == 4  # seat 0, next after 1
    assert vector_field(mine["observation"]["vector"], "meeples", 0) == 6
    assert vector_field(theirs["observation"]["vector"], "meeples", 0) == 7  # knight came back
    assert vector_field(theirs["observation"]["vector"], "tiles_left") == 0
    assert vector_field(theirs["observation"]["vector"], "phase_tile") == 1
    assert vector_field(theirs["observation"]["vector"], "to_move") == 1
    assert vector_field(mine["observation"]["vector"], "to_move") == 0
    assert not mine["action_mask"].any()


def test_bets_in_the_observation_show_own_chips_and_only_counts_of_others() -> None:
    # bookmaker tile 07 (road W, office) east of the start tile; seat 0 bets 4, seat 1 bets 2/6
    e = raw_env(bets=True, stack=("bets/07", "base/E", "base/U"), seed=1)
    e.reset()
    e.step(e.action_to_index(PlaceTile(1, 0, 0)))
    e.step(e.action_to_index(PASS))
    assert e.game.phase == "bet" and e.agent_selection == "player_0"
    e.step(e.action_to_index(PlaceBet("4")))
    e.step(e.action_to_index(PlaceBet("2/6")))
    assert e.game.phase == "tile" and e.agent_selection == "player_1"
    seat0, seat1 = (e.observe(agent)["observation"] for agent in e.possible_agents)
    row, column = 15, 16  # (1, 0)
    for obs in (seat0, seat1):
        assert obs["board"][CHANNEL["office"], row, column] == 1
        assert obs["board"][CHANNEL["bet_chips"], row, column] == 2
        assert vector_field(obs["vector"], "bet_chips_in_supply", 0) == 5
        assert vector_field(obs["vector"], "bet_chips_in_supply", 1) == 5
        assert vector_field(obs["vector"], "phase_tile") == 1
    assert seat0["board"][CHANNEL["own_bet"], row, column] == 1 + 3  # chip "4"
    assert seat1["board"][CHANNEL["own_bet"], row, column] == 1 + 0  # chip "2/6"
    assert vector_field(seat0["vector"], "own_chip_4") == 0
    assert vector_field(seat0["vector"], "own_chip_2/6") == 1
    assert vector_field(seat1["vector"], "own_chip_2/6") == 0
    assert vector_field(seat1["vector"], "own_chip_4") == 1
    assert vector_field(seat1["vector"], "to_move") == 1


def test_inns_cathedrals_and_large_meeples_in_the_observation() -> None:
    # ic/O (road W-E with an inn) east of the start tile, seat 0's large meeple on its road;
    # ic/B (a city on all four sides with a cathedral) north of it, seat 1's large meeple in it.
    e = raw_env(stack=("ic/O", "ic/B", "base/U"), seed=1, **IC_TB)
    e.reset()
    first = e.observe("player_0")["observation"]
    assert first["board"].shape == (len(BOARD_CHANNELS) + 5, 31, 31)
    assert first["tile"].tolist() == [i == tile_catalogue(True).index("ic/O") for i in range(95)]
    assert tile_catalogue(True).index("ic/O") >= len(tile_catalogue()) == 54
    e.step(e.action_to_index(PlaceTile(1, 0, 0)))
    e.step(e.action_to_index(PlaceFigure("large-meeple", "E")))
    e.step(e.action_to_index(PlaceTile(0, -1, 0)))
    e.step(e.action_to_index(PlaceFigure("large-meeple", "N")))
    seat0, seat1 = (e.observe(agent)["observation"] for agent in e.possible_agents)
    inn, cathedral = (15, 16), (14, 15)  # (1, 0) and (0, -1) as (row, column)
    for obs in (seat0, seat1):
        board = obs["board"]
        assert board[CHANNEL["inn"], inn[0], inn[1]] == 1
        assert board[CHANNEL["cathedral"], inn[0], inn[1]] == 0
        assert board[CHANNEL["cathedral"], cathedral[0], cathedral[1]] == 1
        assert board[CHANNEL["inn"]].sum() == 1 and board[CHANNEL["cathedral"]].sum() == 1
        for goods in ("goods_wine", "goods_grain", "goods_cloth"):
            assert board[CHANNEL[goods]].sum() == 0
        assert board[CHANNEL["figure_type"], inn[0], inn[1]] == 3  # large meeple
        assert board[CHANNEL["figure_kind"], inn[0], inn[1]] == 2  # on a road
        assert board[CHANNEL["figure_type"], cathedral[0], cathedral[1]] == 3
        assert board[CHANNEL["figure_kind"], cathedral[0], cathedral[1]] == 1  # in a city
    assert seat0["board"][CHANNEL["figure_seat"], inn[0], inn[1]] == 1
    assert seat1["board"][CHANNEL["figure_seat"], inn[0], inn[1]] == 2
    for obs in (seat0, seat1):
        vector = obs["vector"]
        assert vector.shape == (EXTENDED_START + SEATS * 6 + 1,)
        assert [vector_field(vector, "large_meeples", slot) for slot in range(3)] == [0, 0, 0]
        assert [vector_field(vector, "meeples", slot) for slot in range(2)] == [7, 7]
        assert [vector_field(vector, "builders", slot) for slot in range(3)] == [1, 1, 0]
        assert [vector_field(vector, "pigs", slot) for slot in range(3)] == [1, 1, 0]
        assert vector_field(vector, "builder_second_tile") == 0
    assert seat0["tile"][tile_catalogue(True).index("base/U")] == 1


def test_goods_builder_and_second_tile_in_the_observation() -> None:
    # docs/rules.md D40/D46: seat 0's knight in a wine city (0, -1), its builder on the wine
    # city's extension (1, -1); base/E on (2, -1) completes the city: 2 wine for seat 0, then
    # seat 0 plays the builder's second tile.
    e = raw_env(
        stack=(
            "traders_builders/02",
            "base/B",
            "traders_builders/15",
            "base/B",
            "base/E",
            "base/U",
            "base/U",
        ),
        seed=1,
        **IC_TB,
    )
    e.reset()
    for action in (
        PlaceTile(0, -1, 180),
        PlaceFigure("meeple", "E"),
        PlaceTile(0, 1, 0),
        PASS,
        PlaceTile(1, -1, 0),
        PlaceFigure("builder", "E"),
    ):
        e.step(e.action_to_index(action))
    seat0, seat1 = (e.observe(agent)["observation"] for agent in e.possible_agents)
    builder = (14, 16)  # (1, -1)
    for obs in (seat0, seat1):
        assert obs["board"][CHANNEL["figure_type"], builder[0], builder[1]] == 4
        assert obs["board"][CHANNEL["figure_kind"], builder[0], builder[1]] == 1  # a city
        assert obs["board"][CHANNEL["goods_wine"], 14, 15] == 1  # (0, -1)
        assert obs["board"][CHANNEL["goods_wine"], builder[0], builder[1]] == 1
        assert obs["board"][CHANNEL["goods_wine"]].sum() == 2
    assert vector_field(seat0["vector"], "builders", 0) == 0
    assert vector_field(seat1["vector"], "builders", 1) == 0
    assert vector_field(seat1["vector"], "builders", 0) == 1
    for action in (PlaceTile(1, 1, 0), PASS, PlaceTile(2, -1, 270), PASS):
        e.step(e.action_to_index(action))
    assert e.agent_selection == "player_0" and e.game.phase == "tile"
    seat0, seat1 = (e.observe(agent)["observation"] for agent in e.possible_agents)
    assert vector_field(seat0["vector"], "builder_second_tile") == 1
    assert vector_field(seat1["vector"], "builder_second_tile") == 1
    assert [vector_field(seat0["vector"], f"goods_{kind}", 0) for kind in GOODS] == [2, 0, 0]
    assert [vector_field(seat1["vector"], f"goods_{kind}", 1) for kind in GOODS] == [2, 0, 0]
    assert [vector_field(seat1["vector"], f"goods_{kind}", 0) for kind in GOODS] == [0, 0, 0]
    assert vector_field(seat0["vector"], "builders", 0) == 1  # home with the completed city
    assert vector_field(seat0["vector"], "score", 0) == 8
    assert seat0["board"][CHANNEL["figure_type"], builder[0], builder[1]] == 0
    e.step(e.action_to_index(PlaceTile(1, 0, 0)))
    e.step(e.action_to_index(PASS))
    assert e.agent_selection == "player_1"
    assert vector_field(e.observe("player_1")["observation"]["vector"], "builder_second_tile") == 0


def test_map_planes_show_towns_grapes_and_face_down_chips_without_values() -> None:
    e = raw_env(map="france", map_chips=True, seed=3)
    e.reset()
    game = e.game
    chips = game.expansion(MapChips)
    board = e.observe("player_0")["observation"]["board"]
    squares = game.geometry.squares
    assert board[CHANNEL["playable"]].sum() == len(squares)
    assert board[CHANNEL["town"]].sum() == len(game.map.towns)
    for pos, town in game.map.towns.items():
        x, y = pos % 1024 - 512, pos // 1024 - 512
        assert board[CHANNEL["grape"], y, x] == (
            0 if town.grape is None else 1 + ("purple", "light-blue", "orange").index(town.grape)
        )
    face_down = {(pos % 1024 - 512, pos // 1024 - 512) for pos in chips.face_down}
    assert {(int(x), int(y)) for y, x in np.argwhere(board[CHANNEL["map_chip"]])} == face_down
    assert len(face_down) == 30  # D10: 3 colours × (6 + 4) chips
    assert board[CHANNEL["tile"]].sum() == 2 + len(game.geometry.printed)  # two start tiles


@pytest.mark.parametrize("options", OPTION_SETS)
def test_incremental_observations_equal_rebuilt_ones(options: dict[str, Any]) -> None:
    e = raw_env(**options)
    e.reset(seed=11)
    rng = random.Random(11)
    for _ in range(12):
        random_steps(e, rng, 15)
        fresh = Observer(e.game, e.layout.window, e.extended_spaces)
        for seat, agent in enumerate(e.possible_agents):
            mask = e.observe(agent)["action_mask"]
            ours, rebuilt = e.observe(agent), fresh.observe(seat, mask)
            for key in ("board", "tile", "vector"):
                assert np.array_equal(ours["observation"][key], rebuilt["observation"][key])


def observation_from_view(view: dict[str, Any], e: raw_env) -> dict[str, np.ndarray]:
    """A seat's observation made from ``game.view(seat)`` and public rules data only (tile
    types, the map named in the options), from scratch: what the environment must equal."""
    window, seat, players = e.layout.window, view["seat"], view["players"]
    extended = e.extended_spaces
    channels = len(BOARD_CHANNELS) + (len(EXTENDED_CHANNELS) if extended else 0)
    board = np.zeros((channels, window.height, window.width), np.uint8)

    def put(channel: str, x: int, y: int, value: int) -> None:
        cell = window.cell(x, y)
        if cell is not None:
            board[CHANNEL[channel], cell[0], cell[1]] = value

    game_map = load_map(e.options.map) if e.options.map else None
    squares: dict[tuple[int, int], Any] = {}  # (x, y) -> orientation
    for tile in view["tiles"]:
        squares[(tile["x"], tile["y"])] = tile_by_id(tile["tile"]).orientations[
            tile["rotation"] // 90
        ]
    printed = {}
    for city in game_map.geometry.printed if game_map else ():
        printed[(city.x, city.y)] = printed_city_tile(city.name, city.open_edges).orientations[0]
    for (x, y), o in {**squares, **printed}.items():
        put("tile", x, y, 1)
        for side, name in enumerate(("edge_n", "edge_e", "edge_s", "edge_w")):
            put(name, x, y, o.edges[side])
        for centre in ("monastery", "garden"):
            put(centre, x, y, centre in o.tile.centre)
        put("office", x, y, "betting-office" in o.tile.centre)
        put("coats_of_arms", x, y, sum(s.coat_of_arms for s in o.segments))
        if extended:
            marks = [mark for segment in o.segments for mark in segment.marks]
            for channel in ("inn", "cathedral"):
                put(channel, x, y, marks.count(channel))
            for kind in ("wine", "grain", "cloth"):
                put(f"goods_{kind}", x, y, marks.count(kind))

    def playable(x: int, y: int) -> bool:
        if game_map is None:
            return True
        return 0 <= x < game_map.width and 0 <= y < game_map.height and (x, y) not in printed

    steps = ((0, -1), (1, 0), (0, 1), (-1, 0))
    for x in range(window.x0, window.x0 + window.width):
        for y in range(window.y0, window.y0 + window.height):
            put("playable", x, y, playable(x, y))
            if (x, y) in squares or not playable(x, y):
                continue
            for side, (dx, dy) in enumerate(steps):
                neighbour = (x + dx, y + dy)
                reached = neighbour in printed and any(
                    (neighbour[0] + ex, neighbour[1] + ey) in squares for ex, ey in steps
                )  # a large city anchors tiles once a played tile touches it, by its open sides
                if neighbour in squares or (
                    reached and printed[neighbour].edges[(side + 2) % 4] != BORDER
                ):
                    put("open", x, y, 1)
    played = [t for t in view["tiles"] if t["turn"] > 0]
    if played:
        last = max(played, key=lambda t: t["turn"])
        put("last_placed", last["x"], last["y"], 1)
    for figure in view["figures"]:
        o = squares[(figure["x"], figure["y"])]
        put("figure_seat", figure["x"], figure["y"], 1 + (figure["seat"] - seat) % players)
        kind = o.segments[o.locations[figure["location"]]].kind
        put("figure_kind", figure["x"], figure["y"], 1 + kind)
        types = ("meeple", "abbot", "large-meeple", "builder", "pig")
        put("figure_type", figure["x"], figure["y"], 1 + types.index(figure["figure"]))
    size = EXTENDED_START
    if extended:
        size += SEATS * len(EXTENDED_SEAT_FIELDS) + len(EXTENDED_GAME_FIELDS)
    vector = np.zeros(size, np.float32)

    def set_seat(slot: int, name: str, value: float) -> None:
        if name in EXTENDED_SEAT_FIELDS:
            index = EXTENDED_START + slot * len(EXTENDED_SEAT_FIELDS)
            vector[index + EXTENDED_SEAT_FIELDS.index(name)] += value
        else:
            vector[slot * len(SEAT_FIELDS) + SEAT_FIELDS.index(name)] += value

    def set_game(name: str, value: float) -> None:
        if name in EXTENDED_GAME_FIELDS:
            index = EXTENDED_START + SEATS * len(EXTENDED_SEAT_FIELDS)
            vector[index + EXTENDED_GAME_FIELDS.index(name)] = value
        else:
            vector[SEATS * len(SEAT_FIELDS) + GAME_FIELDS.index(name)] = value

    for k in range(players):
        owner = (seat + k) % players
        set_seat(k, "score", view["scores"][owner])
        set_seat(k, "meeples", view["supply"][owner].get("meeple", 0))
        set_seat(k, "abbots", view["supply"][owner].get("abbot", 0))
        if extended:
            for figure, name in (
                ("large-meeple", "large_meeples"),
                ("builder", "builders"),
                ("pig", "pigs"),
            ):
                set_seat(k, name, view["supply"][owner].get(figure, 0))
    expansions = view["expansions"]
    if "traders_builders" in expansions:
        traders = expansions["traders_builders"]
        for k in range(players):
            for kind, tokens in traders["goods"][(seat + k) % players].items():
                set_seat(k, f"goods_{kind}", tokens)
        set_game("builder_second_tile", traders["second_tile"])
    if "map-chips" in expansions:
        chips = expansions["map-chips"]
        for spot in chips["face_down"]:
            put("map_chip", spot["x"], spot["y"], 1)
        for k in range(players):
            for chip in chips["in_front"][(seat + k) % players]:
                set_seat(k, f"map_chips_{chip['colour']}_{chip['value']}", 1)
        set_game("map_chips_sold", chips["sold"])
    if game_map is not None:
        for pos, town in game_map.towns.items():
            x, y = pos % 1024 - 512, pos // 1024 - 512
            put("town", x, y, 1)
            put("grape", x, y, 0 if town.grape is None else 1 + GRAPES.index(town.grape))
    if "bets" in expansions:
        bets = expansions["bets"]
        for k in range(players):
            set_seat(k, "bet_chips_in_supply", bets["supply_counts"][(seat + k) % players])
        for chip in bets["supply"]:
            set_game(f"own_chip_{chip}", 1)
        for office in bets["offices"]:
            put("bet_chips", office["x"], office["y"], len(office["chips"]))
            for chip in office["chips"]:
                if chip["seat"] == seat:
                    put("own_bet", office["x"], office["y"], 1 + CHIPS.index(chip["chip"]))
    set_game("tiles_left", view["tiles_left"])
    set_game(f"phase_{view['phase']}", 1)
    set_game("players", players)
    set_game("to_move", view["to_move"] == seat and view["phase"] != "over")
    tile = np.zeros(len(tile_catalogue(extended)), np.uint8)
    if view["current_tile"] is not None:
        tile[tile_catalogue(extended).index(view["current_tile"])] = 1
    return {"board": board, "tile": tile, "vector": vector}


@pytest.mark.parametrize(
    "options",
    [
        pytest.param(EVERYTHING, id="everything"),
        pytest.param({"players": 3, **IC_TB}, id="inns-traders-3p"),
        pytest.param(BASE, id="base"),
        pytest.param({"extended_spaces": True}, id="base-extended"),
    ],
)
def test_observations_equal_ones_made_from_the_view_alone(options: dict[str, Any]) -> None:
    e = raw_env(**options)
    e.reset(seed=9)
    rng = random.Random(9)
    compared = 0
    while not (e.terminations[e.agent_selection] or e.truncations[e.agent_selection]):
        random_steps(e, rng, 7)
        for seat, agent in enumerate(e.possible_agents):
            ours = e.observe(agent)["observation"]
            expected = observation_from_view(e.game.view(seat), e)
            for key in ("board", "tile", "vector"):
                assert np.array_equal(ours[key], expected[key]), (key, compared)
            compared += 1
    assert compared > 20


@pytest.mark.parametrize(
    "options",
    [pytest.param(FULL, id="bets-france-chips"), pytest.param(EVERYTHING, id="everything")],
)
def test_observation_is_the_same_when_only_hidden_state_differs(options: dict[str, Any]) -> None:
    # determinized(seat) deals again what the seat cannot know: the stack order, the other
    # seats' betting chips, the face-down map chips.  The seat's observation must not change,
    # while the other seat's own chips do (so the comparison can see a difference).
    e = raw_env(players=3, **options)
    extended = e.extended_spaces
    e.reset(seed=2)
    rng = random.Random(2)
    compared = other_differs = 0
    for _ in range(40):
        random_steps(e, rng, 6)
        game = e.game
        if game.is_over:
            break
        bets = game.expansion(Bets)
        if not bets.offices:
            continue
        for seat in range(game.players):
            mask = np.zeros(e.layout.size, np.int8)
            ours = Observer(game, e.layout.window, extended).observe(seat, mask)
            for k in range(3):
                world = game.determinized(seat, random.Random(k))
                theirs = Observer(world, e.layout.window, extended).observe(seat, mask)
                for key in ("board", "tile", "vector"):
                    assert np.array_equal(ours["observation"][key], theirs["observation"][key])
                compared += 1
                other = (seat + 1) % game.players
                before = Observer(game, e.layout.window, extended).observe(other, mask)
                after = Observer(world, e.layout.window, extended).observe(other, mask)
                other_differs += any(
                    not np.array_equal(before["observation"][key], after["observation"][key])
                    for key in ("board", "vector")
                )
    assert compared > 50
    assert other_differs > 0


# ------------------------------------------------------------------- rewards, ends, errors


def play_out(e: raw_env, seed: int) -> tuple[dict[str, float], list[dict[str, float]]]:
    """A random game to its end: every agent's rewards summed, and the rewards of each step."""
    e.reset(seed=seed)
    rng = random.Random(seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    steps = []
    while not e.terminations[e.agent_selection]:
        random_steps(e, rng, 1)
        steps.append(dict(e.rewards))
        for agent, reward in e.rewards.items():
            totals[agent] += reward
    return totals, steps


def test_win_rewards_pay_only_at_the_end() -> None:
    e = raw_env(reward="win")
    totals, steps = play_out(e, 4)
    assert all(reward == 0.0 for step in steps[:-1] for reward in step.values())
    winners = e.game.winners()
    expected = {
        agent: (1.0 if len(winners) == 1 else 0.0) if seat in winners else -1.0
        for seat, agent in enumerate(e.possible_agents)
    }
    assert totals == expected


def test_score_rewards_add_up_to_the_final_scores() -> None:
    e = raw_env(abbot=True, players=3)
    totals, _ = play_out(e, 8)
    assert list(totals.values()) == [float(s) for s in e.game.scores]
    assert e.infos["player_0"]["scores"] == e.game.scores


def test_a_board_that_outgrows_the_window_truncates_the_episode() -> None:
    e = raw_env(window=3)
    e.reset(seed=1)
    random_steps(e, random.Random(1), 400)
    agent = e.agent_selection
    assert e.truncations[agent] and not e.terminations[agent]
    assert e.infos[agent]["truncated_because"] == "the board outgrew the window"
    assert not e.game.is_over


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    e = env()
    e.reset(seed=1)
    history = list(e.unwrapped.game.history)
    with pytest.raises(IllegalActionError, match="player_0: action 0 is not legal now"):
        e.step(0)
    legal = int(np.flatnonzero(e.observe("player_0")["action_mask"])[0])
    with pytest.raises(IllegalActionError, match="is not legal now"):
        e.step(float(legal))  # an index is a whole number
    assert e.unwrapped.game.history == history
    assert e.agent_selection == "player_0"


def test_random_replacement_of_illegal_actions_is_flagged() -> None:
    e = raw_env(illegal_action="random")
    e.reset(seed=1)
    e.step(0)
    assert e.game.turn == 1  # a legal placement was made instead
    assert e.infos["player_0"]["illegal_action"] == 0


def test_cycle_order_makes_the_waiting_agent_wait() -> None:
    e = raw_env(turn_order="cycle")
    e.reset(seed=1)
    e.step(int(np.flatnonzero(e.observe("player_0")["action_mask"])[0]))  # tile of seat 0
    assert e.agent_selection == "player_1"
    mask = e.observe("player_1")["action_mask"]
    assert np.flatnonzero(mask).tolist() == [e.layout.wait_index]
    assert e.infos["player_1"] == {"legal_actions": [WAIT]}
    e.step(e.layout.wait_index)
    assert e.agent_selection == "player_0" and e.game.phase == "figure"


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"player": 2}, ValueError, r"unknown game options \['player'\]"),
        ({"players": 7}, GameSetupError, "players must be between 2 and 6"),
        ({"reward": "points"}, ValueError, "reward must be one of score, win"),
        ({"window": 30}, ValueError, "window must be an odd number"),
        ({"max_cycles": 0}, ValueError, "max_cycles must be at least 1"),
        (
            {"traders_builders": True, "extended_spaces": False},
            ValueError,
            "extended_spaces=False cannot cover Inns & Cathedrals or Traders & Builders",
        ),
        ({"extended_spaces": 1}, ValueError, "extended_spaces must be None, True or False"),
    ],
)
def test_bad_options_are_named(kwargs: dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        raw_env(**kwargs)


def test_bad_opponents_are_named() -> None:
    with pytest.raises(ValueError, match="unknown bot 'grandmaster'"):
        SingleAgentEnv("grandmaster")
    with pytest.raises(ValueError, match=r"one bot spec per other seat \(2\), not 1"):
        SingleAgentEnv(["random"], players=3)


def test_the_training_example_runs_on_a_tiny_budget() -> None:
    # The documented budget and win rate are in docs/env.md; here only that the example works.
    path = Path(__file__).resolve().parent.parent / "examples" / "train_masked_policy.py"
    spec = importlib.util.spec_from_file_location("train_masked_policy", path)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    result = example.main(["--games", "4", "--eval-games", "2"])
    assert set(result) == {"before", "after"}
    assert all(rate in (0.0, 0.5, 1.0) for rate in result.values())


@pytest.mark.parametrize("options", OPTION_SETS)
def test_parallel_games_follow_every_agents_mask_to_the_end(options: dict[str, Any]) -> None:
    # With illegal actions refused, a game played from the masks alone shows that each agent's
    # mask, taken before a parallel step, holds for the whole step.
    p = parallel_env(**options)
    observations, _ = p.reset(seed=6)
    game = p.unwrapped.game
    steps = 0
    while p.agents:
        movers = [
            a
            for a in p.agents
            if observations[a]["action_mask"].sum() > 0
            and not (observations[a]["action_mask"][p.unwrapped.layout.wait_index])
        ]
        assert len(movers) == 1
        actions = {a: p.action_space(a).sample(observations[a]["action_mask"]) for a in p.agents}
        observations, *_ = p.step(actions)
        steps += 1
    assert game.is_over
    assert steps == len(game.history)  # one decision per parallel step
