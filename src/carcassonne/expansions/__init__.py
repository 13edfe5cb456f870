"""Expansions: each plugs into the engine's turn through :class:`Expansion` hooks.

``build_expansions`` turns game options into expansion objects, in the order their hooks run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Decision, Expansion

if TYPE_CHECKING:
    from ..game import GameOptions

__all__ = ["Decision", "Expansion", "build_expansions"]


def build_expansions(options: GameOptions) -> list[Expansion]:
    expansions: list[Expansion] = []
    if options.river:
        from .river import River

        expansions.append(River())
    if options.abbot:
        from .abbot import Abbot

        expansions.append(Abbot())
    return expansions
