"""How ``carcassonne play`` puts the game in words: tiles, actions, events and seats.

Every sentence of the event log and every option of a menu comes from here.  The core's own
scoring is explained with its breakdown (``Road completed (3 tiles = 3)``); any other event or
action, an expansion's included, is worded generically from its type and details, so a new
expansion's events read sensibly without changes here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..actions import Pass, PlaceFigure
from ..bots import parse_bot_spec
from ..events import Event, ScoreEvent
from ..expansions.actions import SellWine, SettleAgainst
from ..expansions.inns import CATHEDRAL, CATHEDRAL_POINTS, INN, INN_POINTS
from ..expansions.mapchips import OUTLET_POINTS
from ..formats.actions import ActionFormatError, action_to_json
from ..game import Game
from ..tiles import KIND_NAMES, TileType, tile_by_id
from .render import seat_name
from .tile_words import describe_tile

#: score sources that are features on the board (the core's own scoring; a road with an inn and
#: a city with a cathedral score under the mark's name)
FEATURE_SOURCES = ("city", "road", INN, CATHEDRAL, "monastery", "garden", "field")
#: what a road with an inn and a city with a cathedral pay per tile (and coat of arms), completed
_MARKED_RATES = {
    INN: ("road with an inn", INN_POINTS),
    CATHEDRAL: ("city with a cathedral", CATHEDRAL_POINTS),
}


def tile_words(tile: TileType) -> str:
    """The tile as players see it, its id in brackets for those who type records:
    ``a monastery with a road [base/A]``."""
    return f"{describe_tile(tile)} [{tile.id}]"


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 tile``, ``3 tiles``; ``many`` for words that do not just take an s."""
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"


def format_value(value: Any, names: Sequence[str] = ()) -> str:
    """Any JSON-like value on one line; seat numbers become ``names``, None (hidden) is ``?``."""
    if isinstance(value, dict):
        parts = []
        for key, item in value.items():
            if key in ("seat", "owner") and isinstance(item, int) and 0 <= item < len(names):
                parts.append(names[item])
            else:
                parts.append(f"{str(key).replace('_', ' ')} {format_value(item, names)}")
        return ", ".join(parts) or "-"
    if isinstance(value, list | tuple):
        if any(isinstance(item, dict | list | tuple) for item in value):
            return "[" + "; ".join(format_value(item, names) for item in value) + "]"
        return ", ".join(format_value(item, names) for item in value) or "-"
    return "?" if value is None else str(value)


def _details(detail: dict[str, Any], names: Sequence[str]) -> str:
    """An event's details as `` at (x, y) (key value, …)``; empty when there are none."""
    rest = dict(detail)
    square = rest.pop("square", None)
    where = f" at ({square[0]}, {square[1]})" if isinstance(square, list | tuple) else ""
    return where + (f" ({format_value(rest, names)})" if rest else "")


def generic_label(action: Any) -> str:
    """Any action in words from its JSON form: ``recall abbot at (2, 1)``, ``bet chip 3``."""
    try:
        data = action_to_json(action)
    except ActionFormatError:
        return repr(action)
    words = [str(data.pop("type")).replace("-", " ")]
    if "x" in data and "y" in data:
        words.append(f"at ({data.pop('x')}, {data.pop('y')})")
    words += [f"{key} {format_value(value)}" for key, value in data.items()]
    return " ".join(words)


def possessive(name: str) -> str:
    """``Blue's``, but ``your`` for the one human's seat, named ``Red (you)``."""
    return "your" if name.endswith("(you)") else f"{name}'s"


def decision_label(action: Any) -> str:
    """An expansion's decision as players say it: ``sell one purple wine (chip 2) by export: +5``,
    ``settle the bets at (3, -1) against its road S``; other actions in their generic words."""
    if isinstance(action, Pass):
        return "pass"
    if isinstance(action, SellWine):
        chips = "chip" if len(action.chips) == 1 else "chips"
        values = " + ".join(str(value) for value in action.chips)
        buyer = "by export" if action.outlet == "export" else "to the town"
        colour = action.colour.replace("-", " ")
        return f"sell one {colour} wine ({chips} {values}) {buyer}: +{OUTLET_POINTS[action.outlet]}"
    if isinstance(action, SettleAgainst):
        where = f"({action.x}, {action.y})"
        return f"settle the bets at {where} against its {action.kind} {action.location}"
    return generic_label(action)


def figure_label(game: Game, action: Any) -> str:
    """Step-2 options as players say them: ``farmer on field NL``, ``abbot on monastery``."""
    if isinstance(action, Pass):
        return "no figure"
    if not isinstance(action, PlaceFigure) or game.last_placed is None:
        return generic_label(action)
    orientation = game.last_placed.orientation
    kind = KIND_NAMES[orientation.segments[orientation.locations[action.location]].kind]
    figure = "farmer" if action.figure == "meeple" and kind == "field" else action.figure
    if action.location == kind:  # centre features are named by kind
        return f"{figure} on {kind}"
    return f"{figure} on {kind} {action.location}"


def _expansion_sentence(event: ScoreEvent, names: Sequence[str]) -> str | None:
    """A bet settled, a map chip collected, a wine sold or a goods majority as a sentence with
    its own numbers (the web log's wording); None for other events."""
    detail = event.detail
    seat, points = next(iter(event.points.items()), (0, 0))  # these events pay one seat
    square = detail.get("square")
    where = f"({square[0]}, {square[1]})" if isinstance(square, list | tuple) else ""
    if event.source == "bet":
        owner = possessive(names[detail["owner"]])
        tiles = plural(detail["tiles"], "tile")
        outcome = f"wins {detail['paid']}" if detail["paid"] else "loses"
        why = "final scoring" if event.reason == "final" else event.reason
        return (
            f"Bet at {where}: {owner} chip {detail['chip']} {outcome} — "
            f"the {detail['feature']} has {tiles} ({why})."
        )
    if event.source == "map-chip":
        colour = str(detail["colour"]).replace("-", " ")
        article = "an" if colour[0] in "aeiou" else "a"
        chip = f"{article} {colour} map chip ({detail['value']})"
        return f"{names[seat]} collects {chip} at {where}: +{points}."
    if event.source == "wine":
        colour = str(detail["colour"]).replace("-", " ")
        values = detail["chips"]
        chips = ("chip " if len(values) == 1 else "chips ") + " + ".join(map(str, values))
        if event.reason == "town":
            town = f"{detail['town']} at {where}"
            return f"{names[seat]} sells {colour} wine ({chips}) in {town}: +{points}."
        return f"{names[seat]} exports {colour} wine ({chips}): +{points}."
    if event.source == "goods":
        tokens = plural(detail["tokens"], "token")
        return f"{names[seat]} has the most {detail['goods']} ({tokens}): +{points}."
    return None


def describe_event(event: Event, names: Sequence[str]) -> str:
    """One score or game event in plain words, with its breakdown."""
    if not isinstance(event, ScoreEvent):
        if event.type == "discard":
            tile = tile_words(tile_by_id(str(event.detail["tile"])))
            return f"{tile[:1].upper()}{tile[1:]} fits nowhere and was discarded."
        who = f"{names[event.seat]}: " if event.seat is not None else ""
        return f"{who}{event.type.replace('-', ' ')}{_details(event.detail, names)}."
    paid = ", ".join(f"{names[s]} +{p}" for s, p in sorted(event.points.items()))
    value = event.detail.get("value")
    source, reason = event.source, event.reason
    if reason == "abbot-recall":
        square = event.detail.get("square")
        where = f" at ({square[0]}, {square[1]})" if square else ""
        return f"Abbot recalled from the {source}{where}: {paid or 'nobody scores'}."
    sentence = _expansion_sentence(event, names)
    if sentence is not None:
        return sentence
    if source not in FEATURE_SOURCES:
        # another expansion's points: its details say what for
        what = f"{source.replace('-', ' ').capitalize()} {reason.replace('-', ' ')}"
        extra = {k: v for k, v in event.detail.items() if k != "value"}
        return f"{what}{_details(extra, names)}: {paid or 'no points'}."
    if source == "field":
        cities = event.detail.get("completed_cities", 0)
        what = "Field"
        counted = plural(cities, "completed city", "completed cities")
        # each winner's own rate: 3, or 4 for one whose pig stands there (D45)
        rates = sorted(set(event.detail.get("per_city", {}).values()), reverse=True)
        products = [f"{counted} × {rate} = {cities * rate}" for rate in rates]
        breakdown = " or ".join(products) or f"{counted} = 0"
    else:
        name, rate = _MARKED_RATES.get(source, (source, 0))
        what = name.capitalize() + (" completed" if reason == "completed" else " unfinished")
        if source in ("city", "road", INN, CATHEDRAL):
            parts = [plural(event.tiles, "tile")]
            if event.coats_of_arms:
                parts.append(plural(event.coats_of_arms, "coat of arms", "coats of arms"))
            if rate:
                parts[-1] += f" × {rate}" if reason == "completed" else " × 0 (unfinished)"
        elif reason == "completed":
            parts = ["surrounded"]
        else:
            parts = [f"1 + {plural((value or 1) - 1, 'neighbour')}"]
        breakdown = ", ".join(parts) + (f" = {value}" if value is not None else "")
    text = f"{what} ({breakdown})"
    if not event.figures:
        return f"{text}: nobody had a figure there."
    if len(event.figures) > 1:
        counts = ", ".join(f"{names[s]} {n}" for s, n in sorted(event.figures.items()))
        text += f" [figures: {counts}]"
    return f"{text}: {paid or 'nobody scores'}."


def bot_name(seat: int, spec: str) -> str:
    """``Blue (expert bot, seconds 2.0)``: the seat's colour and what plays it."""
    name, params = parse_bot_spec(spec)
    details = "".join(f", {key} {value}" for key, value in params.items())
    return f"{seat_name(seat)} ({name} bot{details})"


def duration_text(ms: int) -> str:
    """``ms`` as a clock shows it: ``0:07``, ``12:30``, ``1:02:03``, ``2d 03:04:05``."""
    seconds = ms // 1000
    days, seconds = divmod(seconds, 86400)
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    if days:
        return f"{days}d {hours:02}:{minutes:02}:{seconds:02}"
    if hours:
        return f"{hours}:{minutes:02}:{seconds:02}"
    return f"{minutes}:{seconds:02}"
