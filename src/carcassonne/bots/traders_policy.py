"""How the greedy bot values Traders & Builders (docs/rules.md §12): goods, builder and pig.

Scores do not show these assets until the end, so an evaluation adjustment adds them:

- **goods**: what the goods majorities would pay if the game ended now (10 per kind led, ties
  included), so completing a city with goods is worth its tokens' effect on the majorities;
- **a standing builder** on an unfinished road or city of its seat: the second tiles it is
  expected to earn (:data:`BUILDER_STANDING` at full time horizon), and a tile that has just
  earned one: :data:`SECOND_TILE`;
- **a standing pig** in a field its seat wins: one more point per completed bordering city, and
  per city expected to be completed.

A builder or pig being placed is valued the same way (:func:`joining_gain`, used by
:meth:`Evaluator.figure_gain`), so standing and placing agree.  Everything here is public (the
goods lie face up), so there is nothing to hide.

:func:`register` is called by ``bots/greedy.py`` when it loads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..expansions.traders import BUILDER, GOODS_MAJORITY_POINTS, PIG, TradersBuilders
from ..tiles import FIELD
from .evaluate import is_done, register_adjustment, register_joining_gain

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..features import Feature
    from ..game import Game
    from .evaluate import Evaluator

#: a builder standing on an unfinished feature of its seat, at full time horizon: the second
#: tiles it may still earn (a turn is worth a few points to this bot)
BUILDER_STANDING = 3.0
#: a tile that has just earned a second tile: one more turn's worth
SECOND_TILE = 3.0
#: own turns from which a standing builder is worth its full value
BUILDER_HORIZON_TURNS = 4.0
#: chance per open edge that a city bordering a pig's field gets completed (as cities are valued)
CITY_EDGE_CLOSE = 0.45


def goods_points(traders: TradersBuilders) -> list[float]:
    """Per seat, what the goods majorities would pay if the game ended now."""
    held = traders.goods
    points = [0.0] * len(held)
    for index in range(len(held[0]) if held else 0):
        most = max(tokens[index] for tokens in held)
        if most:
            for seat, tokens in enumerate(held):
                if tokens[index] == most:
                    points[seat] += GOODS_MAJORITY_POINTS
    return points


def builder_value(game: Game, feature: Feature, turns_left: float) -> float:
    """A builder standing on ``feature``: nothing once it is done (the builder comes home)."""
    if is_done(game, feature):
        return 0.0
    return BUILDER_STANDING * min(1.0, turns_left / BUILDER_HORIZON_TURNS)


def pig_value(game: Game, field: Feature, seat: int) -> float:
    """A pig of ``seat`` in ``field``: +1 per (expected) completed city if ``seat`` wins it."""
    if seat not in game.majority(field):
        return 0.0
    return sum(
        1.0 if city.complete or city.open == 0 else CITY_EDGE_CLOSE**city.open
        for city in game.bordering_cities(field)
    )


def joining_gain(evaluator: Evaluator, game: Game, figure: str, feature: Feature) -> float:
    """What a builder or pig adds by being placed on ``feature`` by the deciding seat."""
    if figure == PIG:
        return pig_value(game, feature, evaluator.seat)
    return builder_value(game, feature, evaluator.turns_left)


def adjustment(before: Game, after: Game, seat: int) -> Sequence[float]:
    if after.is_over:  # final scoring has paid the goods: the scores say it all
        return [0.0] * after.players
    traders = after.expansion(TradersBuilders)
    assert traders is not None  # adjustments run only in games with their expansion
    values = goods_points(traders)
    turns_left = len(before.stack) / before.players
    for segment, (owner, figure) in after.figures.items():
        if figure != BUILDER and figure != PIG:
            continue
        feature = after.seg_feature[segment]
        if feature.kind == FIELD:
            values[owner] += pig_value(after, feature, owner)
        else:
            values[owner] += builder_value(after, feature, turns_left)
    if traders.earned_second_tile:
        values[after.active] += SECOND_TILE
    return values


def register() -> None:
    """Plug the Traders & Builders valuation into the greedy bot's evaluation."""
    register_adjustment(TradersBuilders, adjustment)
    register_joining_gain(BUILDER, joining_gain)
    register_joining_gain(PIG, joining_gain)
