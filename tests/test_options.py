"""GameOptions.with_: the options dataclasses.replace makes, without its per-field __init__."""

from __future__ import annotations

import pickle
from dataclasses import fields, replace
from typing import Any

import pytest

from carcassonne.options import GameOptions

#: a value other than the default for every field
CHANGES: dict[str, Any] = {
    "players": 3,
    "river": True,
    "abbot": True,
    "bets": True,
    "inns_cathedrals": True,
    "map": "france",
    "map_chips": True,
    "traders_builders": True,
    "meeples": 4,
    "copies": 2,
    "start_squares": ("paris", "lyon"),
    "seed": 12,
    "small_city_scores_2": True,
    "farmers": False,
    "inns": False,
    "cathedrals": False,
    "plain_unfinished_inns_cathedrals": True,
    "stack": ("base/A", "base/B"),
}


def test_every_field_has_a_change() -> None:
    assert set(CHANGES) == {f.name for f in fields(GameOptions)}


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_with_changes_one_field_as_replace_does(name: str) -> None:
    options = GameOptions(seed=5, abbot=True)
    changed = options.with_(**{name: CHANGES[name]})
    expected = replace(options, **{name: CHANGES[name]})
    assert changed == expected and hash(changed) == hash(expected)
    assert type(changed) is GameOptions
    assert {f.name: getattr(changed, f.name) for f in fields(GameOptions)} == {
        f.name: getattr(expected, f.name) for f in fields(GameOptions)
    }
    assert options == GameOptions(seed=5, abbot=True)  # the original is untouched
    assert pickle.loads(pickle.dumps(changed)) == expected


def test_with_changes_many_fields_and_stays_frozen() -> None:
    changed = GameOptions().with_(**CHANGES)
    assert changed == GameOptions(**CHANGES)
    with pytest.raises(AttributeError):
        changed.seed = 3  # type: ignore[misc]


def test_with_refuses_an_unknown_field_by_name() -> None:
    with pytest.raises(TypeError, match="colour"):
        GameOptions().with_(seed=1, colour="red")
