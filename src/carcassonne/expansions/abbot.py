"""The Abbot (C3 box, docs/rules.md §2): one abbot per seat for monasteries and gardens.

The abbot is a figure type the core places like a meeple; this module adds it to the supplies and
offers the recall: in step 2, instead of placing a figure, take the abbot back and score at once
what its monastery or garden is worth now (1 + surrounding tiles).  Gardens score like
monasteries, which the core does for every cloister-like feature.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ..board import decode
from ..tiles import GARDEN, MONASTERY
from .actions import RecallAbbot
from .base import Expansion

if TYPE_CHECKING:
    from ..game import Game

ABBOT: Final = "abbot"


class Abbot(Expansion):
    name = "abbot"
    figure_types = {ABBOT: frozenset({MONASTERY, GARDEN})}

    def setup(self, game: Game) -> None:
        for supply in game.supply:
            supply[ABBOT] = 1

    def _abbot_segment(self, game: Game, seat: int) -> int | None:
        if game.supply[seat][ABBOT]:
            return None  # in its owner's supply, so not on the board (asked every step 2)
        for segment, (owner, figure) in game.figures.items():
            if owner == seat and figure == ABBOT:
                return segment
        return None

    def figure_actions(self, game: Game) -> list[Any]:
        segment = self._abbot_segment(game, game.active)
        if segment is None:
            return []
        # (tuple.__new__ builds the NamedTuple in C, as its _make does: calling the class runs
        # its interpreted __new__, in either build; offered every turn the abbot stands)
        return [tuple.__new__(RecallAbbot, decode(game.seg_pos[segment]))]

    def apply_figure_action(self, game: Game, action: Any) -> bool:
        if not isinstance(action, RecallAbbot):
            return False
        segment = self._abbot_segment(game, game.active)
        assert segment is not None
        feature = game.seg_feature[segment]
        points = game.feature_value(feature, final=True)
        game.remove_figure(segment)
        game.add_points(
            game.active,
            points,
            feature.kind_name,
            "abbot-recall",
            square=list(decode(game.seg_pos[segment])),
            value=points,
        )
        return True
