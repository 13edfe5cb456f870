"""Open tables in two browsers (issue 25, item 1): a creator leaves a seat open and lists the
table; a stranger finds it on the open tables page, takes the seat with a name, and both play a
move; the game's link invites too; a name made of markup shows as text in the list."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import test_browser as browser_tests
from playwright.sync_api import Browser, Page, expect
from test_browser import Server, open_page, place_anywhere, shot

# The same fixtures as the other browser tests: one Chromium, a fresh server per test.
browser = browser_tests.browser
server = browser_tests.server
page = browser_tests.page

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
#: a seat name (24 characters at most) that would run in the page if it were put in as markup
SCRIPTED_NAME = "<img src=x onerror=p=1>"


def public_setup(server: Server, game_id: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server.url}/api/games/{game_id}", timeout=5) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def ply(server: Server, game_id: str) -> int:
    with urllib.request.urlopen(f"{server.url}/api/games/{game_id}/state", timeout=5) as answer:
        return int(json.loads(answer.read())["ply"])


def test_two_strangers_meet_through_the_list_and_play_a_move_each(
    server: Server, browser: Browser
) -> None:
    with (
        open_page(browser, viewport={"width": 1400, "height": 900}, locale="en-GB") as ana,
        open_page(browser, locale="en-GB", **PHONE) as bo,
    ):
        ana.goto(server.url + "/")
        ana.fill("input[name='name-0']", "Ana")
        expect(ana.locator("input[name='listed']")).to_be_disabled()  # no open seat yet
        ana.select_option("select[name='kind-1']", "open")
        expect(ana.locator("input[name='name-1']")).to_have_count(0)
        expect(ana.locator("input[name='hotseat']")).to_be_disabled()
        ana.check("input[name='listed']")
        shot(ana, "open-tables-lobby")
        ana.click("[data-create]")
        created = ana.locator("[data-created]")
        expect(created).to_be_visible()
        game_id = created.get_attribute("data-created")
        assert game_id
        ana.click("[data-play]")
        waiting = ana.locator("[data-waiting]")
        expect(waiting).to_have_attribute("data-waiting", "1")
        expect(waiting).to_contain_text("Seat 2")
        invite = waiting.locator("input")
        expect(invite).to_have_value(f"{server.url}/#/watch/{game_id}")
        expect(ana.locator(".hl-legal")).to_have_count(0)  # nobody moves while a seat is open
        shot(ana, "open-tables-waiting")

        bo.goto(server.url + "/")
        bo.click("a[href='#/tables']")
        table = bo.locator(f"[data-table='{game_id}']")
        expect(table).to_contain_text("Ana")
        expect(table).to_contain_text("Open seat")
        expect(table).to_contain_text("Base game")
        table.locator("[data-join='1']").tap()
        table.locator("input[name='join-name']").fill("Bo")
        shot(bo, "open-tables-list-phone")
        assert bo.evaluate("document.documentElement.scrollWidth") <= 390  # fits the phone
        table.locator("[data-take-seat='1']").tap()
        bo.wait_for_url(f"**/#/play/{game_id}/**")
        expect(bo.locator("[data-waiting]")).to_have_count(0)

        # Ana's page hears the seat taken: the game starts, with Bo's name on it
        expect(ana.locator("[data-waiting]")).to_have_count(0)
        expect(ana.locator(".sidebar")).to_contain_text("Bo")
        shot(ana, "open-tables-started")
        place_anywhere(ana)
        expect(bo.locator(".hl-legal").first).to_be_attached(timeout=15_000)
        shot(bo, "open-tables-game-phone")
        place_anywhere(bo)
        expect(ana.locator(".hl-legal").first).to_be_attached(timeout=15_000)
        assert ply(server, game_id) >= 2
        seats = public_setup(server, game_id)["seats"]
        assert [(s["kind"], s["name"]) for s in seats] == [("human", "Ana"), ("human", "Bo")]
        # the seat taken is remembered in Bo's browser like a creator's link
        bo.goto(server.url + "/")
        expect(bo.locator(f"[data-game='{game_id}'] [data-continue='1']")).to_be_visible()
        # a table full leaves the list
        bo.goto(server.url + "/#/tables")
        expect(bo.locator("[data-no-tables]")).to_be_visible()


def test_the_games_link_invites_a_player_to_its_open_seat(server: Server, browser: Browser) -> None:
    created = server.create(
        {
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "open"}],
            "options": {"stack": ["base/E", "base/U"]},
        }
    )
    game_id = created["id"]
    with open_page(browser, locale="fr-FR", **PHONE) as guest:
        guest.goto(f"{server.url}/#/watch/{game_id}")
        waiting = guest.locator("[data-waiting]")
        expect(waiting).to_contain_text("En attente de joueurs")
        waiting.locator("input[name='join-name']").fill("Chloé")
        shot(guest, "open-tables-invited-phone")
        waiting.locator("[data-take-seat='1']").tap()
        guest.wait_for_url(f"**/#/play/{game_id}/**")
        expect(guest.locator("[data-waiting]")).to_have_count(0)
        expect(guest.locator(".sidebar")).to_contain_text("Chloé")
    assert public_setup(server, game_id)["seats"][1]["name"] == "Chloé"


def test_a_name_made_of_markup_shows_as_text_in_the_list(server: Server, page: Page) -> None:
    server.create(
        {"seats": [{"kind": "human", "name": SCRIPTED_NAME}, {"kind": "open"}], "listed": True}
    )
    page.goto(server.url + "/#/tables")
    table = page.locator("[data-table]")
    expect(table).to_contain_text(SCRIPTED_NAME)
    assert table.locator("img").count() == 0
    assert page.evaluate("window.p") is None
    shot(page, "open-tables-markup-name")
