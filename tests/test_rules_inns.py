"""Inns & Cathedrals (docs/rules.md §11) on concrete boards, with exact scores.

The start tile is base/D at (0, 0): N city, E–W road through, S field.  Tiles used (§8.6):
``ic/O`` is a straight road W–E with an inn (like base/U); ``ic/B`` is the cathedral, a city on
all four sides.  base/W at rotation 0 (roads E, S, W ending at a crossroads) ends a road on
either side; base/E (one city edge, N at rotation 0) closes a city side.
"""

from __future__ import annotations

import re

import pytest

from carcassonne import PASS, Game, GameSetupError, PlaceFigure, PlaceTile
from carcassonne.board import encode
from carcassonne.expansions.bets import PlaceBet
from carcassonne.expansions.inns import LARGE_MEEPLE, InnsCathedrals
from carcassonne.tiles import tile_set
from scenario import Step, assert_refused, close_start_road, paid, scenario, score_events

LARGE = LARGE_MEEPLE
IC = {"inns_cathedrals": True}


def segment(game: Game, x: int, y: int, location: str) -> int:
    placed = game.board[encode(x, y)]
    return placed.base + placed.orientation.locations[location]


# ----------------------------------------------------------------------------------- tiles


def test_d30_the_box_has_18_tiles_with_6_inns_and_2_cathedrals() -> None:
    tiles = tile_set("ic").tiles
    assert sum(t.count for t in tiles) == 18
    inns = [t for t in tiles for s in t.segments if "inn" in s.marks]
    cathedrals = [t for t in tiles for s in t.segments if "cathedral" in s.marks]
    assert sum(t.count for t in inns) == 6 and len({t.id for t in inns}) == 6
    assert sum(t.count for t in cathedrals) == 2 and [t.name for t in cathedrals] == ["B"]


def test_the_tiles_are_shuffled_in_with_the_base_game() -> None:
    game = Game(players=2, inns_cathedrals=True, seed=4)
    assert game.current_tile is not None
    ids = [game.current_tile.id, *(t.id for t in game.stack)]
    assert len(ids) == 71 + 18
    assert sum(i.startswith("ic/") for i in ids) == 18


def test_d30_a_farmer_in_the_enclosed_field_scores_the_four_cities() -> None:
    # ic/C north of the start tile: its S city closes with the start city at once; base/E closes
    # its N city.  The farmer in the middle borders all four cities, two of them completed.
    steps = [("ic/C", 0, -1, 0, ("meeple", "inner")), ("base/E", 0, -2, 180, None)]
    game = scenario(steps, **IC)
    (field,) = score_events(game, "final")
    assert (field.source, field.points, field.detail["completed_cities"]) == ("field", {0: 6}, 2)


# ------------------------------------------------------------------------------------ inns


# ic/O east of the start tile with a meeple, then crossroads on both sides: 4 tiles
INN_ROAD = [
    ("ic/O", 1, 0, 0, ("meeple", "E")),
    ("base/W", 2, 0, 0, None),
    ("base/W", -1, 0, 0, None),
]


def test_d34_a_completed_road_with_an_inn_scores_2_per_tile() -> None:
    game = scenario(INN_ROAD, then=["base/B"], **IC)
    assert paid(game) == [("inn", {0: 8})]
    (event,) = score_events(game, "completed")
    assert (event.tiles, event.detail) == (4, {"value": 8, "per_tile": 2, "marks": {"inn": 1}})


def test_the_same_road_without_an_inn_scores_1_per_tile() -> None:
    steps = [("base/U", 1, 0, 0, ("meeple", "E")), *INN_ROAD[1:]]
    assert paid(scenario(steps, then=["base/B"], **IC)) == [("road", {0: 4})]


def test_d31_two_inns_on_one_road_still_score_2_per_tile() -> None:
    # ic/O, then ic/P (a curve W-S with an inn) turns the road south to a crossroads: 5 tiles
    steps = [
        ("ic/O", 1, 0, 0, ("meeple", "E")),
        ("ic/P", 2, 0, 0, None),
        ("base/W", 2, 1, 180, None),
        ("base/W", -1, 0, 0, None),
    ]
    game = scenario(steps, then=["base/B"], **IC)
    assert paid(game) == [("inn", {0: 10})]
    assert score_events(game, "completed")[0].detail["marks"] == {"inn": 2}


def test_an_incomplete_road_with_an_inn_scores_nothing_at_the_end() -> None:
    game = scenario(INN_ROAD[:2], **IC)  # the west end stays open
    (event,) = score_events(game, "final")
    assert (event.source, event.points, event.tiles) == ("inn", {0: 0}, 3)
    assert game.scores == [0, 0]


def test_an_incomplete_road_without_an_inn_scores_1_per_tile_at_the_end() -> None:
    steps = [("base/U", 1, 0, 0, ("meeple", "E")), INN_ROAD[1]]
    game = scenario(steps, **IC)
    assert paid(game, "final") == [("road", {0: 3})]


def test_an_inn_on_a_road_end_counts_for_the_road_it_ends() -> None:
    # ic/N: roads E (with the inn), S and W end at a crossroads; at rotation 180 the inn road
    # runs W into the start road's east end.  base/W closes the start road's west end.
    steps = [("ic/N", 1, 0, 180, ("meeple", "W")), ("base/W", -1, 0, 0, None)]
    game = scenario(steps, then=["base/B"], **IC)
    assert paid(game) == [("inn", {0: 6})]


# ------------------------------------------------------------------------------ cathedrals

# The cathedral (a city on all four sides) north of the start tile: its S side joins the start
# city; base/E closes its N, E and W sides.  5 tiles, no coat of arms.
CATHEDRAL_CITY = [
    ("ic/B", 0, -1, 0, ("meeple", "N")),
    ("base/E", 0, -2, 180, None),
    ("base/E", 1, -1, 270, None),
    ("base/E", -1, -1, 90, None),
]


def test_a_completed_city_with_a_cathedral_scores_3_per_tile() -> None:
    game = scenario(CATHEDRAL_CITY, then=["base/B"], **IC)
    assert paid(game) == [("cathedral", {0: 15})]
    (event,) = score_events(game, "completed")
    assert (event.tiles, event.coats_of_arms) == (5, 0)


def test_a_cathedral_city_scores_3_per_coat_of_arms_too() -> None:
    # base/M (city N-W with a coat of arms) at 180 closes the cathedral's N side with its S
    # side and opens E, which a last base/E closes: 6 tiles + 1 coat of arms.
    steps = [
        CATHEDRAL_CITY[0],
        ("base/M", 0, -2, 180, None),
        *CATHEDRAL_CITY[2:],
        ("base/E", 1, -2, 270, None),
    ]
    game = scenario(steps, then=["base/B"], **IC)
    assert paid(game) == [("cathedral", {0: 21})]


def test_d34_an_incomplete_city_with_a_cathedral_scores_nothing_at_the_end() -> None:
    game = scenario(CATHEDRAL_CITY[:3], **IC)
    (event,) = score_events(game, "final")
    assert (event.source, event.points, event.tiles) == ("cathedral", {0: 0}, 4)


def test_d31_both_cathedrals_in_one_city_still_score_3_per_tile() -> None:
    steps = [
        ("ic/B", 0, -1, 0, ("meeple", "N")),
        ("ic/B", 0, -2, 0, None),
        ("base/E", 0, -3, 180, None),
        ("base/E", 1, -1, 270, None),
        ("base/E", -1, -1, 90, None),
        ("base/E", 1, -2, 270, None),
        ("base/E-garden", -1, -2, 90, None),
    ]
    game = scenario(steps, then=["base/B"], **IC)
    assert paid(game) == [("cathedral", {0: 24})]
    assert score_events(game, "completed")[0].detail["marks"] == {"cathedral": 2}


def test_a_farmer_counts_a_completed_cathedral_city_as_one_city() -> None:
    # A farmer on the start tile's field between road and city borders the cathedral city.
    game = Game(players=2, stack=tuple(s[0] for s in CATHEDRAL_CITY), **IC)
    game.put_figure(1, "meeple", segment(game, 0, 0, "EL"))
    for tile, x, y, rotation, figure in CATHEDRAL_CITY:
        assert game.current_tile is not None and game.current_tile.id == tile
        game.apply(PlaceTile(x, y, rotation))
        game.apply(PlaceFigure(*figure) if figure else PASS)
    assert paid(game) == [("cathedral", {0: 15}), ("field", {1: 3})]


# ---------------------------------------------------------------------------- large meeple


def test_d33_six_players_each_have_one_large_meeple() -> None:
    game = Game(players=6, inns_cathedrals=True, seed=0)
    assert game.supply == [{"meeple": 7, LARGE: 1}] * 6


@pytest.mark.parametrize("location", ["E", "NL", "ER"])
def test_the_large_meeple_goes_where_a_meeple_goes(location: str) -> None:
    game = Game(players=2, stack=("base/U", "base/U"), **IC)
    game.apply(PlaceTile(1, 0, 0))
    legal = set(game.legal_actions())
    assert PlaceFigure(LARGE, location) in legal and PlaceFigure("meeple", location) in legal
    game.apply(PlaceFigure(LARGE, location))
    assert game.supply[0] == {"meeple": 7, LARGE: 0}


def test_d32_the_large_meeple_goes_on_a_monastery_but_not_a_garden() -> None:
    game = Game(players=2, abbot=True, stack=("base/E-garden", "base/B", "base/U"), **IC)
    game.apply(PlaceTile(0, 1, 180))
    assert PlaceFigure(LARGE, "garden") not in set(game.legal_actions())
    assert_refused(game, PlaceFigure(LARGE, "garden"), "large-meeple cannot stand on a garden")
    game.apply(PASS)
    game.apply(PlaceTile(1, 1, 0))
    assert PlaceFigure(LARGE, "monastery") in set(game.legal_actions())


def test_one_large_meeple_only() -> None:
    game = Game(players=2, stack=("base/U", "base/U", "base/U", "base/U"), **IC)
    game.apply(PlaceTile(1, 0, 0))
    game.apply(PlaceFigure(LARGE, "NL"))
    game.apply(PlaceTile(-1, 0, 0))
    game.apply(PASS)
    game.apply(PlaceTile(2, 0, 0))
    assert PlaceFigure("meeple", "E") in set(game.legal_actions())
    assert PlaceFigure(LARGE, "E") not in set(game.legal_actions())
    assert_refused(game, PlaceFigure(LARGE, "E"), "seat 0 has no large-meeple left")


def road_with(*figures: tuple[int, str, int, int]) -> Game:
    """The start road closed by base/W on both sides (3 tiles), with ``figures`` (seat, type,
    x, y) on its segment of the start tile or of either base/W."""
    at = {(0, 0): "E", (1, 0): "W", (-1, 0): "E"}
    game = Game(players=2, stack=("base/W", "base/W", "base/B"), **IC)
    return close_start_road(game, [(s, f, x, y, at[(x, y)]) for s, f, x, y in figures])


def test_d32_the_large_meeple_outweighs_one_meeple() -> None:
    game = road_with((0, LARGE, 0, 0), (1, "meeple", 1, 0))
    assert paid(game) == [("road", {0: 3})]


def test_d32_the_large_meeple_ties_with_two_meeples() -> None:
    game = road_with((0, LARGE, 0, 0), (1, "meeple", 1, 0), (1, "meeple", -1, 0))
    assert paid(game) == [("road", {0: 3, 1: 3})]


def test_a_large_meeple_and_a_meeple_outweigh_two_meeples() -> None:
    game = road_with((0, LARGE, 0, 0), (0, "meeple", 1, 0), (1, "meeple", -1, 0))
    assert paid(game) == [("road", {0: 3})]


def test_the_large_meeple_returns_after_scoring() -> None:
    game = road_with((0, LARGE, 0, 0), (1, "meeple", 1, 0))
    assert game.supply == [{"meeple": 7, LARGE: 1}, {"meeple": 7, LARGE: 1}]
    assert not game.figures


def test_d32_a_large_farmer_outweighs_one_farmer() -> None:
    # The strip of field between the start tile's road and city runs on into ic/O's north field
    # (ic/O at (1, 0)); base/E at (0, -1) completes the city that strip borders.
    game = Game(players=2, stack=("ic/O", "base/E"), **IC)
    game.put_figure(0, LARGE, segment(game, 0, 0, "EL"))
    game.apply(PlaceTile(1, 0, 0))
    game.apply(PASS)
    game.put_figure(1, "meeple", segment(game, 1, 0, "NL"))
    game.apply(PlaceTile(0, -1, 180))
    game.apply(PASS)
    (field,) = score_events(game, "final")
    assert (field.source, field.points, field.figures) == ("field", {0: 3}, {0: 1, 1: 1})


def test_d38_without_farmers_the_large_meeple_stays_off_fields() -> None:
    game = Game(players=2, farmers=False, stack=("base/U", "base/U"), **IC)
    game.apply(PlaceTile(1, 0, 0))
    assert set(game.legal_actions()) == {PASS, PlaceFigure("meeple", "E"), PlaceFigure(LARGE, "E")}


# ------------------------------------------------------------------------- interactions


def test_d35_bets_count_the_tiles_of_a_road_with_an_inn() -> None:
    """D35: bets/07 at (1, 0) ends a road that runs west through the start tile,
    ic/O and base/U to a crossroads: 5 tiles, paid 2 each for the inn, and the bets are settled
    on 5 tiles (5/8+ wins 5; 4/7+ nothing), not on the 10 points."""
    stack = ("bets/07", "ic/O", "base/U", "base/W", "base/B")
    game = Game(players=2, bets=True, stack=stack, **IC)
    game.apply(PlaceTile(1, 0, 0))
    game.apply(PlaceFigure("meeple", "W"))
    game.apply(PlaceBet("4/7+"))
    game.apply(PlaceBet("5/8+"))
    for x, tile in ((-1, "ic/O"), (-2, "base/U"), (-3, "base/W")):
        assert game.current_tile is not None and game.current_tile.id == tile
        game.apply(PlaceTile(x, 0, 0))
        game.apply(PASS)
    assert paid(game, "completed") == [("inn", {0: 10}), ("bet", {0: 0}), ("bet", {1: 5})]
    assert game.scores == [10, 5]


def test_d35_bets_settle_on_an_unfinished_inn_road_that_scores_nothing() -> None:
    """D35: at the end a chip still counts the tiles of its incomplete road, inn or not."""
    stack = ("bets/07", "ic/O")
    game = Game(players=2, bets=True, stack=stack, **IC)
    game.apply(PlaceTile(1, 0, 0))
    game.apply(PlaceFigure("meeple", "W"))
    game.apply(PlaceBet("3/5"))
    game.apply(PASS)
    game.apply(PlaceTile(-1, 0, 0))  # the last tile: no bets, road 3 tiles, still open
    game.apply(PASS)
    assert paid(game, "final") == [("bet", {0: 3}), ("inn", {0: 0})]
    assert game.scores == [3, 0]


def test_d36_on_a_map_each_player_has_9_meeples_and_the_large_meeple() -> None:
    game = Game(players=3, map="france", map_chips=True, inns_cathedrals=True, seed=2)
    assert game.supply == [{"meeple": 9, LARGE: 1}] * 3


# ------------------------------------------------------------------------------- gardens

ABBOT_IC = {"abbot": True, **IC}


def test_d50_two_tiles_show_a_garden_C_and_O() -> None:
    tiles = tile_set("ic").tiles
    assert [(t.name, t.count) for t in tiles if "garden" in t.centre] == [("C", 1), ("O", 1)]


@pytest.mark.parametrize(
    "steps",
    [
        # ic/O east of the start tile (its inn road joins the start road), base/W ends that road
        [("ic/O", 1, 0, 0, ("abbot", "garden")), ("base/W", 2, 0, 0, None)],
        # ic/C north of it (its S city closes with the start city at once, nobody on it), base/W
        # east of the start tile
        [("ic/C", 0, -1, 0, ("abbot", "garden")), ("base/W", 1, 0, 0, None)],
    ],
)
def test_d50_an_abbot_on_an_inns_cathedrals_garden_scores_1_plus_neighbours(
    steps: list[Step],
) -> None:
    # At the end the garden has two tiles around it: the start tile and base/W.
    game = scenario(steps, **ABBOT_IC)
    assert paid(game) == [("garden", {0: 3})]
    assert game.scores == [3, 0]


def test_d50_a_game_with_the_abbot_and_inns_cathedrals_has_10_gardens() -> None:
    game = Game(players=2, seed=3, **ABBOT_IC)
    assert game.current_tile is not None
    tiles = [game.current_tile, *game.stack, *(p.tile for p in game.board.values())]
    gardens = sorted(t.id for t in tiles if "garden" in t.centre)
    assert gardens == [*(f"base/{letter}-garden" for letter in "EHIMNRUV"), "ic/C", "ic/O"]


def test_d50_a_meeple_may_not_stand_on_an_inns_cathedrals_garden() -> None:
    game = Game(players=2, stack=("ic/O",), **ABBOT_IC)
    game.apply(PlaceTile(1, 0, 0))
    assert PlaceFigure("abbot", "garden") in game.legal_actions()
    assert_refused(game, PlaceFigure("meeple", "garden"), "meeple cannot stand on a garden")
    assert_refused(game, PlaceFigure(LARGE, "garden"), "cannot stand on a garden")


# ------------------------------------------------------------------------------ variants

PLAIN_UNFINISHED = {"plain_unfinished_inns_cathedrals": True, **IC}
NO_INNS = {"inns": False, **IC}
NO_CATHEDRALS = {"cathedrals": False, **IC}


def test_d51_an_unfinished_road_with_an_inn_scores_1_per_tile_at_the_end() -> None:
    game = scenario(INN_ROAD[:2], **PLAIN_UNFINISHED)  # the west end stays open: 3 tiles
    assert paid(game, "final") == [("inn", {0: 3})]
    assert game.scores == [3, 0]


def test_d51_an_unfinished_city_with_a_cathedral_scores_1_per_tile_and_coat_at_the_end() -> None:
    # The cathedral city of test_a_cathedral_city_scores_3_per_coat_of_arms_too, its E side
    # left open: 5 tiles and base/M's coat of arms.
    steps = [CATHEDRAL_CITY[0], ("base/M", 0, -2, 180, None), *CATHEDRAL_CITY[2:]]
    game = scenario(steps, **PLAIN_UNFINISHED)
    assert paid(game, "final") == [("cathedral", {0: 6})]


def test_d51_completed_inns_and_cathedrals_still_pay_their_rates() -> None:
    assert paid(scenario(INN_ROAD, then=["base/B"], **PLAIN_UNFINISHED)) == [("inn", {0: 8})]
    game = scenario(CATHEDRAL_CITY, then=["base/B"], **PLAIN_UNFINISHED)
    assert paid(game) == [("cathedral", {0: 15})]


def test_d52_without_inns_a_completed_road_with_an_inn_scores_1_per_tile() -> None:
    game = scenario(INN_ROAD, then=["base/B"], **NO_INNS)
    assert paid(game) == [("road", {0: 4})]
    (event,) = score_events(game, "completed")
    # paid 1 per tile; the tile still shows its inn
    assert (event.detail["value"], event.detail["per_tile"], event.detail["marks"]) == (
        4,
        1,
        {"inn": 1},
    )


def test_d52_without_inns_an_unfinished_road_with_an_inn_scores_1_per_tile() -> None:
    game = scenario(INN_ROAD[:2], **NO_INNS)
    assert paid(game, "final") == [("road", {0: 3})]


def test_d52_without_inns_the_cathedrals_still_count() -> None:
    assert paid(scenario(CATHEDRAL_CITY, then=["base/B"], **NO_INNS)) == [("cathedral", {0: 15})]
    assert paid(scenario(CATHEDRAL_CITY[:3], **NO_INNS), "final") == [("cathedral", {0: 0})]


def test_d53_without_cathedrals_a_completed_cathedral_city_scores_2_per_tile() -> None:
    game = scenario(CATHEDRAL_CITY, then=["base/B"], **NO_CATHEDRALS)
    assert paid(game) == [("city", {0: 10})]


def test_d53_without_cathedrals_an_unfinished_cathedral_city_scores_1_per_tile() -> None:
    game = scenario(CATHEDRAL_CITY[:3], **NO_CATHEDRALS)
    assert paid(game, "final") == [("city", {0: 4})]


def test_d53_without_cathedrals_the_inns_still_count() -> None:
    assert paid(scenario(INN_ROAD, then=["base/B"], **NO_CATHEDRALS)) == [("inn", {0: 8})]
    assert paid(scenario(INN_ROAD[:2], **NO_CATHEDRALS), "final") == [("inn", {0: 0})]


def test_d51_d52_plain_unfinished_cathedrals_without_inns() -> None:
    options = {**PLAIN_UNFINISHED, "inns": False}
    assert paid(scenario(CATHEDRAL_CITY[:3], **options), "final") == [("cathedral", {0: 4})]
    assert paid(scenario(INN_ROAD, then=["base/B"], **options)) == [("road", {0: 4})]


@pytest.mark.parametrize(
    ("variant", "message"),
    [
        ({"inns": False}, "--no-inns needs Inns & Cathedrals"),
        ({"cathedrals": False}, "--no-cathedrals needs Inns & Cathedrals"),
        (
            {"plain_unfinished_inns_cathedrals": True},
            "--plain-unfinished-inns-cathedrals needs Inns & Cathedrals",
        ),
        (
            {"inns": False, "cathedrals": False},
            "--no-inns and --no-cathedrals need Inns & Cathedrals",
        ),
    ],
)
def test_d54_the_variants_are_refused_without_inns_cathedrals(
    variant: dict[str, bool], message: str
) -> None:
    with pytest.raises(GameSetupError, match=re.escape(f"{message} (--inns-cathedrals)")):
        Game(players=2, **variant)


def test_d54_plain_unfinished_is_refused_with_neither_inns_nor_cathedrals() -> None:
    with pytest.raises(GameSetupError, match="has nothing to change with both --no-inns"):
        Game(players=2, inns=False, cathedrals=False, **PLAIN_UNFINISHED)
    assert Game(players=2, inns=False, cathedrals=False, **IC).expansion(InnsCathedrals)
