"""Actions as JSON objects: ``{"type": "place-tile", "x": 1, "y": 0, "rotation": 90}``.

Used by game records, the command line and the web app, so that every edge speaks the same
action language.  Decoding checks the shape and the field types and names what is wrong.
"""

from __future__ import annotations

import typing
from typing import Any

from ..actions import Pass, PlaceFigure, PlaceTile
from ..expansions.registry import action_types

#: JSON name -> action type, for the core and every bundled expansion (its registry row)
ACTION_TYPES: dict[str, type] = {
    "place-tile": PlaceTile,
    "place-figure": PlaceFigure,
    "pass": Pass,
    **action_types(),
}


def register_action(name: str, cls: type) -> None:
    """Give a further expansion's action type a JSON name."""
    ACTION_TYPES[name] = cls


def _type_names() -> dict[type, str]:
    return {cls: name for name, cls in ACTION_TYPES.items()}


class ActionFormatError(ValueError):
    """A JSON action that is not well-formed."""


def action_to_json(action: Any) -> dict[str, Any]:
    name = _type_names().get(type(action))
    if name is None:
        raise ActionFormatError(f"unknown action type {type(action).__name__}")
    data: dict[str, Any] = {"type": name}
    for key, value in action._asdict().items():
        data[key] = list(value) if isinstance(value, tuple) else value
    return data


_FIELD_TYPES: dict[type, dict[str, Any]] = {}


def _field_types(cls: type) -> dict[str, Any]:
    """The declared field types of an action class (annotations resolved), cached per class."""
    types = _FIELD_TYPES.get(cls)
    if types is None:
        types = _FIELD_TYPES[cls] = typing.get_type_hints(cls)
    return types


def _check_value(name: str, key: str, expected: Any, value: Any) -> Any:
    """``value`` as the field type ``expected`` wants (lists become tuples), or a named error.

    Tuple items are checked too: an action must compare and hash like the engine's own.
    """
    if expected is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise ActionFormatError(f"action {name!r}: {key!r} must be a whole number")
    elif expected is str:
        if not isinstance(value, str):
            raise ActionFormatError(f"action {name!r}: {key!r} must be a string")
    elif typing.get_origin(expected) is tuple:
        if not isinstance(value, list):
            raise ActionFormatError(f"action {name!r}: {key!r} must be a list")
        (item, *_) = typing.get_args(expected)
        value = tuple(_check_value(name, f"{key}[{i}]", item, v) for i, v in enumerate(value))
    return value


def action_from_json(data: Any) -> Any:
    if not isinstance(data, dict):
        raise ActionFormatError(f"an action must be a JSON object, not {type(data).__name__}")
    name = data.get("type")
    if not isinstance(name, str) or name not in ACTION_TYPES:
        known = ", ".join(sorted(ACTION_TYPES))
        raise ActionFormatError(f"unknown action type {name!r} (known: {known})")
    cls = ACTION_TYPES[name]
    fields: tuple[str, ...] = cls._fields  # type: ignore[attr-defined]
    extra = set(data) - set(fields) - {"type"}
    if extra:
        raise ActionFormatError(f"action {name!r} has unknown keys {sorted(extra)}")
    types = _field_types(cls)
    values = []
    for key in fields:
        if key not in data:
            raise ActionFormatError(f"action {name!r} is missing {key!r}")
        values.append(_check_value(name, key, types.get(key), data[key]))
    return cls(*values)
