"""What the screens of ``carcassonne play`` show besides the menu: the board fitted to the
terminal, the scores, the expansion panels, the final scores and the help.

Every function takes the game and what the screen needs (names, colour, size) and returns lines;
the session (:mod:`.session`) decides when to show them.  Hidden information is only ever taken
from ``game.view(seat)`` of the human who is deciding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..game import Game, GameSummary
from .layout import visible_len, wrap
from .panels import PANEL_WRITERS
from .render import TILE_SIZE, board_columns, paint, render_board, seat_name, seat_tag, sgr
from .render_map import map_columns, map_legend, render_map
from .wording import FEATURE_SOURCES, format_value

#: tile sizes to try, largest first, until the board fits the terminal
BOARD_SIZES = (TILE_SIZE, (7, 5), (7, 3), (5, 3))
#: public expansion entries longer than this are left to the board and the log
PANEL_PUBLIC_WIDTH = 60


def bold(text: str, colour: bool) -> str:
    return paint(text, sgr(bold=True), colour)


def dim(text: str, colour: bool) -> str:
    return paint(text, sgr(245), colour)


def board_lines(
    game: Game, labels: dict[tuple[int, int], str], colour: bool, width: int, rows: int
) -> list[str]:
    """The board in the largest tile size with which it fits a terminal of ``width`` × ``rows``.

    Preferably the whole board on screen; else the largest that fits the width (scrolling up
    is better than wrapped lines).  A board or map too wide for the terminal even at the
    smallest size is cut to the columns around the action, and says so.  A map's legend
    goes underneath.
    """
    on_map = game.map is not None
    draw: Callable[..., list[str]] = render_map if on_map else render_board
    boards = [draw(game, colour, labels=labels, size=size) for size in BOARD_SIZES]
    legend = map_legend(game, colour) if on_map else []
    wide_enough = [b for b in boards if visible_len(b[-1]) <= width]
    chosen = next((b for b in wide_enough if len(b) <= rows - 2), None)
    if chosen is not None or wide_enough:
        return (chosen or wide_enough[0]) + legend
    size = BOARD_SIZES[-1]
    first, last = (map_columns if on_map else board_columns)(game, labels, size, width)
    cut = draw(game, colour, labels=labels, size=size, columns=(first, last))
    whole = max(visible_len(line) for line in boards[-1])
    goes_on = "┊: the map goes on" if on_map else "‹ ›: the board goes on"
    note = (
        f"Columns {first} to {last} shown ({goes_on}); a terminal {whole} columns wide "
        "shows all of it."
    )
    return cut + legend + [dim(line, colour) for line in wrap("", note, width)]


def scores_lines(game: Game, names: Sequence[str], colour: bool) -> list[str]:
    """Each seat's score, figures left and (Traders & Builders) trade goods; ▶ marks who moves."""
    # meeples first, then other figure types in the order the supplies list them
    figure_types = list(dict.fromkeys(f for supply in game.supply for f in supply))
    width = max(len(n) for n in names) + 2
    # Traders & Builders: every seat's trade goods are public (docs/rules.md §12)
    goods = game.view(None)["expansions"].get("traders_builders", {}).get("goods")
    kinds = list(goods[0]) if goods else []
    header = (
        "   "
        + "Seat".ljust(width)
        + "Score  "
        + "  ".join([f"{f}s left" for f in figure_types] + kinds)
    )
    lines = [dim(header, colour)]
    for seat in range(game.players):
        marker = "▶" if seat == game.active and not game.is_over else " "
        counts = "  ".join(
            [str(game.supply[seat].get(f, 0)).rjust(len(f) + 6) for f in figure_types]
            + [str(goods[seat][k]).rjust(len(k)) for k in kinds]
        )
        lines.append(
            f" {marker} {seat_tag(seat, colour)} {names[seat].ljust(width - 2)}"
            f"{game.scores[seat]:>5}  {counts}"
        )
    return lines


def panel_lines(game: Game, seat: int, colour: bool, width: int) -> list[str]:
    """Expansion panels from the deciding human's own view (others' secrets never get here):
    in sentences for the Bets and Map-Chips (:mod:`.panels`), key by key for the others."""
    names = [seat_name(s) for s in range(game.players)]
    public = game.view(None)["expansions"]
    lines = []
    for name, panel in game.view(seat)["expansions"].items():
        writer = PANEL_WRITERS.get(name)
        if writer is not None:
            sentences = writer(game, panel, seat, colour)
            entries = [line for text in sentences for line in wrap("  ", text, width, 2)]
        else:
            entries = _panel_entries(panel, public.get(name, {}), names, width)
        if entries:
            lines.append(bold(name.replace("-", " ").capitalize(), colour) + " (your view)")
            lines += entries
    return lines


def _panel_entries(
    panel: dict[str, Any], public: dict[str, Any], names: list[str], width: int
) -> list[str]:
    """An expansion's view key by key, for expansions without sentences of their own.

    An entry is shown when it is private to this seat (it differs from a spectator's view),
    or when it is public and short; long public entries are what the board and the event
    log already show.
    """
    entries = []
    for key, value in panel.items():
        label = str(key).replace("_", " ")
        text = format_value(value, names)
        private = public.get(key) != value
        if not private and len(text) > PANEL_PUBLIC_WIDTH:
            continue
        if len(label) + len(text) + 4 <= width or not isinstance(value, list):
            entries.append(f"  {label}: {text}")
        else:  # one item a line
            entries.append(f"  {label}:")
            entries += [f"    - {format_value(item, names)}" for item in value]
    return entries


def final_scores_lines(
    game: Game,
    names: Sequence[str],
    colour: bool,
    places: Sequence[tuple[list[int], str]] | None = None,
) -> list[str]:
    """The table of the end: each seat's total and points by source, best first; the winner.

    ``places`` (a table where seats changed hands): the places from first to last, each with a
    note (``resigned``…); the seats that left come last whatever their score.
    """
    if places is None:
        places = [(seats, "") for seats in _by_score(game)]
    summary = GameSummary.of(game)
    sources = [s for s in FEATURE_SOURCES if any(s in b for b in summary.by_source)]
    sources += sorted({s for b in summary.by_source for s in b} - set(sources))
    width = max(len(n) for n in names) + 2
    lines = [bold("Final scores", colour)]
    widths = [max(len(s), 4) + 2 for s in sources]
    header = "".join(s.rjust(w) for s, w in zip(sources, widths, strict=True))
    lines.append(dim("   " + "Seat".ljust(width) + "Total" + header, colour))
    for seats, note in places:
        for seat in seats:
            by = summary.by_source[seat]
            points = "".join(
                str(by.get(s, 0)).rjust(w) for s, w in zip(sources, widths, strict=True)
            )
            lines.append(
                f"   {seat_tag(seat, colour)} {names[seat].ljust(width - 2)}"
                f"{game.scores[seat]:>5}{points}" + (f"  ({note})" if note else "")
            )
    winners = [names[s] for s in places[0][0]]
    if len(winners) == 1:
        lines.append(bold(f"\n{winners[0]} wins!", colour))
    else:
        lines.append(bold(f"\nShared victory: {' and '.join(winners)}.", colour))
    return lines


def _by_score(game: Game) -> list[list[int]]:
    """The seats by score, best first, equal scores together."""
    scores = sorted(set(game.scores), reverse=True)
    return [[seat for seat in range(game.players) if game.scores[seat] == s] for s in scores]


def help_text(players: int, colour: bool) -> str:
    """The rules in short, how to type moves, and the board's symbols."""
    if colour:
        ground = (
            paint("  ", sgr(bg=137), True)
            + " city   "
            + paint("  ", sgr(bg=64), True)
            + " field   "
        )
    else:
        ground = "# city   . field   "
    figures = "  ".join(f"{seat_tag(s, colour)} {seat_name(s)}" for s in range(players))
    return "\n".join(
        [
            bold("How to play", colour),
            "  Place the drawn tile next to the others so that every touching edge matches",
            "  (city to city, road to road, field to field). Then you may put a figure on one",
            "  free feature of that tile. Finished roads, cities and monasteries score at",
            "  once; fields and unfinished features score at the end.",
            bold("Typing moves", colour),
            "  placing a tile: a move number (3), a square letter and rotation (b 90),",
            "                  or x y rotation (2 -1 180); a letter alone if one rotation fits",
            "  other steps:    an option number; 0 or p passes when passing is allowed",
            "  hint  the expert's best moves    u undo your last move    h this help    q quit",
            "  resign  leave the game: you are ranked last and the stand-in bot plays on",
            bold("The board", colour),
            f"  {ground}│ ─ road   ~ river   [M] monastery   (*) garden   <$> betting office",
            "  ♦ coat of arms   ⌂ inn   † cathedral   ┏ ┛ corners: the tile placed last",
            "  dotted squares with letters: where the drawn tile fits",
            f"  figures: {figures} (lowercase: abbot; doubled: large meeple;"
            " ^ builder, @ pig in their seat's colour; w g c: trade goods)",
        ]
    )
