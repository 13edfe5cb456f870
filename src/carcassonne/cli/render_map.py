"""Drawing a map game (docs/rules.md §4–§5) for the terminal: the whole map inside its border.

``render_map(game, colour=True, *, labels=None, size=MAP_TILE_SIZE, compact=False)`` returns the
lines of the map with x coordinates above and y coordinates on the left, like
:func:`~carcassonne.cli.render.render_board` (same keyword arguments, so the play command can call
either).  Every square of the map is drawn, because what lies ahead matters for planning: empty
squares, face-down map chips (``●``, never their colour or value), towns (name and grape initial:
``P`` purple, ``L`` light blue, ``O`` orange), large cities (city ground with their name; a
closed side is drawn as a wall ``═``/``║``), and placed tiles with their figures (drawn by
:func:`~carcassonne.cli.render.placed_block`).  ``labels`` maps empty squares to short labels
(candidate squares for the drawn tile).

``size`` is a tile's size in characters (odd, at least 5×3): the default 5×3 draws France
(16×15 squares) in 85 columns and 47 lines; ``columns`` draws only some of its columns (15 of
them fit 80 columns), which :func:`map_columns` picks around the action.  ``compact=True``
draws one 3-character cell per square instead (an overview: 51 columns, 17 lines) in which a
placed tile is a shaded cell with the letter of the seat whose figure stands on it.
:func:`map_legend` explains the symbols.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..board import decode, encode
from ..expansions.mapchips import MapChips
from ..tiles import BORDER
from .render import (
    RESET,
    SEATS,
    columns_around,
    empty_block,
    figures_by_square,
    paint,
    placed_block,
    seat_letter,
    sgr,
)

if TYPE_CHECKING:
    from ..game import Game
    from ..maps import GameMap

#: (width, height) of one square when tiles are drawn in full
MAP_TILE_SIZE = (5, 3)

# 256-colour palette entries (as in render.py): grape colours, map furniture
GRAPE_COLOURS = {"purple": 129, "light-blue": 117, "orange": 208}
_CITY_BG, _CITY_FG = 137, 230
_TOWN_BG = 238
_CHIP_FG = 231
_AXIS_FG = 245
_FRAME_FG = 250
_EMPTY_FG = 240
_TILE_BG = (64, 70)
_LABEL_STYLE = sgr(16, 231, bold=True)


def grape_initial(grape: str | None) -> str:
    """``P``, ``L`` or ``O`` for purple, light blue, orange; ``·`` for a town without grape."""
    return grape[0].upper() if grape else "·"


def _chip_squares(game: Game) -> set[int]:
    chips = game.expansion(MapChips)
    return set(chips.face_down) if chips is not None else set()


def _cell_text(text: str, width: int) -> str:
    return text[:width].center(width)


# ------------------------------------------------------------------------ full-size squares


def _town_block(
    game_map: GameMap, pos: int, label: str | None, chip: bool, colour: bool, size: tuple[int, int]
) -> list[str]:
    width, height = size
    town = game_map.towns[pos]
    ground = sgr(231, _TOWN_BG)
    grape = GRAPE_COLOURS.get(town.grape or "", 231)
    rows = [paint(_cell_text("", width), ground, colour) for _ in range(height)]
    rows[0] = paint(_cell_text(town.name, width), ground, colour)
    mid = height // 2
    if label is not None:
        rows[mid] = paint(_cell_text(label, width), _LABEL_STYLE, colour)
    else:
        initial = grape_initial(town.grape)
        left = (width - 1) // 2
        rows[mid] = (
            paint(" " * left, ground, colour)
            + paint(initial, sgr(16, grape, bold=True), colour)
            + paint(" " * (width - left - 1), ground, colour)
        )
    if chip:  # cannot happen under the rules (no chip on a town), but never hide one
        rows[-1] = paint(_cell_text("●", width), ground, colour)
    return rows


def _city_block(game: Game, pos: int, colour: bool, size: tuple[int, int]) -> list[str]:
    """A large city: city ground, its name, and walls on the sides that are not open."""
    width, height = size
    city = game.map.large_cities[pos]
    edges = game.board[pos].orientation.edges
    grid = [["#"] * width for _ in range(height)]
    if colour:
        grid = [[" "] * width for _ in range(height)]
    if edges[0] == BORDER:
        grid[0] = ["═"] * width
    if edges[2] == BORDER:
        grid[-1] = ["═"] * width
    for r in range(height):
        if edges[3] == BORDER:
            grid[r][0] = "║"
        if edges[1] == BORDER:
            grid[r][-1] = "║"
    name = city.name[: max(1, width - 2)]
    start = (width - len(name)) // 2
    grid[height // 2][start : start + len(name)] = list(name)
    style = sgr(_CITY_FG, _CITY_BG, bold=True)
    return [paint("".join(row), style, colour) for row in grid]


def _empty_square(label: str | None, chip: bool, colour: bool, size: tuple[int, int]) -> list[str]:
    width, height = size
    if label is not None:
        rows = empty_block(label, colour, size)
        if chip:
            rows[-1] = paint(_cell_text("●", width).replace(" ", "·"), sgr(_CHIP_FG), colour)
        return rows
    rows = [" " * width for _ in range(height)]
    mid = height // 2
    if chip:
        rows[mid] = paint(_cell_text("●", width), sgr(_CHIP_FG, bold=True), colour)
    else:
        rows[mid] = paint(_cell_text("·", width), sgr(_EMPTY_FG), colour)
    return rows


# --------------------------------------------------------------------------- compact cells


def _compact_cell(
    game: Game,
    pos: int,
    label: str | None,
    chip: bool,
    figures: Mapping[tuple[int, int], list[tuple[str, int, str]]],
    colour: bool,
) -> str:
    game_map: GameMap = game.map
    x, y = decode(pos)
    if label is not None:
        return paint(_cell_text(label + ("●" if chip else ""), 3), _LABEL_STYLE, colour)
    city = game_map.large_cities.get(pos)
    if city is not None:
        return paint(f"▓{city.name[0]}▓", sgr(_CITY_FG, _CITY_BG, bold=True), colour)
    placed = game.board.get(pos)
    if placed is not None:
        here = figures.get((x, y), ())
        ground = sgr(231, _TILE_BG[(x + y) % 2])
        mark = "░" if not colour else " "
        if not here:
            return paint(mark * 3, ground, colour)
        seat = here[0][1]
        _, _, bg, fg = SEATS[seat % len(SEATS)]
        return (
            paint(mark, ground, colour)
            + paint(seat_letter(seat), sgr(fg, bg, bold=True), colour)
            + paint(mark, ground, colour)
        )
    town = game_map.towns.get(pos)
    if town is not None:
        grape = GRAPE_COLOURS.get(town.grape or "", 231)
        return paint(f"[{grape_initial(town.grape)}]", sgr(grape, bold=True), colour)
    if chip:
        return paint(" ● ", sgr(_CHIP_FG, bold=True), colour)
    return paint(" · ", sgr(_EMPTY_FG), colour)


# ----------------------------------------------------------------------------------- the map


def render_map(
    game: Game,
    colour: bool = True,
    *,
    labels: Mapping[tuple[int, int], str] | None = None,
    size: tuple[int, int] = MAP_TILE_SIZE,
    compact: bool = False,
    columns: tuple[int, int] | None = None,
) -> list[str]:
    """The map of a map game, framed by its border; see the module docstring.

    ``columns`` (first, last) draws only those columns of the map (:func:`map_columns` picks
    them for a narrow terminal): a side where the map goes on is drawn ``┊`` instead of ``│``,
    with ``‹`` or ``›`` at the end of the x axis.
    """
    game_map: GameMap | None = game.map
    if game_map is None:
        raise ValueError("render_map needs a map game (GameOptions(map=...))")
    labels = labels or {}
    width, height = (3, 1) if compact else size
    first, last = columns if columns is not None else (0, game_map.width - 1)
    if not 0 <= first <= last < game_map.width:
        raise ValueError(f"columns {first}-{last} are not on a map {game_map.width} wide")
    chips = _chip_squares(game)
    figures = figures_by_square(game)
    margin = len(str(game_map.height - 1)) + 1
    frame = sgr(_FRAME_FG)
    cut_left, cut_right = first > 0, last < game_map.width - 1
    left, right = "┊" if cut_left else "│", "┊" if cut_right else "│"
    axis = (
        " " * margin
        + ("‹" if cut_left else " ")
        + "".join(str(x).center(width) for x in range(first, last + 1))
        + ("›" if cut_right else "")
    )
    lines = [paint(axis, sgr(_AXIS_FG), colour)]
    rule = "─" * (width * (last - first + 1))
    lines.append(" " * margin + paint(f"┌{rule}┐", frame, colour))
    for y in range(game_map.height):
        blocks: list[list[str]] = []
        for x in range(first, last + 1):
            pos = encode(x, y)
            label = labels.get((x, y))
            chip = pos in chips
            if compact:
                blocks.append([_compact_cell(game, pos, label, chip, figures, colour)])
            elif not game_map.is_playable(pos) and pos not in game_map.large_cities:
                blocks.append([" " * width] * height)  # an unplayable square: outside the map
            elif pos in game_map.large_cities:
                blocks.append(_city_block(game, pos, colour, size))
            elif pos in game.board:
                blocks.append(placed_block(game, game.board[pos], figures, colour, size))
            elif pos in game_map.towns:
                blocks.append(_town_block(game_map, pos, label, chip, colour, size))
            else:
                blocks.append(_empty_square(label, chip, colour, size))
        for r in range(height):
            row_label = str(y).rjust(margin - 1) + " " if r == height // 2 else " " * margin
            lines.append(
                paint(row_label, sgr(_AXIS_FG), colour)
                + paint(left, frame, colour)
                + "".join(b[r] for b in blocks)
                + paint(right, frame, colour)
            )
    lines.append(" " * margin + paint(f"└{rule}┘", frame, colour))
    return lines


def map_columns(
    game: Game,
    labels: Mapping[tuple[int, int], str],
    size: tuple[int, int],
    width: int,
) -> tuple[int, int]:
    """The columns (first, last) of the map that :func:`render_map` fits in ``width`` characters
    at tile ``size``, around the action (:func:`~.render.columns_around`)."""
    game_map: GameMap = game.map
    margin = len(str(game_map.height - 1)) + 1
    count = (width - margin - 2) // size[0]
    return columns_around(game, labels, 0, game_map.width - 1, count)


def map_legend(game: Game, colour: bool = True) -> list[str]:
    """What the map's symbols mean (the chips each seat holds are in the Map-Chips panel)."""
    grapes = "  ".join(
        paint(grape_initial(g), sgr(GRAPE_COLOURS[g], bold=True), colour)
        + f" {g.replace('-', ' ')}"
        for g in GRAPE_COLOURS
    )
    chip = "   ● face-down chip" if game.expansion(MapChips) is not None else ""
    return [f"town grapes: {grapes}{chip}   ═ ║ city wall" + (RESET if colour else "")]
