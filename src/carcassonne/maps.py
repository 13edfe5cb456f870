"""Maps of Carcassonne (docs/rules.md §4): the board as a bounded grid with printed places.

A map is rules data, not code: each one is a JSON file (format in ``docs/map-format.md``), bundled
under ``data/maps`` or given by path, so that a player who owns the printed board can correct our
reconstruction.  Loading validates everything and names the place or field that is wrong, because
a bad map silently changes every game played on it.

:func:`load_map` returns a :class:`GameMap`; the core uses its ``geometry`` (playable squares and
the printed large cities) and what it describes to set the board up: the printed tiles
(:meth:`GameMap.printed_tiles`) and the start squares (:meth:`GameMap.choose_start_squares`,
D6); the game's set-up places them (D7).  A map knows nothing of the game.  The towns and their
grape colours are for the Map-Chips (``expansions/mapchips.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from .board import OFFSET, Geometry, PrintedTile, encode
from .geography import Geography, GeographyError, parse_geography
from .options import GameSetupError
from .quoting import short_repr
from .tiles import EDGE_NAMES, TileType, printed_city_tile

if TYPE_CHECKING:
    import random
    from collections.abc import Callable

MAP_FORMAT = "carcassonne-map/1"
#: the grape colours of Map-Chips France; a town may show one of them
GRAPES: tuple[str, ...] = ("purple", "light-blue", "orange")
#: D10: chips per grape colour by value, unless a map file says otherwise
DEFAULT_CHIPS_PER_GRAPE: dict[int, int] = {1: 6, 2: 4}
#: side of the square blocks over which Map-Chips are spread evenly (see mapchips.py)
DEFAULT_CHIP_BLOCK = 4
_MAX_SIDE = OFFSET - 1  # coordinates 0…size-1 must encode
_STEPS = ((0, -1), (1, 0), (0, 1), (-1, 0))  # (dx, dy) towards N E S W


class MapDataError(GameSetupError):
    """A map file is malformed or unknown; the message names the place or field at fault."""


class Town(NamedTuple):
    """A named square that tiles may cover (docs/rules.md §4); ``grape`` is None on maps without."""

    name: str
    grape: str | None


@dataclass(frozen=True, slots=True)
class GameMap:
    """A validated map.  Immutable, so one object is shared by every game played on it."""

    name: str
    title: str
    width: int
    height: int
    #: whether the layout is a reconstruction rather than a copy of the printed board
    approximate: bool
    note: str
    geometry: Geometry
    #: town square -> town; start squares are towns too
    towns: dict[int, Town]
    #: large-city square -> the printed city
    large_cities: dict[int, PrintedTile]
    #: start-square name -> square, in file order
    start_squares: dict[str, int]
    #: Map-Chips: chips per grape colour, by value
    chips_per_grape: dict[int, int]
    #: Map-Chips: side of the blocks chips are spread evenly over
    chip_block: int
    #: the real coast, borders and names under the grid, for drawing (None: a plain grid)
    geography: Geography | None = None

    def check_start_squares(self, names: Any) -> tuple[str, str]:
        """Validate the two start squares a game uses (D6); the error names the bad one."""
        if not isinstance(names, tuple | list) or len(names) != 2:
            raise GameSetupError(
                f"start_squares must name exactly two squares, not {short_repr(names)}"
            )
        for name in names:
            if name not in self.start_squares:
                known = ", ".join(self.start_squares)
                raise GameSetupError(
                    f"{short_repr(name)} is not a start square of map {self.name} "
                    f"(choose from {known})"
                )
        first, second = names
        if first == second:
            raise GameSetupError(f"the two start squares must differ, both are {short_repr(first)}")
        return first, second

    def choose_start_squares(
        self, names: tuple[str, str] | None, rng: random.Random
    ) -> tuple[str, str]:
        """D6: the two start squares a game uses, as its options name them or drawn with ``rng``
        (the game's generator, right after the stack is shuffled)."""
        if names is None:
            first, second = rng.sample(sorted(self.start_squares), 2)
            names = (first, second)
        return self.check_start_squares(names)

    def printed_tiles(self) -> list[tuple[int, TileType]]:
        """The map's large cities as tiles, with their squares, in the order they are put on the
        board before anything else (the game's set-up puts them, and the start tiles: D7)."""
        tiles: tuple[tuple[int, TileType], ...] = shared_per_map(
            _PRINTED_TILES, id(self), self, self._make_printed_tiles
        )
        return list(tiles)

    def _make_printed_tiles(self) -> tuple[tuple[int, TileType], ...]:
        return tuple(
            (encode(p.x, p.y), printed_city_tile(p.name, p.open_edges))
            for p in self.geometry.printed
        )

    def town_at(self, pos: int) -> Town | None:
        return self.towns.get(pos)

    def is_playable(self, pos: int) -> bool:
        squares = self.geometry.squares
        return squares is not None and pos in squares

    def border_sides(self, pos: int) -> tuple[int, ...]:
        """Sides of ``pos`` that face the map border (off the map or an unplayable square).

        A large city's closed side is not among them: it closes features (D9) but it is not the
        edge of the map, which is what export needs (docs/rules.md §5, D12).
        """
        return self.geometry.border_sides.get(pos, ())


_Key = TypeVar("_Key")
_Value = TypeVar("_Value")


def shared_per_map(
    cache: dict[_Key, tuple[GameMap, _Value]],
    key: _Key,
    game_map: GameMap,
    build: Callable[[], _Value],
) -> _Value:
    """``build()`` for ``game_map``, worked out once and shared by all its games (a map is
    immutable, so what the set-up derives from it is too); the map is kept beside it, so that a
    new map at a recycled ``id`` builds its own."""
    cached = cache.get(key)
    if cached is None or cached[0] is not game_map:
        cached = cache[key] = (game_map, build())
    return cached[1]


# what every game's set-up derives from a map: see shared_per_map
_PRINTED_TILES: dict[int, tuple[GameMap, tuple[tuple[int, TileType], ...]]] = {}


# ------------------------------------------------------------------------------------ loading


def _require(cond: bool, where: str, message: str) -> None:
    if not cond:
        raise MapDataError(f"{where}: {message}")


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _keys(raw: dict[str, Any], allowed: set[str], required: set[str], where: str) -> None:
    unknown = set(raw) - allowed
    _require(not unknown, where, f"unknown keys {sorted(unknown)}")
    missing = required - set(raw)
    _require(not missing, where, f"missing {sorted(missing)}")


def _square(raw: dict[str, Any], width: int, height: int, where: str) -> tuple[int, int]:
    x, y = raw.get("x"), raw.get("y")
    _require(_int(x) and _int(y), where, f"x and y must be whole numbers, not {x!r}, {y!r}")
    _require(
        0 <= x < width and 0 <= y < height,  # type: ignore[operator]
        where,
        f"square ({x}, {y}) is off the {width}×{height} map",
    )
    return x, y  # type: ignore[return-value]


def _place_name(raw: Any, where: str) -> str:
    _require(isinstance(raw, dict), where, "must be an object")
    name = raw.get("name")
    _require(isinstance(name, str) and bool(name.strip()), where, "needs a non-empty 'name'")
    return name


def parse_map(data: Any, origin: str = "<data>") -> GameMap:
    """Build a validated :class:`GameMap` from decoded JSON."""
    _require(
        isinstance(data, dict) and data.get("format") == MAP_FORMAT,
        origin,
        f"not a map file (expected format {MAP_FORMAT!r})",
    )
    _keys(
        data,
        {
            "format", "name", "title", "approximate", "note", "size", "unplayable",
            "large_cities", "towns", "start_squares", "chips_per_grape", "chip_block",
            "geography",
        },
        {"format", "name", "size", "start_squares"},
        origin,
    )  # fmt: skip
    name = data["name"]
    _require(isinstance(name, str) and bool(name), origin, "'name' must be a non-empty string")
    title = data.get("title", name)
    _require(isinstance(title, str), origin, "'title' must be a string")
    approximate = data.get("approximate", False)
    _require(isinstance(approximate, bool), origin, "'approximate' must be true or false")
    note = data.get("note", "")
    _require(isinstance(note, str), origin, "'note' must be a string")

    size = data["size"]
    _require(isinstance(size, dict), origin, '\'size\' must be {"width": …, "height": …}')
    _keys(size, {"width", "height"}, {"width", "height"}, f"{origin}: size")
    width, height = size["width"], size["height"]
    for what, value in (("width", width), ("height", height)):
        _require(
            _int(value) and 1 <= value <= _MAX_SIDE,
            f"{origin}: size",
            f"{what} must be a whole number from 1 to {_MAX_SIDE}, not {value!r}",
        )

    taken: dict[tuple[int, int], str] = {}  # square -> what occupies it, to report overlaps

    def claim(xy: tuple[int, int], what: str) -> None:
        _require(xy not in taken, what, f"square {xy} is already used by {taken.get(xy)}")
        taken[xy] = what

    unplayable: set[tuple[int, int]] = set()
    raw_unplayable = data.get("unplayable", [])
    _require(isinstance(raw_unplayable, list), origin, "'unplayable' must be a list of squares")
    for i, raw in enumerate(raw_unplayable):
        where = f"{origin}: unplayable #{i + 1}"
        _require(isinstance(raw, dict), where, 'must be an object {"x": …, "y": …}')
        _keys(raw, {"x", "y"}, {"x", "y"}, where)
        xy = _square(raw, width, height, where)
        claim(xy, f"unplayable square {xy}")
        unplayable.add(xy)

    names: set[str] = set()

    def unique(place: str, where: str) -> None:
        _require(place not in names, where, f"the name {place!r} is used twice")
        names.add(place)

    cities: list[PrintedTile] = []
    raw_cities = data.get("large_cities", [])
    _require(isinstance(raw_cities, list), origin, "'large_cities' must be a list")
    for i, raw in enumerate(raw_cities):
        city_name = _place_name(raw, f"{origin}: large city #{i + 1}")
        where = f"{origin}: large city {city_name}"
        _keys(raw, {"name", "x", "y", "open"}, {"name", "x", "y", "open"}, where)
        unique(city_name, where)
        xy = _square(raw, width, height, where)
        claim(xy, f"large city {city_name}")
        sides = raw["open"]
        _require(
            isinstance(sides, str) and bool(sides) and set(sides) <= set("NESW"),
            where,
            f"'open' must list its open edges as letters from NESW, not {sides!r}",
        )
        _require(len(set(sides)) == len(sides), where, f"'open' repeats an edge: {sides!r}")
        cities.append(PrintedTile(xy[0], xy[1], city_name, tuple(sorted(map("NESW".index, sides)))))

    towns: dict[tuple[int, int], Town] = {}
    raw_towns = data.get("towns", [])
    _require(isinstance(raw_towns, list), origin, "'towns' must be a list")
    for i, raw in enumerate(raw_towns):
        town = _place_name(raw, f"{origin}: town #{i + 1}")
        where = f"{origin}: town {town}"
        _keys(raw, {"name", "x", "y", "grape"}, {"name", "x", "y"}, where)
        unique(town, where)
        xy = _square(raw, width, height, where)
        claim(xy, f"town {town}")
        grape = raw.get("grape")
        _require(
            grape is None or grape in GRAPES,
            where,
            f"unknown grape {grape!r} (known: {', '.join(GRAPES)})",
        )
        towns[xy] = Town(town, grape)

    # Every open edge of a large city must face a square a tile can go on, or the city could
    # never be completed (and the core would count an edge that can never close).
    city_squares = {(c.x, c.y) for c in cities}
    for city in cities:
        for side in city.open_edges:
            dx, dy = _STEPS[side]
            nx, ny = city.x + dx, city.y + dy
            blocked = (
                not (0 <= nx < width and 0 <= ny < height)
                or (nx, ny) in unplayable
                or (nx, ny) in city_squares
            )
            _require(
                not blocked,
                f"{origin}: large city {city.name}",
                f"open edge {EDGE_NAMES[side]} faces ({nx}, {ny}), where no tile can go",
            )

    town_by_name = {town.name: xy for xy, town in towns.items()}
    raw_starts = data["start_squares"]
    _require(
        isinstance(raw_starts, list) and len(raw_starts) >= 2,
        origin,
        "'start_squares' must list at least two town names",
    )
    starts: dict[str, int] = {}
    for start in raw_starts:
        _require(
            isinstance(start, str) and start in town_by_name,
            f"{origin}: start square {start!r}",
            "is not the name of a town on this map",
        )
        _require(start not in starts, f"{origin}: start square {start!r}", "is listed twice")
        starts[start] = encode(*town_by_name[start])

    raw_chips = data.get("chips_per_grape", {str(v): n for v, n in DEFAULT_CHIPS_PER_GRAPE.items()})
    _require(
        isinstance(raw_chips, dict) and bool(raw_chips),
        origin,
        '\'chips_per_grape\' must map chip values to counts, e.g. {"1": 6, "2": 4}',
    )
    chips: dict[int, int] = {}
    for value, count in raw_chips.items():
        _require(
            value in ("1", "2") and _int(count) and count >= 0,
            f"{origin}: chips_per_grape",
            f"{value!r}: {count!r} is not a chip value (1 or 2) with a count ≥ 0",
        )
        chips[int(value)] = count
    chip_block = data.get("chip_block", DEFAULT_CHIP_BLOCK)
    _require(
        _int(chip_block) and 1 <= chip_block <= 8,
        origin,
        f"'chip_block' must be a whole number from 1 to 8, not {chip_block!r}",
    )

    geography = None
    if "geography" in data:
        try:
            geography = parse_geography(data["geography"])
        except GeographyError as exc:
            raise MapDataError(f"{origin}: geography: {exc}") from None

    return GameMap(
        name=name,
        title=title,
        width=width,
        height=height,
        approximate=approximate,
        note=note,
        geometry=_geometry(name, width, height, unplayable, tuple(cities)),
        towns={encode(*xy): town for xy, town in towns.items()},
        large_cities={encode(c.x, c.y): c for c in cities},
        start_squares=starts,
        chips_per_grape=chips,
        chip_block=chip_block,
        geography=geography,
    )


def _geometry(
    name: str,
    width: int,
    height: int,
    unplayable: set[tuple[int, int]],
    cities: tuple[PrintedTile, ...],
) -> Geometry:
    """Playable squares (large cities excluded: they are on the board from the start) and, per
    square, the sides that face the map border (off the grid or an unplayable square)."""
    inside = {(x, y) for x in range(width) for y in range(height) if (x, y) not in unplayable}
    printed = {(c.x, c.y) for c in cities}
    border: dict[int, tuple[int, ...]] = {}
    for x, y in inside:
        sides = tuple(d for d, (dx, dy) in enumerate(_STEPS) if (x + dx, y + dy) not in inside)
        if sides:
            border[encode(x, y)] = sides
    squares = frozenset(encode(x, y) for x, y in inside - printed)
    return Geometry(name=name, squares=squares, printed=cities, border_sides=border)


#: a map file larger than this is refused unread (the bundled France map is about 15 kB)
MAX_MAP_FILE_BYTES = 1024 * 1024


def load_map_file(path: str | Path) -> GameMap:
    """A map file, parsed again only when it changed (games share one object, and with it the
    Map-Chips setup tables cached per map)."""
    path = Path(path)
    try:
        key = str(path.resolve())
        stamp = path.stat().st_mtime_ns
        cached = _FILES.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        with path.open("rb") as file:
            raw = file.read(MAX_MAP_FILE_BYTES + 1)
        if len(raw) > MAX_MAP_FILE_BYTES:
            # a mistyped path (a disk image, a log) must not be read into memory whole
            raise MapDataError(
                f"{path}: cannot read map file: larger than {MAX_MAP_FILE_BYTES} bytes"
            )
        data = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MapDataError(f"{path}: cannot read map file: {exc}") from exc
    game_map = parse_map(data, str(path))
    _FILES[key] = (stamp, game_map)
    return game_map


_BUNDLED: dict[str, GameMap] = {}
_FILES: dict[str, tuple[int, GameMap]] = {}


def bundled_maps() -> list[str]:
    """Names of the maps that come with the engine."""
    folder = resources.files("carcassonne") / "data" / "maps"
    return sorted(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json"))


def load_map(name_or_path: str) -> GameMap:
    """A bundled map by name (``france``), or a map file by path; each is loaded once."""
    cached = _BUNDLED.get(name_or_path)
    if cached is not None:
        return cached
    ref = resources.files("carcassonne") / "data" / "maps" / f"{name_or_path}.json"
    if "/" not in name_or_path and ref.is_file():
        game_map = parse_map(json.loads(ref.read_text(encoding="utf-8")), f"{name_or_path}.json")
        _BUNDLED[name_or_path] = game_map
        return game_map
    path = Path(name_or_path)
    if path.suffix == ".json" or path.exists():
        return load_map_file(path)
    raise MapDataError(
        f"unknown map {name_or_path!r} (bundled: {', '.join(bundled_maps())}; "
        "or give the path of a map file)"
    )
