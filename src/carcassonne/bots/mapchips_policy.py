"""How the greedy bot sells wine (Map-Chips France, phase ``wine``).

The wine policy: always sell when a sale is offered (a wine held is worth nothing at the end and
a chance to sell may not come back), the 9-point town sale over the 5-point export; among equal
sales, the colour the bot holds most wine of (keeping the scarce colours for a later town), then
the seeded tie-break.  Which chips make the wine (1+1 or a 2) does not change how many wines are
left, so that is a tie.

:func:`register` is called by ``bots/greedy.py`` when it loads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..expansions.mapchips import OUTLET_POINTS, WINE, MapChips, SellWine, wines
from .policies import PolicyBot, register_policy

if TYPE_CHECKING:
    from ..game import Game


def wine_policy(game: Game, bot: PolicyBot) -> Any:
    """Sell the best wine on offer (never pass when a sale is possible)."""
    chips_expansion = game.expansion(MapChips)
    assert chips_expansion is not None  # the wine decision exists only with Map-Chips
    chips = chips_expansion.in_front[game.to_move]
    scored: list[tuple[float, Any]] = []
    for action in game.legal_actions():
        if isinstance(action, SellWine):
            held = len(wines(chips, action.colour))
            scored.append((OUTLET_POINTS[action.outlet] * 100 + held, action))
    if not scored:
        return game.legal_actions()[0]
    return bot.pick(scored)


def wines_in_front(game: Game) -> list[int] | None:
    """Per seat, how many wines its face-up chips make (each a 2 or a pair of 1s of one colour;
    the learned evaluation's ``wines``), or None without Map-Chips."""
    chips_expansion = game.expansion(MapChips)
    if chips_expansion is None:
        return None
    counts: list[int] = []
    for in_front in chips_expansion.in_front:
        ones: dict[str, int] = {}
        twos = 0
        for colour, value in in_front:
            if value == 2:
                twos += 1
            elif value == 1:
                ones[colour] = ones.get(colour, 0) + 1
        counts.append(twos + sum(n // 2 for n in ones.values()))
    return counts


def register() -> None:
    """Plug the wine policy into the greedy bot.

    Face-down chips need no evaluation adjustment: the bot looks ahead on a determinization, in
    which they are dealt again at random (:meth:`MapChips.redeal_hidden`).
    """
    register_policy(WINE, wine_policy)
