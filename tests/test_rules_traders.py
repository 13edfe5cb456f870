"""Traders & Builders (docs/rules.md §12, D40–D49) on concrete boards, with exact scores.

The start tile base/D lies at (0, 0): city N, road W–E, field S.  Layouts (docs/rules.md §8):
base/U = road W–E; base/V = road W–S (rotation 90: N–W); base/E = city N (rotation 180: city S,
rotation 270: city W); base/B = monastery, all field; traders_builders/02 = city N–W with wine
(rotation 180: city S–E); traders_builders/15 = city W–E with wine; traders_builders/03 = city W–E
with cloth, a separate city S and an enclosed field between them; bets/07 = a road W ending at a
betting office.
"""

from __future__ import annotations

from carcassonne import PASS, Game, PlaceFigure, PlaceTile
from carcassonne.expansions.mapchips import MapChips
from carcassonne.expansions.traders import GOODS, TradersBuilders
from carcassonne.game import GameSummary
from carcassonne.tiles import tile_set
from scenario import assert_refused, paid, play, scenario

TB = {"traders_builders": True}
WINE_CORNER = "traders_builders/02"
WINE_BAND = "traders_builders/15"
CLOTH_ENCLOSED = "traders_builders/03"


def traders(game: Game) -> TradersBuilders:
    ext = game.expansion(TradersBuilders)
    assert isinstance(ext, TradersBuilders)
    return ext


def goods(game: Game) -> list[dict[str, int]]:
    return [dict(zip(GOODS, held, strict=True)) for held in traders(game).goods]


def seats_of_tiles(game: Game) -> list[int]:
    """The seat of every tile placement, in order."""
    return [seat for seat, action in game.history if isinstance(action, PlaceTile)]


# -------------------------------------------------------------------------------- the tiles


def test_the_set_has_24_tiles_and_20_goods_symbols_9_wine_6_grain_5_cloth() -> None:
    tiles = tile_set("traders_builders").copies()
    assert len(tiles) == 24
    symbols = [mark for tile in tiles for seg in tile.segments for mark in seg.marks]
    assert {kind: symbols.count(kind) for kind in GOODS} == {"wine": 9, "grain": 6, "cloth": 5}
    assert all(len(seg.marks) <= 1 for tile in tiles for seg in tile.segments)
    assert sum("garden" in tile.centre for tile in tiles) == 2


def test_each_seat_gets_a_builder_and_a_pig() -> None:
    game = Game(players=3, seed=1, **TB)
    assert game.supply == [{"meeple": 7, "builder": 1, "pig": 1}] * 3
    assert len(game.stack) + 1 == 71 + 24  # + the tile drawn for the first turn


# ------------------------------------------------------------------------------ trade goods


def test_d46_the_completing_player_takes_the_goods_without_a_knight() -> None:
    # Seat 0 opens a wine city on the start's; seat 1 closes it: 3 tiles, 6 points to nobody,
    # 1 wine to seat 1, which alone holds wine at the end: 10 points.
    game = scenario(
        [
            (WINE_CORNER, 0, -1, 180, None),
            ("base/E", 1, -1, 270, None),
        ],
        **TB,
    )
    assert goods(game) == [{"wine": 0, "grain": 0, "cloth": 0}, {"wine": 1, "grain": 0, "cloth": 0}]
    assert paid(game) == [("goods", {1: 10})]
    assert game.scores == [0, 10]


def test_the_rules_example_blue_scores_the_city_you_take_a_wine_and_two_grain() -> None:
    # The rules' example: a 5-tile city with one wine and two grain symbols; blue (seat 1) has
    # the knight and scores 10, you (seat 0) place the last tile and take the three tokens.
    # Nobody else holds goods, so at the end you score 10 for wine and 10 for grain.
    game = scenario(
        [
            ("traders_builders/17", 0, -1, 90, None),  # grain, city N-S
            ("traders_builders/01", 0, -2, 180, ("meeple", "E")),  # grain, city S-E
            (WINE_CORNER, 1, -2, 270, None),  # wine, city S-W
            ("base/U", 1, 0, 0, None),
            ("base/E", 1, -1, 0, None),  # closes the city from the south
        ],
        **TB,
    )
    assert paid(game, "completed") == [("city", {1: 10})]
    assert goods(game)[0] == {"wine": 1, "grain": 2, "cloth": 0}
    assert paid(game, "final") == [("goods", {0: 10}), ("goods", {0: 10})]
    assert game.scores == [20, 10]


def test_d49_goods_majorities_score_10_ties_all_score() -> None:
    # Each seat closes one wine city: a tie, both score 10; nobody holds grain or cloth.
    game = scenario(
        [
            (WINE_CORNER, 0, -1, 180, None),
            ("base/E", 1, -1, 270, None),
            ("traders_builders/18", 0, 1, 0, None),
            ("base/E", 1, 1, 270, None),
            ("base/E", -1, 1, 90, None),
        ],
        **TB,
    )
    assert goods(game) == [{"wine": 1, "grain": 0, "cloth": 0}] * 2
    assert paid(game, "final") == [("goods", {0: 10}), ("goods", {1: 10})]
    assert GameSummary.of(game).by_source == [{"goods": 10}, {"goods": 10}]


def test_d49_goods_are_in_every_view() -> None:
    game = scenario(
        [(WINE_CORNER, 0, -1, 180, None), ("base/E", 1, -1, 270, None)],
        then=("base/U",),
        **TB,
    )
    held = [{"wine": 0, "grain": 0, "cloth": 0}, {"wine": 1, "grain": 0, "cloth": 0}]
    for seat in (0, 1, None):
        assert game.view(seat)["expansions"]["traders_builders"]["goods"] == held


def test_an_incomplete_goods_city_gives_nothing_at_the_end() -> None:
    game = scenario([(WINE_CORNER, 0, -1, 180, ("meeple", "E"))], **TB)
    assert goods(game) == [{"wine": 0, "grain": 0, "cloth": 0}] * 2
    assert paid(game) == [("city", {0: 2})]


# ------------------------------------------------------------------------------ the builder

# Seat 0 owns the start's road with a meeple on (1, 0) and puts its builder on it at (2, 0).
BUILDER_ON_ROAD = [
    ("base/U", 1, 0, 0, ("meeple", "E")),
    ("base/B", 0, 1, 0, None),
    ("base/U", 2, 0, 0, ("builder", "E")),
    ("base/B", 1, 1, 0, None),
]


def test_d44_builder_only_where_the_seat_has_a_meeple() -> None:
    game = scenario(BUILDER_ON_ROAD[:1], then=("base/U", "base/U"), **TB)
    game.apply(PlaceTile(2, 0, 0))  # seat 1 extends seat 0's road
    assert PlaceFigure("builder", "E") not in game.legal_actions()
    assert_refused(
        game, PlaceFigure("builder", "E"), "traders_builders rules do not allow a builder"
    )
    game.apply(PASS)
    game.apply(PlaceTile(3, 0, 0))  # seat 0 extends its own road
    builders = {a for a in game.legal_actions() if getattr(a, "figure", None) == "builder"}
    assert builders == {PlaceFigure("builder", "E")}  # never on a field
    game.apply(PlaceFigure("builder", "E"))
    assert game.supply[0] == {"meeple": 6, "builder": 0, "pig": 1}


def test_d40_extending_the_builders_road_gives_a_second_tile() -> None:
    game = scenario(BUILDER_ON_ROAD, then=("base/U", "base/U", "base/U"), **TB)
    assert game.active == 0  # the builder was placed, not extended, at (2, 0): no second tile
    play(game, [("base/U", 3, 0, 0, None)])
    assert (game.phase, game.active, game.to_move) == ("tile", 0, 0)
    play(game, [("base/U", 4, 0, 0, None)])
    assert game.active == 1
    assert seats_of_tiles(game) == [0, 1, 0, 1, 0, 0]


def test_d41_the_second_tile_is_played_without_a_question() -> None:
    game = scenario([*BUILDER_ON_ROAD, ("base/U", 3, 0, 0, None)], then=("base/U",), **TB)
    assert game.phase == "tile" and game.to_move == 0
    assert [e.type for e in game.events if getattr(e, "type", None) == "extra-turn"] == [
        "extra-turn"
    ]


def test_d40_the_second_tile_never_gives_a_third() -> None:
    # Both tiles of the double turn extend the builder's road; seat 1 plays next.
    game = scenario(
        [*BUILDER_ON_ROAD, ("base/U", 3, 0, 0, None), ("base/U", 4, 0, 0, None)],
        then=("base/U",),
        **TB,
    )
    assert (game.active, game.to_move) == (1, 1)
    assert seats_of_tiles(game) == [0, 1, 0, 1, 0, 0]


def test_d41_no_second_tile_when_the_stack_is_empty() -> None:
    game = scenario([*BUILDER_ON_ROAD, ("base/U", 3, 0, 0, None)], **TB)
    assert game.is_over
    # The road (0..3, 0) is open at both ends: 4 tiles to seat 0's meeple; the builder weighs 0.
    assert paid(game, "final") == [("road", {0: 4})]


def test_d40_completing_the_builders_city_still_gives_a_second_tile() -> None:
    # Seat 0: knight in a wine city (0, -1), builder on its extension (1, -1); base/E on (2, -1)
    # completes it: 4 tiles, 8 points, 2 wine, knight and builder home; then the second tile.
    game = scenario(
        [
            (WINE_CORNER, 0, -1, 180, ("meeple", "E")),
            ("base/B", 0, 1, 0, None),
            (WINE_BAND, 1, -1, 0, ("builder", "E")),
            ("base/B", 1, 1, 0, None),
            ("base/E", 2, -1, 270, None),
        ],
        then=("base/U", "base/U"),
        **TB,
    )
    assert paid(game) == [("city", {0: 8})]
    assert goods(game)[0] == {"wine": 2, "grain": 0, "cloth": 0}
    assert game.supply[0] == {"meeple": 7, "builder": 1, "pig": 1}
    assert (game.phase, game.to_move) == ("tile", 0)
    play(game, [("base/U", 1, 0, 0, None)])
    assert game.to_move == 1


def test_d46_goods_of_a_city_completed_by_the_second_tile() -> None:
    game = scenario(
        [
            ("base/U", 1, 0, 0, ("meeple", "E")),
            (WINE_CORNER, 0, -1, 180, None),
            ("base/U", 2, 0, 0, ("builder", "E")),
            ("base/B", 0, 1, 0, None),
            ("base/U", 3, 0, 0, None),  # extends the builder's road: a second tile
            ("base/E", 1, -1, 270, None),  # which completes the wine city
        ],
        then=("base/U",),
        **TB,
    )
    assert seats_of_tiles(game) == [0, 1, 0, 1, 0, 0]
    assert goods(game) == [{"wine": 1, "grain": 0, "cloth": 0}, {"wine": 0, "grain": 0, "cloth": 0}]


def test_d44_builder_does_not_count_for_the_majority() -> None:
    # Seat 0: meeple and builder on the road of y = 0; seat 1: a meeple on a road at y = 1.
    # Seat 0's double turn joins them through (3, 0), (3, 1), (2, 1): one open road of 7 tiles,
    # one meeple each, so both score 7 (the builder would otherwise break the tie).
    game = scenario(
        [
            ("base/U", 1, 0, 0, ("meeple", "E")),
            ("base/U", 1, 1, 0, ("meeple", "E")),
            ("base/U", 2, 0, 0, ("builder", "E")),
            ("base/V", 3, 0, 0, None),
            ("base/V", 3, 1, 90, None),
            ("base/U", 2, 1, 0, None),
        ],
        **TB,
    )
    assert seats_of_tiles(game) == [0, 1, 0, 1, 0, 0]
    assert paid(game, "final") == [("road", {0: 7, 1: 7})]


# ---------------------------------------------------------------------------------- the pig


def test_d44_pig_only_on_a_field_with_the_seats_farmer() -> None:
    # Seat 0's farmer on (0, -1), whose city closes the start's; the fields around join up.
    game = scenario([("base/E", 0, -1, 180, ("meeple", "NL"))], then=("base/B", "base/B"), **TB)
    game.apply(PlaceTile(1, -1, 0))  # seat 1 joins seat 0's field
    assert not [a for a in game.legal_actions() if getattr(a, "figure", None) == "pig"]
    game.apply(PASS)
    game.apply(PlaceTile(-1, -1, 0))
    pigs = {a for a in game.legal_actions() if getattr(a, "figure", None) == "pig"}
    assert pigs == {PlaceFigure("pig", "NL")}


def test_d45_pig_owner_scores_4_per_city_others_3() -> None:
    # Seat 0: farmer on (0, -1) (its city closes the start's: one completed city); seat 1: a
    # farmer on (1, 0), on the start's northern field; seat 0's monastery tile on (1, -1) joins
    # the two fields and takes seat 0's pig.  A tie: seat 0 scores 4, seat 1 scores 3.
    game = scenario(
        [
            ("base/E", 0, -1, 180, ("meeple", "NL")),
            ("base/U", 1, 0, 0, ("meeple", "NL")),
            ("base/B", 1, -1, 0, ("pig", "NL")),
        ],
        **TB,
    )
    assert paid(game, "final") == [("field", {0: 4, 1: 3})]


def test_a_pig_without_the_tie_gives_its_owner_4_per_city() -> None:
    game = scenario(
        [
            ("base/E", 0, -1, 180, ("meeple", "NL")),
            ("base/U", 1, 0, 0, None),
            ("base/B", 1, -1, 0, ("pig", "NL")),
        ],
        **TB,
    )
    assert paid(game, "final") == [("field", {0: 4})]


# ---------------------------------------------------------------------------- enclosed field


def test_d47_a_farmer_on_an_enclosed_field_scores_its_cities() -> None:
    # traders_builders/03 on (0, -1): its city S closes the start's city (2 tiles, nobody's);
    # the farmer between the cities scores that completed city (3); the cloth city stays open.
    game = Game(players=2, stack=(CLOTH_ENCLOSED,), **TB)
    game.apply(PlaceTile(0, -1, 0))
    assert PlaceFigure("meeple", "inner") in game.legal_actions()
    game.apply(PlaceFigure("meeple", "inner"))
    assert game.is_over
    assert paid(game, "final") == [("field", {0: 3})]


# ------------------------------------------------------------------------ with other options


def test_d42_a_bookmaker_tile_as_the_second_tile_opens_step_4() -> None:
    game = scenario(
        [*BUILDER_ON_ROAD, ("base/U", 3, 0, 0, None), ("bets/07", 4, 0, 0, None)],
        then=("base/U",),
        bets=True,
        **TB,
    )
    assert (game.phase, game.to_move, game.active) == ("bet", 0, 0)
    game.apply(PASS)
    assert (game.phase, game.to_move) == ("bet", 1)
    game.apply(PASS)
    assert (game.phase, game.to_move, game.active) == ("tile", 1, 1)


def test_d42_bets_on_the_first_tile_come_before_the_second_tile() -> None:
    # The office on (3, 0) ends the builder's road (still open at (-1, 0)): step 4, then the
    # second tile, on the road's other end.
    game = scenario(
        [*BUILDER_ON_ROAD, ("bets/07", 3, 0, 0, None)], then=("base/U",), bets=True, **TB
    )
    assert (game.phase, game.to_move) == ("bet", 0)
    game.apply(PASS)
    game.apply(PASS)
    assert (game.phase, game.to_move, game.active) == ("tile", 0, 0)
    play(game, [("base/U", -1, 0, 0, None)])
    assert game.is_over


def test_d43_each_tile_of_a_double_turn_may_sell_a_wine() -> None:
    # France, start tile on Nancy (13, 4), base/B on Le Mans.  Seat 0 holds a light-blue and a
    # purple wine.  Its builder's road reaches Strasbourg (15, 4, light blue, on the border):
    # a sale (9); its second tile covers Besançon (13, 6, purple): another sale (9).
    from carcassonne.expansions.mapchips import TOWN, Chip, SellWine

    game = Game(
        players=2,
        map="france",
        map_chips=True,
        start_squares=("Nancy", "Le Mans"),
        stack=("base/B", "base/U", "base/U", "base/U", "base/B", "base/U", "base/B", "base/U"),
        **TB,
    )
    chips = game.expansion(MapChips)
    chips.face_down = {}
    chips.in_front = [[Chip("light-blue", 2), Chip("purple", 2)], []]
    play(
        game,
        [
            ("base/U", 14, 4, 0, ("meeple", "E")),
            ("base/U", 12, 4, 0, None),
            ("base/U", 11, 4, 0, ("builder", "E")),
            ("base/B", 13, 5, 0, None),
            ("base/U", 15, 4, 0, None),
        ],
    )
    assert game.phase == "wine"
    game.apply(SellWine(TOWN, "light-blue", (2,)))
    assert (game.phase, game.to_move) == ("tile", 0)
    play(game, [("base/B", 13, 6, 0, None)])
    assert game.phase == "wine" and game.to_move == 0
    game.apply(SellWine(TOWN, "purple", (2,)))
    assert game.scores == [18, 0]
    assert (game.phase, game.to_move) == ("tile", 1)


def test_d48_builder_and_pig_come_on_top_of_9_meeples() -> None:
    game = Game(players=2, map="france", seed=3, **TB)
    assert game.supply == [{"meeple": 9, "builder": 1, "pig": 1}] * 2


def test_d48_a_france_game_plays_every_enabled_set_once() -> None:
    # 72 base + 24 Traders & Builders + 10 bookmaker tiles: two start tiles placed, one drawn.
    game = Game(players=2, map="france", bets=True, seed=3, **TB)
    assert len(game.stack) + 1 == 72 + 24 + 10 - 2


def test_d48_france_with_both_expansions_has_114_land_tiles() -> None:
    # The recommended 110-120 for France: 72 base + 18 Inns & Cathedrals + 24 Traders & Builders,
    # plus the 10 bookmaker tiles; two start tiles are placed and one tile is drawn.
    game = Game(players=2, map="france", bets=True, inns_cathedrals=True, seed=3, **TB)
    land = [t for t in [*game.stack, game.current_tile] if t is not None and not t.has_office]
    assert len(land) + 2 == 72 + 18 + 24
    assert len(game.stack) + 1 + 2 == 114 + 10
