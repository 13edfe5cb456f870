"""The engine's hooks for the C3 expansions (value, points, figure strength, figure placement,
extra turn), tile marks, and the rule variants (small cities, no farmers), on concrete boards.

Each hook is exercised by a tiny expansion defined here and plugged in with
``Game(extra_expansions=...)``.  The start tile is base/D at (0, 0): N city, E-W road, S field.
base/W (roads E, S, W ending at a crossroads) at rotation 0 ends the start road on either side.
"""

from __future__ import annotations

from typing import Any

import pytest

from carcassonne import PASS, Game, GameEvent, PlaceFigure, PlaceTile
from carcassonne.board import encode
from carcassonne.expansions import Expansion
from carcassonne.expansions.inns import InnsCathedrals
from carcassonne.expansions.mapchips import MapChips
from carcassonne.features import Feature
from carcassonne.tiles import CITY, FIELD, ROAD, TileDataError, parse_tile_set
from scenario import assert_refused, close_start_road, paid, scenario, score_events


def segment(game: Game, x: int, y: int, location: str) -> int:
    """Global id of the segment at ``location`` of the tile on (x, y)."""
    placed = game.board[encode(x, y)]
    return placed.base + placed.orientation.locations[location]


class Giants(Expansion):
    """A giant (weight 2) and a ghost (weight 0) that only joins its owner's giant or meeple."""

    name = "giants"
    figure_types = {"giant": frozenset({CITY, ROAD}), "ghost": frozenset({CITY, ROAD})}
    figure_strength = {"giant": 2, "ghost": 0}
    joining_figures = frozenset({"ghost"})

    def setup(self, game: Game) -> None:
        for supply in game.supply:
            supply["giant"] = 1
            supply["ghost"] = 1

    def figure_allowed(self, game: Game, seat: int, figure: str, feature: Feature) -> bool:
        if figure != "ghost":
            return True
        return any(s == seat and f != "ghost" for s, f, _ in feature.figures)


def giants_game(*figures: tuple[int, str, int, int, str]) -> Game:
    """A game with Giants whose start road, with ``figures`` on it, is closed (3 tiles)."""
    game = Game(players=2, stack=("base/W", "base/W", "base/U"), extra_expansions=[Giants()])
    return close_start_road(game, figures)


def test_expansion_is_looked_up_by_its_class() -> None:
    giants = Giants()
    game = Game(
        players=2, inns_cathedrals=True, stack=("base/W", "base/U"), extra_expansions=[giants]
    )
    assert game.expansion(Giants) is giants
    assert isinstance(game.expansion(InnsCathedrals), InnsCathedrals)
    assert game.expansion(MapChips) is None


def test_a_figure_of_strength_2_outweighs_one_meeple() -> None:
    game = giants_game((0, "giant", 0, 0, "E"), (1, "meeple", 1, 0, "W"))
    assert paid(game) == [("road", {0: 3})]
    assert game.scores == [3, 0]
    assert game.supply == [
        {"meeple": 7, "giant": 1, "ghost": 1},
        {"meeple": 7, "giant": 1, "ghost": 1},
    ]


def test_two_meeples_tie_with_a_figure_of_strength_2() -> None:
    game = giants_game((0, "giant", 0, 0, "E"), (1, "meeple", 1, 0, "W"), (1, "meeple", -1, 0, "E"))
    assert paid(game) == [("road", {0: 3, 1: 3})]


def test_d39_figures_of_strength_0_alone_pay_nobody_and_return() -> None:
    game = giants_game((0, "ghost", 0, 0, "E"))
    (event,) = score_events(game, "completed")
    assert (event.source, event.points, event.figures) == ("road", {}, {0: 1})
    assert game.scores == [0, 0]
    assert game.supply[0]["ghost"] == 1 and not game.figures


def test_a_figure_of_strength_0_does_not_add_to_its_owners_share() -> None:
    game = giants_game((0, "meeple", 0, 0, "E"), (0, "ghost", 1, 0, "W"), (1, "meeple", -1, 0, "E"))
    assert paid(game) == [("road", {0: 3, 1: 3})]


def test_majority_weighs_figures_by_the_table_given() -> None:
    feature = Feature(ROAD, [0], {0}, 0, 0, ((0, "giant", 0), (1, "meeple", 1), (1, "x", 2)), [])
    assert feature.majority() == [1]
    assert feature.majority({"giant": 2}) == [0, 1]
    assert feature.majority({"giant": 3}) == [0]
    assert feature.majority({"giant": 0, "meeple": 0, "x": 0}) == []


def test_a_joining_figure_goes_only_where_figure_allowed_says() -> None:
    game = Game(players=2, stack=("base/W", "base/V", "base/U"), extra_expansions=[Giants()])
    game.put_figure(0, "meeple", segment(game, 0, 0, "E"))
    game.apply(PlaceTile(1, 0, 0))  # its W road joins seat 0's meeple; its S and E roads are new
    legal = set(game.legal_actions())
    assert PlaceFigure("ghost", "W") in legal  # joins its owner's meeple
    assert PlaceFigure("meeple", "W") not in legal  # occupied
    assert {PlaceFigure("ghost", "E"), PlaceFigure("ghost", "S")}.isdisjoint(legal)  # nobody there
    assert {PlaceFigure("meeple", "E"), PlaceFigure("giant", "S")} <= legal
    assert_refused(
        game, PlaceFigure("ghost", "E"), "giants rules do not allow a ghost on the road at E"
    )
    game.apply(PASS)
    game.apply(PlaceTile(-1, 0, 180))  # seat 1: base/V, road E-N, joins the start road
    legal = set(game.legal_actions())
    assert PlaceFigure("ghost", "N") not in legal  # seat 1 has no figure on that road
    assert_refused(game, PlaceFigure("meeple", "E"), "road at N is already occupied")


class Tolls(Expansion):
    """Completed roads pay 10 times as much, unfinished roads nothing at the end, fields 100
    more; seat 1 gets one point more than its share of everything."""

    name = "tolls"

    def adjust_value(self, game: Game, feature: Feature, final: bool, value: int) -> int:
        if feature.kind == ROAD:
            return 0 if final else 10 * value
        if feature.kind == FIELD:
            assert final
            return value + 100
        return value

    def adjust_points(
        self, game: Game, feature: Feature, final: bool, points: dict[int, int]
    ) -> None:
        if 1 in points:
            points[1] += 1


def test_the_value_hook_changes_what_a_completed_road_pays() -> None:
    game = Game(players=2, stack=("base/W", "base/W", "base/U"), extra_expansions=[Tolls()])
    game.put_figure(0, "meeple", segment(game, 0, 0, "E"))
    close_start_road(game)
    assert paid(game) == [("road", {0: 30})]
    assert game.scores == [30, 0]


def test_the_points_hook_changes_one_seats_share() -> None:
    game = Game(players=2, stack=("base/W", "base/W", "base/U"), extra_expansions=[Tolls()])
    game.put_figure(1, "meeple", segment(game, 0, 0, "E"))
    close_start_road(game)
    assert paid(game) == [("road", {1: 31})]
    assert game.scores == [0, 31]


def test_the_value_hook_sees_unfinished_features_and_fields_at_the_end() -> None:
    # base/E at (0, -1) rotation 180 closes the start city; seat 0 has a meeple on the start road
    # (never closed) and a farmer on the start's field between road and city.
    game = Game(players=2, stack=("base/E",), extra_expansions=[Tolls()])
    game.put_figure(0, "meeple", segment(game, 0, 0, "E"))
    game.put_figure(0, "meeple", segment(game, 0, 0, "EL"))
    game.apply(PlaceTile(0, -1, 180))
    game.apply(PASS)
    assert game.is_over
    final = {e.source: e.points for e in score_events(game, "final")}
    assert final == {"road": {0: 0}, "field": {0: 103}}
    assert game.scores == [103, 0]


class OneMoreTurn(Expansion):
    """Whoever completes a feature plays again, once (not after its extra turn)."""

    name = "one-more-turn"

    def __init__(self) -> None:
        self.extra = False

    def after_scoring(self, game: Game, completed: list[Feature]) -> None:
        if completed and not self.extra:
            game.grant_extra_turn()
            self.extra = True
        else:
            self.extra = False

    def copy(self) -> OneMoreTurn:
        other = OneMoreTurn()
        other.extra = self.extra
        return other


def test_an_extra_turn_is_played_by_the_same_seat_then_play_moves_on() -> None:
    stack = ("base/E", "base/U", "base/V", "base/B")
    game = Game(players=2, stack=stack, extra_expansions=[OneMoreTurn()])
    game.apply(PlaceTile(0, -1, 180))  # closes the start city
    game.apply(PlaceFigure("meeple", "S"))  # completed at once: 4 points, meeple back
    assert game.current_tile is not None
    assert (game.active, game.to_move, game.phase, game.current_tile.id) == (0, 0, "tile", "base/U")
    game.apply(PlaceTile(1, 0, 0))  # base/U extends the start road east, completes nothing
    game.apply(PASS)
    assert game.current_tile is not None
    assert (game.active, game.to_move, game.current_tile.id) == (1, 1, "base/V")
    game.apply(PlaceTile(-1, 0, 180))  # base/V, road E-N, extends the start road west
    assert game.scores == [4, 0]
    grants = [e for e in game.events if isinstance(e, GameEvent) and e.type == "extra-turn"]
    assert [(e.turn, e.seat) for e in grants] == [(1, 0)]
    assert [seat for seat, _ in game.history] == [0, 0, 0, 0, 1]


def test_an_extra_turn_after_an_extra_turn_is_up_to_the_expansion() -> None:
    # Seat 0 starts the start road's east end; seat 1 closes the road (3 tiles) and plays again,
    # closing the start city, but OneMoreTurn grants no extra turn after an extra turn.
    stack = ("base/W", "base/W", "base/E", "base/U")
    game = Game(players=2, stack=stack, extra_expansions=[OneMoreTurn()])
    game.apply(PlaceTile(1, 0, 0))
    game.apply(PASS)
    game.apply(PlaceTile(-1, 0, 0))
    game.apply(PlaceFigure("meeple", "E"))
    assert (game.active, game.scores) == (1, [0, 3])
    game.apply(PlaceTile(0, -1, 180))
    game.apply(PlaceFigure("meeple", "S"))
    assert (game.active, game.scores) == (0, [0, 7])


def test_a_game_with_extra_turns_replays_from_its_history() -> None:
    stack = ("base/E", "base/U", "base/V", "base/B")
    game = Game(players=2, stack=stack, seed=3, extra_expansions=[OneMoreTurn()])
    while not game.is_over:
        game.apply(game.legal_actions()[-1])
    replay = Game(game.options, extra_expansions=[OneMoreTurn()])
    for seat, action in game.history:
        assert replay.to_move == seat
        replay.apply(action)
    assert replay.view() == game.view() and replay.scores == game.scores


def test_a_copy_grants_its_own_extra_turn() -> None:
    game = Game(players=2, stack=("base/E", "base/U", "base/V"), extra_expansions=[OneMoreTurn()])
    game.apply(PlaceTile(0, -1, 180))  # closes the start city once the figure step is done
    other = game.copy()
    other.apply(PASS)
    assert (other.active, game.active, game.phase) == (0, 0, "figure")
    game.apply(PASS)
    assert game.active == 0 and game.view() == other.view()


# ------------------------------------------------------------------------------ rule variants


def test_d37_a_completed_two_tile_city_scores_4_or_2_with_the_variant() -> None:
    steps = [("base/E", 0, -1, 180, ("meeple", "S"))]
    assert paid(scenario(steps, then=["base/U"])) == [("city", {0: 4})]
    assert paid(scenario(steps, then=["base/U"], small_city_scores_2=True)) == [("city", {0: 2})]


def test_d37_the_small_city_variant_leaves_bigger_cities_alone() -> None:
    # base/F at rotation 90 (city N-S with a coat of arms) then base/E closing it: 3 tiles + coat.
    steps = [("base/F", 0, -1, 90, ("meeple", "N")), ("base/E", 0, -2, 180, None)]
    assert paid(scenario(steps, then=["base/U"], small_city_scores_2=True)) == [("city", {0: 8})]


def test_d38_without_farmers_no_figure_goes_on_a_field() -> None:
    # With farmers the same placement also offers the fields NL and ER
    # (test_rules_base.py::test_figure_only_on_the_tile_just_placed).
    game = Game(players=2, farmers=False, abbot=True, stack=("base/U", "base/U"))
    assert game.figure_kinds == {"meeple": frozenset({CITY, ROAD, 3}), "abbot": frozenset({3, 4})}
    game.apply(PlaceTile(1, 0, 0))
    assert set(game.legal_actions()) == {PASS, PlaceFigure("meeple", "E")}
    assert_refused(game, PlaceFigure("meeple", "NL"), "meeple cannot stand on a field")


# ---------------------------------------------------------------------------------- marks


def tile_file(**extra: Any) -> dict[str, Any]:
    tile = {
        "name": "T",
        "count": 1,
        "edges": "CRFR",
        "cities": [{"edges": ["N"], "marks": ["cathedral"]}],
        "roads": [{"edges": ["E", "W"], "marks": ["inn"]}],
        "fields": [
            {"halves": ["EL", "WR"], "cities": ["N"]},
            {"halves": ["ER", "SL", "SR", "WL"], "cities": []},
        ],
    }
    tile.update(extra)
    return {"format": "carcassonne-tiles/1", "set": "t", "tiles": [tile]}


def test_marks_load_on_cities_and_roads_and_turn_with_the_tile() -> None:
    (tile,) = parse_tile_set(tile_file()).tiles
    assert [(s.kind, s.marks) for s in tile.segments if s.marks] == [
        (CITY, ("cathedral",)),
        (ROAD, ("inn",)),
    ]
    assert len(tile.distinct_orientations) == 4
    at_90 = tile.orientations[1]
    assert at_90.segments[at_90.locations["E"]].marks == ("cathedral",)
    assert at_90.segments[at_90.locations["N"]].marks == ("inn",)


def test_marks_tell_otherwise_equal_rotations_apart() -> None:
    # A straight road with an inn on one side only still looks the same turned 180°: the mark
    # is on the segment, so only 2 distinct orientations (as for a plain straight road).
    raw = tile_file(
        edges="FRFR",
        cities=[],
        roads=[{"edges": ["E", "W"], "marks": ["inn"]}],
        fields=[{"halves": ["NL", "NR", "EL", "WR"]}, {"halves": ["ER", "SL", "SR", "WL"]}],
    )
    (tile,) = parse_tile_set(raw).tiles
    assert len(tile.distinct_orientations) == 2


@pytest.mark.parametrize(
    ("cities", "roads", "message"),
    [
        (
            [{"edges": ["N"], "marks": ["chapel"]}],
            [["E", "W"]],
            "city #1 has unknown mark 'chapel'",
        ),
        ([{"edges": ["N"], "marks": ["inn"]}], [["E", "W"]], "city #1 cannot carry mark 'inn'"),
        ([{"edges": ["N"]}], [{"edges": ["E", "W"], "marks": ["grain"]}], "road #1 cannot carry"),
        ([{"edges": ["N"], "marks": "inn"}], [["E", "W"]], "'marks' must be a list"),
        (
            [{"edges": ["N"], "mark": ["inn"]}],
            [["E", "W"]],
            "city #1 has unknown keys \\['mark'\\]",
        ),
        ([{"edges": ["N"]}], [{"edges": ["E", "W"], "inn": 1}], "road #1 has unknown keys"),
    ],
)
def test_a_bad_mark_names_the_tile_and_the_mark(
    cities: list[Any], roads: list[Any], message: str
) -> None:
    with pytest.raises(TileDataError, match=f"tile t/T: .*{message}"):
        parse_tile_set(tile_file(cities=cities, roads=roads))


def test_features_without_marks_allocate_none() -> None:
    game = Game(players=2, seed=1)
    assert all(f.marks is None for f in game.features())


HOOK_LISTS = (
    "_restrictors",
    "_after_place",
    "_figure_exts",
    "_after_scoring",
    "_end_of_turn",
    "_before_final",
    "_figure_checks",
    "_value_hooks",
    "_points_hooks",
)


def test_a_game_without_expansions_keeps_no_hook_list_of_its_own() -> None:
    # Every hook's list is the one empty tuple, in the game and in its copies: nothing is
    # allocated for hooks nobody overrides, at set-up or per copy.
    game = Game(players=2, seed=1)
    for holder in (game, game.copy()):
        assert all(getattr(holder, name) == () for name in HOOK_LISTS)


def test_a_copys_hooks_are_its_own_expansions() -> None:
    game = Game(players=2, seed=1, inns_cathedrals=True, map="france", map_chips=True)
    other = game.copy()
    for name in HOOK_LISTS:
        theirs, ours = getattr(game, name), getattr(other, name)
        assert [type(e) for e in ours] == [type(e) for e in theirs]
        mine = {id(e) for e in other.expansions}
        assert all(id(e) in mine for e in ours)  # (by identity: a copy equals its original)
    assert other._after_place  # Map-Chips' hook: the check above compared something
