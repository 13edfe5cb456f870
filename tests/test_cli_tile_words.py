"""Tiles in words (`carcassonne.cli.tile_words`): what the play command calls the drawn tile.

The words are derived from the tile data, so the tests check them against the data: every
feature a tile has is named and none it lacks, for every tile of every set; a few base tiles
are checked word for word, as a player would say them.
"""

from __future__ import annotations

import pytest

from carcassonne.cli.tile_words import describe_tile
from carcassonne.cli.wording import describe_event
from carcassonne.events import GameEvent
from carcassonne.tiles import CITY, ROAD, tile_by_id, tile_set
from test_cli_play import session

SETS = ("base", "river", "bets", "ic", "traders_builders")


@pytest.mark.parametrize(
    ("tile_id", "words"),
    [
        ("base/A", "a monastery with a road"),
        ("base/B", "a monastery"),
        ("base/C", "a city on all four sides with a coat of arms"),
        ("base/D", "a city on one side with a straight road"),
        ("base/F", "a city across the tile with a coat of arms"),
        ("base/H", "two separate cities on opposite sides"),
        ("base/I", "two separate cities on adjacent sides"),
        ("base/J", "a city on one side with a curved road"),
        ("base/L", "a city on one side with three roads"),
        ("base/P", "a city on two sides with a curved road"),
        ("base/V-garden", "a garden with a curved road"),
        ("base/X", "a crossroads of four roads"),
        ("ic/K", "a city on two sides with a road and an inn"),
        ("river/L", "a monastery with the end of the river"),
        ("bets/07", "a betting office with a road"),
    ],
)
def test_a_tile_is_named_as_a_player_would_say_it(tile_id: str, words: str) -> None:
    assert describe_tile(tile_by_id(tile_id)) == words


@pytest.mark.parametrize("set_name", SETS)
def test_every_tile_names_the_features_it_has_and_no_other(set_name: str) -> None:
    for tile in tile_set(set_name).tiles:
        words = describe_tile(tile)
        kinds = {segment.kind for segment in tile.segments}
        coats = sum(segment.coat_of_arms for segment in tile.segments)
        marks = {mark for segment in tile.segments for mark in segment.marks}
        assert ("cit" in words) == (CITY in kinds), (tile.id, words)
        assert ("road" in words) == (ROAD in kinds), (tile.id, words)
        assert ("river" in words) == bool(tile.rivers), (tile.id, words)
        assert ("coat" in words) == bool(coats), (tile.id, words)
        for name in ("monastery", "garden", "betting-office"):
            assert (name.replace("-", " ") in words) == (name in tile.centre), (tile.id, words)
        for mark in ("inn", "cathedral", "wine", "grain", "cloth"):
            assert (f" {mark}" in words) == (mark in marks), (tile.id, words)


def test_tiles_that_look_different_are_named_differently() -> None:
    # the base game's letters, garden copies aside: only base/J and base/K, mirror images of
    # each other (the road turns left or right of the city), share their words
    letters = [t for t in tile_set("base").tiles if "-" not in t.name]
    by_words: dict[str, list[str]] = {}
    for tile in letters:
        by_words.setdefault(describe_tile(tile), []).append(tile.id)
    assert [ids for ids in by_words.values() if len(ids) > 1] == [["base/J", "base/K"]]


def test_the_tile_prompt_describes_the_drawn_tile_and_keeps_its_id() -> None:
    _, out, _ = session(["q"], stack=("base/B",))
    assert "R Red (you): place a monastery [base/B]." in out
    assert "place tile" not in out


def test_the_log_names_a_placed_tile_by_what_it_shows() -> None:
    _, out, _ = session(["a", "p", "q"], stack=("base/E", "base/U"))
    assert "Red (you) placed a city on one side [base/E] at (0, -1), rotation 180°." in out


def test_a_discarded_tile_is_named_by_what_it_shows() -> None:
    event = GameEvent(3, "discard", None, {"tile": "river/D"})
    assert describe_event(event, ["Red", "Blue"]) == (
        "A straight river [river/D] fits nowhere and was discarded."
    )
