"""Game options and their limits: what fixes a game before the first action.

Its own module, below the game and the expansions, because both need it: the game is built
from options, and the expansions are chosen from them (``expansions.build_expansions``) and
raise :class:`GameSetupError` for options that do not make a game.  It stays interpreted in the
compiled build (``setup.py``): a plain frozen dataclass pickles, which ``simulate --jobs`` needs
to send options to its worker processes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

DEFAULT_MEEPLES = 7
MAP_MEEPLES = 9  # docs/rules.md §4: 9 per player on a map (option)
MIN_PLAYERS, MAX_PLAYERS = 2, 6
#: copies of the base set a game may use: enough for the biggest table (a map game uses two),
#: and a bound on the work one game (or one record or web request) can ask for
MAX_COPIES = 3


#: the on/off options that are off unless asked for: the expansions and the variants that add a rule
SWITCHES = (
    "river",
    "abbot",
    "bets",
    "map_chips",
    "inns_cathedrals",
    "small_city_scores_2",
    "plain_unfinished_inns_cathedrals",
    "traders_builders",
)
#: the on/off options that are on unless turned off: the variants that take a rule away
#: (``--no-farmers``, ``--no-inns``, ``--no-cathedrals``)
DEFAULT_ON = ("farmers", "inns", "cathedrals")


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
        return replace(self, **changes)
