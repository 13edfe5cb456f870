"""How the greedy bot plays The Bets: which chip to bet, which feature to settle against.

Everything rests on one estimate, :func:`chip_value`: the expected payoff of a chip on an office,
from a guess at the final size of each road and city of that tile.  A feature of ``n`` tiles with
``o`` open edges is assumed to grow, per open edge, by a geometric number of tiles (at least one:
some tile has to close that edge; each further tile closes it with probability
:data:`CLOSE_CHANCE`), and to get that growth at all only if enough tiles are left
(:func:`time_factor`); otherwise it ends at ``n`` (final settlement counts the tiles placed so
far).  The chip is settled against the first of the tile's open features to complete, so each
feature is weighted by how soon it may complete (``1 / o``); a completed-but-unscored feature
(this turn's step 3 is still to come) decides alone.

The bot values its own chips by their values and another seat's chip as the average of the six
(the bot plays on a determinization, where other seats' chips are a random deal, so their values
there are only a sample).  The same estimate, registered as an evaluation adjustment, makes the
greedy bot value the bets lying on offices when it places tiles.

Registered by ``bots/greedy.py`` when it loads (:func:`register`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from ..actions import PASS
from ..board import encode
from ..expansions.bets import (
    BET,
    CHIPS,
    SETTLE,
    SETTLE_FINAL,
    Bets,
    PlaceBet,
    chip_payoff,
    settle_choices,
)
from ..tiles import CITY, ROAD
from .evaluate import register_adjustment
from .policies import PolicyBot, register_policy

if TYPE_CHECKING:
    from ..features import Feature
    from ..game import Game

#: chance that the next tile added at an open edge of a road or city closes that edge
CLOSE_CHANCE = {ROAD: 0.45, CITY: 0.45}
#: tiles (of the whole stack) an open edge needs before its growth is fully expected
TILES_PER_OPEN_EDGE = 6.0
#: expected points a bet must be worth before the bot gives up a chip for it
MIN_BET_VALUE = 0.5
#: growth modelled tile by tile; larger growth is lumped in here (every chip pays the same for
#: any size from 8 tiles on)
_MAX_GROWTH = 24


@cache
def growth_distribution(kind: int, open_edges: int) -> tuple[float, ...]:
    """P(the feature grows by k tiles), k = 0 … _MAX_GROWTH (and more), before it completes."""
    p = CLOSE_CHANCE[kind]
    one = [0.0] + [p * (1 - p) ** (k - 1) for k in range(1, _MAX_GROWTH + 1)]
    dist = [1.0] + [0.0] * _MAX_GROWTH
    for _ in range(open_edges):
        dist = [sum(dist[i] * one[k - i] for i in range(k + 1)) for k in range(_MAX_GROWTH + 1)]
    dist[-1] += 1.0 - sum(dist)
    return tuple(dist)


@cache
def payoff(chip: str | None, tiles: int) -> float:
    """:func:`chip_payoff`, or for ``None`` (a chip this seat cannot see) the mean of the six."""
    if chip is None:
        return sum(chip_payoff(c, tiles) for c in CHIPS) / len(CHIPS)
    return float(chip_payoff(chip, tiles))


@cache
def _grown_payoff(chip: str | None, kind: int, tiles: int, open_edges: int) -> float:
    dist = growth_distribution(kind, open_edges)
    return sum(pk * payoff(chip, tiles + k) for k, pk in enumerate(dist) if pk)


def time_factor(open_edges: int, tiles_left: int) -> float:
    """Chance that a feature gets its growth before the game ends (0 … 1)."""
    return min(1.0, tiles_left / (TILES_PER_OPEN_EDGE * open_edges))


def feature_payoff(chip: str | None, feature: Feature, tiles_left: int) -> float:
    """Expected payoff of ``chip`` (None: unseen) settled against ``feature`` (exact once it is
    closed)."""
    tiles = len(feature.squares)
    if feature.open == 0 or tiles_left == 0:
        return payoff(chip, tiles)
    h = time_factor(feature.open, tiles_left)
    grown = _grown_payoff(chip, feature.kind, tiles, feature.open)
    return h * grown + (1 - h) * payoff(chip, tiles)


def office_features(game: Game, pos: int) -> list[Feature]:
    """The roads and cities of the tile at ``pos`` a chip there can still be settled against.

    Features already scored are out; if some are closed but not scored yet (this turn's step 3
    is still to come) only those remain, since they settle the chips now.
    """
    placed = game.board[pos]
    seg_feature = game.seg_feature
    features: list[Feature] = []
    for i in placed.orientation.closable:
        feature = seg_feature[placed.base + i]
        if not feature.complete and all(f is not feature for f in features):
            features.append(feature)
    closing = [f for f in features if f.open == 0]
    return closing or features


def chip_value(chip: str | None, features: Sequence[Feature], tiles_left: int) -> float:
    """Expected payoff of ``chip`` (None: a chip this seat cannot see) on an office whose
    settling candidates are ``features``."""
    if not features:
        return 0.0
    weights = [1.0 / max(f.open, 1) for f in features]
    total = sum(weights)
    return (
        sum(w * feature_payoff(chip, f, tiles_left) for w, f in zip(weights, features, strict=True))
        / total
    )


def _bets(game: Game) -> Bets:
    ext = game.expansion(Bets)
    assert ext is not None
    return ext


# ------------------------------------------------------------------------------ policies


def bet_policy(game: Game, bot: PolicyBot) -> Any:
    """Step 4: the chip with the best expected payoff on this office, or pass if none is worth
    :data:`MIN_BET_VALUE`."""
    placed = game.last_placed
    assert placed is not None
    features = office_features(game, placed.pos)
    tiles_left = len(game.stack)
    scored: list[tuple[float, Any]] = [(MIN_BET_VALUE, PASS)]
    for action in game.legal_actions():
        if isinstance(action, PlaceBet):
            scored.append((chip_value(action.chip, features, tiles_left), action))
    return bot.pick(scored)


def settle_policy(game: Game, bot: PolicyBot) -> Any:
    """The feature to settle an office's chips against.

    Phase ``settle`` (the active player decides for every chip on the office): what it pays the
    deciding seat's chip, less what it is likely to pay the average other seat.  Phase
    ``settle-final`` (each seat decides for its own chip only): what it pays that chip.
    """
    seat = game.to_move
    actions = settle_choices(game)
    chips = _bets(game).offices[encode(actions[0].x, actions[0].y)]
    own = [chip for owner, chip in chips if owner == seat]  # one chip per seat and office
    others = 0 if game.phase == "settle-final" else len(chips) - len(own)
    scored = []
    for action in actions:
        tiles = len(game.feature_at(action.x, action.y, action.location).squares)
        value = sum(payoff(chip, tiles) for chip in own)
        if others:
            value -= others * payoff(None, tiles) / (game.players - 1)
        scored.append((value, action))
    return bot.pick(scored)


# ---------------------------------------------------------------------- evaluation adjustment


def bets_adjustment(before: Game, after: Game, seat: int) -> list[float]:
    """Per seat: expected payoff of its chips lying on offices in ``after``, as ``seat`` may
    estimate it (its own chips by value, the others' as the average chip)."""
    values = [0.0] * after.players
    if after.is_over:
        return values
    tiles_left = len(before.stack)
    for pos, chips in _bets(after).offices.items():
        features = office_features(after, pos)
        unknown = None
        for owner, chip in chips:
            if owner == seat:
                values[owner] += chip_value(chip, features, tiles_left)
            else:
                if unknown is None:
                    unknown = chip_value(None, features, tiles_left)
                values[owner] += unknown
    return values


def register() -> None:
    """Hand the bets phases to the greedy bot and value bets in its evaluation."""
    register_policy(BET, bet_policy)
    register_policy(SETTLE, settle_policy)
    register_policy(SETTLE_FINAL, settle_policy)
    register_adjustment(Bets, bets_adjustment)
