"""Play again in two browsers (issue 25, item 3): two players finish a short game, one presses
"Play again" and lands in the new game, the other is offered it ("Ana wants to play again") and
joins with one click; both sit as the rotated seats (the second player starts), on their old
links' tokens. One of them plays on a 390 px phone; a spectator is offered to watch it."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

import test_browser as browser_tests
from playwright.sync_api import Browser, Page, expect
from test_browser import Server, open_page, place_anywhere, shot

# The same fixtures as the other browser tests: one Chromium, a fresh server per test.
browser = browser_tests.browser
server = browser_tests.server

#: two tiles: one turn each, then the game is over
TWO_TURNS = {
    "seats": [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}],
    "options": {"stack": ["base/E", "base/U"]},
}
DESKTOP = {"viewport": {"width": 1280, "height": 860}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


@contextlib.contextmanager
def seat_page(browser: Browser, url: str, locale: str, **options: Any) -> Iterator[Page]:
    with open_page(browser, locale=locale, **options) as tab:
        tab.goto(url)
        expect(tab.locator(".banner")).not_to_have_text("Connecting…", timeout=15_000)
        yield tab


def test_two_browsers_finish_and_play_again_with_one_click_each(
    server: Server, browser: Browser
) -> None:
    game = server.create(TWO_TURNS)
    ana_token, bo_token = (s["token"] for s in game["seats"])
    play = f"{server.url}/#/play/{game['id']}/"
    with (
        seat_page(browser, play + ana_token, "en-GB", **DESKTOP) as ana,
        seat_page(browser, play + bo_token, "fr-FR", **PHONE) as bo,
        seat_page(browser, f"{server.url}/#/watch/{game['id']}", "en-GB", **DESKTOP) as watcher,
    ):
        place_anywhere(ana)
        place_anywhere(bo)
        for tab in (ana, bo):
            expect(tab.locator(".end-card")).to_be_visible(timeout=15_000)
        shot(ana, "rematch-end-card")
        ana.locator(".end-card [data-end=rematch]").click()
        # Ana lands in the new game at once, on her own token
        expect(ana).to_have_url(
            re.compile(rf"/#/play/(?!{game['id']}/)[\w-]+/{re.escape(ana_token)}$")
        )
        new_id = ana.url.split("/#/play/")[1].split("/")[0]
        offer = bo.locator(".end-card .rematch-offer")
        expect(offer).to_contain_text("Ana veut rejouer")
        shot(bo, "rematch-offer-phone")
        offer.locator("[data-end=rematch-join]").click()
        expect(bo).to_have_url(f"{server.url}/#/play/{new_id}/{bo_token}")
        # a spectator is offered to watch it
        watcher.locator(".end-card [data-end=rematch-watch]").click()
        expect(watcher).to_have_url(f"{server.url}/#/watch/{new_id}")
        # the seats are rotated: Bo (the second player) starts, then Ana
        place_anywhere(bo)
        place_anywhere(ana)
        shot(ana, "rematch-new-game")
        for tab in (ana, bo):  # the second game is over too, and may be played again
            expect(tab.locator(".end-card [data-end=rematch]")).to_be_visible(timeout=15_000)
