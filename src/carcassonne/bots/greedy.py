"""The greedy bot: the best-looking move one turn ahead, by a cheap static evaluation.

Tile phase: every legal placement is tried (placed and taken back, without copying the game:
:meth:`Game.placed_for_lookahead`) together with the best step-2 choice for it (placing a figure
on each free feature of the tile, passing, or an expansion's alternative such as recalling the
abbot), and the placement whose best choice leaves the position worth most is played.  A
position's worth for the bot is its value minus the best opponent's
(:func:`evaluate.relative`); values come from :class:`evaluate.Evaluator`: score, plus expected
points of figures standing on unfinished features (open cities and roads from their open edges
and the time left, cloisters from their neighbours, fields from the completed and likely cities
they border), plus what figures still in hand are worth (the fewer left, the more each is worth).
The figure phase re-derives the same choice from the position, so the bot keeps no plan between
calls and can take over any position.

The bot is information-fair: at each decision it looks only at a determinization of the game
(:meth:`Game.determinized`, drawn from its seeded generator), a copy in which everything its seat
cannot know (the stack order, other seats' bet chips, face-down map chips) is dealt again at
random, and does all its look-ahead on that.  A look-ahead that draws the next tile or
turns a chip up therefore sees a sample, never the real hidden state, and the bot's choice
depends only on what its seat knows and on its seed.

**For searches** (the expert bot's playouts): :meth:`GreedyBot.choose_in_world` makes the same
choice in a game that already is a sampled world, without drawing another determinization (which
copies the game), and leaves that game exactly as it was.  A greedy decision costs about as much
as ~30 random moves (`benchmarks/README.md`).  Public API kept stable for such callers:
``choose``, ``choose_in_world``, ``score_actions``, ``evaluator``, ``lookahead``, ``pick``,
``register_policy``.

Other phases (expansion decisions such as ``bet``, ``settle``, ``wine``) go through a **policy
registry** (``bots/policies.py``).  The bundled expansions' policies live in
``bots/bets_policy.py`` and ``bots/mapchips_policy.py`` and are installed when this module loads;
any other code registers the same way::

    from carcassonne.bots.greedy import register_policy

    def bet_policy(game: Game, bot: PolicyBot) -> Action:  # one of game.legal_actions()
        ...

    register_policy("bet", bet_policy)

A policy is handed the determinization (its legal actions are the real game's) and may use
``bot.rng`` (seeded: keep the bot deterministic), ``bot.evaluator(game)``,
``bot.lookahead(game)`` and ``bot.pick(scored)``.  Phases without a policy fall back to
``lookahead``: each legal action is applied to a copy and the resulting positions are compared
(so a decision whose outcome the evaluation cannot tell apart is effectively a random one).

Expansions whose assets the evaluation should account for register an adjustment
(:func:`evaluate.register_adjustment`) rather than a policy; hidden state needs none, since the
expansion re-deals it for the determinization (:meth:`Expansion.redeal_hidden`).

Ties are broken with the bot's seeded generator, so a bot with a given seed plays a given game
identically every time.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..actions import Pass, PlaceFigure
from ..game import Game
from . import bets_policy, mapchips_policy, traders_policy
from .evaluate import DEFAULT_WEIGHTS, Estimates, Evaluator, Weights, relative
from .policies import Policy, PolicyBot, policy_for, register_policy

__all__ = ["GreedyBot", "Policy", "PolicyBot", "register_policy"]

#: scores closer than this to the best count as ties (evaluations are sums of floats)
_TIE = 1e-9


class GreedyBot:
    name = "greedy"

    def __init__(self, seed: int | None = None, weights: Weights = DEFAULT_WEIGHTS) -> None:
        self.rng = random.Random(seed)
        self.weights = weights

    def evaluator(self, game: Game) -> Evaluator:
        """An evaluator for the decision ``game`` is at (fixes the time left for all options)."""
        return Evaluator(game, self.weights)

    def choose(self, game: Game) -> Any:
        if len(game.legal_actions()) == 1:
            return game.legal_actions()[0]
        return self.choose_in_world(self.determinize(game))

    def choose_in_world(self, world: Game) -> Any:
        """The bot's choice in ``world``, a game that already is a sample of what the deciding
        seat cannot know, without drawing another: the fast path for playouts in a search.

        ``world`` is a determinization (:meth:`determinize`, :meth:`Game.determinized`) or a
        position a search reached from one; it is left exactly as it was.  :meth:`choose` is
        this on a fresh determinization.  Never call it on the real game: its look-ahead would
        see hidden information (trying a placement turns a face-down map chip up).
        """
        actions = world.legal_actions()
        if len(actions) == 1:
            return actions[0]
        policy = policy_for(world.phase)
        if policy is not None:
            return policy(world, self)
        return self.pick(self._score_actions(world))

    def determinize(self, game: Game) -> Game:
        """A copy of ``game`` with what the deciding seat cannot know dealt at random."""
        return game.determinized(game.to_move, self.rng)

    def score_actions(self, game: Game) -> list[tuple[float, Any]]:
        """(worth, action) for every legal action, as the bot sees them (policies aside).

        Worth is the bot's value minus the best opponent's after the action (for a tile: with
        the best step-2 choice that follows it), in one determinization of ``game``.
        """
        return self._score_actions(self.determinize(game))

    def _score_actions(self, game: Game) -> list[tuple[float, Any]]:
        phase = game.phase
        if phase == "tile":
            return self._score_placements(game, game.legal_actions())
        if phase == "figure":
            return self._score_figure_actions(game, self.evaluator(game))
        return self.lookahead(game)

    def pick(self, scored: Sequence[tuple[float, Any]]) -> Any:
        """The best-scored action; ties broken by the bot's seeded generator."""
        best = max(score for score, _ in scored)
        tied = [action for score, action in scored if score >= best - _TIE]
        return tied[0] if len(tied) == 1 else tied[int(self.rng.random() * len(tied))]

    def lookahead(
        self, game: Game, actions: Sequence[Any] | None = None
    ) -> list[tuple[float, Any]]:
        """(worth, action) of each action after applying it to a copy of ``game``."""
        seat = game.to_move
        evaluator = self.evaluator(game)
        scored: list[tuple[float, Any]] = []
        for action in game.legal_actions() if actions is None else actions:
            after = game.copy()
            after.apply(action)
            scored.append((relative(evaluator.seat_values(after), seat), action))
        return scored

    def _score_placements(self, game: Game, actions: Sequence[Any]) -> list[tuple[float, Any]]:
        evaluator = self.evaluator(game)
        known = evaluator.estimates(game)
        scored: list[tuple[float, Any]] = []
        for action in actions:
            with game.placed_for_lookahead(action):
                options = self._score_figure_actions(game, evaluator, known)
            best = options[0][0]
            for score, _ in options:  # (a loop: max() over a generator costs more, compiled)
                if score > best:
                    best = score
            scored.append((best, action))
        return scored

    def _score_figure_actions(
        self, game: Game, evaluator: Evaluator, known: Estimates | None = None
    ) -> list[tuple[float, Any]]:
        """(worth, action) for each step-2 action, with the tile just placed (``known``: the
        position's estimates from before the tile, see :meth:`Evaluator.assess`)."""
        seat = game.to_move
        values, free = evaluator.assess(game, known)
        placed = game.last_placed
        assert placed is not None
        scored: list[tuple[float, Any]] = []
        for action in game.legal_actions():
            if isinstance(action, PlaceFigure):
                index = placed.orientation.locations[action.location]
                feature = game.seg_feature[placed.base + index]
                in_hand = free[seat].get(action.figure, 0)
                gain = evaluator.figure_gain(game, action.figure, in_hand, feature)
                values[seat] += gain
                scored.append((relative(values, seat), action))
                values[seat] -= gain
            elif isinstance(action, Pass):
                scored.append((relative(values, seat), action))
            else:  # an expansion's step-2 alternative: see what it does
                after = game.copy()
                after.apply(action)
                scored.append((relative(evaluator.seat_values(after), seat), action))
        return scored


# The expansions' phases this bot knows how to play.
bets_policy.register()
mapchips_policy.register()
traders_policy.register()
