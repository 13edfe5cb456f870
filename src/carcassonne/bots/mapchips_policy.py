"""How the greedy bot sells wine (Map-Chips France, phase ``wine``), and the simulate summary.

The wine policy: always sell when a sale is offered (a wine held is worth nothing at the end and
a chance to sell may not come back), the 9-point town sale over the 5-point export; among equal
sales, the colour the bot holds most wine of (keeping the scarce colours for a later town), then
the seeded tie-break.  Which chips make the wine (1+1 or a 2) does not change how many wines are
left, so that is a tie.

:func:`summary_lines` gives ``carcassonne simulate`` the average map-chip and wine points per
seat.  Both are registered when the Map-Chips expansion module is imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The expansion module imports this one to register it, so its names are imported where used.
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


def summary_lines(games: list[Game]) -> list[str]:
    """Average points per seat from collected chips and from wine, and how wine was sold."""
    from ..events import ScoreEvent
    from ..expansions.mapchips import WINE

    if not games:
        return []
    seats = games[0].players
    collected = [0] * seats
    sold = [0] * seats
    outlets = {"export": 0, "town": 0}
    unsold = 0
    for game in games:
        for event in game.events:
            if not isinstance(event, ScoreEvent) or event.source not in ("map-chip", WINE):
                continue
            for seat, points in event.points.items():
                (collected if event.source == "map-chip" else sold)[seat] += points
            if event.source == WINE:
                outlets[event.reason] += 1
        chips = game.expansion("map-chips")
        unsold += sum(len(held) for held in chips.in_front)
    n = len(games)
    per_seat = ", ".join(
        f"seat {s}: chips {collected[s] / n:.1f} + wine {sold[s] / n:.1f}" for s in range(seats)
    )
    return [
        f"map chips, mean points per game: {per_seat}",
        f"wine sold per game: {outlets['export'] / n:.2f} exported (5), "
        f"{outlets['town'] / n:.2f} to towns (9); chips left unsold per game: {unsold / n:.1f}",
    ]


def register() -> None:
    """Plug the wine policy into the greedy bot and the summary into ``simulate``."""
    from ..cli.simulate import register_summary
    from ..expansions.mapchips import WINE
    from .greedy import register_policy

    register_policy(WINE, wine_policy)
    register_summary("map-chips", summary_lines)
