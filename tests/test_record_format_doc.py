"""``docs/record-format.md`` and the record schema against what the reader accepts.

Whoever types a record in has the document only: every key, figure type, action type (with its
keys), tile set and location the engine reads must be in it, and the JSON Schema must accept
every record the engine writes (issue 21: the document left out ``large-meeple``, the schema
refused the ids of Traders & Builders' tiles).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import jsonschema

from carcassonne.expansions.bets import CHIPS
from carcassonne.expansions.mapchips import OUTLET_POINTS
from carcassonne.formats import record, record_writer
from carcassonne.formats.actions import ACTION_TYPES
from carcassonne.game import MAX_COPIES, Game, GameOptions
from carcassonne.maps import GRAPES
from carcassonne.tiles import tile_set

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "record-format.md").read_text(encoding="utf-8")
SCHEMA = json.loads((ROOT / "src/carcassonne/formats/schema/record.schema.json").read_text())
TILE_SETS = sorted(path.stem for path in (ROOT / "src/carcassonne/data/tiles").glob("*.json"))
#: every expansion with figures, and one that has decisions (the Bets)
WITH_EVERY_FIGURE = GameOptions(
    river=True, abbot=True, bets=True, inns_cathedrals=True, traders_builders=True
)


def section(heading: str) -> str:
    """The text under a markdown heading, up to the next heading of any level."""
    match = re.search(rf"^#+ {re.escape(heading)}\n(.*?)(?=^#)", DOC, re.S | re.M)
    assert match, f"no section {heading!r} in docs/record-format.md"
    return match.group(1)


def table(heading: str) -> dict[str, str]:
    """The first table under ``heading``: each row's first cell (backticks and all) -> the row."""
    rows = [line for line in section(heading).splitlines() if line.startswith("| ")]
    return {row.split("|")[1].strip(): row for row in rows[1:]}


def names(text: str) -> set[str]:
    """Every `code` span in ``text``."""
    return set(re.findall(r"`([^`]+)`", text))


def test_every_figure_type_is_documented() -> None:
    figures = set(Game(WITH_EVERY_FIGURE).figure_kinds)
    assert "large-meeple" in figures
    assert set(table("Figures")) == {f"`{figure}`" for figure in figures}


def test_every_action_type_is_documented_with_its_keys() -> None:
    documented = table("Actions")
    assert set(documented) == {f"`{name}`" for name in ACTION_TYPES}
    for name, cls in ACTION_TYPES.items():
        keys_cell = documented[f"`{name}`"].split("|")[2]
        assert names(keys_cell) == set(cls._fields), name


def test_the_values_actions_take_are_documented() -> None:
    rows = table("Actions")
    assert {*CHIPS} <= names(rows["`place-bet`"])
    assert {*GRAPES, *OUTLET_POINTS} <= names(rows["`sell-wine`"])


def test_every_key_and_option_the_reader_accepts_is_documented() -> None:
    assert set(table("Top level")) == {f"`{key}`" for key in record._TOP_KEYS}
    assert set(table("Options")) == {f"`{key}`" for key in record._OPTION_KEYS}
    turn_keys = set().union(*(names(cell) for cell in table("A turn")))
    assert turn_keys == record._TURN_KEYS


def test_every_tile_set_and_figure_location_is_documented() -> None:
    intro = DOC.split("## A complete example")[0]
    for name in TILE_SETS:
        tiles = tile_set(name).tiles
        assert {tiles[0].id, tiles[-1].id} <= names(intro), name
    locations = {
        segment.location
        for name in TILE_SETS
        for tile in tile_set(name).tiles
        for orientation in tile.orientations
        for segment in orientation.segments
    }
    assert "inner" in locations
    spelled = set().union(*(name.split() for name in names(intro)))
    assert locations <= spelled


def test_the_schema_takes_every_key_and_tile_the_reader_takes() -> None:
    properties = SCHEMA["properties"]
    assert set(properties) == record._TOP_KEYS
    assert set(properties["options"]["properties"]) == record._OPTION_KEYS
    assert set(SCHEMA["$defs"]["turn"]["properties"]) == record._TURN_KEYS
    assert properties["options"]["properties"]["copies"]["maximum"] == MAX_COPIES
    tile = jsonschema.Draft202012Validator(SCHEMA["$defs"]["tile"])
    for name in TILE_SETS:
        for t in tile_set(name).tiles:
            assert tile.is_valid(t.id), t.id


def test_a_record_of_every_expansion_follows_the_schema() -> None:
    for seed in range(3):
        game = Game(WITH_EVERY_FIGURE.with_(seed=seed))
        rng = random.Random(seed)
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
        data = record_writer.record_from_game(game)
        jsonschema.validate(data, SCHEMA)
        assert record.load_record(data).scores == game.scores
