"""Game options, their limits and their checks (:func:`check_options`): what fixes a game
before the first action.

Its own module, below the game and the expansions, because both need it: the game is built
from options, and the expansions are chosen from them (``expansions.build_expansions``) and
raise :class:`GameSetupError` for options that do not make a game.  It stays interpreted in the
compiled build (``setup.py``): a plain frozen dataclass pickles, which ``simulate --jobs`` needs
to send options to its worker processes.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from .expansions.registry import BY_FIELD, EXPANSIONS, VARIANTS

DEFAULT_MEEPLES = 7
MAP_MEEPLES = 9  # docs/rules.md §4: 9 per player on a map (option)
MIN_PLAYERS, MAX_PLAYERS = 2, 6
#: copies of the base set a game may use: enough for the biggest table (a map game uses two),
#: and a bound on the work one game (or one record or web request) can ask for
MAX_COPIES = 3


#: the on/off options that are off unless asked for: the expansions and the variants that add a rule
SWITCHES = (
    *(spec.field for spec in EXPANSIONS),
    *(spec.field for spec in VARIANTS if not spec.default),
)
#: the on/off options that are on unless turned off: the variants that take a rule away
#: (``--no-farmers``, ``--no-inns``, ``--no-cathedrals``)
DEFAULT_ON = tuple(spec.field for spec in VARIANTS if spec.default)


#: the expansions that go with a map only one way: field, "needs" or "never", the error otherwise
_MAP_USES = tuple(
    (spec.field, spec.map_use, spec.map_error) for spec in EXPANSIONS if spec.map_use != "any"
)


class GameSetupError(ValueError):
    """Options that do not make a game (e.g. 7 players, River on a map)."""


@dataclass(frozen=True)
class GameOptions:
    """Everything that fixes a game before the first action."""

    players: int = 2
    river: bool = False
    abbot: bool = False
    bets: bool = False
    inns_cathedrals: bool = False
    map: str | None = None
    map_chips: bool = False
    #: Traders & Builders (docs/rules.md §12)
    traders_builders: bool = False
    #: figures per seat; None = 7, or 9 on a map
    meeples: int | None = None
    #: copies of the base set (a map game may use two)
    copies: int = 1
    #: map games: the two start squares used, first gets the start tile (None = random from seed)
    start_squares: tuple[str, str] | None = None
    seed: int | None = None
    #: rule variant: a completed city of two tiles pays as an unfinished one (2, +1 per coat)
    small_city_scores_2: bool = False
    #: rule variant: False plays without farmers (no figure on a field, fields never score)
    farmers: bool = True
    #: Inns & Cathedrals variants (docs/rules.md §11.1): False plays the inns' roads as plain
    #: roads (D52), the cathedrals' cities as plain cities (D53); True pays an unfinished road
    #: with an inn or city with a cathedral as a plain one at the end (D51)
    inns: bool = True
    cathedrals: bool = True
    plain_unfinished_inns_cathedrals: bool = False
    #: explicit draw order (tile ids), replacing the shuffled stack; the game ends when it is empty
    stack: tuple[str, ...] | None = None

    def with_(self, **changes: Any) -> GameOptions:
        """These options with ``changes``, as ``dataclasses.replace`` makes them.

        Without its call of the generated ``__init__``, which sets each field through
        ``object.__setattr__`` (the options are frozen): ~60 K instructions, more than the rest
        of a compiled game's set-up, for every game a batch, a simulation or the environment
        starts from its options with a new seed."""
        if not _FIELDS.issuperset(changes):
            return replace(self, **changes)  # whose TypeError names the unknown field
        options = object.__new__(type(self))
        state = options.__dict__
        state.update(self.__dict__)
        state.update(changes)
        return options


#: the options' field names, which :meth:`GameOptions.with_` may change
_FIELDS = frozenset(field.name for field in fields(GameOptions))


def check_options(options: GameOptions) -> None:
    """Raise :class:`GameSetupError` naming what is wrong when ``options`` do not make a game
    (the checks that need no tile set or map file; the game and the expansions check the rest)."""
    if not MIN_PLAYERS <= options.players <= MAX_PLAYERS:
        raise GameSetupError(
            f"players must be between {MIN_PLAYERS} and {MAX_PLAYERS}, not {options.players}"
        )
    if not 1 <= options.copies <= MAX_COPIES:
        raise GameSetupError(f"copies must be from 1 to {MAX_COPIES}, not {options.copies}")
    refused = "never" if options.map is not None else "needs"
    for field, map_use, error in _MAP_USES:
        if map_use == refused and getattr(options, field):
            raise GameSetupError(error)
    if options.start_squares is not None and options.map is None:
        raise GameSetupError("start squares need a map (--map)")
    _check_variants(options)
    if options.meeples is not None and options.meeples < 1:
        # A seat without figures could never score: refuse it rather than quietly use 7.
        raise GameSetupError(f"meeples must be at least 1, not {options.meeples}")


#: per expansion with variants: its field, the variants (those that need it) and its words
_VARIANTS_OF = tuple(
    (field, tuple(v for v in VARIANTS if v.needs == field), f"{spec.title.title()} ({spec.flag})")
    for field, spec in BY_FIELD.items()
    if any(v.needs == field for v in VARIANTS)
)
#: the variants that need another left on, with those others
_NEEDING_ANOTHER = tuple(
    (variant, tuple(v for v in VARIANTS if v.field in variant.needs_any_of))
    for variant in VARIANTS
    if variant.needs_any_of
)


def _check_variants(options: GameOptions) -> None:
    """Refuse an expansion's variant (docs/rules.md D54) that would change nothing: without the
    expansion, or with every variant it changes turned off (paying unfinished inns and
    cathedrals when both are off)."""
    for field, variants, expansion in _VARIANTS_OF:
        asked = [v.flag for v in variants if v.asked(options)]
        if asked and not getattr(options, field):
            verb = "needs" if len(asked) == 1 else "need"
            raise GameSetupError(f"{' and '.join(asked)} {verb} {expansion}")
    for variant, others in _NEEDING_ANOTHER:
        if variant.asked(options) and all(v.asked(options) for v in others):
            raise GameSetupError(
                f"{variant.flag} has nothing to change with both "
                f"{' and '.join(v.flag for v in others)}"
            )
