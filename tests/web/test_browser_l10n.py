"""The page in French and Romanian, on a phone, and a newcomer's first game (issue 21, items 10
and 11), in Chromium against a real server.

The server's errors are worded in the page's language (a bad option in the lobby, an illegal
move); "Your games" names the bots in the page's language, dates as that language does and lists
a game once with every seat the browser holds; a touch screen is told to tap, not click; the
lobby's default opponent is the greedy bot.
"""

from __future__ import annotations

import json
import re
import urllib.error
from typing import Any

import pytest
import test_browser as browser_tests
from playwright.sync_api import Browser, Page, Route, WebSocketRoute, expect
from test_browser import Server, my_turn, open_page, shot

# The same fixtures as the other browser tests: one Chromium, a fresh server per test.
browser = browser_tests.browser
server = browser_tests.server
page = browser_tests.page

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
DESKTOP = {"viewport": {"width": 1400, "height": 900}}
GREEDY_GAME = {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "greedy"}]}


def in_language(page: Page, lang: str) -> None:
    """Every page of this context opens in ``lang`` (the language switch's saved choice)."""
    page.add_init_script(f"localStorage.setItem('carcassonne.lang', {json.dumps(lang)})")


# ------------------------------------------------------------------------------ server errors


def too_slow_a_bot(route: Route) -> None:
    """Sends the lobby's new game with a think time no server accepts (as a page of another
    version might)."""
    body = json.loads(route.request.post_data or "{}")
    body["seats"][1] = {"kind": "bot", "bot": "expert:seconds=9"}
    route.continue_(post_data=json.dumps(body))


@pytest.mark.parametrize(
    ("lang", "refusal"),
    [
        ("fr", "Place 2 : un robot réfléchit de 0,1 à 2 secondes par coup."),
        ("ro", "Locul 2: un bot se gândește între 0,1 și 2 secunde pe mutare."),
    ],
)
def test_a_bad_lobby_option_is_refused_in_the_pages_language(
    server: Server, browser: Browser, lang: str, refusal: str
) -> None:
    with open_page(browser, **DESKTOP, locale="en-US") as page:
        in_language(page, lang)
        page.route("**/api/games", too_slow_a_bot)
        page.goto(server.url + "/")
        page.click("[data-create]")
        expect(page.locator(".error-box")).to_have_text(refusal)
        shot(page, f"l10n-lobby-error-{lang}")


@pytest.mark.parametrize(
    ("lang", "refusal"),
    [
        ("fr", r"Trop de requêtes \(au plus \d+ par minute\) ; réessayez dans \d+ s\."),
        ("ro", r"Prea multe cereri \(cel mult \d+ pe minut\); încearcă din nou peste \d+ s\."),
    ],
)
def test_the_rate_limit_is_told_in_the_pages_language(
    server: Server, browser: Browser, lang: str, refusal: str
) -> None:
    with open_page(browser, **DESKTOP, locale="en-US") as page:
        in_language(page, lang)
        page.goto(server.url + "/")
        with pytest.raises(urllib.error.HTTPError) as limited:
            for _ in range(100):  # new games from this address until the server says to wait
                server.create(GREEDY_GAME)
        assert limited.value.code == 429
        page.click("[data-create]")
        expect(page.locator(".error-box")).to_have_text(re.compile(f"^{refusal}$"))


def far_from_every_tile(route: WebSocketRoute) -> None:
    """Passes the page's messages on to the server, its tile placed 5 squares further east:
    a placement the page would never send, which the engine refuses."""
    to_server = route.connect_to_server()

    def tamper(message: str | bytes) -> None:
        data = json.loads(message)
        if data.get("type") in ("act", "preview") and data.get("actions"):
            data["actions"][0]["x"] += 5
        if data.get("type") == "preview":
            data["action"]["x"] += 5
        to_server.send(json.dumps(data))

    route.on_message(tamper)


@pytest.mark.parametrize(
    ("lang", "refusal"),
    [
        ("fr", r"La case \([-−]?\d+, [-−]?\d+\) ne touche aucune tuile posée\."),
        ("ro", r"Pătratul \([-−]?\d+, [-−]?\d+\) nu atinge nicio piesă așezată\."),
    ],
)
def test_an_illegal_move_is_refused_in_the_pages_language(
    server: Server, browser: Browser, lang: str, refusal: str
) -> None:
    created = server.create(GREEDY_GAME)
    with open_page(browser, **DESKTOP, locale="en-US") as page:
        in_language(page, lang)
        page.route_web_socket(re.compile(r"/ws/"), far_from_every_tile)
        page.goto(f"{server.url}/#/play/{created['id']}/{created['seats'][0]['token']}")
        my_turn(page)
        page.locator(".hl-legal").first.click()
        page.click('[data-action="confirm"]')
        toast = page.locator(".toast")
        expect(toast).to_be_visible()
        expect(toast).to_have_text(re.compile(f"^{refusal}$"))
        shot(page, f"l10n-illegal-{lang}")


# ------------------------------------------------------------------------------ your games


def test_your_games_in_romanian_names_the_bots_dates_day_first_and_lists_a_game_once(
    server: Server, browser: Browser
) -> None:
    with open_page(browser, **DESKTOP, locale="en-US") as page:
        page.goto(server.url + "/")
        page.click("[data-create]")  # the default: a human and the greedy bot
        expect(page.locator("[data-created]")).to_be_visible()
        page.get_by_role("button", name="New game").click()
        page.select_option("select[name=kind-1]", "human")  # two humans, each with a link
        page.click("[data-create]")
        expect(page.locator("[data-created] [data-open-seat]")).to_have_count(2)
        # created in English, read in Romanian
        page.select_option("#language", "ro")
        games = page.locator("[data-game]")
        expect(games).to_have_count(2)
        humans, bot = games.nth(0), games.nth(1)
        expect(bot).to_contain_text("Jucătorul 1 · Bot lacom")
        expect(humans).to_contain_text("ca Jucătorul 1, Jucătorul 2")
        expect(humans.locator("[data-continue]")).to_have_text(
            ["Continuă ca Jucătorul 1", "Continuă ca Jucătorul 2"]
        )
        day_first = re.compile(r"^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2} · ca Jucătorul 1$")
        expect(bot.locator("small")).to_have_text(day_first)
        shot(page, "l10n-your-games-ro")
        # opening a seat's link keeps the one entry, and its name stays in the page's language
        humans.locator("[data-continue]").nth(1).click()
        expect(page.locator(".scores")).to_contain_text("Jucătorul 2")
        page.goto(server.url + "/")
        expect(games).to_have_count(2)
        expect(games.nth(0)).to_contain_text("ca Jucătorul 1, Jucătorul 2")


def test_your_games_in_french_elides_que_before_a_vowel(server: Server, browser: Browser) -> None:
    # "en tant que Ana" is "en tant qu'Ana"; before a consonant or an h (mute or not, the
    # spelling cannot tell) "que" stays.
    with open_page(browser, **DESKTOP, locale="en-US") as page:
        in_language(page, "fr")
        page.goto(server.url + "/")
        page.fill("input[name=name-0]", "Ana")
        page.select_option("select[name=kind-1]", "human")
        page.fill("input[name=name-1]", "Hugo")
        page.click("[data-create]")
        expect(page.locator("[data-created] [data-open-seat]")).to_have_count(2)
        game = page.locator("[data-game]")
        expect(game.locator("small")).to_contain_text("en tant qu'Ana, Hugo")
        expect(game.locator("[data-continue]")).to_have_text(
            ["Continuer en tant qu'Ana", "Continuer en tant que Hugo"]
        )
        shot(page, "l10n-your-games-fr-elision")


def test_your_games_lists_a_games_seats_in_seat_order_after_playing_the_first(
    server: Server, browser: Browser
) -> None:
    # Opening the first seat's link moved it to the end: "as Player 2, Player 1".
    with open_page(browser, **DESKTOP, locale="en-GB") as page:
        page.goto(server.url + "/")
        page.select_option("select[name=kind-1]", "human")
        page.click("[data-create]")
        expect(page.locator("[data-created] [data-open-seat]")).to_have_count(2)
        page.locator('[data-created] [data-open-seat="0"]').click()
        my_turn(page)
        page.goto(server.url + "/")
        game = page.locator("[data-game]")
        expect(game).to_have_count(1)
        expect(game.locator("small")).to_contain_text("as Player 1, Player 2")
        expect(game.locator("[data-continue]")).to_have_text(
            ["Continue as Player 1", "Continue as Player 2"]
        )


@pytest.mark.parametrize("lang", ["en", "ro"])
def test_the_seat_links_fit_a_phone(server: Server, browser: Browser, lang: str) -> None:
    # In Romanian the link box shrank to a sliver and "Deschide" stuck out of the card.
    with open_page(browser, **PHONE, locale="en-GB") as page:
        in_language(page, lang)
        page.goto(server.url + "/")
        page.select_option("select[name=kind-1]", "human")
        page.click("[data-create]")
        rows = page.locator("[data-created] .link-row")
        expect(rows).to_have_count(3)  # two seats and the spectators
        card = page.locator("[data-created]").bounding_box()
        assert card
        for i in range(3):
            box = rows.nth(i).locator("input").bounding_box()
            assert box and box["width"] >= 200, (i, box)
            for button in rows.nth(i).locator("button, a").all():
                edge = button.bounding_box()
                assert edge and edge["x"] + edge["width"] <= card["x"] + card["width"], (i, edge)
        shot(page, f"l10n-seat-links-phone-{lang}")


def test_a_long_game_over_banner_does_not_widen_a_phone_page(
    server: Server, browser: Browser
) -> None:
    # "Partie terminée — vainqueur : Robot glouton" is one line 442 px long: the page grew to
    # 466 px, and on a 390 px phone the end card and the final table were cut off at the right.
    # Long names make the banner longer than the phone whoever wins.
    names = ["Marie-Bernadette Dupont", "Jean-Christophe Durand"]
    created = server.create(
        {"seats": [{"kind": "bot", "bot": "greedy", "name": name} for name in names],
         "options": {"stack": ["base/E", "base/U", "base/V"]}}
    )  # fmt: skip
    with open_page(browser, **PHONE, locale="en-GB") as page:
        in_language(page, "fr")
        page.goto(f"{server.url}/#/watch/{created['id']}")
        expect(page.locator(".banner")).to_have_text(
            re.compile("^Partie terminée — vainqueur : (Marie|Jean)"), timeout=15_000
        )
        assert page.evaluate("document.documentElement.scrollWidth") == 390
        assert page.evaluate("innerWidth") == 390
        card = page.locator(".end-card").bounding_box()
        assert card and card["x"] >= 0 and card["x"] + card["width"] <= 390
        shot(page, "l10n-game-over-phone-fr")


def test_a_phones_replay_has_no_key_hints(server: Server, browser: Browser) -> None:
    # The replay told a touch screen "← → step, space plays.", keys it does not have.
    created = server.create(
        {"seats": [{"kind": "bot", "bot": "greedy"}, {"kind": "bot", "bot": "random"}],
         "options": {"stack": ["base/E", "base/U"]}}
    )  # fmt: skip
    for options, shown in ((PHONE, False), (DESKTOP, True)):
        with open_page(browser, **options, locale="en-GB") as page:
            page.goto(f"{server.url}/#/watch/{created['id']}")
            expect(page.locator("[data-summary]").first).to_be_attached(timeout=15_000)
            page.goto(f"{server.url}/#/replay/{created['id']}")
            expect(page.locator('[data-step="back"]')).to_be_visible()
            hint = page.get_by_text("← → step, space plays.")
            if shown:
                expect(hint).to_be_visible()
            else:
                expect(hint).to_be_hidden()


# ------------------------------------------------------------------------------ tap, not click


@pytest.mark.parametrize(
    ("lang", "tap", "click"),
    [("en", "Tap", "Click"), ("fr", "Touchez", "Cliquez"), ("ro", "Atinge", "Dă clic")],
)
def test_a_touch_screen_is_told_to_tap(
    server: Server, browser: Browser, lang: str, tap: str, click: str
) -> None:
    created = server.create(GREEDY_GAME)
    link = f"{server.url}/#/play/{created['id']}/{created['seats'][0]['token']}"
    hint = ".turn-hint:not(.key-hints)"
    options: dict[str, Any]
    for options, word, other in ((PHONE, tap, click), (DESKTOP, click, tap)):
        with open_page(browser, **options, locale="en-US") as page:
            in_language(page, lang)
            page.goto(link)
            my_turn(page)
            expect(page.locator(hint).first).to_have_text(re.compile(f"^{word} "))
            expect(page.locator(hint).first).not_to_contain_text(re.compile(other, re.I))
            page.locator(".hl-legal").first.click()  # the figure step says it too
            expect(page.locator(hint).first).to_contain_text(re.compile(word, re.I))
            expect(page.locator(hint).first).not_to_contain_text(re.compile(other, re.I))
            if options is PHONE:
                shot(page, f"l10n-phone-tap-{lang}")


# ------------------------------------------------------------------------------ the first game


def test_the_lobbys_default_opponent_is_the_greedy_bot(server: Server, page: Page) -> None:
    page.goto(server.url + "/")
    expect(page.locator("select[name=kind-1]")).to_have_value("bot:greedy")
    page.get_by_role("button", name="+ Add a seat").click()
    expect(page.locator("select[name=kind-2]")).to_have_value("bot:greedy")
    page.get_by_role("button", name="Remove this seat").last.click()
    page.click("[data-create]")
    page.click("[data-play]")
    my_turn(page)
    expect(page.locator(".scores")).to_contain_text("Greedy bot")
