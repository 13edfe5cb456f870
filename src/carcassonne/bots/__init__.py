"""Bots: objects that choose an action for the seat to move.

Every bot has ``choose(game) -> action`` and must return one of ``game.legal_actions()``
(:class:`Bot`); a bot that can also suggest moves has ``hints(game, n)`` (:class:`HintingBot`:
the expert), and :func:`make_hinting_bot` builds one or says the spec's bot gives none.
Bots are named by a **spec**: a bot name, optionally followed by parameters,
``name:key=value,key=value`` (e.g. ``expert:seconds=0.5`` or ``greedy:seed=3``).
:func:`make_bot` builds a bot from a spec, :func:`bot_parameters` lists what each bot takes (the
``carcassonne bots`` command prints them), and :func:`split_bot_specs` cuts a comma-separated
list of specs (``expert:seconds=0.5,iterations=200,greedy``) into one spec per seat: a piece
with ``=`` and no ``:`` continues the spec before it.

A spec may also name a **level** of the ladder (``beginner`` ... ``master``, :mod:`.levels`):
a level stands for a bot spec with a calibrated budget, takes only ``seed``, and keeps its own
name in canonical specs (records and pages say ``casual``, not the spec behind it).  Level names
and bot names never collide, so a spec names one or the other.  :data:`SPEC_NAMES` lists both,
levels first (weakest first).

Every bot takes ``seed``: a bot with a seed (and, for the expert, an iteration budget instead of
a time budget) plays a given game identically every time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard

from ..game import Action, Game
from .levels import LEVEL_NAMES, level_named

if TYPE_CHECKING:
    from .expert import Hint


class Bot(Protocol):
    name: str

    def choose(self, game: Game) -> Action: ...


class HintingBot(Bot, Protocol):
    """A bot that also ranks moves for the seat to move (the expert's hints)."""

    def hints(self, game: Game, n: int) -> list[Hint]: ...


def gives_hints(bot: Bot) -> TypeGuard[HintingBot]:
    """Whether ``bot`` has the :class:`HintingBot` capability (a method, not a base class)."""
    return callable(getattr(bot, "hints", None))


@dataclass(frozen=True, slots=True)
class BotParameter:
    """One parameter a bot takes in its spec."""

    name: str
    #: ``int`` or ``float``
    type: type
    #: the value when the spec does not give one (None: see ``help``)
    default: int | float | None
    help: str
    #: smallest value allowed (inclusive)
    minimum: int | float
    #: largest value allowed (inclusive), None for no limit
    maximum: int | float | None = None

    def convert(self, bot: str, text: str) -> int | float:
        """``text`` as this parameter's type; ValueError naming the bot, key and value."""
        try:
            value = self.type(text)
        except ValueError:
            kind = "an integer" if self.type is int else "a number"
            raise ValueError(f"bot {bot!r}: {self.name} must be {kind}, not {text!r}") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"bot {bot!r}: {self.name} must be a finite number, not {text!r}")
        high = self.maximum
        if value < self.minimum or (high is not None and value > high):
            bounds = f"at least {self.minimum}" if high is None else f"{self.minimum} to {high}"
            raise ValueError(f"bot {bot!r}: {self.name} must be {bounds}, not {text!r}")
        return value


SEED = BotParameter(
    "seed",
    int,
    None,
    "seed of the bot's random choices (default: derived from the game's seed and the seat)",
    0,
    2**63 - 1,
)

# name -> (module, class, one-line description)
_BOTS: dict[str, tuple[str, str, str]] = {
    "random": ("random_bot", "RandomBot", "a uniformly random legal action (the baseline)"),
    "novice": (
        "novice",
        "NoviceBot",
        "plays like a person new to the game: a good-looking move, not always the best, "
        "forgetting farmers, spending meeples freely",
    ),
    "greedy": (
        "greedy",
        "GreedyBot",
        "the best-looking move one turn ahead, by a static evaluation (fast)",
    ),
    "expert": (
        "expert",
        "ExpertBot",
        "searches sampled worlds of what it cannot see (ISMCTS); the strongest, takes time",
    ),
}

BOT_NAMES = tuple(_BOTS)
#: every name a spec may start with: the levels (weakest first), then the bots
SPEC_NAMES = (*LEVEL_NAMES, *BOT_NAMES)

#: longest spec accepted (specs are stored in records and sent by web clients)
MAX_SPEC_LENGTH = 200


def _bot_class(name: str) -> Any:
    module, cls, _ = _BOTS[name]
    return getattr(import_module(f".{module}", __name__), cls)


def bot_description(name: str) -> str:
    """One line saying what the bot or level ``name`` does."""
    _check_name(name)
    level = level_named(name)
    return _BOTS[name][2] if level is None else level.description


def bot_parameters(name: str) -> list[BotParameter]:
    """The parameters bot ``name`` takes in its spec, ``seed`` first (a level takes only it)."""
    _check_name(name)
    if level_named(name) is not None:
        return [SEED]
    return [SEED, *getattr(_bot_class(name), "PARAMETERS", ())]


def _check_name(name: str) -> None:
    if name not in _BOTS and level_named(name) is None:
        raise ValueError(
            f"unknown bot {name!r} (choose a level: {', '.join(LEVEL_NAMES)}; "
            f"or a bot: {', '.join(BOT_NAMES)})"
        )


def parse_bot_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"expert:seconds=0.5,iterations=200"`` -> ``("expert", {"seconds": "0.5", ...})``.

    Checks the syntax, the bot name and the parameter names (not yet the values: see
    :func:`make_bot`); raises ValueError naming what is wrong.
    """
    if not isinstance(spec, str):
        raise ValueError(f"a bot spec must be text, not {type(spec).__name__}")
    if len(spec) > MAX_SPEC_LENGTH:
        raise ValueError(f"bot spec too long ({len(spec)} characters, at most {MAX_SPEC_LENGTH})")
    name, colon, rest = spec.strip().partition(":")
    name = name.strip().lower()
    _check_name(name)
    params: dict[str, str] = {}
    if not colon:
        return name, params
    known = {p.name for p in bot_parameters(name)}
    for item in rest.split(","):
        key, equals, value = (part.strip() for part in item.partition("="))
        if not equals or not key or not value:
            raise ValueError(f"bot {name!r}: parameters are key=value, not {item.strip()!r}")
        if key not in known:
            raise ValueError(
                f"bot {name!r} has no parameter {key!r} (it takes: {', '.join(sorted(known))})"
            )
        if key in params:
            raise ValueError(f"bot {name!r}: parameter {key!r} given twice")
        params[key] = value
    return name, params


def bot_arguments(spec: str) -> tuple[str, dict[str, int | float]]:
    """The bot name and its parameters converted and range-checked (ValueError if not)."""
    name, raw = parse_bot_spec(spec)
    parameters = {p.name: p for p in bot_parameters(name)}
    return name, {key: parameters[key].convert(name, text) for key, text in raw.items()}


def check_bot_spec(spec: str) -> str:
    """The canonical form of a valid spec (``Expert: seconds = 1`` -> ``expert:seconds=1.0``);
    ValueError naming what is wrong.  Two specs for the same bot have the same canonical form."""
    return _canonical(*bot_arguments(spec))


def _canonical(name: str, arguments: dict[str, int | float]) -> str:
    if not arguments:
        return name
    return f"{name}:" + ",".join(f"{key}={value}" for key, value in sorted(arguments.items()))


def resolved_spec(spec: str) -> str:
    """The bot spec that ``spec`` plays as, canonical: a level's bot spec (with the level's
    ``seed``, if it has one), any other spec itself.  ValueError naming what is wrong."""
    name, arguments = bot_arguments(spec)
    level = level_named(name)
    if level is None:
        return _canonical(name, arguments)
    bot, own = bot_arguments(level.spec)
    return _canonical(bot, {**own, **arguments})


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A bot from its spec; ``seed`` is used unless the spec gives one.

    Raises ValueError naming the bad bot, parameter or value.
    """
    name, arguments = bot_arguments(resolved_spec(spec))
    chosen = arguments.pop("seed", seed)
    return _bot_class(name)(None if chosen is None else int(chosen), **arguments)


def make_hinting_bot(spec: str, seed: int | None = None) -> HintingBot:
    """A bot from its spec, as :func:`make_bot`, that gives hints; ValueError if it gives none."""
    bot = make_bot(spec, seed)
    if not gives_hints(bot):
        raise ValueError(f"the {parse_bot_spec(spec)[0]} bot gives no hints (use expert)")
    return bot


def split_bot_specs(text: str) -> list[str]:
    """One spec per seat from a comma-separated list whose specs may contain commas.

    ``"expert:seconds=0.5,iterations=200,greedy"`` -> ``["expert:seconds=0.5,iterations=200",
    "greedy"]``: a piece with ``=`` and no ``:`` is another parameter of the spec before it.
    Empty pieces are dropped; nothing is checked here (see :func:`check_bot_spec`).
    """
    specs: list[str] = []
    for piece in text.split(","):
        piece = piece.strip()
        if not piece:
            continue
        if "=" in piece and ":" not in piece and specs:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs
