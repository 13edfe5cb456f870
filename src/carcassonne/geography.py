"""The real geography under a map: land, sea, the country's outline, borders and names.

A map's squares come from projecting real places' latitude and longitude onto its grid (the
France map: ``docs/map-format.md``). Drawing the coast and borders through the *same* projection
puts them exactly where the squares' cities are, so a player recognises the country at a glance.
The rules never look at it: it only decorates the board, and a map without it plays the same.

Everything here is data from the map file, validated on load so that a typo cannot draw a
scribble: points are ``[latitude, longitude]`` in degrees, the country's outline is a closed
ring of parts (coast, or a border with a named neighbour) that must join end to start.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

LatLon = tuple[float, float]
Ring = tuple[LatLon, ...]

#: what a label names: a country (a small one gets smaller letters) or a sea
LABEL_KINDS = ("country", "small-country", "sea")
#: decimals of a square kept when projecting (a hundredth of a square is under a kilometre)
_DECIMALS = 2


class GeographyError(ValueError):
    """The geography section is malformed; the message says where."""


@dataclass(frozen=True, slots=True)
class Projection:
    """Equirectangular: degrees of longitude shrink by the cosine of a middle parallel, so
    squares are square on the ground near it; ``square_degrees`` of latitude make one square."""

    west: float
    north: float
    parallel: float
    square_degrees: float

    def square(self, point: LatLon) -> tuple[float, float]:
        """(x, y) in squares: x east from ``west``, y south from ``north``; the square a place
        is on is ``(floor(x), floor(y))``."""
        lat, lon = point
        x = (lon - self.west) * math.cos(math.radians(self.parallel)) / self.square_degrees
        return x, (self.north - lat) / self.square_degrees


@dataclass(frozen=True, slots=True)
class OutlinePart:
    """A stretch of the country's outline: coast when ``neighbour`` is None, else the land
    border with that neighbour."""

    neighbour: str | None
    points: Ring


@dataclass(frozen=True, slots=True)
class Border:
    """A land border between two other countries (the map's own are in its outline)."""

    between: tuple[str, str]
    points: Ring


@dataclass(frozen=True, slots=True)
class Label:
    name: str
    kind: str
    at: LatLon


@dataclass(frozen=True, slots=True)
class Geography:
    projection: Projection
    #: land outside the country (islands, neighbours): coasts show, parts under the country not
    land: tuple[Ring, ...]
    #: the map's own country and its outline, in order around it
    home: str
    outline: tuple[OutlinePart, ...]
    #: lakes, drawn over the land
    water: tuple[Ring, ...]
    borders: tuple[Border, ...]
    labels: tuple[Label, ...]

    def home_ring(self) -> Ring:
        """The country's outline as one closed ring (each join point once)."""
        return tuple(p for part in self.outline for p in part.points[1:])

    def for_board(self) -> dict[str, Any]:
        """Projected into squares for drawing: areas in drawing order, lines, labels."""

        def flat(points: Ring) -> list[float]:
            return [round(c, _DECIMALS) for p in points for c in self.projection.square(p)]

        areas = [{"kind": "land", "points": flat(ring)} for ring in self.land]
        areas.append({"kind": "home", "name": self.home, "points": flat(self.home_ring())})
        areas += [{"kind": "water", "points": flat(ring)} for ring in self.water]
        lines: list[dict[str, Any]] = []
        for part in self.outline:
            line: dict[str, Any] = {"kind": "coast" if part.neighbour is None else "border"}
            if part.neighbour is not None:
                line["between"] = [self.home, part.neighbour]
            lines.append({**line, "points": flat(part.points)})
        lines += [
            {"kind": "border", "between": list(b.between), "points": flat(b.points)}
            for b in self.borders
        ]
        labels = []
        for label in self.labels:
            x, y = self.projection.square(label.at)
            labels.append(
                {
                    "name": label.name,
                    "kind": label.kind,
                    "x": round(x, _DECIMALS),
                    "y": round(y, _DECIMALS),
                }
            )
        return {"areas": areas, "lines": lines, "labels": labels}


# ------------------------------------------------------------------------------------ parsing


def _fail(where: str, message: str) -> GeographyError:
    return GeographyError(f"{where}: {message}" if where else message)


def _object(raw: Any, where: str, allowed: set[str], required: set[str]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise _fail(where, "must be an object")
    unknown = set(raw) - allowed
    if unknown:
        raise _fail(where, f"unknown keys {sorted(unknown)}")
    missing = required - set(raw)
    if missing:
        raise _fail(where, f"missing {sorted(missing)}")
    return raw


def _number(value: Any, where: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise _fail(where, f"must be a number from {low:g} to {high:g}, not {value!r}")
    return float(value)


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, f"must be a non-empty string, not {value!r}")
    return value


def _point(raw: Any, where: str) -> LatLon:
    if not isinstance(raw, list) or len(raw) != 2:
        raise _fail(where, f"a point is [latitude, longitude], not {raw!r}")
    return _number(raw[0], f"{where}: latitude", -90, 90), _number(
        raw[1], f"{where}: longitude", -180, 180
    )


def _points(raw: Any, where: str, least: int) -> Ring:
    if not isinstance(raw, list) or len(raw) < least:
        raise _fail(where, f"needs a list of at least {least} points")
    return tuple(_point(p, f"{where}: point {i + 1}") for i, p in enumerate(raw))


def _list(raw: Any, where: str) -> list[Any]:
    if not isinstance(raw, list):
        raise _fail(where, "must be a list")
    return raw


def _rings(raw: Any, what: str) -> tuple[Ring, ...]:
    return tuple(_points(ring, f"{what} {i + 1}", 3) for i, ring in enumerate(_list(raw, what)))


def parse_geography(raw: Any) -> Geography:
    """Validate a map file's ``geography`` section; errors name the part at fault (within the
    section: the map loader says which file and section)."""
    data = _object(
        raw, "", {"projection", "land", "home", "water", "borders", "labels"},
        {"projection", "home"},
    )  # fmt: skip
    proj = _object(
        data["projection"], "projection", {"west", "north", "parallel", "square_degrees"},
        {"west", "north", "parallel", "square_degrees"},
    )  # fmt: skip
    projection = Projection(
        west=_number(proj["west"], "projection: west", -180, 180),
        north=_number(proj["north"], "projection: north", -90, 90),
        parallel=_number(proj["parallel"], "projection: parallel", -89, 89),
        square_degrees=_number(proj["square_degrees"], "projection: square_degrees", 1e-4, 90),
    )
    land, water = (_rings(data.get(key, []), key) for key in ("land", "water"))

    home_raw = _object(data["home"], "home", {"name", "outline"}, {"name", "outline"})
    home = _text(home_raw["name"], "home: name")
    outline: list[OutlinePart] = []
    for i, part_raw in enumerate(_list(home_raw["outline"], "home: outline")):
        where = f"home: outline part {i + 1}"
        fields = _object(part_raw, where, {"with", "points"}, {"points"})
        neighbour = _text(fields["with"], f"{where}: with") if "with" in fields else None
        outline.append(OutlinePart(neighbour, _points(fields["points"], where, 2)))
    if not outline:
        raise _fail("home: outline", "needs at least one part")
    # The parts go round the country: each starts where the one before it ends.
    for i, part in enumerate(outline):
        previous = outline[i - 1]
        if previous.points[-1] != part.points[0]:
            raise _fail(
                f"home: outline part {i + 1}",
                f"starts at {list(part.points[0])}, not where part {(i - 1) % len(outline) + 1} "
                f"ends ({list(previous.points[-1])})",
            )
    if len({p for part in outline for p in part.points}) < 3:
        raise _fail("home: outline", "needs at least 3 distinct points")

    borders = []
    for i, border_raw in enumerate(_list(data.get("borders", []), "borders")):
        where = f"border {i + 1}"
        border = _object(border_raw, where, {"between", "points"}, {"between", "points"})
        between = border["between"]
        if not isinstance(between, list) or len(between) != 2:
            raise _fail(f"{where}: between", f"must name two countries, not {between!r}")
        names = (_text(between[0], f"{where}: between"), _text(between[1], f"{where}: between"))
        borders.append(Border(names, _points(border["points"], where, 2)))

    labels = []
    for i, label_raw in enumerate(_list(data.get("labels", []), "labels")):
        where = f"label {i + 1}"
        fields = _object(label_raw, where, {"name", "kind", "at"}, {"name", "kind", "at"})
        if fields["kind"] not in LABEL_KINDS:
            raise _fail(f"{where}: kind", f"must be one of {', '.join(LABEL_KINDS)}")
        name = _text(fields["name"], f"{where}: name")
        labels.append(Label(name, fields["kind"], _point(fields["at"], where)))

    # A border drawn without its neighbour's name would leave the player guessing.
    named = {label.name for label in labels if label.kind != "sea"}
    for part in outline:
        if part.neighbour is not None and part.neighbour not in named:
            raise _fail("home: outline", f"the neighbour {part.neighbour!r} has no label")
    return Geography(projection, land, home, tuple(outline), water, tuple(borders), tuple(labels))
