"""The information aids in the browser (issue 25): with aids on, the tiles left by kind are drawn
with their counts and follow the game; a "no aids" table shows none of them, on a desktop and on
a 390 px phone."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

import pytest
import test_browser as browser_tests
from playwright.sync_api import Browser, Page, expect
from test_browser import Server, open_page, place_anywhere, shot

browser = browser_tests.browser
server = browser_tests.server

VIEWPORTS = {
    "desktop": {"viewport": {"width": 1400, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}


def _remaining(page: Page) -> dict[str, int]:
    counts: dict[str, int] = {}
    for item in page.locator("[data-remaining]").all():
        text = item.locator(".aids-count").inner_text()
        counts[str(item.get_attribute("data-remaining"))] = int(text.lstrip("×"))
    return counts


def _open_game(server: Server, page: Page, table: dict[str, Any] | None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "random"}],
        "options": {"seed": 5},
    }
    if table is not None:
        body["table"] = table
    game = server.create(body)
    page.goto(f"{server.url}/#/play/{game['id']}/{game['seats'][0]['token']}")
    return game


@pytest.mark.parametrize("device", VIEWPORTS)
def test_the_aids_show_the_tiles_left_by_kind(
    server: Server, browser: Browser, device: str
) -> None:
    with open_page(browser, locale="en-GB", **VIEWPORTS[device]) as page:
        _open_game(server, page, None)
        panel = page.locator(".aids-panel")
        expect(panel).to_be_attached(timeout=15_000)
        expect(panel.locator("h3")).to_have_text("Tiles left by kind")
        before = _remaining(page)
        assert sum(before.values()) == 70  # 72 tiles: the start tile and the one in hand out
        tiles_left = page.locator("[data-tiles-left]").first.get_attribute("data-tiles-left")
        assert tiles_left == "70"
        panel.scroll_into_view_if_needed()
        shot(page, f"aids-on-{device}")
        if device == "desktop":
            place_anywhere(page)
            # our tile and the bot's are gone from the counts: 68 left when our turn comes back
            expect(page.locator(".layer-tiles > g")).to_have_count(3, timeout=15_000)
            expect(page.locator("[data-tiles-left]").first).to_have_attribute(
                "data-tiles-left", "68", timeout=15_000
            )
            assert sum(_remaining(page).values()) == 68


@pytest.mark.parametrize("device", VIEWPORTS)
def test_a_no_aids_table_shows_none(server: Server, browser: Browser, device: str) -> None:
    with open_page(browser, locale="en-GB", **VIEWPORTS[device]) as page:
        states: list[Any] = []
        page.on(
            "websocket",
            lambda ws: ws.on("framereceived", lambda frame: states.append(frame)),
        )
        _open_game(server, page, {"aids": False})
        expect(page.locator("[data-tiles-left]").first).to_be_attached(timeout=15_000)
        expect(page.locator(".aids-panel")).to_have_count(0)
        expect(page.locator("[data-remaining], .aids-hole, [data-feature-tip]")).to_have_count(0)
        assert states and not any(re.search(r'"aids":\s*\{', str(frame)) for frame in states)
        shot(page, f"aids-off-{device}")


def _call(url: str, token: str, body: dict[str, Any] | None = None, path: str = "state") -> Any:
    """A seat's GET of the state, or POST of actions when ``body`` is given."""
    request = urllib.request.Request(
        f"{url}/{path}",
        data=None if body is None else json.dumps(body).encode(),
        headers={"content-type": "application/json", "authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())


def test_the_squares_no_remaining_tile_fits_are_crossed_out(
    server: Server, browser: Browser
) -> None:
    """Seed 1 played by the first legal action each time leaves, after some 30 actions, square
    (1, -1) open with no tile left to fit it (found with the engine); the page crosses it."""
    game = server.create({"seats": [{"kind": "human"}, {"kind": "human"}], "options": {"seed": 1}})
    url = f"{server.url}/api/games/{game['id']}"
    tokens = [seat["token"] for seat in game["seats"]]
    state = _call(url, tokens[0])
    while not state["aids"]["unfillable"]:
        seat = state["view"]["to_move"]
        action = state["view"]["legal_actions"] if state["perspective"] == seat else None
        if action is None:
            state = _call(url, tokens[seat])
            continue
        body = {"actions": [action[0]], "ply": state["ply"]}
        state = _call(url, tokens[seat], body, "actions")
    assert state["aids"]["unfillable"] == [{"x": 1, "y": -1}]
    seat = state["view"]["to_move"]
    with open_page(browser, locale="en-GB", viewport={"width": 1400, "height": 900}) as page:
        page.goto(f"{server.url}/#/play/{game['id']}/{tokens[seat]}")
        hole = page.locator(".aids-hole")
        expect(hole).to_have_count(1, timeout=15_000)
        expect(hole).to_have_attribute("data-hole", "1,-1")
        assert hole.locator("title").text_content() == "No remaining tile fits (1, -1)"
        # the start square's unfinished features, with what each would score now
        names = {"city": "City", "road": "Road", "monastery": "Monastery"}
        at_start = [f for f in state["aids"]["features"] if {"x": 0, "y": 0} in f["squares"]]
        assert at_start
        words = " · ".join(f"{names[f['kind']]}: {f['points']} points now" for f in at_start)
        words = words.replace(": 1 points", ": 1 point")
        tip = page.locator('[data-feature-tip="0,0"]')
        assert tip.locator("title").text_content() == words
        tip.hover()
        lit = sum(len(f["squares"]) for f in at_start)
        expect(page.locator(".layer-tip-marks .hl-feature")).to_have_count(lit)
        shot(page, "aids-hole-desktop")
