"""Expansions: each plugs into the engine's turn through :class:`Expansion` hooks.

``build_expansions`` turns game options into expansion objects, in the order their hooks run (D29):
within step 3 the bets are settled (``after_scoring``) before wine is sold, and wine is sold
(``end_of_turn``) before step 4 places bets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Decision, Expansion

if TYPE_CHECKING:
    from ..options import GameOptions

__all__ = ["Decision", "Expansion", "build_expansions"]


def build_expansions(options: GameOptions) -> list[Expansion]:
    expansions: list[Expansion] = []
    if options.river:
        from .river import River

        expansions.append(River())
    if options.abbot:
        from .abbot import Abbot

        expansions.append(Abbot())
    if options.inns_cathedrals:
        from .inns import InnsCathedrals

        expansions.append(InnsCathedrals(options))
    if options.map_chips:
        from .mapchips import MapChips

        expansions.append(MapChips())
    if options.bets:
        from .bets import Bets

        expansions.append(Bets())
    if options.traders_builders:
        # Last: its end_of_turn grants the builder's second tile once the other expansions'
        # step 3 and step 4 of this tile are queued (D42, D43).
        from .traders import TradersBuilders

        expansions.append(TradersBuilders())
    return expansions
