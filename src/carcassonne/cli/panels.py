"""The Bets and Map-Chips panels of `carcassonne play` in sentences, for the deciding player.

Each writer takes the expansion's entry of ``game.view(seat)`` for the seat that is deciding, so
what other seats keep secret (their betting chips, in hand or on an office; the values of the
face-down map chips) is not there to be shown: a chip the view hides is "face down".  The board
(tiles, offices) is public and only used to name the features a bet is settled against.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..board import encode
from ..tiles import CITY, ROAD
from .render import paint, seat_name, sgr
from .render_map import GRAPE_COLOURS

if TYPE_CHECKING:
    from ..game import Game

#: (game, the expansion's view for ``seat``, seat, colour) -> the panel's lines
PanelWriter = Callable[["Game", dict[str, Any], int, bool], list[str]]

_COUNTS = ("no", "one", "two", "three", "four", "five", "six")


def _count(n: int, word: str, plural: str | None = None) -> str:
    number = _COUNTS[n] if n < len(_COUNTS) else str(n)
    return f"{number} {word if n == 1 else plural or word + 's'}"


def _and(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _others(game: Game, seat: int) -> list[int]:
    """The other seats in play order from ``seat`` on."""
    return [(seat + n) % game.players for n in range(1, game.players)]


# ---------------------------------------------------------------------------------- the Bets


def _office_features(game: Game, x: int, y: int) -> str:
    """What a bet on this office is settled against, with its verb: ``its road or city is``
    (docs/rules.md §3)."""
    segments = game.board[encode(x, y)].orientation.segments
    roads = sum(1 for s in segments if s.kind == ROAD)
    cities = sum(1 for s in segments if s.kind == CITY)
    parts = [
        word if n == 1 else _count(n, word, plural)
        for n, word, plural in ((roads, "road", "roads"), (cities, "city", "cities"))
        if n
    ]
    if not parts:
        return "nothing (the chips will come back) is"
    # the verb agrees with the nearer subject: "its road or city is", "its road or two cities are"
    return "its " + " or ".join(parts) + (" is" if parts[-1] in ("road", "city") else " are")


def bets_lines(game: Game, view: dict[str, Any], seat: int, colour: bool) -> list[str]:
    supply: list[str] = view["supply"] or []
    counts: list[int] = view["supply_counts"]
    if supply:
        lines = [f"You hold {_count(len(supply), 'betting chip')}: {', '.join(supply)}."]
    else:
        lines = ["You hold no betting chip: yours are all on offices."]
    held = [
        f"{seat_name(s)} holds {_count(counts[s], 'betting chip')}" for s in _others(game, seat)
    ]
    lines.append(f"{_and(held)}, face down.")
    placed = [office for office in view["offices"] if office["chips"]]
    for office in placed:
        chips = [
            f"your {chip['chip']}"
            if chip["seat"] == seat
            else f"{seat_name(chip['seat'])}'s face-down chip"
            for chip in office["chips"]
        ]
        x, y = office["x"], office["y"]
        lines.append(
            f"Bets on the office at ({x}, {y}), settled when {_office_features(game, x, y)} "
            f"completed or at the end: {_and(chips)}."
        )
    if not placed:
        lines.append("No bets lie on any office.")
    for candidate in view.get("settle", ()):
        x, y = candidate["x"], candidate["y"]
        lines.append(
            f"To settle against: the feature at ({x}, {y}) {candidate['location']}, "
            f"{_count(candidate['tiles'], 'tile')}."
        )
    return lines


# ----------------------------------------------------------------------------- the Map-Chips


def _chips(chips: list[dict[str, Any]], colour: bool) -> str:
    """``the map chips purple 2, orange 1`` in their grape colours."""
    return ("the map chip " if len(chips) == 1 else "the map chips ") + ", ".join(
        paint(
            f"{chip['colour'].replace('-', ' ')} {chip['value']}",
            sgr(GRAPE_COLOURS.get(chip["colour"]), bold=True),
            colour,
        )
        for chip in chips
    )


def _wines(chips: list[dict[str, Any]]) -> str:
    """How many wines the chips make, by colour: two 1s or one 2 of a colour (docs/rules.md §5)."""
    found = []
    for grape in dict.fromkeys(chip["colour"] for chip in chips):
        values = [chip["value"] for chip in chips if chip["colour"] == grape]
        wines = values.count(1) // 2 + values.count(2)
        if wines:
            found.append(_count(wines, f"{grape.replace('-', ' ')} wine"))
    return f", enough for {_and(found)}" if found else ""


def map_chips_lines(game: Game, view: dict[str, Any], seat: int, colour: bool) -> list[str]:
    in_front: list[list[dict[str, Any]]] = view["in_front"]
    mine = in_front[seat]
    if mine:
        lines = [f"You hold {_chips(mine, colour)}{_wines(mine)}."]
    else:
        lines = ["You hold no map chip: place a tile on a ● to take one."]
    for other in _others(game, seat):
        chips = in_front[other]
        held = _chips(chips, colour) if chips else "no map chip"
        lines.append(f"{seat_name(other)} holds {held}.")
    face_down = len(view["face_down"])
    sold = f"; {_count(view['sold'], 'chip')} sold as wine" if view["sold"] else ""
    lines.append(f"On the map: {_count(face_down, 'chip')} face down (●){sold}.")
    return lines


#: the expansions whose panel is written in sentences (the others are listed key by key)
PANEL_WRITERS: dict[str, PanelWriter] = {"bets": bets_lines, "map-chips": map_chips_lines}
