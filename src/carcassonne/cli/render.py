"""Drawing tiles and the board as character blocks for the terminal.

Public API (also meant for the map renderer, ``cli/render_map.py``):

``tile_block(orientation, figures, colour=True, *, marks=None, highlight=False, shade=0,
size=TILE_SIZE) -> list[str]``
    One tile as ``size[1]`` lines of ``size[0]`` visible characters each (ANSI colour codes
    included when ``colour``; every line ends with a reset).  ``orientation`` is a
    :class:`~carcassonne.tiles.Orientation` (board orientation, i.e. already rotated);
    ``figures`` is an iterable of ``(location, seat, figure_type)`` for the figures standing on
    this tile, ``location`` as in docs/rules.md §0 (``"N"``, ``"NL"``, ``"monastery"``).  ``marks``
    maps locations to one-character labels drawn where a figure would stand (used to number the
    figure options); ``highlight`` draws corner brackets (the tile placed last); ``shade`` (0/1)
    alternates the ground colour so that neighbouring tiles stay distinguishable.

``render_board(game, colour=True, *, labels=None, size=TILE_SIZE, columns=None) -> list[str]``
    The whole placed area with x coordinates above and y coordinates on the left; ``labels`` maps
    empty squares ``(x, y)`` to a short label drawn there (candidate squares for the drawn tile);
    ``columns`` (first, last) draws only those columns, which :func:`board_columns` picks around
    the action for a terminal too narrow for the whole board.

For map games the play command calls ``render_map(game, colour=..., labels=...)`` from
``cli/render_map.py`` (the same keyword arguments and result as :func:`render_board`, and
``columns`` to draw part of a map too wide for the terminal).

Tiles are drawn from their data only (edges, segments, centre features), so new tile sets render
without code changes: a tile is split into four triangular wedges, one per edge; a single city
edge becomes a cap along that edge, a city over two or more edges fills their wedges (two opposite
edges: a band across the tile); roads and rivers run from their edge midpoints to the centre;
everything else is the field bordering the nearest half-edge.  The same cell model decides where a
figure of a given location is drawn, so a figure always sits on its feature.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..expansions.inns import LARGE_MEEPLE as LARGE
from ..tiles import CITY, FIELD, GARDEN, MONASTERY, ROAD, Orientation

if TYPE_CHECKING:
    from ..game import Game, PlacedTile

#: figures that are not drawn as their seat's letter (the abbot is its lower case): Traders &
#: Builders' builder and pig, in their seat's colours
FIGURE_GLYPHS = {"builder": "^", "pig": "@"}

#: (width, height) of one tile in character cells; both odd so roads have a centre line.
TILE_SIZE = (9, 5)
#: a larger size for showing one tile on its own (the drawn tile, the figure options)
PREVIEW_SIZE = (13, 7)

RESET = "\x1b[0m"

# Cell kinds.  Plain glyphs carry all the meaning on their own (--no-color).
K_FIELD, K_CITY, K_ROAD, K_RIVER, K_CENTRE = "field", "city", "road", "river", "centre"

#: seat colours: name, letter (figures and scores), figure background, figure foreground
SEATS: tuple[tuple[str, str, int, int], ...] = (
    ("Red", "R", 160, 231),
    ("Blue", "B", 27, 231),
    ("Yellow", "Y", 220, 16),
    ("Green", "G", 40, 16),
    ("Black", "K", 16, 231),
    ("Pink", "P", 205, 16),
)

_FIELD_BG = (64, 70)
_CITY_BG = (137, 180)
_ROAD_FG = 230
_RIVER_BG = 32
_RIVER_FG = 153
_COAT_FG = 21
_HIGHLIGHT_FG = 226
_CANDIDATE_FG = 245
_LABEL_FG = 226

#: centre features: plain glyphs (left, middle, right) and colour (background, foreground)
_CENTRES: dict[str, tuple[str, int, int]] = {
    "monastery": ("[M]", 124, 231),
    "garden": ("(*)", 96, 219),
    "betting-office": ("<$>", 178, 16),
}
_ROAD_CORNERS = {
    (0, 2): "│",
    (1, 3): "─",
    (0, 1): "└",
    (1, 2): "┌",
    (2, 3): "┐",
    (0, 3): "┘",
}
#: what marks a road or city: an inn, a cathedral (other marks show their first letter)
_MARK_GLYPHS = {"inn": "⌂", "cathedral": "†"}
_MARK_FG = 88
_CITY_CAP_DEPTH = 0.35  # how far a single-edge city reaches in (0 = edge, 1 = centre)
# Where a figure of each edge / half-edge location prefers to stand, in (u, v) in [-1, 1]².
_EDGE_ANCHORS = ((0.0, -0.6), (0.6, 0.0), (0.0, 0.6), (-0.6, 0.0))
_HALF_ANCHORS = (
    (-0.5, -0.7),
    (0.5, -0.7),
    (0.7, -0.5),
    (0.7, 0.5),
    (0.5, 0.7),
    (-0.5, 0.7),
    (-0.7, 0.5),
    (-0.7, -0.5),
)


def seat_name(seat: int) -> str:
    return SEATS[seat % len(SEATS)][0]


def seat_letter(seat: int) -> str:
    return SEATS[seat % len(SEATS)][1]


def sgr(fg: int | None = None, bg: int | None = None, bold: bool = False) -> str:
    """An ANSI "select graphic rendition" sequence in the 256-colour palette."""
    codes = []
    if bold:
        codes.append("1")
    if fg is not None:
        codes.append(f"38;5;{fg}")
    if bg is not None:
        codes.append(f"48;5;{bg}")
    return f"\x1b[{';'.join(codes)}m" if codes else ""


def paint(text: str, style: str, colour: bool) -> str:
    return f"{style}{text}{RESET}" if colour and style else text


def seat_tag(seat: int, colour: bool) -> str:
    """The seat's letter on its colour, as figures are drawn on the board."""
    _, letter, bg, fg = SEATS[seat % len(SEATS)]
    return paint(letter, sgr(fg, bg, bold=True), colour)


# ----------------------------------------------------------------------------- the cell model


@dataclass(slots=True)
class _Layout:
    """Where everything lies on one tile at one size (cached per orientation and size)."""

    kinds: list[list[str]]
    segs: list[list[int]]  # segment index per cell, -1 for none
    glyphs: list[list[str]]
    centre_names: list[list[str]]  # centre feature name per cell ("" elsewhere)
    anchors: dict[int, tuple[int, int]]  # segment index -> (row, col) where its figure stands
    coats: list[tuple[int, int]]  # cells showing a coat of arms
    marks: list[tuple[int, int, str]]  # (row, col, glyph) of the inns, cathedrals …


def _wedge(u: float, v: float) -> int:
    """Which edge's triangle (0=N … 3=W) a point lies in; -1 at the exact centre."""
    if abs(v) >= abs(u):
        if v < 0:
            return 0
        if v > 0:
            return 2
        return -1
    return 1 if u > 0 else 3


def _half(d: int, u: float, v: float) -> int:
    """The half-edge of edge ``d`` on the side of (u, v), seen from the centre looking out."""
    left = (u <= 0, v <= 0, u >= 0, v >= 0)[d]
    return 2 * d + (0 if left else 1)


def _angle_gap(a: float, b: float) -> float:
    gap = abs(a - b) % (2 * math.pi)
    return min(gap, 2 * math.pi - gap)


_LAYOUTS: dict[tuple[int, tuple[int, int]], tuple[Orientation, _Layout]] = {}


def _layout(orientation: Orientation, size: tuple[int, int]) -> _Layout:
    key = (id(orientation), size)
    hit = _LAYOUTS.get(key)
    # The cache keeps the orientation alive, so its id cannot be reused by another object.
    if hit is not None and hit[0] is orientation:
        return hit[1]
    layout = _compute_layout(orientation, size)
    _LAYOUTS[key] = (orientation, layout)
    return layout


def _compute_layout(o: Orientation, size: tuple[int, int]) -> _Layout:
    width, height = size
    if width < 5 or height < 3 or width % 2 == 0 or height % 2 == 0:
        raise ValueError(f"tile size must be odd and at least 5x3, not {width}x{height}")
    cx, cy = width // 2, height // 2
    kinds = [[K_FIELD] * width for _ in range(height)]
    segs = [[-1] * width for _ in range(height)]
    glyphs = [[" "] * width for _ in range(height)]
    centre_names = [[""] * width for _ in range(height)]

    def uv(r: int, c: int) -> tuple[float, float]:
        return (c - cx) / cx, (r - cy) / cy

    # Fields first: every cell takes the field of its own half-edge, or of the nearest
    # half-edge (by angle around the centre) that has a field.
    field_halves = [h for h in range(8) if o.half_segment[h] >= 0]
    half_angles = [math.atan2(v, u) for u, v in _HALF_ANCHORS]
    city_segments = [i for i, s in enumerate(o.segments) if s.kind == CITY]
    # a field touching no edge (between four cities) is the ground that no city covers
    enclosed = [i for i, s in enumerate(o.segments) if s.kind == FIELD and not s.halves]
    for r in range(height):
        for c in range(width):
            u, v = uv(r, c)
            d = _wedge(u, v)
            seg = o.half_segment[_half(d, u, v)] if d >= 0 else -1
            if seg < 0 and field_halves:
                angle = math.atan2(v, u) if (u or v) else 0.0
                best = min(field_halves, key=lambda h: _angle_gap(angle, half_angles[h]))
                seg = o.half_segment[best]
            if seg < 0 and enclosed:
                seg = enclosed[0]
            elif seg < 0 and city_segments:  # no field at all (e.g. a printed large city)
                seg = city_segments[0]
                kinds[r][c] = K_CITY
            segs[r][c] = seg

    # Cities.
    for i in city_segments:
        edges = o.segments[i].edges
        opposite = len(edges) == 2 and (edges[0] + 2) % 4 == edges[1]
        for r in range(height):
            for c in range(width):
                u, v = uv(r, c)
                d = _wedge(u, v)
                depth = 1 - max(abs(u), abs(v))
                if len(edges) == 1:
                    inside = d == edges[0] and depth < _CITY_CAP_DEPTH
                elif opposite:  # a band straight across
                    inside = abs(v) <= 0.5 if 1 in edges else abs(u) <= 0.5
                else:
                    inside = d in edges or d == -1
                if inside:
                    kinds[r][c] = K_CITY
                    segs[r][c] = i

    # Centre features: the betting office (where roads end) at the centre, others above it.
    centre_features = list(o.tile.centre)
    centre_features.sort(key=lambda name: name != "betting-office")
    centre_segment = {
        s.location: i for i, s in enumerate(o.segments) if s.kind in (MONASTERY, GARDEN)
    }
    span = max(1, width // 8)
    for n, name in enumerate(centre_features):
        r = cy - n
        if r < 0:
            break
        plain = _CENTRES.get(name, (name[:1] * 3, 90, 231))[0]
        for c in range(cx - span, cx + span + 1):
            kinds[r][c] = K_CENTRE
            segs[r][c] = centre_segment.get(name, -1)
            centre_names[r][c] = name
            glyphs[r][c] = plain[1] if c == cx else plain[0] if c < cx else plain[2]
    centre_taken = kinds[cy][cx] == K_CENTRE

    # Roads and rivers: lines from the edge midpoints to the centre.
    def line(edge: int) -> list[tuple[int, int]]:
        if edge == 0:
            return [(r, cx) for r in range(cy)]
        if edge == 2:
            return [(r, cx) for r in range(cy + 1, height)]
        if edge == 1:
            return [(cy, c) for c in range(cx + 1, width)]
        return [(cy, c) for c in range(cx)]

    paths: list[tuple[str, int, tuple[int, ...]]] = [
        (K_ROAD, i, s.edges) for i, s in enumerate(o.segments) if s.kind == ROAD
    ]
    paths += [(K_RIVER, -1, river) for river in o.rivers]
    ends: list[str] = []
    for kind, index, edges in paths:
        for edge in edges:
            for r, c in line(edge):
                if kinds[r][c] == K_CENTRE:
                    continue
                kinds[r][c] = kind
                segs[r][c] = index
                glyphs[r][c] = "~" if kind == K_RIVER else ("│" if edge % 2 == 0 else "─")
        if centre_taken:
            continue
        if len(edges) == 2:
            kinds[cy][cx] = kind
            segs[cy][cx] = index
            glyphs[cy][cx] = "~" if kind == K_RIVER else _ROAD_CORNERS[edges]
        else:
            ends.append(kind)
    # Ends meet at the centre unless something else is there (a road ends at a city's gate).
    if ends and kinds[cy][cx] not in (K_ROAD, K_RIVER, K_CENTRE, K_CITY):
        if K_RIVER in ends:
            kinds[cy][cx], glyphs[cy][cx] = K_RIVER, "o"  # spring or lake
        else:
            kinds[cy][cx], glyphs[cy][cx] = K_ROAD, "•"  # village or crossroads
        segs[cy][cx] = -1

    for r in range(height):
        for c in range(width):
            if kinds[r][c] == K_FIELD:
                glyphs[r][c] = "."
            elif kinds[r][c] == K_CITY:
                glyphs[r][c] = "#"

    anchors = {i: _anchor(o, i, segs, size) for i in range(len(o.segments))}
    coats = []
    marks = []
    taken = set(anchors.values())
    for i, segment in enumerate(o.segments):
        wanted = ["♦"] * segment.coat_of_arms if segment.kind == CITY else []
        wanted += [_MARK_GLYPHS.get(mark, mark[:1]) for mark in segment.marks]
        cells = _cells_by_distance(segs, i, _target(o, i), size) if wanted else []
        spare = [cell for cell in cells if cell not in taken]
        for glyph, (r, c) in zip(wanted, spare, strict=False):
            taken.add((r, c))
            if glyph == "♦":
                coats.append((r, c))
            else:
                marks.append((r, c, glyph))
    return _Layout(kinds, segs, glyphs, centre_names, anchors, coats, marks)


def _target(o: Orientation, index: int) -> tuple[float, float]:
    seg = o.segments[index]
    if seg.kind == FIELD and seg.halves:  # an enclosed field has none: it stands mid-tile
        return _HALF_ANCHORS[seg.halves[0]]
    if seg.edges:
        return _EDGE_ANCHORS[seg.edges[0]]
    return (0.0, 0.0)


def _cells_by_distance(
    segs: list[list[int]], index: int, target: tuple[float, float], size: tuple[int, int]
) -> list[tuple[int, int]]:
    """The segment's cells, nearest to ``target`` first (rows count double: cells are tall)."""
    width, height = size
    cx, cy = width // 2, height // 2
    tc, tr = cx + target[0] * cx, cy + target[1] * cy
    cells = [(r, c) for r in range(height) for c in range(width) if segs[r][c] == index]
    return sorted(cells, key=lambda rc: ((rc[1] - tc) ** 2 + (2 * (rc[0] - tr)) ** 2, rc))


def _anchor(
    o: Orientation, index: int, segs: list[list[int]], size: tuple[int, int]
) -> tuple[int, int]:
    cells = _cells_by_distance(segs, index, _target(o, index), size)
    if cells:
        return cells[0]
    # Too small a block to show this segment: stand on the nearest cell of any kind.
    width, height = size
    u, v = _target(o, index)
    return round(height // 2 + v * (height // 2)), round(width // 2 + u * (width // 2))


# ----------------------------------------------------------------------------------- drawing


def _cell_style(layout: _Layout, r: int, c: int, shade: int) -> str:
    kind = layout.kinds[r][c]
    if kind == K_FIELD:
        return sgr(bg=_FIELD_BG[shade])
    if kind == K_CITY:
        return sgr(bg=_CITY_BG[shade])
    if kind == K_ROAD:
        return sgr(_ROAD_FG, _FIELD_BG[shade], bold=True)
    if kind == K_RIVER:
        return sgr(_RIVER_FG, _RIVER_BG, bold=True)
    name = layout.centre_names[r][c]
    _, bg, fg = _CENTRES.get(name, ("", 90, 231))
    return sgr(fg, bg, bold=True)


def tile_block(
    orientation: Orientation,
    figures: Iterable[tuple[str, int, str]] = (),
    colour: bool = True,
    *,
    marks: Mapping[str, str] | None = None,
    highlight: bool = False,
    shade: int = 0,
    size: tuple[int, int] = TILE_SIZE,
) -> list[str]:
    """One tile as lines of characters; see the module docstring for the arguments."""
    layout = _layout(orientation, size)
    width, height = size
    shade %= 2
    glyphs = [row.copy() for row in layout.glyphs]
    if colour:
        styles = [[_cell_style(layout, r, c, shade) for c in range(width)] for r in range(height)]
        for r in range(height):
            for c in range(width):
                if layout.kinds[r][c] in (K_FIELD, K_CITY):
                    glyphs[r][c] = " "
    else:
        styles = [[""] * width for _ in range(height)]
    for r, c in layout.coats:
        glyphs[r][c] = "♦"
        if colour:
            styles[r][c] = sgr(_COAT_FG, _CITY_BG[shade], bold=True)
    for r, c, glyph in layout.marks:
        glyphs[r][c] = glyph
        if colour:
            ground = _CITY_BG[shade] if layout.kinds[r][c] == K_CITY else _FIELD_BG[shade]
            styles[r][c] = sgr(_MARK_FG, ground, bold=True)
    locations = orientation.locations
    symbols = {*layout.coats, *((r, c) for r, c, _ in layout.marks)}
    for location, seat, figure in figures:
        index = locations.get(location)
        if index is None:
            continue
        r, c = layout.anchors[index]
        letter = seat_letter(seat)
        _, _, bg, fg = SEATS[seat % len(SEATS)]
        # the large meeple takes two cells (its letter twice), the abbot is a lowercase letter
        cells = [(r, c)]
        if figure == LARGE:
            beside = [(r, x) for x in (c + 1, c - 1) if 0 <= x < width]
            cells.append(([cell for cell in beside if cell not in symbols] or beside)[0])
        glyph = FIGURE_GLYPHS.get(figure, letter.lower() if figure == "abbot" else letter)
        for fr, fc in cells:
            glyphs[fr][fc] = glyph
            styles[fr][fc] = sgr(fg, bg, bold=True)
    for location, label in (marks or {}).items():
        index = locations.get(location)
        if index is None:
            continue
        r, c = layout.anchors[index]
        glyphs[r][c] = label[:1]
        styles[r][c] = sgr(16, 231, bold=True)
    if highlight:
        corners = ((0, 0, "┏"), (0, width - 1, "┓"), (height - 1, 0, "┗"))
        for r, c, glyph in (*corners, (height - 1, width - 1, "┛")):
            glyphs[r][c] = glyph
            if colour:
                styles[r][c] = styles[r][c] + sgr(_HIGHLIGHT_FG, bold=True)
    return [_join(glyphs[r], styles[r], colour) for r in range(height)]


def _join(glyphs: list[str], styles: list[str], colour: bool) -> str:
    if not colour:
        return "".join(glyphs)
    parts: list[str] = []
    current = None
    for glyph, style in zip(glyphs, styles, strict=True):
        if style != current:
            parts.append(RESET + style)
            current = style
        parts.append(glyph)
    parts.append(RESET)
    return "".join(parts)


def empty_block(label: str | None, colour: bool, size: tuple[int, int] = TILE_SIZE) -> list[str]:
    """An empty square: blank, or a dotted outline with ``label`` (a candidate square)."""
    width, height = size
    if label is None:
        return [" " * width] * height
    inner = width - 2
    rows = ["·" * width]
    for r in range(1, height - 1):
        text = label.center(inner) if r == height // 2 else " " * inner
        if colour:
            text = text.replace(label, paint(label, sgr(_LABEL_FG, bold=True), True))
            rows.append(
                paint("·", sgr(_CANDIDATE_FG), True) + text + paint("·", sgr(_CANDIDATE_FG), True)
            )
        else:
            rows.append("·" + text + "·")
    rows.append("·" * width)
    if colour:
        rows[0] = paint(rows[0], sgr(_CANDIDATE_FG), True)
        rows[-1] = paint(rows[-1], sgr(_CANDIDATE_FG), True)
    return rows


def figures_by_square(game: Game) -> dict[tuple[int, int], list[tuple[str, int, str]]]:
    """Public figure positions, per square, as ``tile_block`` takes them."""
    out: dict[tuple[int, int], list[tuple[str, int, str]]] = {}
    for f in game.view(None)["figures"]:
        out.setdefault((f["x"], f["y"]), []).append((f["location"], f["seat"], f["figure"]))
    return out


def placed_block(
    game: Game,
    placed: PlacedTile,
    figures: Mapping[tuple[int, int], Iterable[tuple[str, int, str]]],
    colour: bool,
    size: tuple[int, int],
) -> list[str]:
    """A placed tile as every board draws it (:func:`render_board`, the map): its figures from
    ``figures_by_square``, the tile placed last outlined, and a checkerboard shade so that
    neighbouring tiles stay apart."""
    x, y = placed.xy
    return tile_block(
        placed.orientation,
        figures.get((x, y), ()),
        colour,
        highlight=placed is game.last_placed,
        shade=(x + y) % 2,
        size=size,
    )


def columns_around(
    game: Game, labels: Iterable[tuple[int, int]], lo: int, hi: int, count: int
) -> tuple[int, int]:
    """``count`` consecutive columns (first, last) of ``lo``..``hi`` around the action: as many
    of the labelled squares (where the drawn tile fits) as can be shown, centred on them and
    the tile placed last.  All of them when they fit; at least one."""
    from ..board import decode

    count = max(1, min(hi - lo + 1, count))
    xs = [x for x, _ in labels]
    focus = xs + ([game.last_placed.xy[0]] if game.last_placed is not None else [])
    focus = focus or [decode(pos)[0] for pos in game.board] or [lo, hi]
    centre = sum(focus) / len(focus)

    def rank(first: int) -> tuple[int, float]:
        shown = sum(1 for x in xs if first <= x < first + count)
        return -shown, abs(first + (count - 1) / 2 - centre)

    first = min(range(lo, hi - count + 2), key=rank)
    return first, first + count - 1


def _extent(
    game: Game, labels: Mapping[tuple[int, int], str]
) -> tuple[dict[tuple[int, int], PlacedTile], int, int, int, int]:
    """The placed tiles by square, and the columns and rows they and the labels span."""
    from ..board import decode

    tiles = {decode(pos): placed for pos, placed in game.board.items()}
    squares = list(tiles) + list(labels)
    xs = [x for x, _ in squares]
    ys = [y for _, y in squares]
    return tiles, min(xs), max(xs), min(ys), max(ys)


def _margin(y0: int, y1: int) -> int:
    return max(len(str(y)) for y in range(y0, y1 + 1)) + 1


def board_columns(
    game: Game, labels: Mapping[tuple[int, int], str], size: tuple[int, int], width: int
) -> tuple[int, int]:
    """The columns (first, last) of the board that :func:`render_board` fits in ``width``
    characters at tile ``size``, around the action (:func:`columns_around`)."""
    _, x0, x1, y0, y1 = _extent(game, labels)
    return columns_around(game, labels, x0, x1, (width - _margin(y0, y1) - 1) // size[0])


def render_board(
    game: Game,
    colour: bool = True,
    *,
    labels: Mapping[tuple[int, int], str] | None = None,
    size: tuple[int, int] = TILE_SIZE,
    columns: tuple[int, int] | None = None,
) -> list[str]:
    """The placed tiles (and labelled empty squares) with coordinates on both axes.

    ``columns`` (first, last) draws only those columns (:func:`board_columns` picks them for a
    narrow terminal); ``‹`` or ``›`` at the end of the x axis shows where the board goes on.
    """
    labels = labels or {}
    tiles, x0, x1, y0, y1 = _extent(game, labels)
    cut_left = cut_right = False
    if columns is not None:
        cut_left, cut_right = columns[0] > x0, columns[1] < x1
        x0, x1 = columns
    width, height = size
    margin = _margin(y0, y1)
    figures = figures_by_square(game)
    axis = (
        " " * (margin - 1)
        + ("‹" if cut_left else " ")
        + "".join(str(x).center(width) for x in range(x0, x1 + 1))
        + ("›" if cut_right else "")
    )
    lines = [paint(axis, sgr(_CANDIDATE_FG), colour)]
    for y in range(y0, y1 + 1):
        blocks = []
        for x in range(x0, x1 + 1):
            placed = tiles.get((x, y))
            if placed is None:
                blocks.append(empty_block(labels.get((x, y)), colour, size))
            else:
                blocks.append(placed_block(game, placed, figures, colour, size))
        for r in range(height):
            label = str(y).rjust(margin - 1) + " " if r == height // 2 else " " * margin
            lines.append(paint(label, sgr(_CANDIDATE_FG), colour) + "".join(b[r] for b in blocks))
    return lines
