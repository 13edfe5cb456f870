"""Tile data: loading, validation and precomputed orientations.

Tiles are rules data, not code: each tile set is a JSON file under ``data/tiles`` (format in
``docs/tile-format.md``).  Loading validates every tile and fails with an error naming the tile and
what is wrong, because a silently wrong tile corrupts every game played with it.

For speed the engine never rotates anything during play: each tile type carries its four
:class:`Orientation` objects, with edges, segments and half-edges already in board orientation.
"""

from __future__ import annotations

import contextlib
import functools
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Final

from .quoting import short_repr

EDGE_NAMES = ("N", "E", "S", "W")
HALF_NAMES = ("NL", "NR", "EL", "ER", "SL", "SR", "WL", "WR")
ROTATIONS = (0, 90, 180, 270)

# Feature kinds of segments (the river and the betting office are not features).  Final, one a
# line: the compiled build inlines them as C constants (a tuple unpacking would be module-dict
# lookups on every use).
CITY: Final = 0
ROAD: Final = 1
FIELD: Final = 2
MONASTERY: Final = 3
GARDEN: Final = 4
KIND_NAMES: Final = ("city", "road", "field", "monastery", "garden")
CENTRE_KINDS = {"monastery": MONASTERY, "garden": GARDEN}

# Edge codes; 0 means "no neighbour" in placement constraints and BORDER marks the map border or a
# printed large-city side that is not open: both accept any edge and close what runs into them.
EMPTY: Final = 0
CITY_EDGE: Final = 1
ROAD_EDGE: Final = 2
FIELD_EDGE: Final = 3
RIVER_EDGE: Final = 4
BORDER: Final = 5
EDGE_CODES = {"C": CITY_EDGE, "R": ROAD_EDGE, "F": FIELD_EDGE, "~": RIVER_EDGE}
EDGE_LETTERS = {code: letter for letter, code in EDGE_CODES.items()}

TILE_FORMAT = "carcassonne-tiles/1"
KNOWN_CENTRES = ("monastery", "garden", "betting-office")
#: location of a field that touches no tile edge (the middle of ``ic/C``, between four cities)
ENCLOSED_FIELD = "inner"
#: marks a city or road segment may carry (``"marks"`` in the tile file), and on which kind:
#: an inn by a road and a cathedral in a city (Inns & Cathedrals), the trade goods in a city
#: (Traders & Builders).  The set is closed so that a typo fails on load, not silently in play.
MARK_KINDS = {"inn": ROAD, "cathedral": CITY, "wine": CITY, "grain": CITY, "cloth": CITY}


class TileDataError(ValueError):
    """A tile file is malformed; the message names the file or tile and the problem."""


@dataclass(frozen=True, slots=True)
class Segment:
    """One feature piece on a tile, in some orientation.

    ``edges`` are edge indices (0=N … 3=W) for cities and roads; ``halves`` are half-edge indices
    (0=NL … 7=WR) for fields; ``cities`` are indices of the city segments a field borders;
    ``marks`` are the symbols drawn on a city or road that expansions score (see
    :data:`MARK_KINDS`).
    """

    kind: int
    location: str
    edges: tuple[int, ...] = ()
    halves: tuple[int, ...] = ()
    coat_of_arms: int = 0
    cities: tuple[int, ...] = ()
    marks: tuple[str, ...] = ()


@dataclass(slots=True)
class Orientation:
    """A tile type at one rotation, everything in board orientation."""

    tile: TileType
    rotation: int
    edges: tuple[int, int, int, int]
    segments: tuple[Segment, ...]
    edge_segment: tuple[int, int, int, int]  # segment on each edge (-1 for field/river edges)
    half_segment: tuple[int, ...]  # field segment on each half-edge (-1 where none)
    rivers: tuple[tuple[int, ...], ...]
    locations: dict[str, int]  # every accepted location name -> segment index
    closable: tuple[int, ...] = ()  # indices of city and road segments (complete when closed)
    cloisters: tuple[int, ...] = ()  # indices of monastery and garden segments
    #: per side N, E, S, W: (side, opposite side, its edge code, segment on the edge, field
    #: segments on its left and right half-edges), read together by every placement
    sides: tuple[tuple[int, int, int, int, int, int], ...] = ()


@dataclass(slots=True)
class TileType:
    """A kind of tile (``base/E``), its copies and its four orientations."""

    id: str
    set_name: str
    name: str
    count: int
    edges: tuple[int, int, int, int]
    segments: tuple[Segment, ...]
    rivers: tuple[tuple[int, ...], ...]
    centre: tuple[str, ...]
    decor: tuple[str, ...]
    provisional: bool
    index: int = -1  # position in the registry, used as a cheap key
    orientations: list[Orientation] = field(default_factory=list)
    # Orientations that differ from each other (a symmetric tile has fewer than four).
    distinct_orientations: list[Orientation] = field(default_factory=list)
    #: the game's record of a draw of this tile, (id, discarded), placed then discarded: made
    #: once, not a tuple per turn (``Game.draws``); typed Any, as the compiled build would
    #: unbox a tuple[str, bool] read from it into a C struct and box it anew at every append
    drawn: tuple[Any, ...] = ()

    @property
    def has_office(self) -> bool:
        return "betting-office" in self.centre

    def __repr__(self) -> str:
        return f"TileType({self.id})"


@dataclass(slots=True)
class TileSet:
    name: str
    tiles: list[TileType]
    provisional: bool
    note: str
    start_tile: str | None = None
    last_tile: str | None = None

    def copies(self) -> list[TileType]:
        """Every physical copy of the set, in data order."""
        return [tile for tile in self.tiles for _ in range(tile.count)]


def rotate_edge(edge: int, rotation: int) -> int:
    return (edge + rotation // 90) % 4


def rotate_half(half: int, rotation: int) -> int:
    return (half + rotation // 45) % 8


def _orient(tile: TileType, rotation: int) -> Orientation:
    segments = tuple(
        Segment(
            kind=s.kind,
            location=_location_name(s.kind, s.edges, s.halves, rotation, s.location),
            edges=tuple(sorted(rotate_edge(e, rotation) for e in s.edges)),
            halves=tuple(sorted(rotate_half(h, rotation) for h in s.halves)),
            coat_of_arms=s.coat_of_arms,
            cities=s.cities,
            marks=s.marks,
        )
        for s in tile.segments
    )
    edges = tuple(tile.edges[(d - rotation // 90) % 4] for d in range(4))
    edge_segment = [-1] * 4
    half_segment = [-1] * 8
    locations: dict[str, int] = {}
    for index, segment in enumerate(segments):
        for e in segment.edges:
            edge_segment[e] = index
            locations[EDGE_NAMES[e]] = index
        for h in segment.halves:
            half_segment[h] = index
            locations[HALF_NAMES[h]] = index
        if not segment.edges and not segment.halves:  # a cloister, or an enclosed field
            locations[segment.location] = index
    rivers = tuple(tuple(sorted(rotate_edge(e, rotation) for e in r)) for r in tile.rivers)
    return Orientation(
        tile=tile,
        rotation=rotation,
        edges=edges,  # type: ignore[arg-type]
        segments=segments,
        edge_segment=tuple(edge_segment),  # type: ignore[arg-type]
        half_segment=tuple(half_segment),
        rivers=rivers,
        locations=locations,
        closable=tuple(i for i, s in enumerate(segments) if s.kind in (CITY, ROAD)),
        cloisters=tuple(i for i, s in enumerate(segments) if s.kind in (MONASTERY, GARDEN)),
        sides=tuple(
            (d, (d + 2) % 4, edges[d], edge_segment[d], half_segment[h], half_segment[h + 1])
            for d, h in zip(range(4), range(0, 8, 2), strict=True)
        ),
    )


def _location_name(
    kind: int, edges: tuple[int, ...], halves: tuple[int, ...], rotation: int, centre: str
) -> str:
    """Canonical board-orientation name: first edge (N E S W order) or first half-edge."""
    if edges:
        return EDGE_NAMES[min(rotate_edge(e, rotation) for e in edges)]
    if halves:
        return HALF_NAMES[min(rotate_half(h, rotation) for h in halves)]
    return centre


def _signature(o: Orientation) -> tuple[Any, ...]:
    return (
        o.edges,
        tuple(sorted((s.kind, s.edges, s.halves, s.coat_of_arms, s.marks) for s in o.segments)),
        o.rivers,
    )


def _finish(tile: TileType) -> None:
    tile.orientations = [_orient(tile, r) for r in ROTATIONS]
    tile.drawn = ((tile.id, False), (tile.id, True))
    seen: set[tuple[Any, ...]] = set()
    for o in tile.orientations:
        sig = _signature(o)
        if sig not in seen:
            seen.add(sig)
            tile.distinct_orientations.append(o)


# --------------------------------------------------------------------------- loading + validation


def _edge_list(tile_id: str, what: str, value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not value:
        raise TileDataError(f"tile {tile_id}: {what} must be a non-empty list of edges")
    out = []
    for name in value:
        if name not in EDGE_NAMES:
            raise TileDataError(f"tile {tile_id}: {what} names unknown edge {name!r}")
        out.append(EDGE_NAMES.index(name))
    if len(set(out)) != len(out):
        raise TileDataError(f"tile {tile_id}: {what} repeats an edge")
    return tuple(out)


def _marks(tile_id: str, what: str, kind: int, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise TileDataError(f"tile {tile_id}: {what}: 'marks' must be a list")
    for mark in value:
        if mark not in MARK_KINDS:
            raise TileDataError(f"tile {tile_id}: {what} has unknown mark {mark!r}")
        if MARK_KINDS[mark] != kind:
            raise TileDataError(
                f"tile {tile_id}: {what} cannot carry mark {mark!r} "
                f"(only a {KIND_NAMES[MARK_KINDS[mark]]} can)"
            )
    return tuple(sorted(value))


def _list(tile_id: str, raw: dict[str, Any], key: str) -> list[Any]:
    value = raw.get(key, [])
    if not isinstance(value, list):
        raise TileDataError(f"tile {tile_id}: {key!r} must be a list")
    return value


def _parse_tile(set_name: str, raw: Any, provisional: bool) -> TileType:
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        raise TileDataError(f"set {set_name}: every tile needs a string 'name'")
    tile_id = f"{set_name}/{raw['name']}"
    known = {"name", "count", "edges", "cities", "roads", "rivers", "fields", "centre", "decor"}
    unknown = set(raw) - known
    if unknown:
        raise TileDataError(f"tile {tile_id}: unknown keys {sorted(unknown)}")
    count = raw.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise TileDataError(f"tile {tile_id}: 'count' must be a whole number ≥ 0")
    edge_text = raw.get("edges")
    if not isinstance(edge_text, str) or len(edge_text) != 4 or set(edge_text) - set(EDGE_CODES):
        raise TileDataError(f"tile {tile_id}: 'edges' must be 4 letters from C R F ~ (N E S W)")
    edges = tuple(EDGE_CODES[c] for c in edge_text)

    segments: list[Segment] = []
    owner: dict[int, int] = {}  # edge -> segment index for cities and roads

    def claim_edges(kind: int, seg_edges: tuple[int, ...], what: str) -> None:
        wanted = CITY_EDGE if kind == CITY else ROAD_EDGE
        for e in seg_edges:
            if edges[e] != wanted:
                raise TileDataError(
                    f"tile {tile_id}: {what} uses edge {EDGE_NAMES[e]}, which is "
                    f"{edge_text[e]!r}, not {EDGE_LETTERS[wanted]!r}"
                )
            if e in owner:
                raise TileDataError(f"tile {tile_id}: edge {EDGE_NAMES[e]} is in two segments")
            owner[e] = len(segments)

    city_by_edge: dict[str, int] = {}
    for i, city in enumerate(_list(tile_id, raw, "cities")):
        if not isinstance(city, dict):
            raise TileDataError(f"tile {tile_id}: city #{i + 1} must be an object")
        seg_edges = _edge_list(tile_id, f"city #{i + 1}", city.get("edges"))
        coa = city.get("coat_of_arms", 0)
        if coa not in (0, 1, 2) or isinstance(coa, bool):
            raise TileDataError(f"tile {tile_id}: city #{i + 1} has a bad coat_of_arms {coa!r}")
        unknown = set(city) - {"edges", "coat_of_arms", "marks"}
        if unknown:
            raise TileDataError(f"tile {tile_id}: city #{i + 1} has unknown keys {sorted(unknown)}")
        marks = _marks(tile_id, f"city #{i + 1}", CITY, city.get("marks", []))
        claim_edges(CITY, seg_edges, f"city #{i + 1}")
        for e in seg_edges:
            city_by_edge[EDGE_NAMES[e]] = len(segments)
        segments.append(
            Segment(CITY, EDGE_NAMES[min(seg_edges)], seg_edges, coat_of_arms=coa, marks=marks)
        )
    for i, road in enumerate(_list(tile_id, raw, "roads")):
        # A road is its list of edges, or {"edges": [...], "marks": [...]} when it has an inn.
        marks = ()
        if isinstance(road, dict):
            unknown = set(road) - {"edges", "marks"}
            if unknown:
                raise TileDataError(
                    f"tile {tile_id}: road #{i + 1} has unknown keys {sorted(unknown)}"
                )
            marks = _marks(tile_id, f"road #{i + 1}", ROAD, road.get("marks", []))
            road = road.get("edges")
        seg_edges = _edge_list(tile_id, f"road #{i + 1}", road)
        if len(seg_edges) > 2:
            raise TileDataError(f"tile {tile_id}: road #{i + 1} touches more than two edges")
        claim_edges(ROAD, seg_edges, f"road #{i + 1}")
        segments.append(Segment(ROAD, EDGE_NAMES[min(seg_edges)], seg_edges, marks=marks))
    for e, code in enumerate(edges):
        if code in (CITY_EDGE, ROAD_EDGE) and e not in owner:
            kind = "city" if code == CITY_EDGE else "road"
            raise TileDataError(f"tile {tile_id}: {kind} edge {EDGE_NAMES[e]} has no {kind}")

    rivers: list[tuple[int, ...]] = []
    river_edges: set[int] = set()
    for i, river in enumerate(_list(tile_id, raw, "rivers")):
        seg_edges = _edge_list(tile_id, f"river #{i + 1}", river)
        for e in seg_edges:
            if edges[e] != RIVER_EDGE or e in river_edges:
                raise TileDataError(
                    f"tile {tile_id}: river #{i + 1} edge {EDGE_NAMES[e]} is not a free ~ edge"
                )
            river_edges.add(e)
        rivers.append(seg_edges)
    for e, code in enumerate(edges):
        if code == RIVER_EDGE and e not in river_edges:
            raise TileDataError(f"tile {tile_id}: river edge {EDGE_NAMES[e]} has no river")

    half_owner: dict[int, int] = {}
    for i, fld in enumerate(_list(tile_id, raw, "fields")):
        if not isinstance(fld, dict) or not isinstance(fld.get("halves"), list):
            raise TileDataError(f"tile {tile_id}: field #{i + 1} needs a list 'halves'")
        halves = []
        for name in fld["halves"]:
            if name not in HALF_NAMES:
                raise TileDataError(f"tile {tile_id}: field #{i + 1} names unknown half {name!r}")
            h = HALF_NAMES.index(name)
            if edges[h // 2] == CITY_EDGE:
                raise TileDataError(
                    f"tile {tile_id}: field half-edge {name} lies on city edge {EDGE_NAMES[h // 2]}"
                )
            if h in half_owner:
                raise TileDataError(f"tile {tile_id}: half-edge {name} is in two fields")
            half_owner[h] = i
            halves.append(h)
        if not halves and any(not s.halves for s in segments if s.kind == FIELD):
            raise TileDataError(f"tile {tile_id}: field #{i + 1} is a second enclosed field")
        cities = []
        refs = fld.get("cities", [])
        if not isinstance(refs, list):
            raise TileDataError(f"tile {tile_id}: field #{i + 1}: 'cities' must be a list")
        for ref in refs:
            if not isinstance(ref, str) or ref not in city_by_edge:
                raise TileDataError(f"tile {tile_id}: field #{i + 1} borders unknown city {ref!r}")
            cities.append(city_by_edge[ref])
        segments.append(
            Segment(
                FIELD,
                # a field touching no edge is enclosed in the tile (between four cities)
                HALF_NAMES[min(halves)] if halves else ENCLOSED_FIELD,
                halves=tuple(sorted(halves)),
                cities=tuple(sorted(set(cities))),
            )
        )
    for h in range(8):
        if edges[h // 2] != CITY_EDGE and h not in half_owner:
            raise TileDataError(f"tile {tile_id}: half-edge {HALF_NAMES[h]} belongs to no field")

    centre = tuple(_list(tile_id, raw, "centre"))
    for name in centre:
        if name not in KNOWN_CENTRES:
            raise TileDataError(f"tile {tile_id}: unknown centre feature {name!r}")
        if name in CENTRE_KINDS:
            segments.append(Segment(CENTRE_KINDS[name], name))
    decor = raw.get("decor", [])
    if not isinstance(decor, list) or not all(isinstance(d, str) for d in decor):
        raise TileDataError(f"tile {tile_id}: 'decor' must be a list of names")

    tile = TileType(
        id=tile_id,
        set_name=set_name,
        name=raw["name"],
        count=count,
        edges=edges,  # type: ignore[arg-type]
        segments=tuple(segments),
        rivers=tuple(rivers),
        centre=centre,
        decor=tuple(decor),
        provisional=provisional,
    )
    _finish(tile)
    return tile


def parse_tile_set(data: Any, origin: str = "<data>") -> TileSet:
    """Build a validated :class:`TileSet` from decoded JSON."""
    if not isinstance(data, dict) or data.get("format") != TILE_FORMAT:
        raise TileDataError(f"{origin}: not a tile file (expected format {TILE_FORMAT!r})")
    name = data.get("set")
    if not isinstance(name, str) or not name:
        raise TileDataError(f"{origin}: missing 'set' name")
    provisional = bool(data.get("provisional", False))
    raw_tiles = data.get("tiles")
    if not isinstance(raw_tiles, list) or not raw_tiles:
        raise TileDataError(f"{origin}: 'tiles' must be a non-empty list")
    tiles = [_parse_tile(name, raw, provisional) for raw in raw_tiles]
    names = [t.name for t in tiles]
    if len(set(names)) != len(names):
        raise TileDataError(f"{origin}: duplicate tile names in set {name}")
    for key in ("start_tile", "last_tile"):
        ref = data.get(key)
        if ref is not None and ref not in names:
            raise TileDataError(f"{origin}: {key} {ref!r} is not a tile of set {name}")
    return TileSet(
        name=name,
        tiles=tiles,
        provisional=provisional,
        note=str(data.get("note", "")),
        start_tile=data.get("start_tile"),
        last_tile=data.get("last_tile"),
    )


def load_tile_file(path: str | Path) -> TileSet:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TileDataError(f"{path}: cannot read tile file: {exc}") from exc
    return parse_tile_set(data, str(path))


_SETS: dict[str, TileSet] = {}
_BY_ID: dict[str, TileType] = {}
_REGISTRY: list[TileType] = []


#: characters in a tile id at most (the bundled ones have a dozen): a longer one is unknown
#: before anything else looks at it
MAX_TILE_ID_LENGTH = 64


@functools.cache
def bundled_tile_sets() -> frozenset[str]:
    """Names of the tile sets that come with the engine (``data/tiles/<name>.json``)."""
    folder = resources.files("carcassonne") / "data" / "tiles"
    return frozenset(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json"))


def tile_set(name: str) -> TileSet:
    """The bundled tile set ``name`` (``base``, ``river``, ``bets``), loaded once."""
    if name not in _SETS:
        # named from the list, never made into a path: a tile id may come from a client
        if name not in bundled_tile_sets():
            raise TileDataError(f"unknown tile set {short_repr(name)}")
        ref = resources.files("carcassonne") / "data" / "tiles" / f"{name}.json"
        loaded = parse_tile_set(json.loads(ref.read_text(encoding="utf-8")), f"{name}.json")
        for tile in loaded.tiles:
            tile.index = len(_REGISTRY)
            _REGISTRY.append(tile)
            _BY_ID[tile.id] = tile
        _SETS[name] = loaded
    return _SETS[name]


def tile_by_id(tile_id: str) -> TileType:
    """Look a tile type up by id (``base/E``), loading its set on demand."""
    if tile_id not in _BY_ID:
        if len(tile_id) <= MAX_TILE_ID_LENGTH:
            with contextlib.suppress(TileDataError):  # an unknown set is an unknown tile
                tile_set(tile_id.split("/", 1)[0])
        if tile_id not in _BY_ID:
            raise KeyError(f"unknown tile id {short_repr(tile_id)}")
    return _BY_ID[tile_id]


#: the base start tile, and the land tiles in data order before the shuffle
LandTiles = tuple[TileType, tuple[TileType, ...]]
#: (tile sets, copies of the base set, whether the base start tile is dealt as a land tile) ->
#: their LandTiles: the same for every game of those options, so made once (a tuple: each game
#: shuffles a list of its own)
_LAND_TILES: Final[dict[tuple[tuple[str, ...], int, bool], LandTiles]] = {}


def land_tiles(sets: tuple[str, ...], copies: int, start_dealt: bool) -> LandTiles:
    """The base start tile, and every copy of the tile sets ``sets`` in data order (the base set
    ``copies`` times) less one start tile unless ``start_dealt``."""
    key = (sets, copies, start_dealt)
    cached = _LAND_TILES.get(key)
    if cached is None:
        start = tile_by_id(f"base/{tile_set('base').start_tile}")
        pool: list[TileType] = []
        for name in sets:
            times = copies if name == "base" else 1
            pool.extend(tile for _ in range(times) for tile in tile_set(name).copies())
        if not start_dealt:
            pool.remove(start)
        cached = _LAND_TILES[key] = (start, tuple(pool))
    return cached


_PRINTED: dict[tuple[str, tuple[int, ...]], TileType] = {}


def printed_city_tile(name: str, open_edges: tuple[int, ...]) -> TileType:
    """A map's large city as a tile: city edges where open, border elsewhere (docs/rules.md D9)."""
    key = (name, tuple(sorted(open_edges)))
    if key not in _PRINTED:
        edges = tuple(CITY_EDGE if d in open_edges else BORDER for d in range(4))
        segment = Segment(CITY, EDGE_NAMES[min(open_edges)], tuple(sorted(open_edges)))
        tile = TileType(
            id=f"map/{name}",
            set_name="map",
            name=name,
            count=0,
            edges=edges,  # type: ignore[arg-type]
            segments=(segment,),
            rivers=(),
            centre=(),
            decor=("large-city",),
            provisional=True,
        )
        _finish(tile)
        _PRINTED[key] = tile
    return _PRINTED[key]
