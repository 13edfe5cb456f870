"""The ladder: named levels of play, weakest first, each a bot spec with a calibrated budget.

A player chooses an opponent by level (``carcassonne play --seats human,casual``, the lobby, the
web API's ``{"kind": "bot", "bot": "casual"}``); a level is resolved to its bot spec when the
bot is built (:func:`carcassonne.bots.make_bot`), and records and pages keep the level's name.

Each level beats the one below in about 65-80 % of two-player games (the calibration, its
tournament and its figures are in ``docs/bots.md``, "The ladder").  The searching levels' budget
is a number of **playouts** (``iterations``), so a level plays the same moves on an idle laptop
and on a busy server: strength does not depend on load.  Their ``seconds`` is only a cap, far
above what the playouts take on an idle core, so that a very busy machine makes the bot slower
to answer rather than weaker (the page shows that the bot is thinking meanwhile).

The searching levels pin the expert's static leaf evaluation (``learned=0``): they were
calibrated with it, before the learned evaluation became the expert's default; the learned
expert is stronger at the same budget (``docs/bots.md``), so the ladder would need measuring
again to use it.

Level names never collide with bot names (a test checks), so ``expert`` is always the bot with
its own defaults and a spec names either a level or a bot, never both.  A level takes one
parameter, ``seed``; for another budget, use the bot spec itself (``carcassonne bots`` lists
what each level stands for).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Level:
    name: str
    #: the bot spec the level plays as
    spec: str
    #: one line for players: who this opponent is like
    description: str


#: weakest first: the order the lobby and ``carcassonne bots`` offer them in
LEVELS: tuple[Level, ...] = (
    Level(
        "beginner",
        "novice:noise=0.8",
        "knows the rules and takes the obvious points; misjudges moves, forgets farmers",
    ),
    Level(
        "casual",
        "novice:noise=0.25",
        "a casual player: sound moves, a few slips, rarely thinks of farmers",
    ),
    Level(
        "intermediate",
        "greedy",
        "the best-looking move of each turn, farmers included; never plans ahead",
    ),
    Level(
        "strong",
        "expert:iterations=12,learned=0,seconds=10.0",
        "plans a few turns ahead in what could come (12 playouts a move)",
    ),
    Level(
        "master",
        "expert:iterations=200,learned=0,seconds=20.0",
        "the strongest: searches the turns ahead in many sampled futures (200 playouts a move)",
    ),
)

LEVEL_NAMES = tuple(level.name for level in LEVELS)

_BY_NAME = {level.name: level for level in LEVELS}


def level_named(name: str) -> Level | None:
    """The level called ``name`` (lower case), or None if it names none."""
    return _BY_NAME.get(name)
