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


def register() -> None:
    """Plug the wine policy into the greedy bot.

    Face-down chips need no evaluation adjustment: the bot looks ahead on a determinization, in
    which they are dealt again at random (:meth:`MapChips.redeal_hidden`).
    """
    register_policy(WINE, wine_policy)
