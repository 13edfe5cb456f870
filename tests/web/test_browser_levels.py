"""The ladder in the browser (issue 26, item 1): the lobby offers the levels first, weakest
first, and a game against the level picked is played."""

from __future__ import annotations

import test_browser as browser_tests
from playwright.sync_api import Page, expect
from test_browser import Server, create_from_lobby, my_turn, place_anywhere, shot

from carcassonne.bots.levels import LEVEL_NAMES

# The same fixtures as the other browser tests: one Chromium, a fresh server per test.
browser = browser_tests.browser
server = browser_tests.server
page = browser_tests.page


def test_the_lobby_offers_the_levels_first_and_a_level_is_played(
    server: Server, page: Page
) -> None:
    page.goto(server.url + "/")
    kind = page.locator("select[name=kind-1]")
    levels = kind.locator("optgroup").first
    expect(levels).to_have_attribute("label", "Levels (weakest first)")
    expect(levels.locator("option")).to_have_text(
        ["Beginner", "Casual player", "Intermediate", "Strong player", "Master"]
    )
    values = kind.locator("option").evaluate_all("options => options.map(o => o.value)")
    # a person, a seat left open, then the levels before the bots
    assert values[:2] == ["human", "open"]
    assert values[2 : 2 + len(LEVEL_NAMES)] == [f"bot:{name}" for name in LEVEL_NAMES]
    kind.select_option("bot:casual")
    expect(page.locator("select[name=think-1]")).to_have_count(0)  # the level's own budget
    page.fill("input[name=seed]", "42")
    created = create_from_lobby(page, server)
    assert [seat["bot"] for seat in created["seats"]] == [None, "casual"]
    page.click("[data-play]")
    my_turn(page)
    expect(page.locator(".scores")).to_contain_text("Casual player")
    place_anywhere(page)
    # the casual player answers; then it is our turn again with three tiles on the board
    expect(page.locator(".layer-tiles > g")).to_have_count(3, timeout=15_000)
    my_turn(page)
    place_anywhere(page)
    expect(page.locator(".layer-tiles > g")).to_have_count(5, timeout=15_000)
    shot(page, "level-casual")
