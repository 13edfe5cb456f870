"""The expert bot: a search over sampled worlds of what it cannot see (information-set search).

At every decision, whatever the phase (placing a tile, a figure or recalling the abbot, betting,
settling, selling wine), the bot compares the legal actions by playing them out in **sampled
worlds**: each world is :meth:`Game.determinized` for the bot's seat, a copy in which everything
the seat cannot know (the stack order, other seats' bet chips, face-down map chips) is dealt
again at random.  The real hidden state is never read, so the bot is information-fair by
construction: two games its seat cannot tell apart give the same decision (same seed and
iteration budget).

How the search spends its budget (the levers measured in ``benchmarks/README.md``):

- **Priors**: the greedy bot's scores of the legal actions (one determinization) order them.
  The search starts with the best ``width`` of those within :data:`PRIOR_GAP` points of the
  best; when a candidate is ruled out the next one by prior takes its place (progressive
  widening), so a move greedy finds bad is only tried once better-looking ones failed.
- **Common random numbers**: the search runs in rounds; in a round every live candidate is
  played out in the *same* sampled world with the same playout randomness, so differences
  between candidates are differences between moves, not between draws.  Candidates are
  compared on the rounds they share.
- **Racing**: after each round, a candidate whose paired mean difference to the leader is below
  zero by more than :data:`PRUNE_Z` standard errors (after :data:`MIN_ROUNDS` shared rounds) is
  dropped, and so is one whose playouts all ended exactly like the leader's (an equivalent
  move).  The search stops early when one candidate is left and none is waiting.
- **Playouts**: from the candidate, the game goes on by the greedy policy (the bot's own
  follow-up steps of this turn, then ``depth`` further tile turns, by default ``players + 1``:
  every opponent's reply, the bot's own next turn and the first reply to that), then the
  position is valued by the learned evaluation (:class:`learned.LearnedEvaluation`, trained by
  self-play; with ``learned=0`` the greedy bot's static :class:`evaluate.Evaluator`, as before
  it existed) for the bot's seat, minus the best other seat's: the reward.  A finished game is
  valued by its final scores.

The decision is the leader: the best mean reward on the rounds all surviving candidates share.
With no time for a single playout it is the greedy bot's choice.  :meth:`ExpertBot.hints` runs
the same search, keeping at least ``n`` candidates alive, and returns them best first with their
expected lead.

Budgets: ``seconds`` (wall clock per decision) and/or ``iterations`` (playouts per decision),
whichever runs out first.  With an iteration budget only, the bot is deterministic given its
seed.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..game import Game
from . import BotParameter
from .evaluate import DEFAULT_WEIGHTS, Evaluator, relative
from .greedy import GreedyBot
from .learned import LearnedEvaluation

#: the bot that answers a player's hint (``hint`` in ``carcassonne play``, the web's hint button):
#: the expert, with a think time a player is glad to wait for
HINT_BOT = "expert:seconds=1"
#: how many moves a hint suggests
HINT_COUNT = 3
#: candidates whose greedy prior is further than this (points) below the best wait until others
#: are ruled out
PRIOR_GAP = 8.0
#: shared rounds before a candidate may be ruled out
MIN_ROUNDS = 3
#: how many standard errors below the leader rule a candidate out
PRUNE_Z = 1.5
#: rewards closer than this are the same outcome (they are sums of floats)
_SAME = 1e-9
DEFAULT_SECONDS = 0.5
DEFAULT_WIDTH = 5

_UNSET: Any = object()


@dataclass(frozen=True, slots=True)
class Hint:
    """A suggested action and the searcher's estimate of what it leads to.

    ``expected_points``: the seat's expected lead over the best other seat after the move (score
    plus the estimated worth of figures on the board and in hand; negative: behind).  Compare
    hints with each other: the difference is what the better move is expected to gain.
    """

    action: Any
    expected_points: float
    #: playouts the estimate rests on
    samples: int


@dataclass(slots=True)
class _Candidate:
    action: Any
    prior: float
    #: round number -> reward of this candidate's playout in that round's world
    rewards: dict[int, float] = field(default_factory=dict)

    def mean(self, rounds: list[int] | None = None) -> float:
        values = (
            list(self.rewards.values()) if rounds is None else [self.rewards[r] for r in rounds]
        )
        return sum(values) / len(values) if values else self.prior


@dataclass(slots=True)
class SearchStats:
    """What the last decision's search did (for benchmarks and curious users)."""

    playouts: int = 0
    rounds: int = 0
    candidates: int = 0
    seconds: float = 0.0


class _WorldPolicy(GreedyBot):
    """Greedy play inside a sampled world: the world is a determinization already, so the
    policy looks at it directly instead of sampling again."""

    def determinize(self, game: Game) -> Game:
        return game


class ExpertBot:
    name = "expert"

    PARAMETERS: ClassVar[tuple[BotParameter, ...]] = (
        BotParameter(
            "seconds",
            float,
            DEFAULT_SECONDS,
            "think time per decision in seconds (none when only iterations is given)",
            0.001,
            600.0,
        ),
        BotParameter(
            "iterations",
            int,
            None,
            "playouts per decision (default: as many as the time allows); with a seed and "
            "no seconds the bot is deterministic",
            1,
            1_000_000,
        ),
        BotParameter(
            "width",
            int,
            DEFAULT_WIDTH,
            "candidate moves compared at once",
            1,
            100,
        ),
        BotParameter(
            "learned",
            int,
            1,
            "1: value the positions where playouts stop by the learned evaluation (trained by "
            "self-play); 0: by the greedy bot's static one (the expert before it)",
            0,
            1,
        ),
        BotParameter(
            "depth",
            int,
            None,
            "tile turns played out after the decision's own turn before the position is valued "
            "(default: players + 1, i.e. every reply, the bot's own next turn and one reply to it)",
            0,
            20,
        ),
    )

    def __init__(
        self,
        seed: int | None = None,
        *,
        seconds: Any = _UNSET,  # float | None; Any lets the compiled build take the marker
        iterations: int | None = None,
        width: int = DEFAULT_WIDTH,
        learned: int = 1,
        depth: int | None = None,
    ) -> None:
        if seconds is _UNSET:
            seconds = None if iterations is not None else DEFAULT_SECONDS
        if seconds is None and iterations is None:
            raise ValueError("the expert bot needs a budget: seconds or iterations")
        self.rng = random.Random(seed)
        self.seconds = seconds
        self.iterations = iterations
        self.width = width
        self.depth = depth
        #: the leaf valuation: None is the static one
        self.learned = LearnedEvaluation() if learned else None
        self.weights = DEFAULT_WEIGHTS
        self.policy = _WorldPolicy(0, self.weights)
        self.stats = SearchStats()

    # ------------------------------------------------------------------------ public

    def choose(self, game: Game) -> Any:
        actions = game.legal_actions()
        if len(actions) == 1:
            return actions[0]
        return self._search(game, keep=1)[0].action

    def hints(self, game: Game, n: int = HINT_COUNT, *, include: Any = None) -> list[Hint]:
        """Up to ``n`` good actions for ``game.to_move``, best first, from the same search as
        :meth:`choose` (information-fair: it sees only that seat's sampled worlds).

        ``include`` (one of the legal actions) stays in the race to the end, and its hint follows
        the best ``n`` when it is not among them: a game review compares the move played with
        the best on the same sampled worlds."""
        if n < 1 or game.is_over:
            return []
        actions = game.legal_actions()
        if len(actions) == 1:
            return [Hint(actions[0], 0.0, 0)]
        ranked = self._search(game, keep=n, pinned=include)
        shown = ranked[:n]
        if include is not None and all(c.action != include for c in shown):
            shown += [c for c in ranked if c.action == include]
        shared = _shared_rounds(shown)
        return [Hint(c.action, round(c.mean(shared or None), 2), len(c.rewards)) for c in shown]

    # ------------------------------------------------------------------------ search

    def _search(self, game: Game, keep: int, pinned: Any = None) -> list[_Candidate]:
        """Candidates ranked best first (the first ``keep`` are those kept alive longest); the
        ``pinned`` action, if any, is played out in every round."""
        start = time.perf_counter()
        deadline = None if self.seconds is None else start + self.seconds
        budget = self.iterations
        seat = game.to_move
        depth = default_depth(game.players) if self.depth is None else self.depth
        prior_bot = GreedyBot(self.rng.getrandbits(64), self.weights)
        scored = prior_bot.score_actions(game)
        order = sorted(range(len(scored)), key=lambda i: -scored[i][0])
        candidates = [_Candidate(scored[i][1], scored[i][0]) for i in order]
        best_prior = candidates[0].prior
        width = max(self.width, keep)
        alive = [c for c in candidates[:width] if c.prior >= best_prior - PRIOR_GAP]
        alive = candidates[: max(len(alive), min(keep, len(candidates)))]
        waiting = candidates[len(alive) :]
        while len(alive) < 2 and waiting:
            alive.append(waiting.pop(0))
        held = _pin(pinned, alive, waiting)
        out: list[_Candidate] = []  # ruled out, most recently first
        playouts = rounds = 0
        stop = False
        while not stop and len(alive) > 1:
            world_seed = self.rng.getrandbits(64)
            world = game.determinized(seat, random.Random(world_seed))
            for index, candidate in enumerate(alive):
                if (budget is not None and playouts >= budget) or (
                    deadline is not None and time.perf_counter() >= deadline
                ):
                    stop = True
                    break
                # the last candidate of the round may use the world itself
                played = world if index == len(alive) - 1 else world.copy()
                played.apply(candidate.action)
                candidate.rewards[rounds] = self._playout(played, seat, depth, world_seed)
                playouts += 1
            rounds += 1
            if not stop:
                alive, ruled_out = _race(alive, keep, held)
                out = ruled_out + out
                # progressive widening: a ruled-out candidate's place goes to the next by prior
                for _ in range(len(ruled_out)):
                    if waiting:
                        alive.append(waiting.pop(0))
            while len(alive) < 2 and waiting:  # one candidate alone learns nothing
                alive.append(waiting.pop(0))
        self.stats = SearchStats(
            playouts, rounds, len(alive) + len(out), time.perf_counter() - start
        )
        return _rank(alive) + out + waiting

    def _playout(self, game: Game, seat: int, depth: int, seed: int) -> float:
        """Play on by the greedy policy for ``depth`` more tile turns; the reward for ``seat``."""
        policy = self.policy
        policy.rng.seed(seed)
        turns = depth
        while not game.is_over:
            if game.phase == "tile":
                if turns == 0:
                    break
                turns -= 1
            actions = game.legal_actions()
            game.apply(actions[0] if len(actions) == 1 else policy.choose(game))
        return self.reward(game, seat)

    def reward(self, game: Game, seat: int) -> float:
        """``seat``'s value minus the best other seat's: final scores of a finished game, else the
        learned (or static) evaluation as ``seat`` sees it."""
        if game.is_over:
            return relative([float(score) for score in game.scores], seat)
        if self.learned is not None:
            return relative(self.learned.seat_values(game, seat), seat)
        evaluator = Evaluator(game, self.weights)
        evaluator.seat = seat
        return relative(evaluator.seat_values(game), seat)


def default_depth(players: int) -> int:
    """Tile turns a playout looks beyond the decision's own: the others' replies, the bot's
    next turn and the reply to it.  Stopping at the bot's next turn (``players - 1``) won 69 %
    of 40 games against greedy at 150 playouts per decision; this depth won 87.5 %
    (``benchmarks/README.md``): what a move sets up for the bot's own next tile is most of
    what a one-turn look misses.  With a first learned evaluation (before its tiles-to-come
    features), stopping there at the same cost (485 playouts instead of 200) won 12 of 20
    games: it did not replace the look at the bot's own next tile."""
    return players + 1


def _shared_rounds(candidates: list[_Candidate]) -> list[int]:
    """Rounds in which every one of ``candidates`` was played out (ascending)."""
    if not candidates:
        return []
    common = set(candidates[0].rewards)
    for candidate in candidates[1:]:
        common &= candidate.rewards.keys()
    return sorted(common)


def _rank(alive: list[_Candidate]) -> list[_Candidate]:
    """Best first: candidates with at least half the most playouts, by their mean on the rounds
    they share (common random numbers); then late entrants by their own mean.  With no playout
    at all the greedy order (priors) stands."""
    most = max(len(c.rewards) for c in alive)
    if most == 0:
        return sorted(alive, key=lambda c: -c.prior)
    established = [c for c in alive if 2 * len(c.rewards) >= most]
    late = [c for c in alive if 2 * len(c.rewards) < most]
    shared = _shared_rounds(established) or None
    established.sort(key=lambda c: -c.mean(shared))
    late.sort(key=lambda c: -c.mean())
    return established + late


def _pin(action: Any, alive: list[_Candidate], waiting: list[_Candidate]) -> _Candidate | None:
    """The candidate of ``action`` (None: no action), moved into the race if it was waiting."""
    if action is None:
        return None
    for index, candidate in enumerate(waiting):
        if candidate.action == action:
            alive.append(waiting.pop(index))
            return candidate
    for candidate in alive:
        if candidate.action == action:
            return candidate
    raise ValueError(f"{action!r} is not a legal action here")


def _race(
    alive: list[_Candidate], keep: int, held: _Candidate | None = None
) -> tuple[list[_Candidate], list[_Candidate]]:
    """Split the live candidates into those still in the race and those clearly behind the
    leader (paired comparison on shared rounds); at least ``keep`` stay, and ``held`` too."""
    leader = _rank(alive)[0]
    margins: list[tuple[float, _Candidate]] = []
    for candidate in alive:
        if candidate is leader or candidate is held:
            continue
        rounds = [r for r in candidate.rewards if r in leader.rewards]
        n = len(rounds)
        if n < MIN_ROUNDS:
            continue
        diffs = [candidate.rewards[r] - leader.rewards[r] for r in rounds]
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        upper = mean + PRUNE_Z * math.sqrt(var / n)
        # A candidate whose every playout ended exactly like the leader's is an equivalent move
        # (a symmetric rotation, an exact end game): comparing it further teaches nothing.
        if upper < 0 or all(abs(d) < _SAME for d in diffs):
            margins.append((upper, candidate))
    margins.sort(key=lambda m: m[0])
    removable = max(0, len(alive) - keep)
    ruled_out = [c for _, c in margins[:removable]]
    return [c for c in alive if all(c is not r for r in ruled_out)], ruled_out
