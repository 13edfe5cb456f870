"""End-to-end tests of the board's drawing aids in real Chromium: the figure-spot picker on a
phone, the map of France drawn under the grid, and the score chart.

The server, browser and page fixtures are those of ``test_browser.py`` (skipped the same way
without Chromium); screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import itertools
import json
import math
import time
import urllib.request
from typing import Any

import pytest
import test_browser as browser_tests
from playwright.sync_api import Page, expect
from test_browser import Server, board_scale, my_turn, shot

# The same fixtures as the other browser tests: one Chromium, a fresh server per test.
browser = browser_tests.browser
server = browser_tests.server
page = browser_tests.page
phone_page = browser_tests.phone_page

# Fingers need tap targets at least this wide (the usual guideline for touch screens).
TAP_PX = 44


def view_of(server: Server, game: dict[str, Any], seat: int) -> dict[str, Any]:
    """The seat's view of the game, from the server (what the page was told, not its drawing)."""
    request = urllib.request.Request(
        f"{server.url}/api/games/{game['id']}/state",
        headers={"authorization": f"Bearer {game['seats'][seat]['token']}"},
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())["view"]  # type: ignore[no-any-return]


def test_phone_picks_a_figure_spot_on_a_magnified_tile(server: Server, phone_page: Page) -> None:
    page = phone_page
    # bets/04 is a bookmaker tile with five figure spots: a city, a road, two fields and the
    # office's field, crowded on a tile about 75 px wide on this screen.
    created = server.create(
        {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "random"}],
         "options": {"bets": True, "stack": ["bets/04", "base/B", "base/K"]}}
    )  # fmt: skip
    page.goto(f"{server.url}/#/play/{created['id']}/{created['seats'][0]['token']}")
    my_turn(page)
    picker = page.locator(".spot-picker")
    expect(picker).to_be_hidden()
    page.locator(".hl-legal").first.tap()
    expect(page.locator(".hl-pending")).to_be_attached()
    # The tile first (a tap on it turns it), then its figure: ✓ fixes it and opens the picker.
    expect(page.locator(".spot, .spot-mark")).to_have_count(0)
    expect(picker).to_be_hidden()
    page.locator('[data-action="confirm"]').tap()
    targets = picker.locator(".spot")
    expect(targets).to_have_count(5)
    expect(picker).to_be_visible()
    # The board's own spots only show where the figure would stand: one button per spot.
    expect(page.locator(".spot")).to_have_count(5)
    tile_px = page.locator(".hl-pending").bounding_box()
    assert tile_px and tile_px["width"] < 100  # the tile on the board is too small for fingers
    boxes = [targets.nth(i).bounding_box() for i in range(5)]
    for box in boxes:
        assert box and box["width"] >= TAP_PX and box["height"] >= TAP_PX, box
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    centres = [(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2) for b in boxes if b]
    for a, b in itertools.combinations(centres, 2):
        assert math.dist(a, b) >= TAP_PX, (a, b)  # round targets that do not overlap
    shot(page, "20-phone-spot-picker")

    # A tap on a target chooses that spot; the figure shows on the board and in the picker.
    chosen = targets.nth(1)
    location = chosen.get_attribute("data-location")
    chosen.tap()
    expect(picker.locator(".spot.selected")).to_have_attribute("data-location", location or "")
    expect(page.locator(".layer-spots .figure")).to_have_count(1)
    shot(page, "21-phone-spot-chosen")
    page.locator('[data-action="confirm"]').tap()
    expect(picker).to_be_hidden(timeout=15_000)
    expect(page.locator(".layer-figures .figure").first).to_be_attached(timeout=15_000)
    tile = next(t for t in view_of(server, created, 0)["tiles"] if t["tile"] == "bets/04")
    mine = [f for f in view_of(server, created, 0)["figures"] if f["seat"] == 0]
    assert [(f["x"], f["y"], f["location"]) for f in mine] == [(tile["x"], tile["y"], location)]


def test_france_opens_on_the_whole_map_drawn_over_the_real_country(
    server: Server, page: Page
) -> None:
    created = server.create(
        {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "greedy"}],
         "options": {"map": "france", "map_chips": True, "seed": 11}}
    )  # fmt: skip
    page.goto(f"{server.url}/#/play/{created['id']}/{created['seats'][0]['token']}")
    my_turn(page)
    # The whole map is in view, every row below the banner and clear of the zoom buttons.
    wrap = page.locator(".board-wrap").bounding_box()
    frame = page.locator(".map-edge-outer").bounding_box()
    banner = page.locator(".banner").bounding_box()
    tools = page.locator(".board-tools").bounding_box()
    assert wrap and frame and banner and tools
    assert frame["y"] >= banner["y"] + banner["height"]
    assert frame["y"] + frame["height"] <= wrap["y"] + wrap["height"]
    assert frame["x"] >= wrap["x"] and frame["x"] + frame["width"] <= tools["x"]
    assert frame["height"] > 0.8 * (wrap["height"] - banner["height"])  # as large as fits

    # France under the grid: every large city and town is on French land (the browser's own
    # hit test of the drawn outline), the sea squares off Brittany and in the Channel are not.
    france = page.locator('[data-geo="France"]')
    expect(france).to_have_count(1)
    in_france = france.evaluate(
        """(el, squares) => squares.map(([x, y]) => {
               const p = el.ownerSVGElement.createSVGPoint();
               p.x = x * 100 + 50; p.y = y * 100 + 50;
               return el.isPointInFill(p);
           })""",
        [[8, 3], [11, 9], [7, 12], [13, 4], [0, 1], [2, 8], [3, 1]],
    )
    assert in_france == [True, True, True, True, False, False, False]
    names = page.locator("[data-geo-label]").evaluate_all("els => els.map(e => e.textContent)")
    neighbours = {"Spain", "Andorra", "Italy", "Switzerland", "Germany", "Luxembourg", "Belgium"}
    seas = {"English Channel", "Atlantic Ocean", "Mediterranean Sea"}
    assert neighbours | seas | {"United Kingdom"} <= set(names)
    assert page.locator(".geo-border").count() >= 7
    shot(page, "22-france-whole-map")

    # ⤢ zooms to the played area, ▦ back to the whole map; both keep following the game.
    scale = board_scale(page)
    page.locator("[data-tool=fit]").click()
    assert board_scale(page) > scale
    page.locator("[data-tool=whole-map]").click()
    assert board_scale(page) == pytest.approx(scale)

    # In French the names are French.
    page.select_option("#language", "fr")
    expect(page.locator('[data-geo-label="Spain"]')).to_have_text("Espagne")
    expect(page.locator('[data-geo-label="English Channel"]')).to_have_text("La Manche")
    shot(page, "23-france-whole-map-fr")


def test_end_card_and_replay_chart_each_seats_score_over_the_turns(
    server: Server, page: Page
) -> None:
    # Two bots play a whole game (The Bets too); we watch as a spectator.
    created = server.create(
        {"seats": [{"kind": "bot", "bot": "greedy", "name": "Gina"},
                   {"kind": "bot", "bot": "random", "name": "Rolf"}],
         "options": {"bets": True, "seed": 5}}
    )  # fmt: skip
    page.goto(f"{server.url}/#/watch/{created['id']}")
    card = page.locator(".end-card")
    expect(card).to_be_visible(timeout=60_000)
    chart = card.locator("[data-score-chart]")
    expect(chart).to_be_visible()
    # A line per seat, ending at the seat's total in the summary.
    for seat in (0, 1):
        total = card.locator(f"[data-summary-seat='{seat}'] .total").text_content()
        line = chart.locator(f"[data-chart-seat='{seat}']")
        expect(line).to_have_attribute("data-total", total or "")
    # The points by source of each turn, from the public events the server kept, add up to the
    # same totals; hovering a turn shows its gains.
    events = view_of_spectator(server, created["id"])
    gains = turn_gains(events, 2)
    assert [sum(g[seat] for g in gains.values()) for seat in (0, 1)] == [
        int(card.locator(f"[data-summary-seat='{seat}'] .total").inner_text()) for seat in (0, 1)
    ]
    turns = [k for k in gains if k != "final"]
    busiest = max(turns, key=lambda k: sum(gains[k]))  # the turn that paid the most
    tip = chart.locator(".chart-tip")
    for key, title in ((busiest, f"Turn {busiest}"), ("final", "Final scoring")):
        chart.locator(f"[data-chart-turn='{key}']").hover()
        expect(tip).to_be_visible()
        expect(tip).to_contain_text(title)
        for seat, name in enumerate(("Gina", "Rolf")):
            expect(tip.locator(f"[data-tip-seat='{seat}']")).to_contain_text(
                f"{name} +{gains[key][seat]}"
            )
        if key == busiest:
            shot(page, "24-end-card-chart")

    # The replay shows the same chart with a cursor on the step; clicking a turn goes there.
    card.locator("[data-end=replay]").click()
    replay_chart = page.locator("[data-replay-chart] [data-score-chart]")
    expect(replay_chart).to_be_visible(timeout=15_000)
    cursor = replay_chart.locator("[data-chart-cursor]")
    expect(cursor).to_have_attribute("data-chart-cursor", "final")
    replay_chart.locator("[data-chart-turn='10']").click()
    expect(cursor).to_have_attribute("data-chart-cursor", "10")
    expect(page.locator(".banner")).to_contain_text("Step")
    shot(page, "25-replay-chart")


def view_of_spectator(server: Server, game_id: str) -> list[dict[str, Any]]:
    """The public events of a finished game, as its replay frames carry them."""
    with urllib.request.urlopen(f"{server.url}/api/games/{game_id}/replay", timeout=10) as r:
        frames = json.loads(r.read())["frames"]
    return [event for frame in frames for event in frame["events"]]


def turn_gains(events: list[dict[str, Any]], players: int) -> dict[int | str, list[int]]:
    """Points gained per turn ("final" for the final scoring) by seat."""
    gains: dict[int | str, list[int]] = {}
    for event in events:
        if event.get("type") == "score":
            key = "final" if event["reason"] == "final" else event["turn"]
            row = gains.setdefault(key, [0] * players)
            for seat, points in event["points"].items():
                row[int(seat)] += points
    return gains


# Every expansion that adds a source of points, on the map: ten columns of sources.
ALL_SOURCES = {"map": "france", "map_chips": True, "bets": True, "inns_cathedrals": True,
               "traders_builders": True}  # fmt: skip


def test_end_card_shows_every_column_and_the_total_with_every_expansion(
    server: Server, browser: Any
) -> None:
    # Four bots play a whole game with every expansion; we watch it end on a desktop and on a
    # phone. Every summary table on screen (the card over the board, the sidebar's) must lie
    # inside its panel, the Total of every seat included: no column cut off or scrolled away.
    names = ["Gina Longname", "Rolf", "Greedy bot 3", "Rita"]
    created = server.create(
        {"seats": [{"kind": "bot", "bot": "greedy" if i % 2 == 0 else "random", "name": name}
                   for i, name in enumerate(names)],
         "options": {**ALL_SOURCES, "seed": 3}}
    )  # fmt: skip
    screens = {
        "desktop": {"viewport": {"width": 1280, "height": 800}},
        "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
    }
    for screen, options in screens.items():
        with browser_tests.open_page(browser, locale="en-GB", **options) as page:
            page.goto(f"{server.url}/#/watch/{created['id']}")
            expect(page.locator(".end-card")).to_be_visible(timeout=120_000)
            expect(page.locator("[data-summary] .total")).to_have_count(len(names))
            shot(page, f"29-end-card-every-expansion-{screen}")
            page.locator("[data-summary]").scroll_into_view_if_needed()
            shot(page, f"29-end-summary-every-expansion-{screen}")
            tables = page.locator(".summary table").evaluate_all(
                """tables => tables.filter((t) => t.offsetParent !== null).map((t) => {
                    const box = t.closest(".panel").getBoundingClientRect();
                    const pad = parseFloat(getComputedStyle(t.closest(".panel")).paddingRight);
                    const right = box.right - pad;
                    return {
                        panel: t.closest(".panel").className,
                        columns: t.querySelectorAll("thead th").length,
                        overflow: t.getBoundingClientRect().right - right,
                        totals: [...t.querySelectorAll(".total")].map(
                            (c) => c.getBoundingClientRect().right - Math.min(right, innerWidth)),
                    };
                })"""
            )
            assert [t["panel"] for t in tables] == (
                ["panel summary end-card", "panel summary"] if screen == "desktop"
                else ["panel summary"]  # the phone's card keeps only the winner and the buttons
            )  # fmt: skip
            for table in tables:
                assert table["overflow"] <= 0.5, (screen, table)
                assert len(table["totals"]) == len(names), (screen, table)
                assert all(over <= 0.5 for over in table["totals"]), (screen, table)


def test_clicking_the_placed_tile_again_turns_it_and_never_places_a_figure(
    server: Server, page: Page
) -> None:
    # base/A, a monastery with a road, fits south of the start tile in three rotations; its
    # monastery's figure would stand right in the middle of the tile.
    created = server.create(
        {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "random"}],
         "options": {"stack": ["base/A", "base/U", "base/U"]}}
    )  # fmt: skip
    page.goto(f"{server.url}/#/play/{created['id']}/{created['seats'][0]['token']}")
    my_turn(page)
    preview = page.locator(".tile-preview")
    page.locator('[data-square="0,1"]').click()
    # visible, not only attached: the board draws the pending tile again as the preview answers,
    # and a box asked for while it does so is None (the element just left the page): ask again
    expect(page.locator(".hl-pending")).to_be_visible()
    box = page.locator(".hl-pending").bounding_box()
    deadline = time.monotonic() + 5
    while box is None and time.monotonic() < deadline:
        page.wait_for_timeout(50)
        box = page.locator(".hl-pending").bounding_box()
    assert box, "the pending tile was never drawn"
    middle = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    # "Click again to rotate": a click in the middle of the tile turns it, each time, and
    # never puts a figure there.
    for rotation in ("90", "270"):
        page.mouse.click(*middle)
        expect(preview).to_have_attribute("data-rotation", rotation)
        expect(page.locator(".layer-spots .figure")).to_have_count(0)
        expect(page.locator('[data-turn-step="placed"]')).to_be_attached()
    shot(page, "30-placed-tile-turns")
    # Confirmed, the tile is fixed and its spots come: the middle is the monastery's spot, and
    # the same click now places the figure there (and turns nothing).
    page.keyboard.press("Enter")
    expect(page.locator('[data-turn-step="figure"]')).to_be_attached()
    spot = page.locator('.layer-spots .spot[data-location="monastery"]')
    expect(spot).to_be_visible()
    spot_box = spot.bounding_box()
    assert spot_box
    assert spot_box["x"] <= middle[0] <= spot_box["x"] + spot_box["width"]
    assert spot_box["y"] <= middle[1] <= spot_box["y"] + spot_box["height"]
    page.mouse.click(*middle)
    expect(spot).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".layer-spots .figure")).to_have_count(1)
    expect(preview).to_have_attribute("data-rotation", "270")
    shot(page, "31-placed-tile-figure")
    page.keyboard.press("Enter")
    expect(page.locator(".layer-figures .figure")).to_have_count(1, timeout=15_000)
    view = view_of(server, created, 0)
    assert [(f["x"], f["y"], f["location"]) for f in view["figures"]] == [(0, 1, "monastery")]
    assert [t["rotation"] for t in view["tiles"] if t["tile"] == "base/A"] == [270]


# With a mouse, a figure spot's target is at least this wide on screen.
POINTER_PX = 24
FRANCE = {"map": "france", "map_chips": True, "seed": 11}


def test_france_figure_spots_are_large_enough_at_the_whole_map_with_a_mouse(
    server: Server, browser: Any
) -> None:
    created = server.create(
        {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "greedy"}],
         "options": FRANCE}
    )  # fmt: skip
    viewport = {"width": 1280, "height": 800}
    with browser_tests.open_page(browser, viewport=viewport, locale="en-GB") as page:
        page.goto(f"{server.url}/#/play/{created['id']}/{created['seats'][0]['token']}")
        my_turn(page)
        whole = board_scale(page)
        assert 2 * 10 * whole < POINTER_PX  # the whole map: a tile is far too small to point in
        page.locator(".hl-legal").first.click()
        page.keyboard.press("Enter")  # the tile is confirmed: now its figure
        spots = page.locator(".layer-spots .spot")
        # The board glides to the tile until every spot's target is large enough.
        page.wait_for_function(
            """px => {
                const spots = [...document.querySelectorAll(".layer-spots .spot")];
                return spots.length > 0 && spots.every((s) => {
                    const r = s.getBoundingClientRect();
                    return r.width >= px && r.height >= px;
                });
            }""",
            arg=POINTER_PX,
            timeout=5_000,
        )
        shot(page, "32-france-spots-zoomed")
        board = page.locator("svg.board").bounding_box()
        assert board
        for i in range(spots.count()):
            box = spots.nth(i).bounding_box()
            assert box and box["width"] >= POINTER_PX and box["height"] >= POINTER_PX, box
            # The whole box is the target, not only the dot drawn in its middle, and on screen.
            assert board["x"] <= box["x"] and box["x"] + box["width"] <= board["x"] + board["width"]
            assert (
                board["y"] <= box["y"] and box["y"] + box["height"] <= board["y"] + board["height"]
            )
        target = spots.first
        box = target.bounding_box()
        assert box
        page.mouse.click(box["x"] + box["width"] * 0.9, box["y"] + box["height"] / 2)
        expect(target).to_have_attribute("aria-pressed", "true")
        expect(page.locator(".layer-spots .figure")).to_have_count(1)
        # Sent, the turn leaves the tile: the view is the whole map again.
        page.keyboard.press("Enter")
        expect(page.locator(".layer-figures .figure")).not_to_have_count(0, timeout=15_000)
        page.wait_for_function(
            "scale => Math.abs(Number(document.querySelector('svg.board > g')"
            ".getAttribute('transform').split('scale(')[1].slice(0, -1)) - scale) < 1e-6",
            arg=whole,
            timeout=5_000,
        )
        shot(page, "33-france-back-to-whole-map")


def test_france_figure_spots_are_large_enough_at_the_whole_map_by_finger(
    server: Server, phone_page: Page
) -> None:
    page = phone_page
    created = server.create(
        {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "greedy"}],
         "options": FRANCE}
    )  # fmt: skip
    page.goto(f"{server.url}/#/play/{created['id']}/{created['seats'][0]['token']}")
    my_turn(page)
    page.locator("[data-tool=whole-map]").tap()  # the player asks for the whole map
    assert 100 * board_scale(page) < TAP_PX
    page.locator(".hl-legal").first.tap()
    page.locator('[data-action="confirm"]').tap()
    targets = page.locator(".spot-picker .spot")
    expect(targets.first).to_be_visible()
    # On the board itself nothing is a target: the spots there only show where they are.
    expect(page.locator(".layer-spots .spot")).to_have_count(0)
    shot(page, "34-france-phone-picker")
    for i in range(targets.count()):
        box = targets.nth(i).bounding_box()
        assert box and box["width"] >= TAP_PX and box["height"] >= TAP_PX, box
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    targets.first.tap()
    expect(targets.first).to_have_attribute("aria-pressed", "true")
    page.locator('[data-action="confirm"]').tap()
    expect(page.locator(".layer-figures .figure")).not_to_have_count(0, timeout=15_000)


# A board square on a phone never shrinks below this by itself (px).
PLAYABLE_PX = 40


def test_phone_keeps_a_playable_square_size_and_the_player_pans(
    server: Server, phone_page: Page
) -> None:
    page = phone_page
    created = server.create(
        {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "random"}],
         "options": {"seed": 4}}
    )  # fmt: skip
    page.goto(f"{server.url}/#/play/{created['id']}/{created['seats'][0]['token']}")
    in_view = """els => {
        const b = document.querySelector("svg.board").getBoundingClientRect();
        return els.map((e) => {
            const r = e.getBoundingClientRect();
            return r.left >= b.left && r.top >= b.top && r.right <= b.right && r.bottom <= b.bottom;
        });
    }"""
    for turn in range(12):  # twelve turns each: the start tile and 24 more
        my_turn(page)
        # The newest tile (the bot's) and some square to play on are on screen.
        tiles = view_of(server, created, 0)["tiles"]
        newest = max(tiles, key=lambda t: t["turn"])
        at = f'[data-tile-at="{newest["x"]},{newest["y"]}"]'
        assert page.locator(at).evaluate_all(in_view) == [True], (turn, newest)
        shown = page.locator(".hl-legal, .hl-other").evaluate_all(in_view)
        assert any(shown), turn
        assert 100 * board_scale(page) >= PLAYABLE_PX, (turn, board_scale(page))
        index = shown.index(True)
        page.locator(".hl-legal, .hl-other").nth(index).tap()
        browser_tests.confirm_turn(page, tap=True)
    my_turn(page)
    expect(page.locator(".layer-tiles > g")).to_have_count(25)
    assert 100 * board_scale(page) >= PLAYABLE_PX
    shot(page, "35-phone-playable-size")

    # One finger drags the board, the scale stays.
    cdp = page.context.new_cdp_session(page)
    board = page.locator("svg.board").bounding_box()
    assert board
    transform = page.locator("svg.board > g").first.get_attribute("transform") or ""
    x, y = (board["x"] + board["width"] / 2, board["y"] + board["height"] / 2)
    scale = board_scale(page)

    def finger(kind: str, dx: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x + dx, "y": y, "id": 0}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    finger("touchStart", 0)
    for dx in (20, 40, 60, 80):
        finger("touchMove", dx)
    finger("touchEnd", 0)
    moved = page.locator("svg.board > g").first.get_attribute("transform") or ""
    assert moved != transform
    assert board_scale(page) == pytest.approx(scale)
    before_x = float(transform.split("translate(")[1].split()[0])
    after_x = float(moved.split("translate(")[1].split()[0])
    assert after_x - before_x == pytest.approx(80, abs=1)
    shot(page, "36-phone-panned")
