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

# The greedy bot imports this module while it loads, so engine names are imported where used.
if TYPE_CHECKING:
    from ..game import Game
    from .greedy import GreedyBot


def wine_policy(game: Game, bot: GreedyBot) -> Any:
    """Sell the best wine on offer (never pass when a sale is possible)."""
    from ..expansions.mapchips import OUTLET_POINTS, SellWine, wines

    chips = game.expansion("map-chips").in_front[game.to_move]
    scored: list[tuple[float, Any]] = []
    for action in game.legal_actions():
        if isinstance(action, SellWine):
            held = len(wines(chips, action.colour))
            scored.append((OUTLET_POINTS[action.outlet] * 100 + held, action))
    if not scored:
        return game.legal_actions()[0]
    return bot.pick(scored)


def hidden_chips(before: Game, after: Game, seat: int) -> list[float]:
    """Keep face-down chips hidden from a bot that tries placements on copies of the game.

    A copy turns a collected chip up and pays its true value; count it instead at the mean value
    of the chips still face down, which every player can work out (the chip set minus the chips
    turned up so far).
    """
    from ..events import ScoreEvent

    adjust = [0.0] * after.players
    face_down = before.expansion("map-chips").face_down
    if not face_down:
        return adjust
    mean = sum(chip.value for chip in face_down.values()) / len(face_down)
    for event in after.events[len(before.events) :]:
        if isinstance(event, ScoreEvent) and event.source == "map-chip":
            for owner, points in event.points.items():
                adjust[owner] += mean - points
    return adjust


def register() -> None:
    """Plug the wine policy into the greedy bot, and keep chips hidden from its evaluation."""
    from ..expansions.mapchips import WINE, MapChips
    from .evaluate import register_adjustment
    from .greedy import register_policy

    register_policy(WINE, wine_policy)
    register_adjustment(MapChips.name, hidden_chips)
