"""Base game (docs/rules.md §0 conventions and §1): one test per rule, each on a concrete board.

Every situation starts from the start tile base/D at (0, 0), rotation 0 (N city, E and W road,
S field; fields {EL WR} north of the road bordering the city, {ER SL SR WL} south of it) and
places tiles whose layouts are taken from docs/rules.md §8.1 (noted where a test relies on one).
"""

from __future__ import annotations

from collections import Counter

import pytest

from carcassonne import (
    PASS,
    Game,
    GameEvent,
    GameSetupError,
    PlaceFigure,
    PlaceTile,
)
from carcassonne.placement import _fit_table
from carcassonne.tiles import tile_set
from scenario import assert_refused, paid, scenario, score_events

MEEPLE_ROAD_E = ("meeple", "E")

# ---------------------------------------------------------------------------- §0 conventions


def test_start_tile_is_base_D_at_origin_rotation_0() -> None:
    game = Game(players=2, seed=1)
    ((pos, placed),) = game.board.items()
    assert placed.xy == (0, 0)
    assert placed.tile.id == "base/D"
    assert placed.orientation.rotation == 0
    kinds = {loc: game.feature_at(0, 0, loc).kind_name for loc in ("N", "E", "W", "SL", "EL")}
    assert kinds == {"N": "city", "E": "road", "W": "road", "SL": "field", "EL": "field"}
    assert game.feature_at(0, 0, "E") is game.feature_at(0, 0, "W")
    # The road separates the field north of it (bordering the city) from the one south of it.
    assert game.feature_at(0, 0, "EL") is game.feature_at(0, 0, "WR")
    assert game.feature_at(0, 0, "EL") is not game.feature_at(0, 0, "ER")


def test_y_grows_south_so_north_of_the_start_is_y_minus_1() -> None:
    # base/E (C F F F) at rotation 180 has its city on S, facing the start tile's city.
    game = scenario([("base/E", 0, -1, 180, None)], then=["base/U"])
    assert game.feature_at(0, -1, "S") is game.feature_at(0, 0, "N")


@pytest.mark.parametrize(("rotation", "city_edge"), [(90, "E"), (180, "S"), (270, "W")])
def test_rotation_is_clockwise(rotation: int, city_edge: str) -> None:
    # base/E's city is on N at rotation 0; clockwise turns move it N -> E -> S -> W.
    game = scenario([("base/E", 0, 1, rotation, None)], then=["base/U"])
    assert game.feature_at(0, 1, city_edge).kind_name == "city"
    assert game.board[game.last_placed.pos].orientation.edges.count(1) == 1  # one city edge


def test_half_edges_rotate_two_steps_clockwise() -> None:
    # base/V (F F R R, road W-S, inner field {SR WL}) at rotation 90: road N-W, and the inner
    # field moves to {NL WR}, the north-west corner, whose WR meets the start tile's EL.
    game = scenario([("base/V", 1, 0, 90, None)], then=["base/U"])
    inner = game.feature_at(1, 0, "NL")
    halves = {
        h
        for h in ("NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR")
        if game.feature_at(1, 0, h) is inner
    }
    assert halves == {"NL", "WR"}
    assert inner is game.feature_at(0, 0, "EL")  # the start tile's north field
    assert game.feature_at(1, 0, "SL") is game.feature_at(0, 0, "ER")  # its south field
    assert game.feature_at(1, 0, "N") is game.feature_at(0, 0, "E")


def test_a_road_can_be_named_by_either_of_its_edges() -> None:
    # base/U's road runs W-E; "W" names the same road as "E".
    game = scenario([("base/U", 1, 0, 0, ("meeple", "W"))], then=["base/U"])
    road = game.feature_at(1, 0, "E")
    assert [(seat, figure) for seat, figure, _ in road.figures] == [(0, "meeple")]
    assert road is game.feature_at(0, 0, "W")


# ------------------------------------------------------------------------ §1 material, setup


def test_seven_meeples_per_player() -> None:
    assert Game(players=5, seed=0).supply == [{"meeple": 7}] * 5


@pytest.mark.parametrize("players", [1, 7])
def test_d21_two_to_six_players(players: int) -> None:
    with pytest.raises(GameSetupError, match="players"):
        Game(players=players)
    assert Game(players=6, seed=0).players == 6


def test_the_other_71_tiles_are_shuffled_into_the_stack() -> None:
    game = Game(players=2, seed=7)
    drawn = [game.current_tile.id] + [tile.id for tile in game.stack]
    expected = Counter(tile.id for tile in tile_set("base").copies())
    expected["base/D"] -= 1  # the start tile
    assert len(drawn) == 71
    assert Counter(drawn) == expected
    again = Game(players=2, seed=7)
    assert [again.current_tile.id] + [t.id for t in again.stack] == drawn


def test_base_set_is_72_tiles() -> None:
    assert len(tile_set("base").copies()) == 72


@pytest.mark.parametrize(
    ("stack", "ok"),
    [(("base/C", "base/C"), False), (("base/D",) * 4, False), (("base/D",) * 3, True)],
)
def test_a_stack_cannot_hold_more_copies_than_the_set(stack: tuple[str, ...], ok: bool) -> None:
    # base/C exists once; base/D four times, one of which is the start tile.
    if ok:
        assert len(Game(players=2, stack=stack).stack) == len(stack) - 1
    else:
        with pytest.raises(GameSetupError, match="more often"):
            Game(players=2, stack=stack)


def test_an_unknown_stack_tile_is_named() -> None:
    with pytest.raises(GameSetupError, match="base/Z"):
        Game(players=2, stack=("base/E", "base/Z"))


# --------------------------------------------------------------------------- §1 step 1: tile


def test_legal_placements_are_exactly_the_matching_ones() -> None:
    game = Game(players=2, stack=("base/E",))
    # Only the city (N of the start) and the field (S) can take base/E's edges.
    assert set(game.legal_actions()) == {
        PlaceTile(0, -1, 180),
        PlaceTile(0, 1, 90),
        PlaceTile(0, 1, 180),
        PlaceTile(0, 1, 270),
    }


@pytest.mark.parametrize(
    ("action", "why"),
    [
        (PlaceTile(3, 3, 0), "does not touch"),
        (PlaceTile(0, 0, 0), "already occupied"),
        (PlaceTile(0, 1, 0), "does not match"),  # base/E's city would face the start's field
        (PlaceTile(0, -1, 45), "rotation"),
        (PASS, "expects PlaceTile"),
        (PlaceFigure("meeple", "N"), "expects PlaceTile"),
    ],
)
def test_illegal_placement_raises_and_leaves_the_game_unchanged(action: object, why: str) -> None:
    game = Game(players=2, stack=("base/E", "base/U"))
    assert_refused(game, action, why)


def test_placement_must_match_every_neighbour_not_just_one() -> None:
    # (1, -1) gets two neighbours: base/E at (0, -1) (its E edge is field) and base/U at (1, 0)
    # (its N edge is field).  base/E at rotation 270 puts its city on W (mismatch) while its S
    # field matches; at 180 its city is on S (mismatch) while its W field matches.
    game = scenario(
        [("base/U", 1, 0, 0, None), ("base/E", 0, -1, 180, None)], then=["base/E", "base/U"]
    )
    for rotation in (180, 270):
        assert_refused(game, PlaceTile(1, -1, rotation), "does not match")
    at_square = {a.rotation for a in game.legal_actions() if (a.x, a.y) == (1, -1)}
    assert at_square == {0, 90}


def test_unplaceable_tile_is_discarded_and_the_next_drawn() -> None:
    # Once base/E closes the start's city, every open square needs a road or field edge
    # somewhere, and base/C is city all round: it fits nowhere.
    game = scenario([("base/E", 0, -1, 180, None)], then=["base/C", "base/U"])
    assert game.draws == [("base/E", False), ("base/C", True), ("base/U", False)]
    assert [t.id for t in game.discarded] == ["base/C"]
    discards = [e for e in game.events if isinstance(e, GameEvent) and e.type == "discard"]
    assert [e.detail["tile"] for e in discards] == ["base/C"]
    # The discard does not cost seat 1 its turn: it places the next tile.
    assert (game.phase, game.to_move, game.current_tile.id) == ("tile", 1, "base/U")


def test_unplaceable_last_tile_ends_the_game_with_final_scoring() -> None:
    game = scenario(
        [("base/U", 1, 0, 0, MEEPLE_ROAD_E), ("base/E", 0, -1, 180, None)], then=["base/C"]
    )
    assert game.is_over
    assert game.draws[-1] == ("base/C", True)
    assert paid(game, "final") == [("road", {0: 2})]


@pytest.mark.parametrize(
    ("tile", "placements"),
    [
        ("base/C", {(0, -1, 0)}),  # C C C C: one distinct rotation
        ("base/B", {(0, 1, 0)}),  # F F F F monastery: one distinct rotation
        ("base/U", {(1, 0, 0), (-1, 0, 0), (0, 1, 0)}),  # F R F R: 0 and 180 are the same
        ("base/E", {(0, -1, 180), (0, 1, 90), (0, 1, 180), (0, 1, 270)}),  # no symmetry
    ],
)
def test_symmetric_tiles_offer_each_distinct_placement_once(
    tile: str, placements: set[tuple[int, int, int]]
) -> None:
    game = Game(players=2, stack=(tile,))
    legal = game.legal_actions()
    assert len(legal) == len(placements)
    assert {tuple(a) for a in legal} == placements


def test_d20_an_equivalent_rotation_of_a_symmetric_tile_is_accepted() -> None:
    game = Game(players=2, stack=("base/U", "base/E"))
    game.apply(PlaceTile(1, 0, 180))
    assert game.feature_at(1, 0, "W") is game.feature_at(0, 0, "E")


# ------------------------------------------------------------------------- §1 step 2: figure


def test_figure_only_on_the_tile_just_placed() -> None:
    game = Game(players=2, stack=("base/U", "base/E"))
    game.apply(PlaceTile(1, 0, 0))
    # base/U: the road (named by its first edge, E), the north field (NL), the south field (ER).
    assert set(game.legal_actions()) == {
        PASS,
        PlaceFigure("meeple", "E"),
        PlaceFigure("meeple", "NL"),
        PlaceFigure("meeple", "ER"),
    }
    # The start tile's city is not on this tile.
    assert_refused(game, PlaceFigure("meeple", "N"), "no feature at 'N'")


def test_meeple_cannot_join_an_occupied_connected_feature() -> None:
    game = scenario([("base/U", 1, 0, 0, MEEPLE_ROAD_E)], then=["base/U", "base/E"])
    game.apply(PlaceTile(2, 0, 0))  # extends seat 0's road
    legal = set(game.legal_actions())
    assert PlaceFigure("meeple", "E") not in legal
    assert PlaceFigure("meeple", "NL") in legal  # the fields next to it are still free
    assert_refused(game, PlaceFigure("meeple", "E"), "occupied")


def test_no_figure_with_an_empty_supply() -> None:
    game = scenario(
        [("base/U", 1, 0, 0, MEEPLE_ROAD_E), ("base/U", -1, 0, 0, None)],
        then=["base/E", "base/U"],
        meeples=1,
    )
    assert game.supply[0] == {"meeple": 0}
    game.apply(PlaceTile(0, -1, 180))
    assert game.legal_actions() == [PASS]
    assert_refused(game, PlaceFigure("meeple", "S"), "no meeple left")


def test_abbot_is_not_a_figure_of_the_base_game() -> None:
    game = Game(players=2, stack=("base/B", "base/E"))
    game.apply(PlaceTile(0, 1, 0))
    assert game.supply[0] == {"meeple": 7}
    assert_refused(game, PlaceFigure("abbot", "monastery"), "no figure type 'abbot'")


# ------------------------------------------------------------------------- §1 step 3: scoring


def test_two_tile_city_scores_4() -> None:
    game = scenario([("base/E", 0, -1, 180, ("meeple", "S"))], then=["base/U"])
    (event,) = score_events(game)
    assert (event.source, event.reason, event.points) == ("city", "completed", {0: 4})
    assert (event.tiles, event.coats_of_arms, event.squares) == (2, 0, [(0, -1), (0, 0)])
    assert game.scores == [4, 0]
    assert game.feature_at(0, 0, "N").complete


def test_city_with_coat_of_arms_scores_2_per_tile_and_2_per_coat() -> None:
    # base/M (C F F C, city N-W with a coat of arms) at 180: city S-E; base/E at 270: city W.
    # Seat 1 closes seat 0's city: the points go to the knight's owner, not the placer.
    game = scenario(
        [("base/M", 0, -1, 180, ("meeple", "E")), ("base/E", 1, -1, 270, None)],
        then=["base/U"],
    )
    (event,) = score_events(game)
    assert (event.source, event.points, event.tiles, event.coats_of_arms) == ("city", {0: 8}, 3, 1)
    assert game.scores == [8, 0]


def test_completed_road_scores_1_per_tile() -> None:
    # base/L (C R R R, three roads ending at a village) at rotation 0 on both sides of the start.
    game = scenario(
        [("base/L", 1, 0, 0, ("meeple", "W")), ("base/L", -1, 0, 0, None)], then=["base/U"]
    )
    assert paid(game) == [("road", {0: 3})]
    (event,) = [e for e in score_events(game) if e.source == "road"]
    assert (event.reason, event.tiles) == ("completed", 3)


def test_a_road_loop_is_complete() -> None:
    # Four base/V curves (road W-S at 0) around a 2x2 block south-east of the start.
    game = scenario(
        [
            ("base/V", 0, 1, 270, MEEPLE_ROAD_E),  # road E-S
            ("base/V", 1, 1, 0, None),  # road W-S
            ("base/V", 1, 2, 90, None),  # road N-W
        ],
        then=["base/V", "base/U"],
    )
    assert game.scores == [0, 0]
    game.apply(PlaceTile(0, 2, 180))  # road N-E closes the loop
    game.apply(PASS)
    assert paid(game) == [("road", {0: 4})]
    assert game.supply[0] == {"meeple": 7}


def test_a_road_through_one_tile_twice_counts_the_tile_once() -> None:
    # base/L at 180 north of the start: roads end at its village on N, E and W.  Three curves
    # lead the E road round to the N road: one road, both ends at the same village, 4 tiles.
    game = scenario(
        [
            ("base/L", 0, -1, 180, MEEPLE_ROAD_E),
            ("base/V", 1, -1, 90, None),  # road N-W
            ("base/V", 1, -2, 0, None),  # road W-S
            ("base/V", 0, -2, 270, None),  # road E-S, into the village from the north
        ],
        then=["base/U"],
    )
    (road,) = [e for e in score_events(game) if e.source == "road"]
    assert (road.reason, road.tiles, road.points) == ("completed", 4, {0: 4})
    assert game.scores == [4, 0]


def test_a_city_through_one_tile_twice_counts_the_tile_once() -> None:
    # base/I (C F F C, two separate cities N and W) at 270 south of the start: cities W and S.
    # Three base/N corners (one city N-W) join those two cities round a ring: one city, 4 tiles.
    game = scenario(
        [
            ("base/I", 0, 1, 270, ("meeple", "W")),
            ("base/N", 0, 2, 0, None),  # city N-W
            ("base/N", -1, 2, 90, None),  # city N-E
            ("base/N-garden", -1, 1, 180, None),  # city E-S
        ],
        then=["base/U"],
    )
    (city,) = [e for e in score_events(game) if e.source == "city"]
    assert (city.reason, city.tiles, city.points) == ("completed", 4, {0: 8})


RING_AROUND_0_1 = [
    ("base/U", 1, 0, 0, None),
    ("base/U", -1, 0, 0, None),
    ("base/E", 1, 1, 90, None),  # base/E: city outwards, fields towards the monastery
    ("base/E", -1, 1, 270, None),
    ("base/E", 1, 2, 90, None),
    ("base/E", -1, 2, 270, None),
    ("base/E-garden", 0, 2, 180, None),
]


def test_monastery_surrounded_by_8_tiles_scores_9() -> None:
    game = scenario(
        [("base/B", 0, 1, 0, ("meeple", "monastery")), *RING_AROUND_0_1[:-1]],
        then=["base/E-garden", "base/U"],
    )
    assert game.scores == [0, 0]  # 7 neighbours: not complete yet
    game.apply(PlaceTile(0, 2, 180))
    game.apply(PASS)
    assert paid(game) == [("monastery", {0: 9})]
    assert game.supply[0] == {"meeple": 7}


def test_monastery_placed_into_a_full_ring_scores_at_once() -> None:
    game = scenario(
        [*RING_AROUND_0_1, ("base/B", 0, 1, 0, ("meeple", "monastery"))], then=["base/U"]
    )
    assert paid(game) == [("monastery", {1: 9})]  # the 8th tile is seat 1's


def test_a_completed_feature_without_figures_scores_nobody() -> None:
    game = scenario([("base/E", 0, -1, 180, None)], then=["base/U"])
    (event,) = score_events(game)
    assert (event.source, event.reason, event.points) == ("city", "completed", {})
    assert game.scores == [0, 0]


# Seat 0 claims the road through the start; seat 1 claims a separate road at a crossroads
# (base/W at (1, 1)); two curves join them and base/L's village closes the west end: 6 tiles.
ROAD_TIE = [
    ("base/U", 1, 0, 0, MEEPLE_ROAD_E),
    ("base/W", 1, 1, 0, MEEPLE_ROAD_E),  # F R R R: roads E, S, W end at the crossroads
    ("base/V", 2, 0, 0, None),  # road W-S
    ("base/V", 2, 1, 90, None),  # road N-W
    ("base/L", -1, 0, 0, None),  # village ends the road's west end
]


def test_tied_majority_holders_all_score_in_full() -> None:
    game = scenario(ROAD_TIE, then=["base/U"])
    (event,) = [e for e in score_events(game) if e.source == "road"]
    assert (event.tiles, event.figures, event.points) == (6, {0: 1, 1: 1}, {0: 6, 1: 6})
    assert game.scores == [6, 6]
    assert game.supply == [{"meeple": 7}, {"meeple": 7}]


def test_majority_beats_minority() -> None:
    # A city along y = -1: base/R at 180 (city S, E, W) joins the start's city; seat 1 claims a
    # separate end (base/E at (2, -1)), seat 0 the other end; base/G and base/F (coat of arms)
    # join the three claims: 6 tiles + 1 coat = 14, all to seat 0 (2 knights against 1).
    game = scenario(
        [
            ("base/R", 0, -1, 180, ("meeple", "E")),
            ("base/U", 1, 0, 0, None),
            ("base/U", 2, 0, 0, None),
            ("base/E", 2, -1, 270, ("meeple", "W")),
            ("base/U", -1, 0, 0, None),
            ("base/U", -2, 0, 0, None),
            ("base/E", -2, -1, 90, ("meeple", "E")),
            ("base/G", 1, -1, 0, None),
            ("base/F", -1, -1, 0, None),
        ],
        then=["base/U"],
    )
    (city,) = [e for e in score_events(game) if e.source == "city"]
    assert (city.tiles, city.coats_of_arms, city.figures) == (6, 1, {0: 2, 1: 1})
    assert city.points == {0: 14}
    assert game.scores == [14, 0]
    assert game.supply == [{"meeple": 7}, {"meeple": 7}]  # the loser's knight returns too


def test_figures_return_after_completion_but_farmers_stay() -> None:
    game = scenario(
        [("base/U", 1, 0, 0, ("meeple", "NL")), ("base/E", 0, -1, 180, ("meeple", "S"))],
        then=["base/U"],
    )
    assert game.scores == [0, 4]
    assert game.supply == [{"meeple": 6}, {"meeple": 7}]
    assert list(game.figures.values()) == [(0, "meeple")]
    assert game.feature_at(1, 0, "NL").kind_name == "field"


def test_roads_end_at_a_monastery_and_at_a_city_gate() -> None:
    # base/A at 270: road E ends at the monastery; base/T at 90: road W ends at its city gate.
    game = scenario(
        [("base/A", -1, 0, 270, ("meeple", "E")), ("base/T", 1, 0, 90, None)], then=["base/U"]
    )
    (road,) = [e for e in score_events(game) if e.source == "road"]
    assert (road.reason, road.tiles, road.points) == ("completed", 3, {0: 3})


def test_own_occupied_feature_is_also_closed_to_a_second_meeple() -> None:
    game = scenario(
        [("base/U", 1, 0, 0, MEEPLE_ROAD_E), ("base/U", -1, 0, 0, None)],
        then=["base/U", "base/E"],
    )
    game.apply(PlaceTile(2, 0, 0))  # seat 0 extends its own road
    assert PlaceFigure("meeple", "E") not in game.legal_actions()


def test_one_tile_completing_two_features_scores_both() -> None:
    # base/L at (2, 0) ends seat 0's road (closed in the west by another village) and closes
    # seat 1's city on base/E above it.
    game = scenario(
        [
            ("base/U", 1, 0, 0, MEEPLE_ROAD_E),
            ("base/L", -1, 0, 0, None),
            ("base/B", 1, -1, 0, None),
            ("base/E", 2, -1, 180, ("meeple", "S")),
            ("base/L", 2, 0, 0, None),
        ],
        then=["base/U"],
    )
    assert sorted(paid(game)) == [("city", {1: 4}), ("road", {0: 4})]
    assert game.supply == [{"meeple": 7}, {"meeple": 7}]


def test_players_take_turns_in_seat_order() -> None:
    steps = [("base/U", x, 0, 0, None) for x in (1, 2, 3, 4)]
    game = scenario(steps, then=["base/U"], players=3)
    assert [seat for seat, _ in game.history] == [0, 0, 1, 1, 2, 2, 0, 0]
    assert (game.active, game.to_move) == (1, 1)


# -------------------------------------------------------------------------------- §1 the end


def test_game_ends_when_the_stack_is_empty_with_final_scoring() -> None:
    game = scenario([("base/U", 1, 0, 0, MEEPLE_ROAD_E)])
    assert game.is_over and game.phase == "over"
    assert game.legal_actions() == []
    (event,) = score_events(game)
    assert (event.source, event.reason, event.points, event.tiles) == ("road", "final", {0: 2}, 2)
    assert_refused(game, PASS, "over")


def test_completion_on_the_last_tile_scores_as_complete() -> None:
    game = scenario([("base/E", 0, -1, 180, ("meeple", "S"))])
    assert game.is_over
    assert paid(game) == [("city", {0: 4})]
    assert [e.reason for e in score_events(game)] == ["completed"]


def test_incomplete_city_at_end_scores_1_per_tile_and_1_per_coat() -> None:
    game = scenario([("base/M", 0, -1, 180, ("meeple", "E"))])
    (event,) = score_events(game)
    assert (event.source, event.reason, event.tiles, event.coats_of_arms) == ("city", "final", 2, 1)
    assert event.points == {0: 3}


def test_incomplete_monastery_at_end_scores_1_plus_neighbours() -> None:
    # Neighbours of (0, 1): the start tile and base/U at (1, 0).
    game = scenario([("base/B", 0, 1, 0, ("meeple", "monastery")), ("base/U", 1, 0, 0, None)])
    assert paid(game, "final") == [("monastery", {0: 3})]


def test_farmers_score_3_per_completed_city_their_field_borders() -> None:
    # base/U's north field (NL) joins the start's north field, which borders its city.
    game = scenario([("base/U", 1, 0, 0, ("meeple", "NL")), ("base/E", 0, -1, 180, None)])
    (field,) = [e for e in score_events(game) if e.source == "field"]
    assert (field.reason, field.points, field.detail["completed_cities"]) == ("final", {0: 3}, 1)
    assert game.scores == [3, 0]


def test_a_city_bordered_by_two_fields_pays_both() -> None:
    # The city D+E has the start's north field on one side and base/E's own field outside.
    game = scenario(
        [("base/U", 1, 0, 0, ("meeple", "NL")), ("base/E", 0, -1, 180, ("meeple", "NL"))]
    )
    fields = [(e.points, e.detail["completed_cities"]) for e in score_events(game, "final")]
    assert sorted(fields, key=lambda f: min(f[0])) == [({0: 3}, 1), ({1: 3}, 1)]
    assert game.scores == [3, 3]


def test_a_field_counts_a_city_once_however_many_tiles_border_it() -> None:
    # base/K (C F R R, road S-W) east of the start: its field {EL ER SL WR} borders its city and
    # joins the start's north field, which borders the start's city.  Two base/N corners make
    # both cities one (4 tiles).  The field borders that one city twice: 3 points, not 6.
    game = scenario(
        [
            ("base/K", 1, 0, 0, ("meeple", "EL")),
            ("base/N", 0, -1, 180, None),  # city S-E
            ("base/N", 1, -1, 270, None),  # city W-S
        ]
    )
    assert paid(game) == [("field", {0: 3})]
    (field,) = [e for e in score_events(game) if e.source == "field"]
    assert field.detail["completed_cities"] == 1


def test_an_incomplete_city_pays_farmers_nothing() -> None:
    game = scenario([("base/U", 1, 0, 0, ("meeple", "NL"))])
    (field,) = [e for e in score_events(game) if e.source == "field"]
    assert field.detail["completed_cities"] == 0
    assert game.scores == [0, 0]


# Seat 0's farmer on the start's north field (via base/U), seat 1's on the field outside the
# city D+E; base/E at (1, -1) (city E, field W and S) joins the two fields round the city.
FIELD_MERGE = [
    ("base/U", 1, 0, 0, ("meeple", "NL")),
    ("base/E", 0, -1, 180, ("meeple", "NL")),
]


def test_tied_farmers_all_score_in_full() -> None:
    game = scenario([*FIELD_MERGE, ("base/E", 1, -1, 90, None)])
    (field,) = [e for e in score_events(game) if e.source == "field"]
    assert (field.figures, field.points) == ({0: 1, 1: 1}, {0: 3, 1: 3})
    assert game.scores == [3, 3]


def test_farmer_majority_takes_the_field() -> None:
    # Seat 0 adds a farmer south of the road; base/A (monastery, one field all round, road
    # ending at it) west of the start joins the fields on both sides of the road.
    game = scenario(
        [
            FIELD_MERGE[0],
            FIELD_MERGE[1],
            ("base/U", 0, 1, 0, ("meeple", "NL")),
            ("base/E", 1, -1, 90, None),
            ("base/A", -1, 0, 270, None),
        ]
    )
    (field,) = [e for e in score_events(game) if e.source == "field"]
    assert (field.figures, field.points) == ({0: 2, 1: 1}, {0: 3})
    assert game.scores == [3, 0]


def test_highest_total_wins_and_ties_share_the_victory() -> None:
    tied = scenario(ROAD_TIE)
    assert tied.scores == [6, 6] and tied.winners() == [0, 1]
    single = scenario([("base/E", 0, -1, 180, ("meeple", "S"))])
    assert single.winners() == [0]


@pytest.mark.parametrize("set_name", ["base", "river", "bets", "ic", "traders_builders"])
def test_fit_tables_hold_exactly_the_rotations_meeting_each_constraint(set_name: str) -> None:
    # The placement search reads a table built by enumeration; here each of the 4096 edge
    # constraints (3 bits per side N, E, S, W; 0 = no neighbour) is checked against the rule
    # itself: every side with a neighbour must carry the same edge.
    for tile in tile_set(set_name).tiles:
        table = _fit_table(tile)
        for key in range(1 << 12):
            demanded = [(key >> (3 * side)) & 7 for side in range(4)]
            expected = tuple(
                o.rotation // 90
                for o in tile.distinct_orientations
                if all(code in (0, edge) for code, edge in zip(demanded, o.edges, strict=True))
            )
            assert table[key] == expected, (tile.id, key)
