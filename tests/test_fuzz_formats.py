"""Fuzzing the readers of untrusted JSON: actions, records, tile sets and maps.

Each reader promises one error type whose message names what is wrong (``ActionFormatError``,
``RecordError``, ``TileDataError``, ``MapDataError``).  Random JSON, and mutated copies of the
real data files (which reach much deeper into the checks than random JSON does), must never
raise anything else: a stray ``TypeError`` or ``KeyError`` would be a crash for the user, a
500 for the web server, or a game built on half-checked data.
"""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from carcassonne.formats.actions import ACTION_TYPES, ActionFormatError, action_from_json
from carcassonne.formats.record import RecordError, load_record, parse_record
from carcassonne.maps import MapDataError, parse_map
from carcassonne.tiles import TileDataError, parse_tile_set

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.sampled_from(["N", "NL", "C", "RFCF", "base/E", "meeple", "france", "export", "1"])
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


def _data(package_path: str) -> Any:
    ref = resources.files("carcassonne").joinpath(*package_path.split("/"))
    return json.loads(ref.read_text(encoding="utf-8"))


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside a JSON document (object keys and list indexes), the root first."""
    out = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            out.extend(_paths(value, (*prefix, key)))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            out.extend(_paths(value, (*prefix, i)))
    return out


@st.composite
def mutated(draw: st.DrawFn, original: Any, rounds: int = 3) -> Any:
    """A copy of ``original`` with a few values replaced, deleted or grafted elsewhere."""
    doc = copy.deepcopy(original)
    for _ in range(draw(st.integers(1, rounds))):
        paths = _paths(doc)
        path = draw(st.sampled_from(paths))
        if not path:
            continue
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        key = path[-1]
        how = draw(st.sampled_from(["replace", "delete", "graft"]))
        if how == "delete":
            del parent[key]
        elif how == "graft":
            donor = draw(st.sampled_from(paths))
            value: Any = doc
            for step in donor:
                value = value[step]
            parent[key] = copy.deepcopy(value)
        else:
            parent[key] = draw(JSON)
    return doc


# ------------------------------------------------------------------------------ actions


ACTION_FIELDS = st.fixed_dictionaries(
    {"type": st.sampled_from(sorted(ACTION_TYPES)) | JSON},
    optional={
        key: JSON
        for key in ("x", "y", "rotation", "figure", "location", "chip", "kind")
        + ("outlet", "colour", "chips")
    },
)


@FUZZ
@given(st.one_of(JSON, ACTION_FIELDS))
def test_action_from_json_raises_only_action_format_error(data: Any) -> None:
    try:
        action = action_from_json(data)
    except ActionFormatError as exc:
        assert str(exc)
        return
    # What is accepted is an action of the named type with fields of the declared types,
    # so the engine and ``hash`` can rely on them.
    assert type(action) is ACTION_TYPES[data["type"]]
    hash(action)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"type": ["place-tile"]}, "unknown action type"),
        ({"type": {"a": 1}}, "unknown action type"),
        (
            {"type": "sell-wine", "outlet": "town", "colour": "orange", "chips": [[1]]},
            r"'chips\[0\]' must be a whole",
        ),
        (
            {"type": "sell-wine", "outlet": "town", "colour": "orange", "chips": [2, 1.5]},
            r"'chips\[1\]' must be a whole",
        ),
        (
            {"type": "sell-wine", "outlet": "town", "colour": "orange", "chips": [True]},
            r"'chips\[0\]' must be a whole",
        ),
    ],
)
def test_malformed_action_fields_are_named(data: Any, message: str) -> None:
    with pytest.raises(ActionFormatError, match=message):
        action_from_json(data)


# ------------------------------------------------------------------------------ records


def _sample_record() -> dict[str, Any]:
    """A real record with every part a record can have: seats, options, moves, actions."""
    from carcassonne.formats.record import record_from_game
    from carcassonne.game import Game

    game = Game(players=2, bets=True, abbot=True, seed=11)
    for _ in range(14):
        game.apply(game.legal_actions()[-1])
    return record_from_game(game, [{"name": "Ana", "kind": "human"}, {"kind": "random"}])


SAMPLE_RECORD = _sample_record()
RECORD_FIELDS = st.fixed_dictionaries(
    {"format": st.just("carcassonne-record/1"), "moves": JSON},
    optional={key: JSON for key in ("info", "options", "seats", "seed", "stack", "result")},
)


@FUZZ
@given(st.one_of(JSON, RECORD_FIELDS, mutated(SAMPLE_RECORD)))
def test_parsing_any_json_as_a_record_raises_only_record_error(data: Any) -> None:
    try:
        parse_record(data)
    except RecordError as exc:
        assert str(exc)


@FUZZ
@given(st.one_of(RECORD_FIELDS, mutated(SAMPLE_RECORD)))
def test_loading_a_mutated_record_raises_only_record_error(data: dict[str, Any]) -> None:
    try:
        load_record(data)
    except RecordError as exc:
        assert str(exc)


def _sample_table_record() -> dict[str, Any]:
    """A record of a game at a table: clock settings, seat changes, times and standings."""
    from carcassonne.clocks import PRESETS
    from carcassonne.formats.record import record_from_game
    from carcassonne.game import Game
    from carcassonne.standings import SeatChange, TableRecord, TableSettings

    game = Game(players=2, seed=11)
    for _ in range(10):
        game.apply(game.legal_actions()[0])
    changes = [SeatChange(3, 1, "stand-in", 5), SeatChange(6, 1, "return", 9)]
    changes.append(SeatChange(8, 0, "timeout", 12))
    spent = list(range(len(game.history)))
    table = TableRecord.of(TableSettings(PRESETS["3d"], "random", "lose"), changes, spent)
    return record_from_game(game, [{"kind": "human"}, {"kind": "human"}], table)


SAMPLE_TABLE_RECORD = _sample_table_record()
TABLE_FIELDS = st.fixed_dictionaries(
    {"format": st.just("carcassonne-record/1"), "moves": st.just(SAMPLE_TABLE_RECORD["moves"])},
    optional={key: JSON for key in ("table", "changes", "result")},
)


@FUZZ
@given(st.one_of(TABLE_FIELDS, mutated(SAMPLE_TABLE_RECORD)))
def test_loading_a_mutated_table_record_raises_only_record_error(data: dict[str, Any]) -> None:
    try:
        load_record(data)
    except RecordError as exc:
        assert str(exc)


def test_sample_table_record_replays() -> None:
    assert load_record(SAMPLE_TABLE_RECORD).history
    assert SAMPLE_TABLE_RECORD["result"]["standings"][-1] == [0]


def test_sample_record_replays() -> None:
    """The fuzzed records start from one that is valid: the mutations are what breaks them."""
    assert load_record(SAMPLE_RECORD).history


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"copies": 10**9}, "'copies'"),
        ({"players": 10**9}, "players"),
    ],
)
def test_record_with_absurd_option_sizes_is_refused_before_building_a_game(
    options: dict[str, Any], message: str
) -> None:
    record = {"format": "carcassonne-record/1", "options": options, "moves": []}
    with pytest.raises(RecordError, match=message):
        load_record(record)


# ------------------------------------------------------------------------------ tile sets


@pytest.mark.parametrize("name", ["base", "river", "bets"])
def test_mutated_tile_files_raise_only_tile_data_error(name: str) -> None:
    original = _data(f"data/tiles/{name}.json")
    parse_tile_set(original)  # the real file is valid

    @FUZZ
    @given(mutated(original))
    def check(data: Any) -> None:
        try:
            parse_tile_set(data, f"{name}.json")
        except TileDataError as exc:
            assert str(exc)

    check()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.update(cities=7), "'cities' must be a list"),
        (lambda t: t.update(roads={"N": 1}), "'roads' must be a list"),
        (lambda t: t.update(centre=3), "'centre' must be a list"),
        (lambda t: t.update(centre=[["monastery"]]), "unknown centre feature"),
        (lambda t: t.update(fields=[{"halves": ["EL"], "cities": [["N"]]}]), "unknown city"),
        (lambda t: t.update(cities=[{"edges": ["N"], "coat_of_arms": True}]), "coat_of_arms"),
    ],
)
def test_malformed_tile_parts_are_named(change: Any, message: str) -> None:
    data = _data("data/tiles/base.json")
    tile = next(t for t in data["tiles"] if t["name"] == "E")  # a city cap on the north
    change(tile)
    with pytest.raises(TileDataError, match=message):
        parse_tile_set(data)


# ------------------------------------------------------------------------------ maps


@pytest.mark.parametrize("name", ["france", "test-tiny"])
def test_mutated_map_files_raise_only_map_data_error(name: str) -> None:
    original = _data(f"data/maps/{name}.json")
    parse_map(original)

    @FUZZ
    @given(mutated(original))
    def check(data: Any) -> None:
        try:
            parse_map(data, f"{name}.json")
        except MapDataError as exc:
            assert str(exc)

    check()


def test_map_start_square_that_is_not_a_name_is_named() -> None:
    data = _data("data/maps/test-tiny.json")
    data["start_squares"][0] = ["Paris"]
    with pytest.raises(MapDataError, match="start square"):
        parse_map(data)


def test_map_file_that_is_not_text_is_a_map_data_error(tmp_path: Any) -> None:
    from carcassonne.maps import load_map_file

    path = tmp_path / "bad.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(MapDataError, match="bad.json"):
        load_map_file(path)
