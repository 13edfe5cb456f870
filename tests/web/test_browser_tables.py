"""Tables that always finish, as two players see them in two browsers (issue 24): the tab says
whose turn it is, the clocks tick, a seat changes hands, a player resigns."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import test_browser as browser_tests
from playwright.sync_api import Browser, Page, expect
from test_browser import Server, open_page, place_anywhere, shot

from carcassonne.clocks import PRESETS, TimeControl, parse

# The same fixtures as the other browser tests: one Chromium, a fresh server per test.
browser = browser_tests.browser
server = browser_tests.server

TWO_HUMANS = {
    "seats": [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}],
    "options": {"stack": ["base/E", "base/B", "base/U", "base/V", "base/K", "base/U"]},
}
TITLE = "Carcassonne"
YOUR_TURN = "● Your turn — Carcassonne"
BLUE = "%230072b2"  # seat 0's colour in the favicon's data URL

# Counts the sounds the page makes: every tone of the page is an oscillator started.
COUNT_TONES = """
window.__tones = 0;
class CountingAudio {
  constructor() { this.currentTime = 0; this.destination = {}; }
  createOscillator() {
    const start = () => { window.__tones++; };
    return { type: "", frequency: { value: 0 }, connect: (n) => n, start, stop: () => {} };
  }
  createGain() {
    return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (n) => n };
  }
  resume() {}
}
window.AudioContext = CountingAudio;
"""


@contextlib.contextmanager
def seat_page(browser: Browser, srv: Server, game: dict[str, Any], seat: int) -> Iterator[Page]:
    """Seat ``seat``'s page of ``game`` in a browser of its own (its own localStorage)."""
    with open_page(browser, viewport={"width": 1280, "height": 860}, locale="en-GB") as tab:
        tab.add_init_script(COUNT_TONES)
        tab.goto(f"{srv.url}/#/play/{game['id']}/{game['seats'][seat]['token']}")
        expect(tab.locator("[data-scores], .scores").first).to_be_visible(timeout=15_000)
        yield tab


def favicon(tab: Page) -> str:
    return tab.locator("link[rel=icon]").get_attribute("href") or ""


def tones(tab: Page) -> int:
    return int(tab.evaluate("window.__tones"))


def test_the_tab_title_icon_and_a_chime_say_whose_turn_it_is(
    server: Server, browser: Browser
) -> None:
    game = server.create(TWO_HUMANS)
    with seat_page(browser, server, game, 0) as ana, seat_page(browser, server, game, 1) as bo:
        expect(ana).to_have_title(YOUR_TURN)
        expect(bo).to_have_title(TITLE)
        assert BLUE in favicon(ana) and "circle" in favicon(ana)
        assert favicon(bo).startswith("data:image/svg+xml") and "circle" not in favicon(bo)
        assert tones(ana) == 0  # the page opened on the turn: nothing to ring
        place_anywhere(ana)
        # Ana's tab is back to normal; Bo's says it is his turn, in his colour, with a chime.
        expect(bo).to_have_title(YOUR_TURN)
        expect(ana).to_have_title(TITLE)
        assert "circle" not in favicon(ana)
        assert "circle" in favicon(bo) and "%23f0e442" in favicon(bo)
        assert tones(bo) == 2 and tones(ana) == 0
        shot(bo, "tables-your-turn")


def test_the_mute_toggle_is_remembered_and_silences_the_chime(
    server: Server, browser: Browser
) -> None:
    game = server.create(TWO_HUMANS)
    with seat_page(browser, server, game, 0) as ana, seat_page(browser, server, game, 1) as bo:
        toggle = bo.locator("[data-sound]")
        expect(toggle).to_have_attribute("data-sound", "on")
        toggle.click()
        expect(toggle).to_have_attribute("data-sound", "off")
        expect(toggle).to_have_text("♪ Sound off")
        bo.reload()
        expect(bo.locator("[data-sound]")).to_have_attribute("data-sound", "off")
        place_anywhere(ana)
        expect(bo).to_have_title(YOUR_TURN)
        assert tones(bo) == 0  # his turn came, muted
        # and sound on again is remembered too: the next turn chimes
        bo.locator("[data-sound]").click()
        bo.reload()
        expect(bo.locator("[data-sound]")).to_have_attribute("data-sound", "on")
        place_anywhere(bo)
        place_anywhere(ana)
        expect(bo).to_have_title(YOUR_TURN)
        assert tones(bo) == 2


# ------------------------------------------------------------------ the lobby's table settings


def sent_table(tab: Page, choose: dict[str, str], fields: dict[str, str] | None = None) -> Any:
    """The ``table`` the lobby sends after these choices (the request is answered here)."""
    for name, value in choose.items():
        tab.select_option(f"select[name={name}]", value)
    for name, value in (fields or {}).items():
        tab.fill(f"input[name={name}]", value)
    with tab.expect_request("**/api/games") as request:
        tab.click("[data-create]")
    return request.value.post_data_json.get("table", "absent")


def test_the_lobby_sends_each_time_control_as_the_server_reads_it(
    server: Server, browser: Browser
) -> None:
    with open_page(browser, viewport={"width": 1280, "height": 900}, locale="en-GB") as tab:
        # The lobby's request is answered here: only what the page sends is looked at.
        tab.route("**/api/games", lambda route: route.fulfill(status=400, json={"error": "x"}))
        tab.goto(server.url + "/")
        assert sent_table(tab, {}) == "absent"  # the defaults: nothing said
        for name, control in PRESETS.items():
            table = sent_table(tab, {"clock-kind": control.kind, "clock-preset": name})
            assert TimeControl.from_json(table["clock"]) == control, name
            assert (table["stand_in"], table["on_timeout"]) == ("greedy", "stand-in")
        table = sent_table(
            tab,
            {"clock-kind": "real-time", "clock-preset": "custom", "stand-in": "random",
             "on-timeout": "lose"},
            {"clock-minutes": "45", "clock-seconds": "15"},
        )  # fmt: skip
        assert TimeControl.from_json(table["clock"]) == parse("45+15")
        assert (table["stand_in"], table["on_timeout"]) == ("random", "lose")
        table = sent_table(tab, {"clock-kind": "none"})
        assert table == {"clock": {"kind": "none"}, "stand_in": "random", "on_timeout": "stand-in"}


CUSTOM_BOUNDS = (
    "A custom clock takes 1 to 180 minutes and 0 to 600 seconds per turn, in whole numbers."
)


def test_a_custom_clock_out_of_bounds_is_refused_before_sending(
    server: Server, browser: Browser
) -> None:
    with open_page(browser, viewport={"width": 1280, "height": 900}, locale="en-GB") as tab:
        sent: list[str] = []
        tab.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
        tab.goto(server.url + "/")
        tab.select_option("select[name=clock-kind]", "real-time")
        tab.select_option("select[name=clock-preset]", "custom")
        for minutes, seconds in (("0", "10"), ("181", "0"), ("10", "601"), ("2.5", "0")):
            tab.fill("input[name=clock-minutes]", minutes)
            tab.fill("input[name=clock-seconds]", seconds)
            tab.click("[data-create]")
            expect(tab.locator(".error-box")).to_have_text(CUSTOM_BOUNDS)
        assert sent == []
