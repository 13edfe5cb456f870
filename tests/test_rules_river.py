"""The River (docs/rules.md §2, decision D1), on concrete boards.

Layouts from docs/rules.md §8.2, at rotation 0 (N E S W): spring river/A ``R R ~ F`` (road N-E,
river from the centre to S); river/D ``F ~ F ~`` (straight, E-W); river/G ``F F ~ ~`` and
river/J (the same with a garden) curve W-S; river/B ``C ~ R ~`` (city N, road S, river E-W);
river/H ``F ~ R ~`` with a monastery; lake river/L ``~ F F F``.  With the spring at (0, 0), the
river leaves it southwards: the first river tile goes to (0, 1), entering through its N edge.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from carcassonne import PASS, Game, GameSetupError, PlaceFigure, PlaceTile
from carcassonne.board import DELTAS, OPPOSITE, encode
from carcassonne.expansions.river import LEFT, RIGHT, STRAIGHT, river_turn
from carcassonne.tiles import FIELD, RIVER_EDGE, tile_set
from scenario import assert_refused, scenario

# river/G at 180: river N-E, so entering from the north it turns east (a left turn).
G_LEFT = ("river/G", 0, 1, 180, None)


def test_the_spring_is_the_start_tile() -> None:
    game = Game(players=2, river=True, seed=3)
    ((_, placed),) = game.board.items()
    assert (placed.xy, placed.tile.id, placed.orientation.rotation) == ((0, 0), "river/A", 0)


def test_river_tiles_come_first_and_the_lake_last() -> None:
    game = Game(players=2, river=True, seed=3)
    order = [game.current_tile.id] + [tile.id for tile in reversed(game.stack)]
    middle = {t.id for t in tile_set("river").copies()} - {"river/A", "river/L"}
    assert set(order[:10]) == middle
    assert order[10] == "river/L"
    assert all(tile_id.startswith("base/") for tile_id in order[11:])


def test_the_base_start_tile_is_shuffled_into_the_land_tiles() -> None:
    game = Game(players=2, river=True, seed=3)
    land = Counter(tile.id for tile in game.stack if tile.id.startswith("base/"))
    assert land == Counter(tile.id for tile in tile_set("base").copies())
    assert land["base/D"] == 4


def test_river_tiles_need_the_river_option() -> None:
    with pytest.raises(GameSetupError, match="river/D"):
        Game(players=2, stack=("river/D",))
    with pytest.raises(GameSetupError, match="river/A"):  # the spring is already on the board
        Game(players=2, river=True, stack=("river/A",))


def test_a_river_tile_must_continue_the_river() -> None:
    game = Game(players=2, river=True, stack=("river/D", "river/L"))
    # river/D at 90 runs N-S below the spring; at (-1, 0) its field edge would match the
    # spring's W field, but it would not continue the river.
    assert game.legal_actions() == [PlaceTile(0, 1, 90)]
    assert_refused(game, PlaceTile(-1, 0, 90), "river")


def test_the_first_curve_may_turn_either_way() -> None:
    game = Game(players=2, river=True, stack=("river/G", "river/L"))
    assert set(game.legal_actions()) == {PlaceTile(0, 1, 90), PlaceTile(0, 1, 180)}


def test_river_turn_names_the_direction_seen_by_the_water() -> None:
    # Entering through N (heading south): leaving E is a left turn, W a right turn, S straight.
    assert river_turn(0, 1) == LEFT
    assert river_turn(0, 3) == RIGHT
    assert river_turn(0, 2) == STRAIGHT


def test_d1_two_curves_the_same_way_are_a_u_turn() -> None:
    # D1: after a left curve at (0, 1) the river heads east into (1, 1); river/J at 90 (river
    # W-N) would turn left again, back north: rejected.  At 0 (W-S) it turns right: allowed.
    game = scenario([G_LEFT], then=["river/J", "river/L"], river=True)
    assert game.legal_actions() == [PlaceTile(1, 1, 0)]
    assert_refused(game, PlaceTile(1, 1, 90), "river")
    game.apply(PlaceTile(1, 1, 0))
    assert game.phase == "figure"


def test_d1_a_straight_between_two_curves_does_not_allow_a_u_turn() -> None:
    # D1 compares a curve with the previous curve, however many straights lie between.
    game = scenario([G_LEFT, ("river/D", 1, 1, 0, None)], then=["river/J", "river/L"], river=True)
    assert game.legal_actions() == [PlaceTile(2, 1, 0)]
    assert_refused(game, PlaceTile(2, 1, 90), "river")


def test_the_lake_ends_the_river_and_land_tiles_follow_freely() -> None:
    game = Game(players=2, river=True, stack=("river/L", "base/U"))
    assert game.legal_actions() == [PlaceTile(0, 1, 0)]  # the lake's river edge must face N
    game.apply(PlaceTile(0, 1, 0))
    game.apply(PASS)
    # base/U fits the spring's E road and the lake's fields: no river restriction any more.
    assert set(game.legal_actions()) == {
        PlaceTile(1, 0, 0),
        PlaceTile(-1, 1, 90),
        PlaceTile(1, 1, 90),
        PlaceTile(0, 2, 0),
        PlaceTile(-1, 0, 90),
        PlaceTile(0, -1, 90),
    }


def test_meeples_may_be_placed_on_river_tiles() -> None:
    # river/B at 90: river N-S, city E, road W (ending at the city).
    game = Game(players=2, river=True, stack=("river/B", "river/H", "river/L"))
    game.apply(PlaceTile(0, 1, 90))
    legal = set(game.legal_actions())
    assert {PlaceFigure("meeple", "E"), PlaceFigure("meeple", "W")} <= legal
    game.apply(PlaceFigure("meeple", "E"))
    assert game.feature_at(0, 1, "E").figures == ((0, "meeple", game.board[encode(0, 1)].base),)
    # river/H: a monastery on the river; a monk is placed as usual.
    game.apply(PlaceTile(0, 2, 90))
    assert PlaceFigure("meeple", "monastery") in game.legal_actions()


def test_the_river_is_not_a_feature() -> None:
    game = scenario([("river/D", 0, 1, 90, None)], then=["river/L"], river=True)
    kinds = {feature.kind_name for _, feature in game.features_at(0, 1)}
    assert kinds == {"field"}
    assert (
        PlaceFigure("meeple", "N")
        not in Game(players=2, river=True, stack=("river/D", "river/L")).legal_actions()
    )


def test_the_river_separates_fields_on_every_river_tile() -> None:
    # Where the river flows through a tile, the two halves of each river edge lie in different
    # fields, as for a road.  (At the spring and the lake the river ends in the centre and one
    # field wraps round its end.)
    for tile in tile_set("river").tiles:
        if any(len(river) == 1 for river in tile.rivers):
            assert tile.id in ("river/A", "river/L")
            continue
        o = tile.orientations[0]
        for d, code in enumerate(tile.edges):
            if code != RIVER_EDGE:
                continue
            left, right = o.half_segment[2 * d], o.half_segment[2 * d + 1]
            assert o.segments[left].kind == FIELD and o.segments[right].kind == FIELD
            assert left != right, f"{tile.id}: the river on edge {d} does not split the field"


def test_fields_on_both_banks_meet_only_round_the_spring() -> None:
    # river/G at 180 (river N-E): its inner field {NR EL} and outer field touch the spring's
    # S edge on either side of the river; the spring's own field wraps round its source, so
    # both banks are one field there.  river/D at 90 further on keeps its banks apart locally.
    game = scenario([G_LEFT, ("river/D", 1, 1, 0, None)], then=["river/L"], river=True)
    inner, outer = game.feature_at(0, 1, "NR"), game.feature_at(0, 1, "NL")
    assert inner is outer is game.feature_at(0, 0, "SL")
    d = game.board[encode(1, 1)]
    assert d.orientation.half_segment[0] != d.orientation.half_segment[4]  # NL vs SL of river/D


@pytest.mark.parametrize("seed", range(12))
def test_random_river_games_follow_the_river(seed: int) -> None:
    game = Game(players=3, river=True, seed=seed)
    rng = random.Random(seed)
    river_tiles = []
    while game.current_tile is not None and game.current_tile.rivers:
        action = rng.choice(game.legal_actions())
        game.apply(action)
        river_tiles.append(game.last_placed)
        game.apply(rng.choice(game.legal_actions()))
    assert [p.tile.id for p in river_tiles][-1] == "river/L"
    assert len(river_tiles) == 11
    # Each river tile's entry faces the previous tile's exit, and curves alternate (D1).
    exit_pos, exit_edge = encode(0, 1), 0  # the spring's river leaves S: enter (0, 1) via N
    last_curve = None
    for placed in river_tiles:
        assert placed.pos == exit_pos
        (river,) = placed.orientation.rivers
        assert exit_edge in river
        others = [e for e in river if e != exit_edge]
        if not others:
            break
        (out,) = others
        turn = river_turn(exit_edge, out)
        if turn != STRAIGHT:
            assert turn != last_curve
            last_curve = turn
        exit_pos = placed.pos + DELTAS[out]
        exit_edge = OPPOSITE[out]
