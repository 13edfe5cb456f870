"""End-to-end: a short game finished in Chromium, then "Review" on its end card: the progress,
each reviewed move marked, the better move outlined on the board, the accuracy chart."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import test_browser as browser_tests
from playwright.sync_api import Page, expect
from test_browser import Server, my_turn, place_anywhere, shot
from web_helpers import auth

# The same fixtures as the other browser tests: one Chromium, a fresh server per test.
browser = browser_tests.browser
server = browser_tests.server
page = browser_tests.page
phone_page = browser_tests.phone_page

CLOSING_THE_CITY = {"type": "place-tile", "x": 0, "y": -1, "rotation": 180}


def _act(server: Server, game: dict[str, Any], actions: list[dict[str, Any]]) -> None:
    request = urllib.request.Request(
        f"{server.url}/api/games/{game['id']}/actions",
        data=json.dumps({"actions": actions, "ply": 0}).encode(),
        headers={"content-type": "application/json", **auth(game["seats"][0]["token"])},
    )
    with urllib.request.urlopen(request, timeout=10):
        pass


def _state(server: Server, game: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{server.url}/api/games/{game['id']}/state", headers=auth(game["seats"][0]["token"])
    )
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.loads(r.read())  # type: ignore[no-any-return]


def _review(server: Server, game_id: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server.url}/api/games/{game_id}/review", timeout=10) as r:
        answer = json.loads(r.read())
    assert answer["status"] == "done"
    return answer["review"]  # type: ignore[no-any-return]


def _finish_and_review(server: Server, page: Page, name: str) -> None:
    game = server.create(
        {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "greedy"}],
         "options": {"stack": ["base/E", "base/U", "base/K"], "seed": 3}}
    )  # fmt: skip
    # Ana closes the start tile's city but keeps her meeple: 4 points left on the table
    _act(server, game, [CLOSING_THE_CITY, {"type": "pass"}])
    page.goto(f"{server.url}/#/play/{game['id']}/{game['seats'][0]['token']}")
    my_turn(page)
    place_anywhere(page)  # the last tile, in the browser: the game ends
    card = page.locator(".end-card")
    expect(card).to_be_visible(timeout=30_000)
    card.locator("[data-end=review]").click()
    panel = page.locator(".review-panel")
    expect(panel).to_be_visible(timeout=15_000)
    expect(page.locator(".review-panel[data-review=done]")).to_be_visible(timeout=120_000)
    review = _review(server, game["id"])
    assert review["seats"] == [0]  # the bot's moves are not reviewed
    moves = panel.locator("[data-review-ply]")
    expect(moves).to_have_count(len(review["marks"]))
    for mark in review["marks"]:
        expect(panel.locator(f"[data-review-ply='{mark['ply']}']")).to_have_attribute(
            "data-mark", mark["mark"]
        )
    kept = next(m for m in review["marks"] if m["ply"] == 2)  # the meeple kept in hand
    # the city's 4 points, exactly with today's evaluation (the futures are the same)
    assert kept["lost"] == 4.0 and kept["mark"] == "inaccuracy"
    assert kept["best"] == {"type": "place-figure", "figure": "meeple", "location": "S"}
    chart = panel.locator("[data-accuracy-chart]")
    expect(chart.locator("[data-accuracy-seat='0']")).to_be_attached()
    expect(chart.locator("[data-accuracy-seat='1']")).to_have_count(0)
    expect(panel.locator("[data-review-seat='0'] [data-accuracy]")).to_have_attribute(
        "data-accuracy", str(review["accuracy"]["0"])
    )
    # stepping to the kept meeple: the banner says what it was, the better move is outlined on
    # the square of the city closed
    panel.locator("[data-review-ply='2']").click()
    expect(page.locator("[data-banner-mark]")).to_have_text("Inaccuracy")
    expect(panel.locator("[data-review-current]")).to_contain_text("Better: ")
    better = page.locator(".hl-better")
    expect(better).to_have_count(1)
    assert better.get_attribute("x") == "2" and better.get_attribute("y") == str(-1 * 100 + 2)
    expect(page.locator(".layer-pending > g")).to_have_count(0)  # not a placement
    shot(page, f"{name}-figure")
    _better_placement_drawn(server, page, name)


def _better_placement_drawn(server: Server, page: Page, name: str) -> None:
    """A game where Ana leaves the start tile's city open, reviewed from ``#/review/<id>``: the
    better placement (closing it) is drawn as a ghost of her tile, turned as it should be."""
    game = server.create(
        {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "greedy"}],
         "options": {"stack": ["base/E", "base/U"], "seed": 3}}
    )  # fmt: skip
    _act(server, game, [{"type": "place-tile", "x": 0, "y": 1, "rotation": 180}, {"type": "pass"}])
    deadline = time.monotonic() + 30
    while _state(server, game)["view"]["phase"] != "over":
        assert time.monotonic() < deadline, "the bot did not play"
        time.sleep(0.1)
    page.goto(f"{server.url}/#/review/{game['id']}")
    done = page.locator(f".review-panel[data-review-game='{game['id']}'][data-review=done]")
    expect(done).to_be_visible(timeout=120_000)
    placement = next(m for m in _review(server, game["id"])["marks"] if m["ply"] == 1)
    assert placement["lost"] > 0 and placement["best"] == CLOSING_THE_CITY
    page.locator("[data-review-ply='1']").click()
    ghost = page.locator(".layer-pending > g")
    expect(ghost).to_have_count(1)
    expect(ghost).to_have_attribute("transform", "translate(0 -100)")
    expect(ghost.locator(".tile.ghost")).to_have_count(1)
    expect(page.locator(".hl-better")).to_have_attribute("y", "-98")
    shot(page, f"{name}-placement")
    page.locator("[data-step=forward]").click()  # a step not reviewed: the ghost goes
    expect(ghost).to_have_count(0)


def test_a_finished_game_is_reviewed_from_its_end_card(server: Server, page: Page) -> None:
    _finish_and_review(server, page, "40-review-desktop")


def test_the_review_on_a_phone(server: Server, phone_page: Page) -> None:
    _finish_and_review(server, phone_page, "41-review-phone")
