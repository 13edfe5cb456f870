"""The table's chat as two seats and a spectator see it in three browsers (issue 25, item 2):
the seats talk, the spectator's chat stays apart, a quick phrase is worded in each reader's
language, a muted seat is hidden (and stays hidden after a reload), an XSS attempt shows as
text, and the panel is usable on a 390 px phone (collapsed at first)."""

from __future__ import annotations

import contextlib
import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import test_browser as browser_tests
from playwright.sync_api import Browser, Page, expect
from test_browser import Server, open_page, shot

# The same fixtures as the other browser tests: one Chromium, a fresh server per test.
browser = browser_tests.browser
server = browser_tests.server

TWO_HUMANS = {
    "seats": [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bo"}],
    "options": {"stack": ["base/E", "base/B", "base/U", "base/V"]},
}
IMG = "<img src=x onerror=window.__pwned=1>"
LINK = '<a href="javascript:window.__pwned=2">click</a>'
DESKTOP = {"viewport": {"width": 1280, "height": 860}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


@contextlib.contextmanager
def game_page(browser: Browser, path: str, locale: str = "en-GB", **options: Any) -> Iterator[Page]:
    """The page at ``path`` in a browser of its own, once its chat panel is there."""
    with open_page(browser, locale=locale, **(options or DESKTOP)) as tab:
        tab.goto(path)
        expect(tab.locator(".chat-toggle")).to_be_visible(timeout=15_000)
        yield tab


def say(tab: Page, text: str) -> None:
    tab.locator(".chat-input").fill(text)
    tab.locator(".chat-form button[type=submit]").click()


def lines(tab: Page) -> Any:
    return tab.locator(".chat-log .chat-line")


def test_two_seats_chat_and_a_spectator_chats_apart(server: Server, browser: Browser) -> None:
    game = server.create(TWO_HUMANS)
    seat = f"{server.url}/#/play/{game['id']}/" + "{}"
    with (
        game_page(browser, seat.format(game["seats"][0]["token"])) as ana,
        game_page(browser, seat.format(game["seats"][1]["token"]), locale="fr-FR") as bo,
        game_page(browser, f"{server.url}/#/watch/{game['id']}") as watcher,
    ):
        say(ana, "Hello Bo")
        expect(lines(bo)).to_have_count(1)
        expect(lines(bo).first).to_have_text("Ana: Hello Bo")
        # a quick phrase travels as an id: each reader sees it in their own language
        bo.locator(".chat-phrases [data-phrase=gg]").click()
        expect(lines(ana).nth(1)).to_have_text("Bo: Good game")
        expect(lines(bo).nth(1)).to_have_text("Bo: Bonne partie")
        # markup is shown as text, never run
        say(ana, IMG)
        say(ana, LINK)
        expect(lines(bo)).to_have_count(4)
        expect(lines(bo).nth(2)).to_have_text(f"Ana: {IMG}")
        expect(lines(bo).nth(3)).to_have_text(f"Ana: {LINK}")
        assert bo.locator(".chat-log img, .chat-log a").count() == 0
        assert bo.evaluate("window.__pwned") is None
        # the spectators' chat is apart from the seats'
        say(watcher, "Nice start")
        expect(lines(watcher)).to_have_count(1)
        expect(lines(watcher).first).to_have_text("Spectator: Nice start")
        expect(watcher.locator(".chat")).to_have_attribute("aria-label", "Spectators' chat")
        shot(ana, "chat-desktop")
        # Bo mutes Ana: her lines are hidden on his page only, and stay so after a reload
        bo.locator(".chat-mute[data-seat='0']").click()
        expect(lines(bo)).to_have_count(1)
        expect(lines(ana)).to_have_count(4)
        bo.reload()
        expect(bo.locator(".chat-mute[data-seat='0']")).to_have_attribute("aria-pressed", "true")
        expect(lines(bo)).to_have_count(1)
        assert lines(ana).count() == 4 and lines(watcher).count() == 1  # nothing crossed over


def test_the_chat_on_a_phone_opens_from_its_button(server: Server, browser: Browser) -> None:
    game = server.create(TWO_HUMANS)
    url = f"{server.url}/#/play/{game['id']}/" + "{}"
    with (
        game_page(browser, url.format(game["seats"][0]["token"]), **PHONE) as ana,
        game_page(browser, url.format(game["seats"][1]["token"])) as bo,
    ):
        # collapsed at first on a phone: the board stays free; a line waiting is counted
        expect(ana.locator(".chat-body")).to_be_hidden()
        say(bo, "Your turn")
        expect(ana.locator(".chat-toggle")).to_have_text("Chat (1)")
        ana.locator(".chat-toggle").click()
        expect(lines(ana).first).to_have_text("Bo: Your turn")
        box = ana.locator(".chat-body").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        say(ana, "Thanks!")
        expect(lines(bo).nth(1)).to_have_text("Ana: Thanks!")
        shot(ana, "chat-phone")


def finish_over_http(url: str, game: dict[str, Any]) -> None:
    """Play the game to its end through the HTTP API, each seat its first legal action."""

    def call(path: str, token: str, body: Any = None) -> Any:
        request = urllib.request.Request(
            f"{url}/api/games/{game['id']}/{path}",
            data=None if body is None else json.dumps(body).encode(),
            headers={"authorization": f"Bearer {token}", "content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    tokens = [s["token"] for s in game["seats"]]
    state = call("state", tokens[0])
    while state["view"]["phase"] != "over":
        mover = call("state", tokens[state["view"]["to_move"]])
        body = {"actions": [mover["view"]["legal_actions"][0]], "ply": mover["ply"]}
        state = call("actions", tokens[state["view"]["to_move"]], body)


def test_the_replay_shows_the_seats_chat_as_text(server: Server, browser: Browser) -> None:
    game = server.create({**TWO_HUMANS, "options": {"stack": ["base/E", "base/U"]}})
    seat = f"{server.url}/#/play/{game['id']}/" + "{}"
    with game_page(browser, seat.format(game["seats"][0]["token"])) as ana:
        say(ana, IMG)
        ana.locator(".chat-phrases [data-phrase=wp]").click()
        expect(lines(ana)).to_have_count(2)
    with game_page(browser, f"{server.url}/#/watch/{game['id']}") as watcher:
        say(watcher, "the audience's own")
        expect(lines(watcher)).to_have_count(1)
    finish_over_http(server.url, game)
    with open_page(browser, locale="ro-RO", **DESKTOP) as reader:
        reader.goto(f"{server.url}/#/replay/{game['id']}")
        replayed = reader.locator("[data-replay-chat] .chat-line")
        expect(replayed).to_have_count(2)  # the seats' chat only
        expect(replayed.nth(0)).to_have_text(f"Ana: {IMG}")
        expect(replayed.nth(1)).to_have_text("Ana: Bine jucat")
        assert reader.locator("[data-replay-chat] img").count() == 0
        assert reader.evaluate("window.__pwned") is None
        shot(reader, "chat-replay")
