"""A tile in words, from its data: ``a city on two sides with a coat of arms and a curved road``.

The play command names the drawn tile this way (``base/M`` means nothing to a player), so every
tile set, present or future, is described without a hand-written text per tile.  The words come
from the tile's features only: its cities (how many sides each covers), roads and rivers (straight,
curved, or ending on the tile), its centre features (monastery, garden, betting office) and the
marks on them (coats of arms, inns, cathedrals, trade goods).  Rotation does not matter: the
description is of the tile, and the menu shows which rotations fit.
"""

from __future__ import annotations

from ..tiles import CITY, ROAD, TileType

_COUNTS = ("no", "one", "two", "three", "four")
#: what each mark is called after "with", by how many there are on the tile
_MARK_WORDS = {
    "inn": ("an inn", "inns"),
    "cathedral": ("a cathedral", "cathedrals"),
    "wine": ("wine", "wine"),
    "grain": ("grain", "grain"),
    "cloth": ("cloth", "cloth"),
}


def _count(n: int) -> str:
    return _COUNTS[n] if n < len(_COUNTS) else str(n)


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _path_shape(edges: tuple[int, ...]) -> str:
    """A road or river by the edges it joins: ``straight``, ``curved`` or ``end`` (one edge)."""
    if len(edges) == 1:
        return "end"
    return "straight" if len(edges) == 2 and (edges[0] - edges[1]) % 2 == 0 else "curved"


def _city_phrase(edges: tuple[int, ...]) -> str:
    if len(edges) == 2 and (edges[0] - edges[1]) % 2 == 0:
        return "across the tile"
    if len(edges) == 4:
        return "on all four sides"
    return f"on {_count(len(edges))} side" + ("s" if len(edges) > 1 else "")


def _cities(tile: TileType) -> list[str]:
    """``a city on one side``; several alike: ``two separate cities on one side each``."""
    cities = [s.edges for s in tile.segments if s.kind == CITY]
    shapes = [_city_phrase(edges) for edges in cities]
    out = []
    for shape in dict.fromkeys(shapes):
        n = shapes.count(shape)
        if n == 1:
            out.append(f"a city {shape}")
        elif n == 2 and len(cities) == 2 and shape == "on one side":  # base/H and base/I
            facing = (cities[0][0] - cities[1][0]) % 2 == 0
            out.append(f"two separate cities on {'opposite' if facing else 'adjacent'} sides")
        else:
            out.append(f"{_count(n)} separate cities {shape} each")
    return out


def _roads(tile: TileType) -> list[str]:
    """``a curved road``, ``two straight roads``; roads ending here: ``three roads``."""
    shapes = [_path_shape(s.edges) for s in tile.segments if s.kind == ROAD]
    out = []
    for shape in ("straight", "curved", "end"):
        n = shapes.count(shape)
        if not n:
            continue
        adjective = "" if shape == "end" else shape + " "
        out.append(f"a {adjective}road" if n == 1 else f"{_count(n)} {adjective}roads")
    return out


def _rivers(tile: TileType) -> list[str]:
    shapes = [_path_shape(edges) for edges in tile.rivers]
    return ["the end of the river" if s == "end" else f"a {s} river" for s in shapes]


def _marks(tile: TileType, kind: int) -> list[str]:
    """The marks on the tile's features of ``kind``: coats of arms, inns, trade goods …"""
    segments = [s for s in tile.segments if s.kind == kind]
    coats = sum(s.coat_of_arms for s in segments)
    out = []
    if coats:
        out.append("a coat of arms" if coats == 1 else f"{_count(coats)} coats of arms")
    marks = [mark for segment in segments for mark in segment.marks]
    for mark in dict.fromkeys(marks):
        one, many = _MARK_WORDS.get(mark, (f"a {mark}", f"{mark}s"))
        n = marks.count(mark)
        out.append(one if n == 1 else f"{_count(n)} {many}")
    return out


def describe_tile(tile: TileType) -> str:
    """The tile as a player would say it, with an article: ``a monastery with a road``.

    The head is what shapes the tile most (its cities, else its centre feature, else its river,
    else its roads); everything else follows "with", the marks (coat of arms, inn …) by the
    features they are on.  Roads ending on a tile without city or
    centre meet at a crossroads, which is then the head.
    """
    cities, roads, rivers = _cities(tile), _roads(tile), _rivers(tile)
    centre = [f"a {name.replace('-', ' ')}" for name in tile.centre]
    if not (cities or centre or rivers):
        ends = sum(1 for s in tile.segments if s.kind == ROAD and len(s.edges) == 1)
        if ends >= 3 and len(roads) == 1:
            roads = [f"a crossroads of {_count(ends)} roads"]
    parts = cities + centre + rivers + roads
    if not parts:
        return "a field"
    # a city's marks follow the head when it is a city (they are most likely its own);
    # a road's (an inn) come last, after the roads
    head, rest = parts[0], parts[1:]
    city_marks, road_marks = _marks(tile, CITY), _marks(tile, ROAD)
    rest = city_marks + rest + road_marks if cities else rest + city_marks + road_marks
    return head + (f" with {_and(rest)}" if rest else "")
