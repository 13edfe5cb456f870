"""End-to-end: real Chromium (Debian's) playing against a bot on a real server.

Each test starts ``carcassonne serve`` on a loopback port of its own with a temporary database and
drives the page as a player would: clicking squares and figure spots, keys, buttons. Screenshots
go to ``artifacts/screenshots/``. Without /usr/bin/chromium the tests are skipped, except in CI
(env CI set), where they must run.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import post_game

from carcassonne.cli import serve
from carcassonne.expansions.registry import EXPANSIONS

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

if not CHROMIUM.exists() and not os.environ.get("CI"):
    pytest.skip(
        "browser tests need Debian's chromium at /usr/bin/chromium (apt-get install chromium)",
        allow_module_level=True,
    )

from playwright.sync_api import Browser, Page, Route, expect, sync_playwright  # noqa: E402

# The scripted game: the start tile D has its city to the north; base/E turned 180° closes it
# (a 2-tile city, 4 points); bets/01 brings a betting office; the stack then runs out.
STACK = ["base/E", "base/B", "bets/01", "base/U", "base/V", "base/K"]


class Server:
    """``carcassonne serve`` in a subprocess; can be stopped and started again on its DB.

    The test binds the socket and the server inherits it (``--fd``): a port chosen and let go
    before the server bound it could be taken meanwhile by anything else running, and the
    page must find the server on the same port after a restart."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.sock = serve.listen("127.0.0.1", 0)
        self.port: int = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        fd = self.sock.fileno()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "carcassonne.cli.main", "serve", "--fd", str(fd),
             "--db", str(self.db), "--bot-delay", "0.05"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            pass_fds=(fd,),
        )  # fmt: skip
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/api/meta", timeout=1):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                    raise RuntimeError(f"the server exited: {err}") from None
                time.sleep(0.1)
        raise RuntimeError("the server did not start in 15 s")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None

    def close(self) -> None:
        self.stop()
        self.sock.close()

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        return post_game(self.url, body)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "games.sqlite3")
    try:
        srv.start()
        yield srv
    finally:
        srv.close()


@contextlib.contextmanager
def open_page(browser: Browser, **context_options: Any) -> Iterator[Page]:
    """A page in a browser context of its own with these options (viewport, locale, touch);
    fails the test on any JavaScript error in it."""
    context = browser.new_context(**context_options)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        yield page
    finally:
        context.close()
    assert errors == [], f"JavaScript errors: {errors}"


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    with open_page(browser, viewport={"width": 1400, "height": 900}, locale="en-GB") as pg:
        yield pg


@pytest.fixture
def phone_page(browser: Browser) -> Iterator[Page]:
    """A page on a 390 px touch phone."""
    phone = {"width": 390, "height": 844}
    with open_page(browser, viewport=phone, has_touch=True, is_mobile=True, locale="en-GB") as pg:
        yield pg


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def my_turn(page: Page) -> None:
    expect(page.locator("[data-square]").first).to_be_attached(timeout=15_000)


def confirm_turn(page: Page, tap: bool = False) -> None:
    """Confirm the tile put down (Enter, or a tap on ✓) and, when a figure could follow it,
    confirm again without one: the turn is sent."""

    def confirm() -> None:
        if tap:
            page.locator('[data-action="confirm"]').tap()
        else:
            page.keyboard.press("Enter")

    expect(page.locator(".hl-pending")).to_be_attached()
    confirm()
    if page.locator('[data-turn-step="figure"]').count():
        confirm()


def place_anywhere(page: Page) -> None:
    """Put the drawn tile on the first highlighted square and confirm without a figure."""
    my_turn(page)
    page.locator(".hl-legal").first.click()
    expect(page.locator('[data-action="confirm"]')).to_be_enabled()
    confirm_turn(page)


def create_from_lobby(page: Page, server: Server) -> dict[str, Any]:
    """Create the game the lobby shows and return its public setup as the server stored it."""
    page.click("[data-create]")
    created = page.locator("[data-created]")
    expect(created).to_be_visible()
    game_id = created.get_attribute("data-created")
    with urllib.request.urlopen(f"{server.url}/api/games/{game_id}", timeout=5) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def test_lobby_creates_a_game_against_a_bot_and_a_tile_is_placed(
    server: Server, page: Page
) -> None:
    page.goto(server.url + "/")
    page.fill("input[name=seed]", "42")
    page.click("[data-create]")
    expect(page.locator("[data-created]")).to_be_visible()
    shot(page, "01-lobby-links")
    page.click("[data-play]")
    my_turn(page)
    expect(page.locator(".banner")).to_have_text("Your turn: place the tile")
    shot(page, "02-first-turn")
    page.locator(".hl-legal").first.click()
    expect(page.locator(".hl-pending")).to_be_attached()
    page.keyboard.press("Escape")  # undo is local: the tile goes back to the hand
    expect(page.locator(".hl-pending")).not_to_be_attached()
    place_anywhere(page)
    # The bot answers; then it is our turn again with three tiles on the board.
    expect(page.locator(".layer-tiles > g")).to_have_count(3, timeout=15_000)
    my_turn(page)


def test_scripted_game_meeple_score_bet_and_end(server: Server, page: Page) -> None:
    created = server.create(
        {
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "random"}],
            "options": {"bets": True, "stack": STACK},
        }
    )
    page.goto(f"{server.url}/#/play/{created['id']}/{created['seats'][0]['token']}")
    my_turn(page)
    # Turn 1: base/E fits above the start tile only turned 180°; clicking the (dashed) square
    # picks that rotation by itself.
    expect(page.locator(".tile-preview")).to_have_attribute("data-tile", "base/E")
    page.locator('[data-square="0,-1"]').click()
    expect(page.locator(".tile-preview")).to_have_attribute("data-rotation", "180")
    expect(page.locator(".spot")).to_have_count(0)  # the tile first, then its figure
    page.keyboard.press("Enter")
    page.locator('.spot[data-location="S"]').click()
    expect(page.locator(".layer-spots .figure")).to_have_count(1)
    page.keyboard.press("Escape")  # undo the meeple, keep the tile
    expect(page.locator(".layer-spots .figure")).to_have_count(0)
    page.locator('.spot[data-location="S"]').click()
    shot(page, "03-meeple-on-city")
    page.keyboard.press("Enter")
    # The 2-tile city scores 4 for Ana, and the log says why.
    expect(page.locator('[data-score="0"]')).to_contain_text("4")
    expect(page.locator(".log")).to_contain_text(
        "Ana scores 4 for a completed city: 2 tiles × 2 = 4."
    )
    shot(page, "04-city-scored")

    # Turn 3: the bookmaker tile; then Ana bets 3/5 on its office.
    my_turn(page)
    expect(page.locator(".tile-preview")).to_have_attribute("data-tile", "bets/01")
    place_anywhere(page)
    decision = page.locator('[data-decision="bet"]')
    expect(decision).to_be_visible(timeout=15_000)
    shot(page, "05-bet-decision")
    decision.locator('[data-bet="3/5"]').click()
    expect(page.locator("[data-own-supply]")).not_to_contain_text("3/5")
    expect(page.locator(".bet-marker", has_text="3/5")).to_have_count(1)
    shot(page, "06-bet-placed")

    # The stack runs out: final scoring and the summary.
    while page.locator("[data-summary]").count() == 0:
        page.wait_for_selector("[data-square], [data-summary], [data-decision]", timeout=15_000)
        if page.locator("[data-decision]").count():
            page.locator("[data-decision] button").last.click()
        elif page.locator("[data-square]").count():
            place_anywhere(page)
        page.wait_for_timeout(100)
    expect(page.locator(".banner")).to_contain_text("Game over")
    expect(page.locator("[data-summary]")).to_contain_text("Ana")
    shot(page, "07-game-over")
    page.click("text=Watch the replay")
    expect(page.locator(".banner")).to_contain_text("Step")
    expect(page.locator(".banner")).not_to_contain_text("place-")
    page.locator('[data-step="back"]').click()
    shot(page, "08-replay")


def test_game_continues_after_a_server_restart(server: Server, page: Page) -> None:
    created = server.create(
        {
            "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}],
            "options": {"seed": 9},
        }
    )
    page.goto(f"{server.url}/#/play/{created['id']}/{created['seats'][0]['token']}")
    place_anywhere(page)
    expect(page.locator(".layer-tiles > g")).to_have_count(3, timeout=15_000)
    my_turn(page)
    server.stop()
    expect(page.locator(".banner")).to_contain_text("reconnecting")
    server.start()
    # The page reconnects by itself and the game goes on from where it was.
    expect(page.locator(".banner")).to_have_text("Your turn: place the tile", timeout=15_000)
    expect(page.locator(".layer-tiles > g")).to_have_count(3)
    place_anywhere(page)
    expect(page.locator(".layer-tiles > g")).to_have_count(5, timeout=15_000)
    shot(page, "09-after-restart")


def test_the_lobby_draws_its_form_once_it_knows_the_options(server: Server, page: Page) -> None:
    """Drawn before /api/meta answered, the form was drawn again when it did, under the player's
    fingers: a seed being typed then was lost and the game got a random one. Now the form waits
    for the options (and, if they never come, appears with the base game's)."""
    held: list[Route] = []
    page.route("**/api/meta", lambda route: held.append(route))
    page.goto(server.url + "/")
    expect(page.get_by_text("Loading…")).to_be_visible()
    deadline = time.monotonic() + 10
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert held, "the lobby never asked for /api/meta"
    expect(page.locator("input[name=seed]")).to_have_count(0)
    held[0].continue_()
    expect(page.locator("input[name='inns_cathedrals']")).to_be_visible()
    expect(page.locator("input[name=seed]")).to_have_count(1)
    expect(page.get_by_text("Loading…")).to_have_count(0)

    page.unroute("**/api/meta")
    page.route("**/api/meta", lambda route: route.abort())
    page.reload()
    expect(page.locator("input[name=seed]")).to_be_visible()
    expect(page.locator("input[name='inns_cathedrals']")).to_have_count(0)


def test_inns_cathedrals_in_the_lobby_and_the_tile_gallery(server: Server, page: Page) -> None:
    page.goto(server.url + "/")
    for option in ("inns_cathedrals", "small_city_scores_2", "no_farmers"):
        expect(page.locator(f"input[name='{option}']")).to_be_visible()
    page.click("nav a[href='#/rules']")
    expect(page.locator(".gallery figure[data-tile^='ic/']")).to_have_count(17)
    inns = ("K", "L", "M", "N", "O", "P")
    for name in inns:
        expect(page.locator(f"figure[data-tile='ic/{name}'] .inn")).to_have_count(1)
    expect(page.locator("figure[data-tile='ic/B'] .cathedral")).to_have_count(1)
    expect(page.locator(".gallery .inn")).to_have_count(len(inns))
    page.locator("figure[data-tile='ic/A']").scroll_into_view_if_needed()
    shot(page, "26-inns-cathedrals-tiles")


@pytest.mark.parametrize("on_map", [False, True], ids=["no-map", "map"])
def test_the_lobby_offers_the_registrys_expansions_and_starts_a_game_with_all(
    server: Server, page: Page, on_map: bool
) -> None:
    page.goto(server.url + "/")
    expansions = page.locator(".options").first.locator("input[type=checkbox]")
    expect(expansions).to_have_count(len(EXPANSIONS) + 1)  # and the map's
    if on_map:
        page.check("input[name='map']")
    asked = {}
    for spec in EXPANSIONS:
        box = page.locator(f"input[name='{spec.field}']")
        asked[spec.field] = spec.map_use == "any" or (spec.map_use == "needs") == on_map
        if asked[spec.field]:
            page.check(f"input[name='{spec.field}']")
        else:
            expect(box).to_be_disabled()  # needs the map, or is never played on one
    page.fill("input[name=seed]", "7")
    shot(page, f"28-lobby-every-expansion-{'map' if on_map else 'no-map'}")
    options = create_from_lobby(page, server)["options"]
    assert {field: options.get(field, False) for field in asked} == asked
    page.click("[data-play]")
    my_turn(page)
    expect(page.locator(".layer-tiles > g")).not_to_have_count(0)


def test_d51_d52_d53_the_inns_cathedrals_variants_in_the_lobby_and_the_rules(
    server: Server, page: Page, phone_page: Page
) -> None:
    page.goto(server.url + "/")
    variants = page.locator("[data-variants-of='inns_cathedrals'] input[type=checkbox]")
    expect(page.locator("input[name='small_city_scores_2']")).to_be_visible()
    expect(variants).to_have_count(0)  # offered only with the expansion (D54)
    page.check("input[name='inns_cathedrals']")
    expect(variants).to_have_count(3)
    plain = page.locator("input[name='plain_unfinished_inns_cathedrals']")
    page.check("input[name='no_inns']")
    page.check("input[name='no_cathedrals']")
    expect(plain).to_be_disabled()  # nothing left for it to pay
    page.uncheck("input[name='inns_cathedrals']")
    expect(variants).to_have_count(0)
    page.check("input[name='inns_cathedrals']")
    for name in ("plain_unfinished_inns_cathedrals", "no_inns", "no_cathedrals"):
        expect(page.locator(f"input[name='{name}']")).not_to_be_checked()
    page.check("input[name='no_inns']")
    page.check("input[name='plain_unfinished_inns_cathedrals']")
    expect(page.locator("[data-variants-of='inns_cathedrals']")).to_contain_text(
        "Unfinished inns and cathedrals"
    )
    shot(page, "27-inns-cathedrals-variants")
    options = create_from_lobby(page, server)["options"]
    assert (options["inns"], options["plain_unfinished_inns_cathedrals"]) == (False, True)
    assert "cathedrals" not in options  # on, the default, which is not written
    page.click("nav a[href='#/rules']")
    rules = page.locator(".rules li")
    for text in (
        "Unfinished inns and cathedrals score (option",
        "No inns (option",
        "No cathedrals",
    ):
        expect(rules.filter(has_text=text)).to_have_count(1)
    phone_page.goto(server.url + "/")
    phone_page.check("input[name='inns_cathedrals']")
    expect(phone_page.locator("[data-variants-of='inns_cathedrals'] input")).to_have_count(3)
    phone_page.locator("[data-variants-of='inns_cathedrals']").scroll_into_view_if_needed()
    shot(phone_page, "27-inns-cathedrals-variants-phone")


def test_every_tile_is_drawn_with_the_fields_its_data_has(server: Server, page: Page) -> None:
    # Flooding each drawing outside its cities, roads, rivers, hedges and buildings must give one
    # stretch of field per field of the data, in every rotation, holding that field's half-edges
    # and figure spot: two fields drawn as one (ic/G before its hedge), or a farmer's spot in the
    # wrong stretch, would have a player put a farmer where the drawing lies.
    page.goto(server.url + "/#/rules")
    expect(page.locator(".gallery figure").first).to_be_visible()
    problems = page.evaluate(
        """async () => {
            const tiles = await import("/static/js/tiles.js");
            const problems = [];
            for (const id of tiles.tileIds()) {
                for (const rotation of [0, 90, 180, 270]) {
                    const model = tiles.tileModel(id, rotation);
                    const tag = `${id}@${rotation}`;
                    const owner = new Map();
                    for (const [field, found] of tiles.fieldRegions(model)) {
                        const name = model.orientation.segments[field].location;
                        if (found.size !== 1) problems.push(`${tag} ${name}: ${found.size} parts`);
                        for (const r of found) {
                            const other = owner.get(r);
                            if (other) problems.push(`${tag}: ${other} and ${name} joined`);
                            owner.set(r, name);
                        }
                    }
                }
            }
            return problems;
        }"""
    )
    assert problems == [], "\n".join(problems)
    # Large pictures of the expansion tiles, to look at (artifacts/screenshots/28-tiles-*.png).
    page.set_viewport_size({"width": 1000, "height": 1800})
    page.add_style_tag(content=".gallery { grid-template-columns: repeat(4, 12rem); }")
    for tile_set in ("ic", "traders_builders"):
        page.evaluate(
            "set => document.querySelectorAll('.gallery figure').forEach(f => {"
            " f.hidden = !f.dataset.tile.startsWith(set + '/'); })",
            tile_set,
        )
        page.locator(".gallery").screenshot(path=str(SHOTS / f"28-tiles-{tile_set}.png"))


RULES_SECTIONS = {  # heading -> how many points the summary makes
    "Goal": 2,
    "A turn": 3,
    "Scoring during the game": 3,
    "End of the game": 2,
    "The River": 1,
    "The Abbot": 2,
    "The Bets": 3,
    "The France map": 2,
    "Map-Chips": 2,
    "Inns & Cathedrals": 3,
    "Traders & Builders": 5,
    "Rule variants": 5,
}


def test_rules_page_sums_up_every_expansion_in_every_language(server: Server, page: Page) -> None:
    page.goto(server.url + "/#/rules")
    headings = page.locator(".rules h2")
    expect(headings).to_have_text([*RULES_SECTIONS, "The tiles"])
    points = [
        page.locator(f".rules h2:nth-of-type({n}) + ul > li")
        for n in range(1, len(RULES_SECTIONS) + 1)
    ]
    for located, count in zip(points, RULES_SECTIONS.values(), strict=True):
        expect(located).to_have_count(count)
    inns, traders, variants = (points[i] for i in (9, 10, 11))
    expect(inns.nth(0)).to_contain_text("pays 2 per tile")
    expect(inns.nth(0)).to_contain_text("pays 3 per tile and coat of arms")
    expect(inns.nth(1)).to_contain_text("counts as two meeples")
    expect(traders.nth(1)).to_contain_text("scores 10")
    expect(traders.nth(2)).to_contain_text("never a third")
    expect(traders.nth(3)).to_contain_text("4 per completed city instead of 3")
    expect(variants.nth(0)).to_contain_text("exactly two tiles pays 2")
    expect(variants.nth(2)).to_contain_text("an unfinished road with an inn pays 1 per tile")
    expect(variants.nth(3)).to_contain_text("a road with an inn is a plain road")
    expect(variants.nth(4)).to_contain_text("a city with a cathedral is a plain city")
    for lang, titles in (
        ("fr", ["Auberges et Cathédrales", "Marchands & Bâtisseurs", "Variantes de règles"]),
        ("ro", ["Hanuri și Catedrale", "Negustori și Constructori", "Variante de reguli"]),
    ):
        page.select_option("#language", lang)
        expect(headings).to_have_count(len(RULES_SECTIONS) + 1)
        expect(headings.nth(9)).to_have_text(titles[0])
        expect(headings.nth(10)).to_have_text(titles[1])
        expect(headings.nth(11)).to_have_text(titles[2])
        for located, count in zip(points, RULES_SECTIONS.values(), strict=True):
            expect(located).to_have_count(count)
        page.locator(".rules h2").nth(9).scroll_into_view_if_needed()
        shot(page, f"27-rules-expansions-{lang}")


def test_language_switch_is_remembered(server: Server, page: Page) -> None:
    page.goto(server.url + "/")
    page.select_option("#language", "fr")
    expect(page.locator("[data-create]")).to_have_text("Créer la partie")
    page.reload()
    expect(page.locator("[data-create]")).to_have_text("Créer la partie")
    page.select_option("#language", "ro")
    expect(page.locator("nav a[href='#/rules']")).to_have_text("Reguli")
    page.click("nav a[href='#/rules']")
    # every tile type: base (32 with the garden copies), river (12), bets (10), ic (17),
    # traders_builders (24)
    expect(page.locator(".gallery figure")).to_have_count(32 + 12 + 10 + 17 + 24)
    expect(page.get_by_text("docs/rules.md")).to_be_visible()  # the complete reference
    shot(page, "10-rules-ro")


# ------------------------------------------------------------------------------ the France map


def square_of(attr: str) -> tuple[int, int]:
    x, y = attr.split(",")
    return int(x), int(y)


def place_towards_a_chip(page: Page) -> None:
    """Put the drawn tile on a legal square holding a face-down map chip, else on the legal
    square nearest to one, and confirm without a figure."""
    my_turn(page)
    chips = [square_of(a) for a in page.locator("[data-chip]").evaluate_all(
        "els => els.map(e => e.dataset.chip)")]  # fmt: skip
    squares = sorted({square_of(a) for a in page.locator("[data-square]").evaluate_all(
        "els => els.map(e => e.dataset.square)")})  # fmt: skip
    best = min(
        squares,
        key=lambda s: min((abs(s[0] - c[0]) + abs(s[1] - c[1]) for c in chips), default=0),
    )
    page.locator(f'[data-square="{best[0]},{best[1]}"]').click()
    expect(page.locator('[data-action="confirm"]')).to_be_enabled()
    confirm_turn(page)


def test_france_map_with_chips_collects_a_chip(server: Server, page: Page) -> None:
    created = server.create(
        {
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "greedy"}],
            "options": {"map": "france", "map_chips": True, "bets": True, "seed": 11},
        }
    )
    page.goto(f"{server.url}/#/play/{created['id']}/{created['seats'][0]['token']}")
    my_turn(page)
    # The map: its 234 playable squares (16 x 15 less six large cities), the large cities, 21
    # towns with grapes, three start squares, and the 30 map chips face down (no value or
    # colour in the page).
    expect(page.locator(".map-square")).to_have_count(234)
    expect(page.locator("[data-large-city]")).to_have_count(6)
    expect(page.locator(".town .grapes")).to_have_count(21)
    expect(page.locator("[data-start]")).to_have_count(3)
    expect(page.locator(".face-down-chip")).to_have_count(30)
    expect(page.locator(".face-down-chip .map-chip-text").first).to_have_text("?")
    expect(page.locator("[data-wine-seat='0'] [data-wine-chip]")).to_have_count(0)
    shot(page, "11-france-start")
    for _ in range(12):
        if page.locator("[data-wine-seat='0'] [data-wine-chip]").count():
            break
        page.wait_for_selector("[data-square], [data-decision]", timeout=15_000)
        if page.locator("[data-decision]").count():
            page.locator('[data-decision] [data-action="pass"]').click()
        else:
            place_towards_a_chip(page)
        page.wait_for_timeout(200)
    # The chip Ana collected lies face up in front of her, and the log says what it was worth.
    collected = page.locator("[data-wine-seat='0'] [data-wine-chip]")
    expect(collected).to_have_count(1)
    expect(page.locator(".log")).to_contain_text("Ana collects a")
    assert page.locator(".face-down-chip").count() < 30
    shot(page, "12-france-chip-collected")
    page.locator("[data-tool=whole-map]").click()
    shot(page, "13-france-whole-map")


# ------------------------------------------------------------------------------ phone size


def board_scale(page: Page) -> float:
    transform = page.locator("svg.board > g").first.get_attribute("transform") or ""
    return float(transform.rsplit("scale(", 1)[1].rstrip(")"))


def test_phone_layout_touch_play_and_pinch_zoom(server: Server, phone_page: Page) -> None:
    page = phone_page
    created = server.create(
        {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "random"}],
         "options": {"seed": 4}}
    )  # fmt: skip
    page.goto(f"{server.url}/#/play/{created['id']}/{created['seats'][0]['token']}")
    my_turn(page)
    # The panels stack below the board, full width; the turn's buttons are on screen.
    board = page.locator(".board-wrap").bounding_box()
    sidebar = page.locator(".sidebar").bounding_box()
    assert board and sidebar
    assert board["y"] + board["height"] <= sidebar["y"] + 1
    assert sidebar["width"] == pytest.approx(390, abs=1)
    for tool in ("zoom-in", "zoom-out", "fit"):
        box = page.locator(f"[data-tool={tool}]").bounding_box()
        assert box and box["x"] + box["width"] <= 390 and box["y"] + box["height"] <= 844
    confirm = page.locator('[data-action="confirm"]')
    box = confirm.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert box["y"] + box["height"] <= 844
    expect(page.locator(".key-hints")).to_be_hidden()  # no keys on a touch screen

    # Two fingers spread apart zoom in around their midpoint and place nothing.
    cdp = page.context.new_cdp_session(page)
    before = board_scale(page)
    mid_x = board["x"] + board["width"] / 2
    mid_y = board["y"] + board["height"] / 2

    def touch(kind: str, spread: float) -> None:
        points = [
            {"x": mid_x - spread, "y": mid_y, "id": 0},
            {"x": mid_x + spread, "y": mid_y, "id": 1},
        ]
        cdp.send(
            "Input.dispatchTouchEvent",
            {"type": kind, "touchPoints": points if kind != "touchEnd" else []},
        )

    touch("touchStart", 30)
    for spread in (45, 60, 75, 90):
        touch("touchMove", spread)
    touch("touchEnd", 0)
    assert board_scale(page) == pytest.approx(before * 3, rel=0.1)
    expect(page.locator(".hl-pending")).not_to_be_attached()

    # A tap puts the tile on a highlighted square; the Confirm button (tapped) sends it.
    page.locator("[data-tool=fit]").tap()
    page.locator(".hl-legal").first.tap()
    expect(page.locator(".hl-pending")).to_be_attached()
    expect(confirm).to_be_enabled()
    shot(page, "14-phone-turn")
    confirm_turn(page, tap=True)
    expect(page.locator(".layer-tiles > g")).to_have_count(3, timeout=15_000)
    my_turn(page)


def test_a_turn_by_keyboard_alone(server: Server, page: Page) -> None:
    created = server.create(
        {
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "random"}],
            "options": {"bets": True, "stack": STACK},
        }
    )
    page.goto(f"{server.url}/#/play/{created['id']}/{created['seats'][0]['token']}")
    my_turn(page)
    # Tab reaches the squares (buttons named by their coordinates); Enter places the tile there.
    square = page.locator('[data-square="0,-1"]')
    expect(square).to_have_attribute("aria-label", re.compile(r"^Place the tile at \(0, -1\)"))
    square.focus()
    page.keyboard.press("Enter")
    expect(page.locator(".hl-pending")).to_be_attached()
    page.keyboard.press("Enter")  # the tile is fixed: its figure spots come next
    # The figure spots are buttons too; Space picks one, and Enter then sends the turn.
    spot = page.locator('.spot[data-location="S"]')
    expect(spot).to_have_attribute("aria-label", "Meeple on the city")
    spot.focus()
    page.keyboard.press(" ")
    expect(page.locator(".layer-spots .figure")).to_have_count(1)
    page.keyboard.press("Enter")
    expect(page.locator('[data-score="0"]')).to_contain_text("4")


def test_the_expert_is_chosen_in_the_lobby_and_gives_hints(server: Server, page: Page) -> None:
    page.goto(server.url + "/")
    page.select_option("select[name=kind-1]", "bot:expert")
    page.select_option("select[name=think-1]", "1")
    page.fill("input[name=seed]", "42")  # a first tile that fits in more than three ways
    page.click("[data-create]")
    expect(page.locator("[data-created]")).to_be_visible()
    page.click("[data-play]")
    my_turn(page)
    expect(page.locator(".scores")).to_contain_text("Expert bot")
    page.click('[data-hint="ask"]')
    moves = page.locator("[data-hint-move]")
    expect(moves).to_have_count(3, timeout=60_000)
    expect(moves.first).to_contain_text("expected lead")
    moves.first.hover()
    expect(page.locator(".hl-feature").first).to_be_attached()
    shot(page, "expert-hints")
    place_anywhere(page)
    # The expert thinks in a worker and answers; then it is our turn again.
    expect(page.locator(".layer-tiles > g")).to_have_count(3, timeout=30_000)


def test_traders_and_builders_goods_builder_and_pig_in_the_browser(
    server: Server, page: Page
) -> None:
    # The lobby offers the expansion; a scripted game starts with a wine tile (its symbol is
    # drawn), and the scores panel lists every seat's trade goods (public, docs/rules.md §12).
    page.goto(server.url + "/")
    expect(page.locator("input[name=traders_builders]")).to_be_visible()
    created = server.create(
        {
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "random"}],
            "options": {
                "traders_builders": True,
                "stack": ["traders_builders/02", "base/U", "base/E", "base/U"],
            },
        }
    )
    page.goto(f"{server.url}/#/play/{created['id']}/{created['seats'][0]['token']}")
    my_turn(page)
    expect(page.locator(".tile-preview")).to_have_attribute("data-tile", "traders_builders/02")
    expect(page.locator(".tile-preview .goods-wine")).to_have_count(1)
    expect(page.locator("[data-goods]")).to_have_count(2)
    expect(page.locator('[data-goods="0"]')).to_contain_text("wine 0")
    expect(page.locator(".scores .supply").first).to_contain_text("⚒ 1")
    shot(page, "tb-01-goods-tile")
    place_anywhere(page)
    expect(page.locator(".layer-tiles .goods-wine")).to_have_count(1, timeout=15_000)
    shot(page, "tb-02-placed")
