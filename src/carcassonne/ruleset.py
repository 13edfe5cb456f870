"""What a game's options fix whatever its seed, worked out once for the games that share them.

A batch, a simulation or the environment starts game after game from the same options with a
new seed.  Checking the options (``check_options``, interpreted), choosing the expansions' classes
(``expansions.expansion_classes``, interpreted) and working out what figures they bring, what
marks their scores carry and which tiles they deal cost a compiled base game's set-up ~18 K
instructions of ~120 K, the same for every game.  A :class:`Ruleset` holds all of it, read-only
and shared by every game made from options equal but for the seed and the stack (neither is read
here: the stack is checked against the tile sets by the game's set-up).  The last one made is kept
(one entry, so that what a server is asked for cannot grow it); each game still gets expansions
of its own, built from the kept classes with its own options.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from .expansions import expansion_classes, instantiate
from .expansions.base import Expansion
from .options import GameOptions, check_options
from .tiles import CITY, FIELD, MONASTERY, ROAD, TileType, land_tiles

MEEPLE: Final = "meeple"
MEEPLE_KINDS: Final = frozenset({CITY, ROAD, FIELD, MONASTERY})


class Ruleset:
    """What ``options`` and their ``expansions`` fix (never written once made: games share it)."""

    __slots__ = (
        "classes",
        "figure_kinds",
        "figure_strength",
        "joining_figures",
        "scoring_marks",
        "start_tile",
        "land",
    )

    def __init__(
        self,
        options: GameOptions,
        classes: list[tuple[type[Expansion], bool]],
        expansions: Sequence[Expansion],
    ) -> None:
        #: the options' expansions' classes, in hook order, with whether each takes the options
        self.classes = classes
        kinds: dict[str, frozenset[int]] = {MEEPLE: MEEPLE_KINDS}
        strength: dict[str, int] = {}
        joining: set[str] = set()
        tile_sets = ["base"]
        for ext in expansions:
            kinds.update(ext.figure_types)
            strength.update(ext.figure_strength)
            joining.update(ext.joining_figures)
            tile_sets.extend(ext.tile_sets)
        if not options.farmers:
            # The variant without farmers: no figure of any type stands on a field.
            kinds = {figure: k - {FIELD} for figure, k in kinds.items()}
            kinds = {figure: k for figure, k in kinds.items() if k}
        #: figure type -> the feature kinds it may stand on
        self.figure_kinds = kinds
        #: figure type -> weight in majorities; None when every type weighs 1 (the fast case)
        self.figure_strength: dict[str, int] | None = (
            strength if any(weight != 1 for weight in strength.values()) else None
        )
        self.joining_figures = frozenset(joining)
        self.scoring_marks = tuple(mark for e in expansions for mark in e.scoring_marks())
        # With the River the base start tile is an ordinary land tile (docs/rules.md §2).
        start_dealt = any(ext.provides_start_tile for ext in expansions)
        dealt = land_tiles(tuple(tile_sets), options.copies, start_dealt)
        #: the base start tile, and the land tiles in data order (to be shuffled)
        self.start_tile: TileType = dealt[0]
        self.land: tuple[TileType, ...] = dealt[1]


#: the last options (as their fields, less seed and stack) a ruleset was made for, and it: one
#: entry, replaced whole
_LAST: Final[list[tuple[dict[str, Any], Ruleset]]] = []


def rules_for(
    options: GameOptions, extra: Sequence[Expansion] = ()
) -> tuple[Ruleset, list[Expansion]]:
    """The ruleset of ``options`` with a new game's expansions (its own, then ``extra``).

    Raises :class:`~.options.GameSetupError` for options that do not make a game, as
    ``check_options`` does; options equal to the last ones checked but for the seed and the
    stack are not checked again.  With ``extra`` expansions the ruleset is worked out anew (an
    experiment's expansions are its own objects, not the options')."""
    probe = options.__dict__.copy()  # the fields (GameOptions.with_ copies them the same way)
    probe["seed"] = None
    probe["stack"] = None
    last = _LAST[0] if _LAST else None  # (read once: another thread may replace it)
    if last is not None and type(options) is GameOptions and last[0] == probe:
        ruleset = last[1]
        expansions = instantiate(ruleset.classes, options) if ruleset.classes else []
    else:
        check_options(options)
        classes = expansion_classes(options)
        expansions = instantiate(classes, options)
        ruleset = Ruleset(options, classes, expansions)
        if type(options) is GameOptions:
            _LAST[:] = [(probe, ruleset)]
    if extra:
        expansions = [*expansions, *extra]
        ruleset = Ruleset(options, ruleset.classes, expansions)
    return ruleset, expansions
