"""The Abbot (docs/rules.md §2) on concrete boards.

Layouts from docs/rules.md §8.1: base/B is a monastery with field all round; base/E-garden is base/E
(``C F F F``) with a garden; at rotation 180 its city faces S, so it sits south of the start tile
(whose S edge is field) at (0, 1).
"""

from __future__ import annotations

from carcassonne import PASS, Game, PlaceFigure, PlaceTile
from carcassonne.expansions.abbot import RecallAbbot
from scenario import assert_refused, paid, play, scenario, score_events

ABBOT_MONASTERY = ("abbot", "monastery")
ABBOT_GARDEN = ("abbot", "garden")


def test_each_player_has_one_abbot_besides_the_meeples() -> None:
    assert Game(players=3, abbot=True, seed=0).supply == [{"meeple": 7, "abbot": 1}] * 3


def test_abbot_may_go_on_a_monastery() -> None:
    game = Game(players=2, abbot=True, stack=("base/B", "base/U"))
    game.apply(PlaceTile(0, 1, 0))
    legal = set(game.legal_actions())
    assert {PlaceFigure("meeple", "monastery"), PlaceFigure(*ABBOT_MONASTERY)} <= legal
    game.apply(PlaceFigure(*ABBOT_MONASTERY))
    assert game.supply[0] == {"meeple": 7, "abbot": 0}
    assert list(game.figures.values()) == [(0, "abbot")]


def test_abbot_may_go_on_a_garden_but_a_meeple_may_not() -> None:
    game = Game(players=2, abbot=True, stack=("base/E-garden", "base/U"))
    game.apply(PlaceTile(0, 1, 180))
    legal = set(game.legal_actions())
    assert PlaceFigure(*ABBOT_GARDEN) in legal
    assert PlaceFigure("meeple", "garden") not in legal
    assert_refused(game, PlaceFigure("meeple", "garden"), "meeple cannot stand on a garden")


def test_abbot_may_not_go_on_a_road_city_or_field() -> None:
    game = Game(players=2, abbot=True, stack=("base/D", "base/U"))
    game.apply(PlaceTile(0, -1, 180))  # base/D at 180: city S (joins the start's), road E-W
    assert not [a for a in game.legal_actions() if getattr(a, "figure", None) == "abbot"]
    for location, kind in (("S", "city"), ("E", "road"), ("NL", "field")):
        assert_refused(game, PlaceFigure("abbot", location), f"abbot cannot stand on a {kind}")


def test_abbot_on_a_completed_monastery_scores_9_and_returns() -> None:
    # base/B (monastery) at (0, 1), then its 8 neighbours (the start tile is one of them).
    ring = [
        ("base/U", 1, 0, 0, None),
        ("base/U", -1, 0, 0, None),
        ("base/E", 1, 1, 90, None),
        ("base/E", -1, 1, 270, None),
        ("base/E", 1, 2, 90, None),
        ("base/E", -1, 2, 270, None),
        ("base/E-garden", 0, 2, 180, None),
    ]
    game = scenario([("base/B", 0, 1, 0, ABBOT_MONASTERY), *ring], then=["base/U"], abbot=True)
    assert paid(game) == [("monastery", {0: 9})]
    assert game.supply[0] == {"meeple": 7, "abbot": 1}


# base/E-garden at 180 at (0, 1) (city S, garden); base/E at (0, 2) closes its city; the rest of
# the ring keeps field edges towards the garden.
GARDEN_RING = [
    ("base/U", 1, 0, 0, None),
    ("base/U", -1, 0, 0, None),
    ("base/E", 1, 1, 90, None),
    ("base/E", -1, 1, 270, None),
    ("base/E", 0, 2, 0, None),
    ("base/E", 1, 2, 90, None),
    ("base/V", -1, 2, 0, None),
]


def test_a_completed_garden_scores_9() -> None:
    game = scenario(
        [("base/E-garden", 0, 1, 180, ABBOT_GARDEN), *GARDEN_RING], then=["base/U"], abbot=True
    )
    assert paid(game) == [("garden", {0: 9})]
    (event,) = [e for e in score_events(game) if e.source == "garden"]
    assert event.reason == "completed"
    assert game.supply[0] == {"meeple": 7, "abbot": 1}


def test_a_garden_at_the_end_scores_1_plus_neighbours() -> None:
    # Neighbours of (0, 1): the start tile and base/U at (1, 0).
    game = scenario(
        [("base/E-garden", 0, 1, 180, ABBOT_GARDEN), ("base/U", 1, 0, 0, None)], abbot=True
    )
    assert paid(game) == [("garden", {0: 3})]
    (event,) = score_events(game)
    assert event.reason == "final"


def test_an_abbot_on_a_monastery_at_the_end_scores_1_plus_neighbours() -> None:
    game = scenario([("base/B", 0, 1, 0, ABBOT_MONASTERY), ("base/U", -1, 0, 0, None)], abbot=True)
    assert paid(game, "final") == [("monastery", {0: 3})]


def test_recall_scores_1_plus_neighbours_at_once_and_returns_the_abbot() -> None:
    # Seat 0's abbot on base/B at (0, 1); when seat 0 next places a tile it recalls the abbot
    # instead of placing a figure: the monastery has 3 neighbours, so it scores 4 now.
    game = scenario(
        [
            ("base/B", 0, 1, 0, ABBOT_MONASTERY),
            ("base/U", 1, 0, 0, None),
            ("base/U", -1, 0, 0, RecallAbbot(0, 1)),
        ],
        then=["base/U", "base/B"],
        abbot=True,
    )
    (event,) = score_events(game)
    assert (event.source, event.reason, event.points) == ("monastery", "abbot-recall", {0: 4})
    assert game.scores == [4, 0]
    assert game.supply[0] == {"meeple": 7, "abbot": 1}
    assert game.figures == {}
    # The recall was seat 0's step 2: the turn passed on with no figure on the new tile.
    assert (game.phase, game.to_move) == ("tile", 1)
    assert game.history[-1] == (0, RecallAbbot(0, 1))
    assert all(not f.figures for _, f in game.features_at(-1, 0))


def test_recall_is_instead_of_placing_a_figure() -> None:
    game = scenario(
        [("base/B", 0, 1, 0, ABBOT_MONASTERY), ("base/U", 1, 0, 0, None)],
        then=["base/U", "base/U"],
        abbot=True,
    )
    game.apply(PlaceTile(-1, 0, 0))
    legal = game.legal_actions()
    assert RecallAbbot(0, 1) in legal and PlaceFigure("meeple", "E") in legal
    game.apply(RecallAbbot(0, 1))
    # One step-2 action only: the next seat is already placing a tile.
    assert game.phase == "tile" and game.to_move == 1
    assert_refused(game, PlaceFigure("meeple", "E"), "phase 'tile' expects PlaceTile")


def test_recall_needs_your_abbot_on_the_board() -> None:
    game = scenario([("base/B", 0, 1, 0, ABBOT_MONASTERY)], then=["base/U", "base/U"], abbot=True)
    game.apply(PlaceTile(1, 0, 0))  # seat 1: its abbot is still in its supply
    assert not [a for a in game.legal_actions() if isinstance(a, RecallAbbot)]
    # Seat 0's abbot is not seat 1's to recall.
    assert_refused(game, RecallAbbot(0, 1), "not a legal action in phase 'figure'")


def test_recall_only_in_step_2() -> None:
    game = scenario(
        [("base/B", 0, 1, 0, ABBOT_MONASTERY), ("base/U", 1, 0, 0, None)],
        then=["base/U"],
        abbot=True,
    )
    assert_refused(game, RecallAbbot(0, 1), "expects PlaceTile")


def test_a_recalled_abbot_can_be_placed_again() -> None:
    game = scenario(
        [
            ("base/B", 0, 1, 0, ABBOT_MONASTERY),
            ("base/U", 1, 0, 0, None),
            ("base/U", -1, 0, 0, RecallAbbot(0, 1)),
            ("base/U", 2, 0, 0, None),
            ("base/B", 1, 1, 0, ABBOT_MONASTERY),
        ],
        abbot=True,
    )
    # Recall: 1 + 3 neighbours; at the end the second monastery at (1, 1) has the start tile,
    # both base/U east of it and base/B west of it around it: 1 + 4.
    assert paid(game) == [("monastery", {0: 4}), ("monastery", {0: 5})]


def test_d16_a_garden_on_a_river_tile_takes_the_abbot() -> None:
    # river/J (F F ~ ~, river W-S, garden) at 90: river N-W below the spring.
    game = Game(players=2, river=True, abbot=True, stack=("river/J", "river/L"))
    game.apply(PlaceTile(0, 1, 90))
    assert PlaceFigure(*ABBOT_GARDEN) in game.legal_actions()
    assert PlaceFigure("meeple", "garden") not in game.legal_actions()
    game.apply(PASS)


def test_d19_without_the_abbot_a_garden_is_only_a_picture() -> None:
    # The completed-garden ring of test_a_completed_garden_scores_9, played without the Abbot:
    # step 2 offers nothing on the garden, and its 8 neighbours score nobody anything for it.
    game = Game(players=2, stack=("base/E-garden", *(step[0] for step in GARDEN_RING)))
    game.apply(PlaceTile(0, 1, 180))
    assert [a for a in game.legal_actions() if getattr(a, "location", None) == "garden"] == []
    assert_refused(game, PlaceFigure("meeple", "garden"), "meeple cannot stand on a garden")
    game.apply(PlaceFigure("meeple", "S"))  # the city of base/E-garden instead
    play(game, GARDEN_RING)
    assert game.is_over
    assert paid(game) == [("city", {0: 4})]  # closed by base/E at (0, 2): 2 tiles, no garden
    assert game.supply == [{"meeple": 7}, {"meeple": 7}]
