"""Expansions: each plugs into the engine's turn through :class:`Expansion` hooks.

``build_expansions`` turns game options into expansion objects, in the order their hooks run
(``registry.ExpansionSpec.hook_position``: D29, D42, D43): within step 3 the bets are settled
(``after_scoring``) before wine is sold, wine is sold (``end_of_turn``) before step 4 places bets,
and Traders & Builders comes last.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .base import Decision, Expansion
from .registry import IN_HOOK_ORDER, ExpansionSpec

if TYPE_CHECKING:
    from ..options import GameOptions

__all__ = [
    "Decision",
    "Expansion",
    "build_expansions",
    "expansion_class",
    "expansion_classes",
    "instantiate",
]


#: registry row's option field -> the class it names, once imported (importlib.import_module
#: is interpreted: a few thousand instructions per expansion of every game's set-up)
_CLASSES: dict[str, type[Expansion]] = {}


def expansion_class(spec: ExpansionSpec) -> type[Expansion]:
    """The class a registry row names, its module imported at the first call (not when the
    registry is: the registry sits under ``options``, the expansions' modules above the engine)."""
    cls = _CLASSES.get(spec.field)
    if cls is None:
        module = importlib.import_module(f"{__name__}.{spec.module}")
        cls = _CLASSES[spec.field] = getattr(module, spec.class_name)
    return cls


def expansion_classes(options: GameOptions) -> list[tuple[type[Expansion], bool]]:
    """The classes of the expansions ``options`` switch on, in hook order, each with whether it
    takes the options."""
    return [
        (expansion_class(spec), spec.takes_options)
        for spec in IN_HOOK_ORDER
        if getattr(options, spec.field)
    ]


def instantiate(
    classes: list[tuple[type[Expansion], bool]], options: GameOptions
) -> list[Expansion]:
    """One game's expansions of ``classes`` (:func:`expansion_classes`'s) for ``options``."""
    return [cls(options) if takes else cls() for cls, takes in classes]  # type: ignore[call-arg]


def build_expansions(options: GameOptions) -> list[Expansion]:
    """The expansions ``options`` switch on, in hook order (once per game, never per move)."""
    return instantiate(expansion_classes(options), options)
