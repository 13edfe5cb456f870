"""Tables that always finish, as two players see them in two browsers (issue 24): the tab says
whose turn it is, the clocks tick, a seat changes hands, a player resigns."""

from __future__ import annotations

import contextlib
import json
import re
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import test_browser as browser_tests
from playwright.sync_api import Browser, Page, expect
from test_browser import Server, open_page, place_anywhere, shot
from web_helpers import ThreadedServer, post_game

from carcassonne.clocks import DAY_MS, PRESETS, TimeControl, parse
from carcassonne.web import create_app
from carcassonne.web.storage import now_ms

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


class ServerClock:
    """The server's wall clock: it runs with real time but from a day before the browser's (so
    a page counting on its own clock would be a day off), and jumps when the test says."""

    def __init__(self) -> None:
        self.start = now_ms() - DAY_MS
        self.started = time.monotonic()
        self.jumped = 0

    def __call__(self) -> int:
        return self.start + int((time.monotonic() - self.started) * 1000) + self.jumped

    def jump(self, ms: int) -> None:
        self.jumped += ms


class TableServer(ThreadedServer):
    """The web app in this process (uvicorn in a thread) on its :class:`ServerClock`, so that
    a test moves the tables' clocks minutes on instead of waiting for them."""

    def __init__(self, db: Path, bot_delay: float = 0.05) -> None:
        self.clock = ServerClock()
        app = create_app(
            db, bot_delay=bot_delay, wall_clock=self.clock, expire_after=None,
            expire_unclaimed_after=None,
        )  # fmt: skip
        super().__init__(app)

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        return post_game(self.url, body)


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[TableServer]:
    with TableServer(tmp_path / "games.sqlite3") as srv:
        yield srv


@contextlib.contextmanager
def seat_page(
    browser: Browser, srv: Server | TableServer, game: dict[str, Any], seat: int, **options: Any
) -> Iterator[Page]:
    """Seat ``seat``'s page of ``game`` in a browser of its own (its own localStorage)."""
    context = {"viewport": {"width": 1280, "height": 860}, "locale": "en-GB", **options}
    with open_page(browser, **context) as tab:
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
        assert table == {
            "clock": {"kind": "none"},
            "stand_in": "random",
            "on_timeout": "stand-in",
            "aids": True,
        }
        table = sent_table(tab, {"stand-in": "greedy", "aids": "off"})
        assert table == {
            "clock": {"kind": "none"},
            "stand_in": "greedy",
            "on_timeout": "stand-in",
            "aids": False,
        }


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


# ------------------------------------------------------------------ at the table

FIVE_PLUS_TWENTY = PRESETS["5+20"].to_json()


def clock_of(tab: Page, seat: int) -> str:
    return tab.locator(f"td[data-clock='{seat}']").inner_text()


def seconds(text: str) -> int:
    minutes, secs = text.split(":")
    return int(minutes) * 60 + int(secs)


def test_the_running_clock_ticks_on_the_servers_time(tables: TableServer, browser: Browser) -> None:
    """The server's clock is a day behind the browser's: a page counting on its own clock would
    show nothing left; it shows the server's times and counts the running one down."""
    game = tables.create({**TWO_HUMANS, "table": {"clock": FIVE_PLUS_TWENTY}})
    with seat_page(browser, tables, game, 0) as ana, seat_page(browser, tables, game, 1) as bo:
        # The first decision is not timed (players are still arriving): no clock runs.
        expect(ana.locator("td[data-clock='0']")).to_have_text("5:00")
        expect(ana.locator("td[data-clock='1']")).to_have_text("5:00")
        assert ana.locator("td.clock.running").count() == 0
        place_anywhere(ana)
        for tab in (ana, bo):
            expect(tab.locator("td[data-clock='1']")).to_have_class("clock running")
        before = {tab: seconds(clock_of(tab, 1)) for tab in (ana, bo)}
        ana_before = clock_of(bo, 0)
        bo.wait_for_timeout(2600)
        for tab in (ana, bo):
            spent = before[tab] - seconds(clock_of(tab, 1))
            assert 2 <= spent <= 3, spent
            assert 290 <= seconds(clock_of(tab, 1)) <= 300
        assert clock_of(bo, 0) == ana_before  # only the seat to move has its clock running
        # the running clock also stands by the turn's title (seen on a phone without scrolling)
        expect(bo.locator(".turn-clock [data-clock='1']")).to_have_text(clock_of(bo, 1))
        shot(bo, "tables-clocks")
        # a spectator sees the clocks too, and no seat's table panel
        with open_page(browser, viewport={"width": 1280, "height": 860}) as watcher:
            watcher.goto(f"{tables.url}/#/watch/{game['id']}")
            expect(watcher.locator("td[data-clock='1']")).to_have_class("clock running")
            assert abs(seconds(clock_of(watcher, 1)) - seconds(clock_of(bo, 1))) <= 1
            assert watcher.locator("[data-table-panel], [data-seat-actions]").count() == 0


def test_out_of_time_the_stand_in_plays_and_the_player_takes_the_seat_back(
    tables: TableServer, browser: Browser
) -> None:
    game = tables.create({**TWO_HUMANS, "table": {"clock": FIVE_PLUS_TWENTY}})
    with seat_page(browser, tables, game, 0) as ana:
        place_anywhere(ana)  # Bo's clock runs from now
        tables.clock.jump(290_000)
        with seat_page(browser, tables, game, 1) as bo:
            # the last 30 seconds: in colour, and a tick every second for the player
            expect(bo.locator("td[data-clock='1']")).to_have_class("clock running low")
            assert seconds(clock_of(bo, 1)) <= 10
            ticks = tones(bo)
            bo.wait_for_timeout(2200)
            assert tones(bo) - ticks >= 2
            shot(bo, "tables-low-time")
        # Bo closed his tab; his time runs out: the stand-in plays his turn
        tables.clock.jump(15_000)
        expect(ana.locator("[data-seat='1'] [data-status='stood-in']")).to_be_visible(
            timeout=10_000
        )
        expect(ana.locator("[data-event='change-stand-in']")).to_have_text(
            "T2Bo ran out of time: the stand-in bot plays for them."
        )
        expect(ana).to_have_title(YOUR_TURN)  # the stand-in played: Ana's turn again
        assert ana.locator("[data-placement], [data-event='move']").count() == 2
        with seat_page(browser, tables, game, 1) as bo:
            expect(bo.locator(".banner")).to_have_text(
                "A bot is playing for you. Take your seat back to play."
            )
            shot(bo, "tables-stood-in")
            bo.locator("[data-seat-change='return']").click()
            expect(bo.locator("[data-seat-change='return']")).to_have_count(0)
            expect(ana.locator("[data-seat='1'] [data-status]")).to_have_count(0)
            expect(ana.locator("[data-event='change-return']")).to_have_text(
                "T3Bo is back and plays again."
            )
            # his next turn is his own, with the time the stand-in earned him
            place_anywhere(ana)
            expect(bo).to_have_title(YOUR_TURN)
            expect(bo.locator("td[data-clock='1']")).to_have_class("clock running")
            assert seconds(clock_of(bo, 1)) >= 15
            place_anywhere(bo)
            expect(ana).to_have_title(YOUR_TURN)


def test_resigning_asks_first_and_the_end_card_ranks_who_left_last(
    tables: TableServer, browser: Browser
) -> None:
    game = tables.create(TWO_HUMANS)
    with seat_page(browser, tables, game, 0) as ana, seat_page(browser, tables, game, 1) as bo:
        place_anywhere(ana)
        place_anywhere(bo)
        my_turn_title(ana)
        ana.locator("[data-seat-change='resign']").click()
        dialog = ana.locator("dialog[data-confirm='resign']")
        expect(dialog).to_be_visible()
        shot(ana, "tables-resign-dialog")
        dialog.locator("[data-confirm-no]").click()  # not yet
        expect(dialog).to_have_count(0)
        assert ana.locator("[data-seat='0'] [data-status]").count() == 0
        ana.locator("[data-seat-change='resign']").click()
        ana.locator("dialog [data-confirm-yes]").click()
        expect(ana.locator(".banner")).to_have_text("You resigned: the game goes on without you.")
        expect(bo.locator("[data-seat='0'] [data-status='resigned']")).to_have_text("resigned")
        expect(bo.locator("[data-event='change-resign']")).to_have_text(
            "T3Ana resigns and is ranked last; the stand-in bot plays their turns."
        )
        expect(ana.locator("[data-seat-change='resign']")).to_have_count(0)
        # Bo resigns too: no person is left, the stand-ins finish the game at once
        my_turn_title(bo)
        bo.locator("[data-seat-change='resign']").click()
        bo.locator("dialog [data-confirm-yes]").click()
        card = bo.locator(".end-card")
        expect(card).to_be_visible(timeout=15_000)
        places = card.locator("[data-standing]")
        # Bo left later: he ranks above Ana whatever the scores
        expect(places).to_have_count(2)
        assert [places.nth(i).get_attribute("data-standing") for i in range(2)] == ["1", "0"]
        expect(places.nth(0).locator(".story")).to_have_text("resigned on turn 4")
        expect(places.nth(1).locator(".story")).to_have_text("resigned on turn 3")
        shot(bo, "tables-end-card")
        # The replay tells the same: the changes in the log, and how long each move took.
        bo.goto(f"{tables.url}/#/replay/{game['id']}")
        expect(bo.locator(".replay-controls")).to_be_visible()
        log = bo.locator(".log")
        expect(log.locator("[data-event='change-resign']")).to_have_count(2)
        expect(log.locator("[data-event='move']")).to_have_count(
            len(TWO_HUMANS["options"]["stack"])
        )
        moves = log.locator("[data-event='move']").all_inner_texts()
        assert moves and all(re.search(r"\(\d+ s\)$", move) for move in moves), moves
        expect(bo.locator("[data-summary] [data-standing]")).to_have_count(2)
        assert re.search(r" · \d+ s$", bo.locator(".banner").inner_text())
        bo.locator("[data-step='back']").click()  # the step before the last: its own time
        assert re.search(r" · \d+ s$", bo.locator(".banner").inner_text())


def test_a_seat_the_stand_in_plays_is_not_offered_its_turn(
    tmp_path: Path, browser: Browser
) -> None:
    """The server sends the seat to move its actions even when its stand-in decides: the page
    of a player who resigned neither says it is their turn nor offers them a square."""
    with TableServer(tmp_path / "games.sqlite3", bot_delay=2.5) as srv:
        game = srv.create(TWO_HUMANS)
        with seat_page(browser, srv, game, 0) as ana:
            my_turn_title(ana)
            ana.locator("[data-seat-change='resign']").click()
            ana.locator("dialog [data-confirm-yes]").click()
            # the stand-in thinks 2.5 s before its move: the seat is still to move meanwhile
            expect(ana).to_have_title(TITLE)
            expect(ana.locator(".banner")).to_have_text(
                "You resigned: the game goes on without you."
            )
            expect(ana.locator(".hl-legal")).to_have_count(0)
            expect(ana.locator("[data-action='confirm']")).to_have_count(0)
            assert ana.evaluate("window.__tones") == 0


def my_turn_title(tab: Page) -> None:
    expect(tab).to_have_title(YOUR_TURN)


def test_an_absent_player_of_an_untimed_table_may_be_handed_to_the_stand_in(
    tables: TableServer, browser: Browser
) -> None:
    game = tables.create(TWO_HUMANS)
    with seat_page(browser, tables, game, 0) as ana:
        place_anywhere(ana)  # Bo, who never came, is to move
        expect(ana.locator("[data-seat-change='stand-in']")).to_have_count(0)
        tables.clock.jump(180_000)
        ana.reload()
        button = ana.locator("[data-seat-change='stand-in']")
        expect(button).to_have_text("Let a bot play for Bo (away)")
        button.click()
        expect(ana.locator("[data-event='change-stand-in']")).to_have_text(
            "T2Bo is away: the stand-in bot plays for them."
        )
        expect(ana).to_have_title(YOUR_TURN)
        expect(ana.locator("[data-seat='1'] [data-status='stood-in']")).to_have_text(
            "bot stands in"
        )


# A stand-in for the browser's notifications: records them; the player's answer is the
# test's (window.__answer), remembered by the "browser" as a real one is.
NOTIFICATIONS = """
window.__notes = [];
class RecordingNotification {
  constructor(title, options) { window.__notes.push({ title, body: options.body }); }
  static requestPermission() {
    localStorage.setItem("test.permission", window.__answer);
    RecordingNotification.permission = window.__answer;
    return Promise.resolve(window.__answer);
  }
}
RecordingNotification.permission = localStorage.getItem("test.permission") || "default";
window.Notification = RecordingNotification;
Object.defineProperty(document, "hidden", { get: () => window.__hidden === true });
"""


@pytest.mark.parametrize("answer", ["granted", "denied"])
def test_a_turn_based_game_notifies_a_hidden_tab_once_allowed(
    tables: TableServer, browser: Browser, answer: str
) -> None:
    game = tables.create({**TWO_HUMANS, "table": {"clock": PRESETS["3d"].to_json()}})
    with seat_page(browser, tables, game, 0) as ana, seat_page(browser, tables, game, 1) as bo:
        ana.add_init_script(NOTIFICATIONS + f"window.__answer = {json.dumps(answer)};")
        ana.reload()
        expect(ana.locator("td[data-clock='1']")).to_have_text("3 d 0 h")
        ask = ana.locator("[data-notify]")
        ask.click()  # asked once, on the player's click
        expect(ask).to_have_count(0)
        ana.reload()
        expect(ana.locator("td[data-clock='0']")).to_be_visible()
        expect(ana.locator("[data-notify]")).to_have_count(0)  # never asked again
        place_anywhere(ana)
        ana.evaluate("window.__hidden = true")
        place_anywhere(bo)
        my_turn_title(ana)
        notes = ana.evaluate("window.__notes")
        if answer == "granted":
            assert notes == [
                {"title": "Carcassonne: your turn", "body": "Your turn: place the tile"}
            ]
        else:
            assert notes == []
        # Bo's clock counts days and hours now that his time was charged
        assert ana.locator("td[data-clock='1']").inner_text().endswith(" h")


def test_an_untimed_game_offers_no_notification(tables: TableServer, browser: Browser) -> None:
    game = tables.create(TWO_HUMANS)
    with seat_page(browser, tables, game, 0) as ana:
        ana.add_init_script(NOTIFICATIONS)
        ana.reload()
        expect(ana.locator("[data-sound]")).to_be_visible()
        expect(ana.locator("[data-notify]")).to_have_count(0)
        assert ana.locator("td[data-clock]").count() == 0


def test_a_table_created_in_the_lobby_has_its_clock_and_settings(
    server: Server, browser: Browser
) -> None:
    with open_page(browser, viewport={"width": 1280, "height": 900}, locale="en-GB") as tab:
        tab.goto(server.url + "/")
        tab.select_option("select[name=kind-1]", "human")
        tab.select_option("select[name=clock-kind]", "real-time")
        tab.select_option("select[name=clock-preset]", "10+30")
        tab.select_option("select[name=stand-in]", "random")
        tab.select_option("select[name=on-timeout]", "lose")
        tab.select_option("select[name=aids]", "off")
        tab.click("[data-create]")
        expect(tab.locator("[data-created]")).to_be_visible()
        game_id = tab.locator("[data-created]").get_attribute("data-created")
        with urllib.request.urlopen(f"{server.url}/api/games/{game_id}", timeout=5) as answer:
            table = json.loads(answer.read())["table"]
        assert table == {
            "clock": PRESETS["10+30"].to_json(), "stand_in": "random", "on_timeout": "lose",
            "aids": False,
        }  # fmt: skip
        tab.click("[data-play]")
        expect(tab.locator("td[data-clock='0']")).to_have_text("10:00")
        expect(tab.locator("td[data-clock='1']")).to_have_text("10:00")
        expect(tab.locator(".aids-panel, .aids-hole, [data-feature-tip]")).to_have_count(0)


def test_a_shared_screen_names_the_seat_that_resigns(tables: TableServer, browser: Browser) -> None:
    """On a hotseat screen the seat to move resigns: the button and the question name it."""
    game = tables.create({**TWO_HUMANS, "hotseat": True})
    with open_page(browser, viewport={"width": 1280, "height": 860}, locale="en-GB") as tab:
        tab.goto(f"{tables.url}/#/play/{game['id']}/{game['hotseat_token']}")
        resign = tab.locator("[data-seat-change='resign']")
        expect(resign).to_have_text("Resign for Ana")
        resign.click()
        expect(tab.locator("dialog h3")).to_have_text("Resign this game for Ana?")
        tab.locator("dialog [data-confirm-yes]").click()
        expect(tab.locator("[data-seat='0'] [data-status='resigned']")).to_be_visible()
        # the stand-in plays Ana's turn; then Bo is to move on this screen
        expect(resign).to_have_text("Resign for Bo", timeout=10_000)


def test_the_last_hour_of_a_turn_based_clock_is_marked_with_one_tick(
    tables: TableServer, browser: Browser
) -> None:
    game = tables.create({**TWO_HUMANS, "table": {"clock": PRESETS["1d"].to_json()}})
    with seat_page(browser, tables, game, 0) as ana:
        place_anywhere(ana)  # Bo's day runs from now
        expect(ana.locator("td[data-clock='1']")).to_have_text("1 d 0 h")
    tables.clock.jump(DAY_MS - 30 * 60_000)
    with seat_page(browser, tables, game, 1) as bo:
        expect(bo.locator("td[data-clock='1']")).to_have_class("clock running low")
        assert 29 * 60 <= seconds(clock_of(bo, 1)) <= 30 * 60  # "29:59": minutes and seconds
        bo.wait_for_timeout(2200)
        assert tones(bo) == 1  # one tick for the hour, not one a second
        shot(bo, "tables-turn-based-low")
