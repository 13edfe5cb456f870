"""The real geography drawn under the France map: projected exactly like the map's squares, a
coastline and borders that put every city on the right side, and validation that names the
part of the data at fault."""

from __future__ import annotations

import copy
import json
import math
from importlib import resources
from typing import Any

import pytest

from carcassonne.board import decode
from carcassonne.geography import Projection, parse_geography
from carcassonne.maps import MapDataError, load_map, parse_map

# Real positions (latitude, longitude in degrees) of the map's places, from public gazetteers.
PLACES = {
    "Nancy": (48.6921, 6.1844), "Le Mans": (48.0061, 0.1996), "Limoges": (45.8336, 1.2611),
    "Paris": (48.8566, 2.3522), "Lille": (50.6292, 3.0573), "Lyon": (45.7640, 4.8357),
    "Marseille": (43.2965, 5.3698), "Toulouse": (43.6047, 1.4442), "Bordeaux": (44.8378, -0.5792),
    "Reims": (49.2583, 4.0317), "Dijon": (47.3220, 5.0415), "Besançon": (47.2378, 6.0241),
    "Caen": (49.1829, -0.3707), "Montpellier": (43.6108, 3.8767), "Perpignan": (42.6887, 2.8948),
    "Strasbourg": (48.5734, 7.7521), "Tours": (47.3941, 0.6848), "Nantes": (47.2184, -1.5536),
    "Grenoble": (45.1885, 5.7245), "Pau": (43.2951, -0.3708), "Orléans": (47.9029, 1.9093),
    "Rennes": (48.1173, -1.6778), "Brest": (48.3904, -4.4861), "Rouen": (49.4432, 1.0999),
    "Clermont-Ferrand": (45.7772, 3.0870), "Nice": (43.7102, 7.2620),
    "La Rochelle": (46.1603, -1.1511),
}  # fmt: skip
# Just across a border or the sea: in a neighbour's land, not in France.
ABROAD = {
    "Brussels": (50.8503, 4.3517), "Luxembourg": (49.6116, 6.1319),
    "Saarbrücken": (49.2402, 6.9969), "Freiburg": (47.9990, 7.8421), "Basel": (47.5596, 7.5886),
    "Geneva": (46.2044, 6.1432), "Turin": (45.0703, 7.6869), "Sanremo": (43.8159, 7.7760),
    "Andorra la Vella": (42.5063, 1.5218), "Figueres": (42.2666, 2.9612),
    "Bilbao": (43.2630, -2.9350), "San Sebastián": (43.3183, -1.9812),
    "Dover": (51.1279, 1.3134), "Plymouth": (50.3755, -4.1427), "St Helier": (49.1868, -2.1070),
}  # fmt: skip
SEA = {
    "the Channel": (50.0, -2.0), "off Brittany": (47.5, -5.0), "Bay of Biscay": (45.0, -3.0),
    "Gulf of Lion": (43.0, 4.0), "off Provence": (42.8, 6.5), "Strait of Dover": (51.0, 1.5),
    "Gironde estuary": (45.33, -0.80), "Lake Geneva": (46.45, 6.55),
}  # fmt: skip
NEIGHBOURS = {"Spain", "Andorra", "Italy", "Switzerland", "Germany", "Luxembourg", "Belgium"}


def inside(point: tuple[float, float], flat: list[float]) -> bool:
    """Even-odd ray casting: is ``point`` inside the polygon given as [x0, y0, x1, y1, …]?"""
    x, y = point
    xs, ys = flat[0::2], flat[1::2]
    result = False
    for i in range(len(xs)):
        x1, y1, x2, y2 = xs[i - 1], ys[i - 1], xs[i], ys[i]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            result = not result
    return result


@pytest.fixture(scope="module")
def france() -> Any:
    return load_map("france")


@pytest.fixture(scope="module")
def drawn(france: Any) -> dict[str, Any]:
    return france.geography.for_board()  # type: ignore[no-any-return]


def areas(drawn: dict[str, Any], kind: str) -> list[list[float]]:
    return [a["points"] for a in drawn["areas"] if a["kind"] == kind]


def test_the_projection_puts_each_real_place_on_its_square(france: Any) -> None:
    projection = france.geography.projection
    assert projection == Projection(west=-5.2, north=51.2, parallel=46.5, square_degrees=0.5851)
    squares = {place.name: (place.x, place.y) for place in france.geometry.printed}
    squares |= {town.name: decode(pos) for pos, town in france.towns.items()}
    assert set(squares) == set(PLACES)
    for name, latlon in PLACES.items():
        x, y = projection.square(latlon)
        sx, sy = squares[name]
        # On its square, or (Paris, 0.005 of a square south of its row) within 3 km of it.
        off = math.hypot(max(sx - x, 0, x - sx - 1), max(sy - y, 0, y - sy - 1))
        assert off < 0.05, (name, x, y, (sx, sy))
    x, y = projection.square(PLACES["Paris"])
    assert (round(x, 3), round(y, 3)) == (8.885, 4.005)


def test_every_place_of_the_map_is_inside_france(france: Any, drawn: dict[str, Any]) -> None:
    (home,) = areas(drawn, "home")
    projection = france.geography.projection
    for name, latlon in PLACES.items():
        assert inside(projection.square(latlon), home), name


def test_places_abroad_are_on_neighbouring_land_not_in_france(
    france: Any, drawn: dict[str, Any]
) -> None:
    (home,) = areas(drawn, "home")
    projection = france.geography.projection
    for name, latlon in ABROAD.items():
        point = projection.square(latlon)
        assert not inside(point, home), name
        assert any(inside(point, land) for land in areas(drawn, "land")), name


def test_the_sea_is_neither_france_nor_other_land(france: Any, drawn: dict[str, Any]) -> None:
    projection = france.geography.projection
    (home,) = areas(drawn, "home")
    for name, latlon in SEA.items():
        point = projection.square(latlon)
        in_water = any(inside(point, water) for water in areas(drawn, "water"))
        on_land = inside(point, home) or any(inside(point, land) for land in areas(drawn, "land"))
        assert in_water or not on_land, name


def test_every_land_border_names_its_neighbour(france: Any, drawn: dict[str, Any]) -> None:
    geography = france.geography
    assert geography.home == "France"
    assert {part.neighbour for part in geography.outline} - {None} == NEIGHBOURS
    labels = {label["name"]: label for label in drawn["labels"]}
    assert NEIGHBOURS | {"United Kingdom"} <= {n for n, lb in labels.items() if lb["kind"] != "sea"}
    # Each country's name is written on that country (and on the map).
    (home,) = areas(drawn, "home")
    for name in NEIGHBOURS | {"United Kingdom"}:
        point = (labels[name]["x"], labels[name]["y"])
        assert not inside(point, home), name
        assert 0 <= point[0] <= france.width and 0 <= point[1] <= france.height, name
    borders = {tuple(line["between"]) for line in drawn["lines"] if line["kind"] == "border"}
    assert {("France", n) for n in NEIGHBOURS} <= borders


def test_the_outline_is_one_closed_ring_of_coast_and_borders(france: Any) -> None:
    outline = france.geography.outline
    for before, part in zip(outline, outline[1:] + outline[:1], strict=True):
        assert before.points[-1] == part.points[0]
    ring = france.geography.home_ring()
    assert len(ring) == sum(len(part.points) - 1 for part in outline)
    # Roughly the size of mainland France: 550 000 km² give or take a tenth (shoelace, in km).
    km_lat = 111.2
    km_lon = km_lat * math.cos(math.radians(46.5))
    area = (
        abs(
            sum(
                (a[1] * km_lon) * (b[0] * km_lat) - (b[1] * km_lon) * (a[0] * km_lat)
                for a, b in zip(ring, ring[1:] + ring[:1], strict=True)
            )
        )
        / 2
    )
    assert 495_000 < area < 605_000, area


# --------------------------------------------------------------------------------- validation


def raw_france() -> dict[str, Any]:
    text = resources.files("carcassonne").joinpath("data/maps/france.json").read_text("utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def broken(change: Any) -> str:
    data = copy.deepcopy(raw_france())
    change(data["geography"])
    with pytest.raises(MapDataError) as info:
        parse_map(data, "france.json")
    return str(info.value)


def test_a_map_without_geography_is_a_plain_grid() -> None:
    data = raw_france()
    del data["geography"]
    assert parse_map(data, "france.json").geography is None


def test_errors_name_the_part_at_fault() -> None:
    def gap(g: dict[str, Any]) -> None:
        g["home"]["outline"][3]["points"][0] = [42.5, 1.7]

    assert broken(gap) == (
        "france.json: geography: home: outline part 4: starts at [42.5, 1.7], not where part 3 "
        "ends ([42.51, 1.74])"
    )

    def bad_point(g: dict[str, Any]) -> None:
        g["land"][1][2] = [95, 0]

    assert broken(bad_point) == (
        "france.json: geography: land 2: point 3: latitude: must be a number from -90 to 90, not 95"
    )

    def unnamed(g: dict[str, Any]) -> None:
        g["labels"] = [lb for lb in g["labels"] if lb["name"] != "Andorra"]

    assert broken(unnamed) == (
        "france.json: geography: home: outline: the neighbour 'Andorra' has no label"
    )

    def typo(g: dict[str, Any]) -> None:
        g["lables"] = g.pop("labels")

    assert "geography: unknown keys ['lables']" in broken(typo)
    assert "projection: square_degrees: must be a number" in broken(
        lambda g: g["projection"].update(square_degrees="big")
    )
    assert "label 1: kind: must be one of country, small-country, sea" in broken(
        lambda g: g["labels"][0].update(kind="ocean")
    )
    assert "border 2: between: must name two countries" in broken(
        lambda g: g["borders"][1].update(between=["Belgium"])
    )
    assert parse_geography(raw_france()["geography"]) == load_map("france").geography
