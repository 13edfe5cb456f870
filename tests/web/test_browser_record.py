"""End-to-end: records keep every digit on their way through the browser (issue 21).

A page's numbers are doubles, exact only up to 2^53 - 1: a record the page parsed and wrote
out again had its 64-bit seed rounded (2184952143081912475 became ...320), and neither
``carcassonne replay`` nor the server would replay it ("tile mismatch"). Games of older servers
have such seeds; their records must download and upload exactly.

The server, browser and page fixtures are those of ``test_browser.py`` (skipped the same way
without Chromium); screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import test_browser as browser_tests
from playwright.sync_api import Page, expect
from test_browser import Server, shot

from carcassonne.formats.actions import action_to_json
from carcassonne.formats.record_writer import dumps_record, record_from_game
from carcassonne.game import Game, GameOptions
from carcassonne.web.database import open_storage
from carcassonne.web.protocol import MAX_SAFE_INTEGER, options_to_json

browser = browser_tests.browser
page = browser_tests.page
server = browser_tests.server

#: the seed of the play-test's record: drawn by a server before seeds were bounded to 2^53 - 1
LARGE_SEED = 2184952143081912475
OLD_GAME_ID = "oldgame1"


def finished_game_with_the_large_seed() -> Game:
    """A two-seat base game of random legal moves, shuffled from :data:`LARGE_SEED`."""
    assert LARGE_SEED > MAX_SAFE_INTEGER  # a page reading it would round it
    game = Game(GameOptions(players=2, seed=LARGE_SEED))
    rng = random.Random(21)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    return game


@pytest.fixture
def old_server(tmp_path: Path) -> Iterator[Server]:
    """A server on a database that holds a finished game of an older server, whose seed is
    :data:`LARGE_SEED`."""
    db = tmp_path / "games.sqlite3"
    game = finished_game_with_the_large_seed()
    storage = open_storage(db)
    try:
        seats = [
            {"kind": "human", "bot": None, "name": name, "digest": None} for name in ("Ana", "Bo")
        ]
        storage.create_game(OLD_GAME_ID, options_to_json(game.options), seats, None)
        moves = [(seat, action_to_json(action)) for seat, action in game.history]
        storage.append_actions(OLD_GAME_ID, 0, moves, over=True)
    finally:
        storage.close()
    srv = Server(db)
    try:
        srv.start()
        yield srv
    finally:
        srv.close()


def server_record(server: Server, game_id: str) -> bytes:
    with urllib.request.urlopen(f"{server.url}/api/games/{game_id}/record", timeout=10) as r:
        return r.read()  # type: ignore[no-any-return]


def replays_on_the_command_line(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "carcassonne.cli.main", "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_record_with_a_64_bit_seed_downloads_byte_for_byte(
    old_server: Server, page: Page, tmp_path: Path
) -> None:
    expected = server_record(old_server, OLD_GAME_ID)
    assert json.loads(expected)["seed"] == LARGE_SEED
    # From the end card of the game, then from the last step of its replay.
    page.goto(f"{old_server.url}/#/watch/{OLD_GAME_ID}")
    button = page.locator(".end-card [data-end=download]")
    expect(button).to_be_visible(timeout=15_000)
    shot(page, "40-old-game-end-card")
    saved = []
    for where in ("game", "replay"):
        with page.expect_download() as download:
            button.click()
        path = tmp_path / f"{where}-{download.value.suggested_filename}"
        download.value.save_as(path)
        saved.append(path)
        if where == "game":
            page.locator(".end-card [data-end=replay]").click()
            button = page.locator("[data-summary] [data-end=download]")
            expect(button).to_be_visible(timeout=15_000)
    for path in saved:
        assert path.name.endswith(f"carcassonne-{OLD_GAME_ID}.json")
        assert json.loads(path.read_bytes())["seed"] == LARGE_SEED
        assert path.read_bytes() == expected
        replayed = replays_on_the_command_line(path)
        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
        assert "Winner" in replayed.stdout or "Winners" in replayed.stdout


def test_a_record_with_a_64_bit_seed_uploads_and_replays(
    server: Server, page: Page, tmp_path: Path
) -> None:
    game = finished_game_with_the_large_seed()
    seats = [{"name": "Ana", "kind": "human"}, {"name": "Bo", "kind": "greedy"}]
    path = tmp_path / "old-record.json"
    path.write_text(dumps_record(record_from_game(game, seats)), encoding="utf-8")
    assert f'"seed": {LARGE_SEED}' in path.read_text()
    page.goto(f"{server.url}/#/replay")
    page.set_input_files("[data-upload]", str(path))
    banner = page.locator(".banner")
    expect(banner).to_contain_text(f"Step {len(game.history)} of {len(game.history)}")
    expect(page.locator(".error-box")).to_have_count(0)
    # The replay is the record's game: its final scores.
    for seat, score in enumerate(game.scores):
        expect(page.locator(f'[data-score="{seat}"]')).to_contain_text(str(score))
    shot(page, "41-uploaded-64-bit-seed")


def test_the_lobby_refuses_a_seed_a_page_cannot_hold(server: Server, page: Page) -> None:
    page.goto(server.url + "/")
    page.fill("input[name=seed]", str(LARGE_SEED))
    page.click("[data-create]")
    expect(page.locator(".error-box")).to_have_text(
        "The seed must be a whole number from 0 to 9007199254740991."
    )
    expect(page.locator("[data-created]")).to_have_count(0)
    shot(page, "42-lobby-seed-too-large")
    page.fill("input[name=seed]", str(MAX_SAFE_INTEGER))
    page.click("[data-create]")
    expect(page.locator("[data-created]")).to_be_visible()
