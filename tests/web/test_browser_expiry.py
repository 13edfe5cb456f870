"""A game that ended unfinished, as its players' browsers show it (issue 22: games nobody took
up now end after minutes, with a longer reason than before)."""

from __future__ import annotations

import test_browser as browser_tests
from playwright.sync_api import Page, expect
from test_browser import Server, shot

from carcassonne.web.sqlitestorage import SqliteStorage

# The same fixtures as the other browser tests: one Chromium, a fresh server per test.
browser = browser_tests.browser
server = browser_tests.server
phone_page = browser_tests.phone_page

HUMANS = {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}]}
REASON = "it expired: nobody joined it or moved for 15 minutes"


def test_an_expired_game_keeps_a_phone_page_as_wide_as_the_phone(
    server: Server, phone_page: Page
) -> None:
    """The banner naming why the game ended made the page wider than a 390 px phone (the
    board and the panels slid off the screen); it wraps on a narrow screen instead."""
    game = server.create(HUMANS)
    server.stop()
    storage = SqliteStorage(server.db)
    storage.expire([game["id"]], REASON)
    storage.close()
    server.start()
    phone_page.goto(f"{server.url}/#/play/{game['id']}/{game['seats'][0]['token']}")
    expect(phone_page.locator(".banner")).to_contain_text("nobody joined it")
    shot(phone_page, "expired-phone")
    assert phone_page.evaluate("document.documentElement.scrollWidth") <= 390
    # and the whole reason can be read: the banner wraps rather than cutting it off
    banner = phone_page.locator(".banner")
    assert banner.evaluate("b => b.scrollWidth <= b.clientWidth")
    assert REASON in banner.inner_text()
