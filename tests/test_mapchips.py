"""Map-Chips France (docs/rules.md §5, D10–D12): chip setup, collecting, selling wine, hiding.

Wine situations are played on the France map with start squares (Nancy, Le Mans): the start
tile base/D lies on Nancy (13, 4) at rotation 0 (N city, E and W road, S field), so a tile on
(14, 4) continues its road east and a tile on (15, 4) — the town Strasbourg (light blue), on the
map's east edge — can take the road to the border.  Tests set the chips lying on the map and in
front of the seats directly (``MapChips.face_down`` / ``in_front``), the way a test builds a board.

Tile layouts (docs/rules.md §8.1): U = F R F R (road W–E); A = monastery with a road S (rotation 90:
road W, E side field); O / P = city N–W (O with a coat of arms) and road E–S (rotation 90: city
N–E, road S–W); B = monastery, all field.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from typing import Any

import pytest

from carcassonne import PASS, Game, GameSetupError, PlaceTile, ScoreEvent
from carcassonne.board import DELTAS, decode, encode
from carcassonne.bots import make_bot
from carcassonne.bots.random_bot import RandomBot
from carcassonne.cli.panels import map_chips_lines
from carcassonne.cli.render_map import map_legend, render_map
from carcassonne.expansions.mapchips import (
    EXPORT,
    TOWN,
    Chip,
    MapChips,
    SellWine,
    chip_set,
    spread_chips,
)
from carcassonne.formats.actions import action_from_json, action_to_json
from carcassonne.maps import load_map, parse_map
from scenario import assert_refused
from test_maps import map_game

FRANCE_STARTS = ("Nancy", "Le Mans")
P1, P2 = Chip("purple", 1), Chip("purple", 2)
L1, L2 = Chip("light-blue", 1), Chip("light-blue", 2)
O1, O2 = Chip("orange", 1), Chip("orange", 2)


def chips_of(game: Game) -> MapChips:
    return game.expansion(MapChips)


def france(
    stack: tuple[str, ...],
    face_down: dict[tuple[int, int], Chip] | None = None,
    in_front: list[list[Chip]] | None = None,
) -> Game:
    """France + Map-Chips, start tile on Nancy, base/B on Le Mans, then ``stack``."""
    game = Game(
        players=2,
        map="france",
        map_chips=True,
        start_squares=FRANCE_STARTS,
        stack=("base/B", *stack),
    )
    return _with_chips(game, face_down, in_front)


def _with_chips(
    game: Game,
    face_down: dict[tuple[int, int], Chip] | None,
    in_front: list[list[Chip]] | None,
) -> Game:
    chips = chips_of(game)
    chips.face_down = {encode(x, y): chip for (x, y), chip in (face_down or {}).items()}
    if in_front is not None:
        chips.in_front = [list(held) for held in in_front]
    return game


def turn(game: Game, x: int, y: int, rotation: int, figure: Any = PASS) -> None:
    """Place the drawn tile and play step 2 (a wine decision, if any, is left pending)."""
    game.apply(PlaceTile(x, y, rotation))
    game.apply(figure)


def to_strasbourg(tile: str, rotation: int, in_front: list[Chip]) -> Game:
    """Seat 0 holds ``in_front``; U on (14, 4), seat 1 U on (12, 4), seat 0 ``tile`` on (15, 4)."""
    game = france(("base/U", "base/U", tile, "base/U"), in_front=[in_front, []])
    turn(game, 14, 4, 0)
    turn(game, 12, 4, 0)
    turn(game, 15, 4, rotation)
    return game


def offered(game: Game) -> set[Any]:
    return set(game.legal_actions()) if game.phase == "wine" else set()


# ------------------------------------------------------------------------------ chips (D10)


def test_d10_thirty_chips_ten_per_colour_six_ones_and_four_twos() -> None:
    chips = chip_set(load_map("france"))
    assert len(chips) == 30
    counts = Counter(chips)
    for colour in ("purple", "light-blue", "orange"):
        assert counts[Chip(colour, 1)] == 6
        assert counts[Chip(colour, 2)] == 4


# ----------------------------------------------------------------------------- setup (D11)


def _check_setup(game: Game) -> None:
    """Every placement rule of docs/rules.md §5, checked from the map data (not the sampler)."""
    game_map = game.map
    chips = chips_of(game)
    squares = set(chips.face_down)
    assert sorted(chips.face_down.values()) == sorted(chip_set(game_map))
    used = {game_map.start_squares[name] for name in game.used_start_squares}
    open_faced = {
        pos + DELTAS[side]
        for pos, city in game_map.large_cities.items()
        for side in city.open_edges
    }
    for pos in squares:
        x, y = decode(pos)
        where = f"chip at {(x, y)}"
        assert 0 <= x < game_map.width and 0 <= y < game_map.height, where
        assert pos not in game_map.towns and pos not in game_map.large_cities, where
        assert pos not in game.board, where
        neighbours = {pos + d for d in DELTAS}
        assert not neighbours & (squares - {pos}), f"{where} touches another chip"
        assert not neighbours & used, f"{where} touches a used start square"
        assert pos not in open_faced, f"{where} faces an open edge of a large city"
    # spread evenly: every block holds its share of the chips rounded down or up
    block = game_map.chip_block
    eligible = _eligible_by_rule(game_map, used)
    per_block = Counter((decode(p)[0] // block, decode(p)[1] // block) for p in eligible)
    held = Counter((decode(p)[0] // block, decode(p)[1] // block) for p in squares)
    for key, size in per_block.items():
        share = len(squares) * size / len(eligible)
        assert int(share) <= held[key] <= -int(-share // 1), f"block {key}: {held[key]} chips"


def _eligible_by_rule(game_map: Any, used: set[int]) -> set[int]:
    squares = set(game_map.geometry.squares) - set(game_map.towns)
    for pos in used:
        squares -= {pos + d for d in DELTAS}
    for pos, city in game_map.large_cities.items():
        squares -= {pos + DELTAS[side] for side in city.open_edges}
    return squares


@pytest.mark.parametrize("map_name", ["france", "test-tiny"])
def test_d11_chip_setup_never_breaks_a_placement_rule(map_name: str) -> None:
    for seed in range(60):
        _check_setup(Game(players=2, map=map_name, map_chips=True, seed=seed))


def test_chip_setup_follows_the_seed() -> None:
    def layout(seed: int) -> dict[int, Chip]:
        return chips_of(Game(players=2, map="france", map_chips=True, seed=seed)).face_down

    assert layout(5) == layout(5)
    assert layout(5) != layout(6)


def test_d11_d18_chip_squares_are_uniform_among_valid_even_placements() -> None:
    # A 4x4 map in 2x2 blocks with 3 chips; enumerate every valid, evenly spread placement by
    # brute force and check the sampler hits each about equally often (chi-square).
    data = {
        "format": "carcassonne-map/1",
        "name": "square",
        "size": {"width": 4, "height": 4},
        "start_squares": ["A", "B"],
        "towns": [{"name": "A", "x": 0, "y": 0}, {"name": "B", "x": 3, "y": 3}],
        "chips_per_grape": {"1": 1, "2": 0},
        "chip_block": 2,
    }
    game_map = parse_map(data, "square")
    used = {encode(0, 0), encode(3, 3)}
    eligible = sorted(_eligible_by_rule(game_map, used))
    blocks = Counter((decode(p)[0] // 2, decode(p)[1] // 2) for p in eligible)
    valid = []
    for combo in itertools.combinations(eligible, 3):
        chosen = set(combo)
        if any(p + d in chosen for p in chosen for d in DELTAS):
            continue
        held = Counter((decode(p)[0] // 2, decode(p)[1] // 2) for p in chosen)
        if all(
            int(3 * n / len(eligible)) <= held[key] <= -int(-(3 * n / len(eligible)) // 1)
            for key, n in blocks.items()
        ):
            valid.append(combo)
    assert len(valid) > 20
    rng = random.Random(7)
    draws = 12_000
    counts = Counter(tuple(spread_chips(game_map, frozenset(used), 3, rng)) for _ in range(draws))
    assert set(counts) == set(valid)
    expected = draws / len(valid)
    chi2 = sum((counts[v] - expected) ** 2 / expected for v in valid)
    dof = len(valid) - 1
    assert chi2 < dof + 6 * (2 * dof) ** 0.5  # far in the tail only for a biased sampler


# ------------------------------------------------------------------------- 1. collecting


def test_placing_a_tile_on_a_chip_scores_1_or_2_at_once() -> None:
    game = france(("base/U", "base/U", "base/U"), face_down={(14, 4): O1, (12, 4): P2})
    game.apply(PlaceTile(14, 4, 0))
    assert game.scores == [1, 0]  # at once, before step 2
    assert chips_of(game).in_front == [[O1], []]
    game.apply(PASS)
    turn(game, 12, 4, 0)
    assert game.scores == [1, 2]
    assert chips_of(game).in_front == [[O1], [P2]]
    assert chips_of(game).face_down == {}
    collected = [e for e in game.events if isinstance(e, ScoreEvent) and e.source == "map-chip"]
    assert [(e.reason, e.points, e.detail["square"]) for e in collected] == [
        ("collected", {0: 1}, [14, 4]),
        ("collected", {1: 2}, [12, 4]),
    ]


# ------------------------------------------------------------------------ 3. selling wine


@pytest.mark.parametrize(
    ("held", "wines"),
    [
        ([L1, L2], {(2,)}),  # 1+2 is never a wine
        ([L1, L1], {(1, 1)}),
        ([L1, L1, L2], {(1, 1), (2,)}),
        ([L1, P1], set()),
    ],
)
def test_a_wine_is_chips_of_one_colour_worth_exactly_2(held: list[Chip], wines: set) -> None:
    # A at rotation 90 covers Strasbourg (light blue) with a road that ends on the tile and a
    # field on the border: a town sale only.
    game = to_strasbourg("base/A", 90, held)
    expected = {SellWine(TOWN, "light-blue", wine) for wine in wines}
    assert offered(game) == ({PASS} | expected if expected else set())


def test_one_and_two_together_are_refused() -> None:
    game = to_strasbourg("base/A", 90, [L1, L2])
    assert_refused(game, SellWine(TOWN, "light-blue", (1, 2)), "not a legal wine action now")


def test_selling_to_a_town_pays_9_and_the_chips_leave_the_game() -> None:
    game = to_strasbourg("base/A", 90, [L1, L1, P2])
    game.apply(SellWine(TOWN, "light-blue", (1, 1)))
    assert game.scores == [9, 0]
    chips = chips_of(game)
    assert chips.in_front[0] == [P2]
    assert chips.sold == [L1, L1]
    (event,) = [e for e in game.events if isinstance(e, ScoreEvent) and e.source == "wine"]
    assert (event.reason, event.points, event.detail["town"]) == ("town", {0: 9}, "Strasbourg")


def test_a_town_buys_only_wine_of_its_grape_colour() -> None:
    game = to_strasbourg("base/A", 90, [P2, O1, O1])  # Strasbourg is light blue
    assert game.phase == "tile" and game.to_move == 1  # nothing to decide


def test_selling_is_optional() -> None:
    game = to_strasbourg("base/A", 90, [L2])
    game.apply(PASS)
    assert game.scores == [0, 0]
    assert chips_of(game).in_front[0] == [L2]
    assert game.phase == "tile" and game.to_move == 1


def test_road_to_the_border_allows_export_for_5() -> None:
    # U on (15, 4): the road runs onto the east border; the purple wine cannot go to the town.
    game = to_strasbourg("base/U", 0, [P2])
    assert offered(game) == {PASS, SellWine(EXPORT, "purple", (2,))}
    game.apply(SellWine(EXPORT, "purple", (2,)))
    assert game.scores == [5, 0]


def test_d12_coat_of_arms_city_to_the_border_allows_export() -> None:
    # O at rotation 90: city N-E with a coat of arms, its E side on the border; road W-S.
    game = to_strasbourg("base/O", 90, [P1, P1])
    assert offered(game) == {PASS, SellWine(EXPORT, "purple", (1, 1))}


def test_d12_plain_city_to_the_border_does_not_allow_export() -> None:
    # P is O without the coat of arms.
    game = to_strasbourg("base/P", 90, [P1, P1])
    assert game.phase == "tile" and game.to_move == 1


def test_d12_extending_a_road_that_already_reaches_the_border_is_no_export() -> None:
    # Seat 0 takes the road to the border on (15, 4) (and passes); seat 1 extends the same road
    # at its west end on (11, 4): the tile it placed connects nothing to the border.
    game = france(("base/U",) * 5, in_front=[[P2], [P2]])
    turn(game, 14, 4, 0)
    turn(game, 12, 4, 0)
    turn(game, 15, 4, 0)
    game.apply(PASS)  # seat 0 keeps its wine
    turn(game, 11, 4, 0)
    assert game.phase == "tile" and game.to_move == 0


def test_d14_large_city_wall_is_not_the_map_border_for_export() -> None:
    # test-tiny: from Brume, U on (4, 2), B on (4, 1); A at rotation 90 on (4, 0) ends its road
    # against Castel's east wall (closed there, D9) — but a wall is not another country.
    game = map_game(
        [("base/U", 4, 2, 0, None), ("base/B", 4, 1, 0, None)],
        second="base/U",
        then=("base/A", "base/U"),
        map_chips=True,
    )
    _with_chips(game, {}, [[P2], []])
    turn(game, 4, 0, 90)
    assert game.feature_at(4, 0, "W").complete  # the wall and the monastery end the road
    assert game.phase == "tile" and game.to_move == 1


def test_at_most_one_wine_per_turn() -> None:
    game = to_strasbourg("base/U", 0, [L2, L1, L1])
    assert offered(game) == {
        PASS,
        SellWine(EXPORT, "light-blue", (1, 1)),
        SellWine(EXPORT, "light-blue", (2,)),
        SellWine(TOWN, "light-blue", (1, 1)),
        SellWine(TOWN, "light-blue", (2,)),
    }
    game.apply(SellWine(TOWN, "light-blue", (2,)))
    assert game.scores == [9, 0]
    assert game.phase == "tile" and game.to_move == 1  # no second sale this turn
    assert chips_of(game).in_front[0] == [L1, L1]


def test_d25_covering_the_unused_start_square_sells_to_its_town() -> None:
    # test-tiny with start squares Aval and Brume: Cime (3, 2, purple) is an ordinary town.
    game = map_game([("base/U", 2, 2, 0, None)], then=("base/U", "base/U"), map_chips=True)
    _with_chips(game, {}, [[], [P1, P1]])
    turn(game, 3, 2, 0)
    assert offered(game) == {PASS, SellWine(TOWN, "purple", (1, 1))}
    game.apply(SellWine(TOWN, "purple", (1, 1)))
    assert game.scores == [0, 9]


def test_chips_left_in_front_score_nothing_at_the_end() -> None:
    game = map_game([], then=("base/U",), map_chips=True)
    _with_chips(game, {(2, 2): O2}, [[P1], [L2]])
    turn(game, 2, 2, 0)
    assert game.is_over
    assert game.scores == [2, 0]  # the collected chip only


# ------------------------------------------------------------------------ hidden information


def test_face_down_chips_show_where_but_never_what() -> None:
    game = Game(players=2, map="france", map_chips=True, seed=3)
    chips = chips_of(game)
    view = game.view(0)["expansions"]["map-chips"]
    assert len(view["face_down"]) == 30
    assert all(set(entry) == {"x", "y"} for entry in view["face_down"])
    # Swapping what lies face down changes nobody's view.
    swapped = game.copy()
    values = list(chips_of(swapped).face_down.values())
    chips_of(swapped).face_down = dict(zip(chips.face_down, values[1:] + values[:1], strict=True))
    for seat in (None, 0, 1):
        assert json.dumps(swapped.view(seat)) == json.dumps(game.view(seat))


def test_view_lists_chips_in_front_towns_and_start_squares() -> None:
    game = to_strasbourg("base/A", 90, [L1, L2])
    view = game.view(1)["expansions"]["map-chips"]
    assert view["in_front"] == [
        [{"colour": "light-blue", "value": 1}, {"colour": "light-blue", "value": 2}],
        [],
    ]
    assert view["sold"] == 0
    strasbourg = next(t for t in view["towns"] if t["name"] == "Strasbourg")
    assert strasbourg == {
        "x": 15,
        "y": 4,
        "name": "Strasbourg",
        "grape": "light-blue",
        "covered": True,
    }
    used = {s["name"] for s in view["start_squares"] if s["used"]}
    assert used == {"Nancy", "Le Mans"}


def test_sell_wine_round_trips_through_json() -> None:
    action = SellWine(TOWN, "orange", (1, 1))
    data = action_to_json(action)
    assert data == {"type": "sell-wine", "outlet": "town", "colour": "orange", "chips": [1, 1]}
    assert action_from_json(json.loads(json.dumps(data))) == action


# ------------------------------------------------------------------------------ whole games


def _check_conserved(game: Game, total: int) -> None:
    chips = chips_of(game)
    assert len(chips.face_down) + sum(map(len, chips.in_front)) + len(chips.sold) == total


@pytest.mark.parametrize(("map_name", "total"), [("france", 30), ("test-tiny", 9)])
def test_random_games_finish_and_conserve_chips(map_name: str, total: int) -> None:
    sales = 0
    for seed in range(6):
        game = Game(players=3, map=map_name, map_chips=True, seed=seed)
        bot = RandomBot(seed)
        while not game.is_over:
            game.apply(bot.choose(game))
            _check_conserved(game, total)
        wine = [e for e in game.events if isinstance(e, ScoreEvent) and e.source == "wine"]
        sales += len(wine)
        # points from chips and wine are exactly the collected values and 5/9 per sale
        chip_points = sum(
            sum(e.points.values())
            for e in game.events
            if isinstance(e, ScoreEvent) and e.source == "map-chip"
        )
        collected = sum(c.value for c in chips_of(game).sold) + sum(
            c.value for held in chips_of(game).in_front for c in held
        )
        assert chip_points == collected
        assert all(sum(e.points.values()) in (5, 9) for e in wine)
    assert sales > 0


def test_france_with_chips_combines_with_the_bets() -> None:
    phases: set[str] = set()
    for seed in range(4):
        game = Game(players=3, bets=True, map="france", map_chips=True, seed=seed)
        bot = RandomBot(seed)
        while not game.is_over:
            phases.add(game.phase)
            game.apply(bot.choose(game))
            _check_conserved(game, 30)
        assert len(game.board) == 6 + 72 + 10 - len(game.discarded)  # printed + base + bets
    assert {"tile", "figure", "wine", "bet"} <= phases


def test_greedy_bot_sells_to_the_town_rather_than_export() -> None:
    game = to_strasbourg("base/U", 0, [L2])
    bot = make_bot("greedy", 1)
    assert bot.choose(game) == SellWine(TOWN, "light-blue", (2,))


def test_greedy_bot_plays_france_with_chips_to_the_end() -> None:
    game = Game(players=2, map="france", map_chips=True, seed=2)
    bots = [make_bot("greedy", 1), make_bot("random", 2)]
    while not game.is_over:
        action = bots[game.to_move].choose(game)
        if game.phase == "wine" and game.to_move == 0:
            assert action != PASS  # the greedy bot always sells
        game.apply(action)
    _check_conserved(game, 30)


# ----------------------------------------------------------------------------------- render


def test_render_map_draws_every_square_and_no_chip_value() -> None:
    game = Game(players=2, map="france", map_chips=True, seed=4)
    for lines in (render_map(game, colour=False), render_map(game, colour=False, compact=True)):
        body = lines[2:-1]
        assert len({len(line) for line in body}) == 1  # a rectangle
        assert sum(line.count("●") for line in lines) == 30
    compact = render_map(game, colour=False, compact=True)
    assert len(compact) == 15 + 3 and "[P]" in compact[2 + 3]  # Reims (10, 3), purple
    assert "● face-down chip" in "\n".join(map_legend(game, colour=False))
    panel = map_chips_lines(game, game.view(0)["expansions"]["map-chips"], 0, False)
    assert panel[-1] == "On the map: 30 chips face down (●)."


def test_a_map_too_small_for_its_chips_is_a_setup_error(tmp_path: Any) -> None:
    data = {
        "format": "carcassonne-map/1",
        "name": "crowded",
        "size": {"width": 5, "height": 4},
        "start_squares": ["A", "B"],
        "towns": [{"name": "A", "x": 0, "y": 0}, {"name": "B", "x": 4, "y": 3}],
        "chips_per_grape": {"1": 4},
    }
    path = tmp_path / "crowded.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(GameSetupError, match="cannot hold 12 map chips"):
        Game(players=2, map=str(path), map_chips=True, seed=1)
