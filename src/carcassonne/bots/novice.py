"""The novice bot: a person who knows the rules and plays the obvious move, with a person's errors.

It is the greedy bot (``greedy.py``: every legal move tried one turn ahead and valued by the
static evaluation) with three habits of a new player, each a known way beginners lose points:

- **Misjudging**: every move's worth is seen with an error, a normal draw of standard deviation
  ``noise`` points, fresh at each decision.  A move clearly better than the others is still
  found; among moves close to each other the novice takes one of the good-looking ones, not
  always the best.  A tile has dozens of placements, and the best of that many misjudged
  worths is often one a point or two below the real best: an error of 1 point loses most games
  to the greedy bot (``docs/bots.md``, "The ladder").  This is the ladder's knob
  (``levels.py``).
- **Forgetting the farmers**: at a decision it thinks of fields only with the chance
  :data:`FIELD_SIGHT`; otherwise placing a figure on a field is not among what it considers.
  (Fields are a third of an expert's points and the part beginners see last.)
- **Spending meeples freely**: it values meeples in hand at :data:`HAND_VALUE_SHARE` of what
  the greedy bot does, so it puts one down on a small road or a far-fetched city and finds
  itself without when a good feature comes.

Everything else is the greedy bot's: its policies for the expansions' phases (bets, settling,
wine, ...), which see the same misjudged worths through :meth:`pick`, its information-fairness
(a determinization per decision) and its determinism (same seed, same game, same moves).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar

from ..actions import PlaceFigure
from ..game import Game
from ..tiles import FIELD
from . import BotParameter
from .evaluate import DEFAULT_WEIGHTS, Estimates, Evaluator
from .greedy import GreedyBot

#: chance that the novice thinks of its farmers at a decision
FIELD_SIGHT = 0.25
#: share of the greedy bot's value of meeples in hand that the novice sees
HAND_VALUE_SHARE = 0.5
#: standard deviation of the novice's error, in points, when the spec gives none
DEFAULT_NOISE = 0.8

NOVICE_WEIGHTS = replace(
    DEFAULT_WEIGHTS,
    meeple_in_hand=tuple(HAND_VALUE_SHARE * v for v in DEFAULT_WEIGHTS.meeple_in_hand),
    large_meeple_in_hand=HAND_VALUE_SHARE * DEFAULT_WEIGHTS.large_meeple_in_hand,
)


class NoviceBot(GreedyBot):
    name = "novice"

    PARAMETERS: ClassVar[tuple[BotParameter, ...]] = (
        BotParameter(
            "noise",
            float,
            DEFAULT_NOISE,
            "how far off its judgement of a move is (standard deviation, points); 0 misjudges "
            "nothing but still forgets farmers and spends meeples freely",
            0.0,
            100.0,
        ),
    )

    def __init__(self, seed: int | None = None, *, noise: float = DEFAULT_NOISE) -> None:
        super().__init__(seed, NOVICE_WEIGHTS)
        self.noise = noise
        #: whether the decision being made considers fields (drawn at each decision)
        self._sees_fields = True

    def choose_in_world(self, world: Game) -> Any:
        self._sees_fields = self.rng.random() < FIELD_SIGHT
        return super().choose_in_world(world)

    def pick(self, scored: Sequence[tuple[float, Any]]) -> Any:
        """The action that looks best once each worth is misjudged by a normal error."""
        if self.noise == 0 or len(scored) == 1:
            return super().pick(scored)
        gauss = self.rng.gauss
        return super().pick([(worth + gauss(0.0, self.noise), a) for worth, a in scored])

    def _score_figure_actions(
        self, game: Game, evaluator: Evaluator, known: Estimates | None = None
    ) -> list[tuple[float, Any]]:
        scored = super()._score_figure_actions(game, evaluator, known)
        if self._sees_fields:
            return scored
        kept = [(worth, action) for worth, action in scored if not _on_field(game, action)]
        return kept or scored


def _on_field(game: Game, action: Any) -> bool:
    """Whether ``action`` puts a figure on a field of the tile just placed."""
    if not isinstance(action, PlaceFigure):
        return False
    placed = game.last_placed
    assert placed is not None
    index = placed.orientation.locations[action.location]
    return game.seg_feature[placed.base + index].kind == FIELD
