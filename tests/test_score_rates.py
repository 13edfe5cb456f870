"""Each feature's score event states its rate, so the log can say "3 tiles × 2 = 6" truly.

A city's or road's event carries ``per_tile`` (what each tile and coat of arms paid), a field's
``per_city`` (what each winner got per completed city: a pig makes it 4, D45).  Boards as in
tests/test_rules_base.py, test_rules_inns.py and test_rules_traders.py; start tile base/D at (0, 0).
"""

from __future__ import annotations

from carcassonne import ScoreEvent
from scenario import scenario, score_events
from test_rules_inns import CATHEDRAL_CITY, IC, INN_ROAD

TB = {"traders_builders": True}


def only(events: list[ScoreEvent], source: str) -> ScoreEvent:
    (event,) = [e for e in events if e.source == source]
    return event


def test_a_completed_city_pays_2_per_tile_and_coat_of_arms() -> None:
    steps = [("base/M", 0, -1, 180, ("meeple", "E")), ("base/E", 1, -1, 270, None)]
    event = only(score_events(scenario(steps, then=["base/U"]), "completed"), "city")
    assert (event.points, event.tiles, event.coats_of_arms) == ({0: 8}, 3, 1)
    assert event.detail["per_tile"] == 2


def test_d37_a_small_city_with_the_variant_pays_1_per_tile() -> None:
    steps = [("base/E", 0, -1, 180, ("meeple", "S"))]
    game = scenario(steps, then=["base/U"], small_city_scores_2=True)
    event = only(score_events(game, "completed"), "city")
    assert (event.points, event.detail["per_tile"]) == ({0: 2}, 1)


def test_an_unfinished_city_pays_1_per_tile_and_coat_of_arms() -> None:
    event = only(score_events(scenario([("base/M", 0, -1, 180, ("meeple", "E"))])), "city")
    assert (event.reason, event.points, event.detail["per_tile"]) == ("final", {0: 3}, 1)


def test_a_road_pays_1_per_tile() -> None:
    steps = [("base/L", 1, 0, 0, ("meeple", "W")), ("base/L", -1, 0, 0, None)]
    event = only(score_events(scenario(steps, then=["base/U"])), "road")
    assert (event.points, event.detail["per_tile"]) == ({0: 3}, 1)


def test_an_inn_pays_2_per_tile_completed_and_0_unfinished() -> None:
    completed = only(score_events(scenario(INN_ROAD, then=["base/B"], **IC)), "inn")
    assert (completed.points, completed.detail["per_tile"]) == ({0: 8}, 2)
    unfinished = only(score_events(scenario(INN_ROAD[:2], **IC), "final"), "inn")
    assert (unfinished.points, unfinished.detail["per_tile"]) == ({0: 0}, 0)


def test_a_cathedral_pays_3_per_tile_completed_and_0_unfinished() -> None:
    completed = only(score_events(scenario(CATHEDRAL_CITY, then=["base/B"], **IC)), "cathedral")
    assert (completed.points, completed.detail["per_tile"]) == ({0: 15}, 3)
    unfinished = only(score_events(scenario(CATHEDRAL_CITY[:3], **IC), "final"), "cathedral")
    assert (unfinished.points, unfinished.detail["per_tile"]) == ({0: 0}, 0)


def test_a_field_pays_3_per_completed_city() -> None:
    steps = [("base/U", 1, 0, 0, ("meeple", "NL")), ("base/E", 0, -1, 180, None)]
    event = only(score_events(scenario(steps)), "field")
    assert (event.points, event.detail["per_city"]) == ({0: 3}, {0: 3})


def test_d45_a_pig_makes_4_per_city_for_its_owner_only() -> None:
    # As test_rules_traders.test_d45_…: a tie over one completed city, seat 0's pig in the field.
    steps = [
        ("base/E", 0, -1, 180, ("meeple", "NL")),
        ("base/U", 1, 0, 0, ("meeple", "NL")),
        ("base/B", 1, -1, 0, ("pig", "NL")),
    ]
    event = only(score_events(scenario(steps, **TB), "final"), "field")
    assert event.detail["completed_cities"] == 1
    assert (event.points, event.detail["per_city"]) == ({0: 4, 1: 3}, {0: 4, 1: 3})


def test_a_field_by_no_completed_city_states_no_rate() -> None:
    event = only(score_events(scenario([("base/U", 1, 0, 0, ("meeple", "NL"))])), "field")
    assert event.points == {0: 0}
    assert "per_city" not in event.detail
