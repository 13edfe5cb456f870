"""The web log's sentences, in every language, checked against the engine's own score events.

Real games (bots, every expansion) supply one event of every kind that pays: features completed,
unfinished at the end or recalled by the abbot, fields, bets won and lost, map chips, wine. The
page's own code (``describeEvent``) words each one in English, French and Romanian, and every
number in the sentence must be the event's: the points, the tiles and coats of arms, a monastery's
neighbours counted on the board, a field's completed cities, the square, the chip.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections import Counter
from typing import Any

from playwright.sync_api import Browser, expect
from test_browser import (  # noqa: F401  (fixtures)
    Server,
    browser,
    confirm_turn,
    open_page,
    page,
    server,
    shot,
)

from carcassonne.board import RING, encode
from carcassonne.bots import make_bot
from carcassonne.events import ScoreEvent
from carcassonne.game import Game, GameOptions
from carcassonne.web.protocol import public_event

# Names without digits, so that every number in a sentence comes from the event.
SEATS = [{"name": name, "kind": "human"} for name in ("Ana", "Bob", "Cy")]
LANGUAGES = ("en", "fr", "ro")
NUMBER = re.compile(r"-?\d+")

# Each (source, reason) that pays points, and must appear among the games' events.
PAYING = {
    ("city", "completed"), ("city", "final"),
    ("road", "completed"), ("road", "final"),
    ("monastery", "completed"), ("monastery", "final"), ("monastery", "abbot-recall"),
    ("garden", "completed"), ("garden", "final"), ("garden", "abbot-recall"),
    ("field", "final"),
    ("inn", "completed"), ("cathedral", "completed"), ("goods", "final"),
    ("bet", "completed"), ("bet", "final"),
    ("map-chip", "collected"),
    ("wine", "export"), ("wine", "town"),
}  # fmt: skip


def played(options: GameOptions, bot: str) -> Game:
    game = Game(options)
    bots = [make_bot(bot, (options.seed or 0) + i) for i in range(options.players)]
    while not game.is_over:
        game.apply(bots[game.to_move].choose(game))
    return game


def games() -> list[Game]:
    """Games that together score every kind of event (greedy bots complete gardens and
    monasteries; random ones spread figures, so ties and lost bets happen; greedy ones with
    Inns & Cathedrals, Traders & Builders and small cities scoring 2 complete inns, cathedrals
    and two-tile cities, and win fields with a pig, alone and tied with a seat without one)."""
    out = [played(GameOptions(players=2, abbot=True, seed=10), "greedy")]
    for seed in (1, 2):
        options = GameOptions(
            players=3,
            inns_cathedrals=True,
            traders_builders=True,
            small_city_scores_2=True,
            seed=seed,
        )
        out.append(played(options, "greedy"))
    for seed in range(4):
        out.append(
            played(GameOptions(players=3, abbot=True, bets=True, river=True, seed=seed), "random")
        )
        out.append(
            played(
                GameOptions(players=2, map="france", map_chips=True, bets=True, seed=seed),
                "random",
            )
        )
    return out


def neighbours(game: Game, event: ScoreEvent) -> int:
    """Tiles around a monastery or garden when it was scored, counted on the board (a tile
    records the turn count before its own placement, events the count after it)."""
    (square,) = event.squares if event.reason != "abbot-recall" else [event.detail["square"]]
    pos = encode(*square)
    return sum(
        1
        for d in RING
        if (placed := game.board.get(pos + d)) is not None and placed.turn < event.turn
    )


def chip_numbers(chip: str) -> list[int]:
    return [int(n) for n in NUMBER.findall(chip)]


def per_tile(game: Game, event: ScoreEvent) -> int:
    """What a tile (and coat of arms) of the event's city or road pays, by the rules: a city 2,
    or 1 unfinished or small with the variant (D37); a road 1; with an inn 2 and a cathedral 3
    when completed, nothing unfinished (D34)."""
    completed = event.reason == "completed"
    if event.source in ("inn", "cathedral"):
        return (2 if event.source == "inn" else 3) if completed else 0
    if event.source == "city":
        small = event.tiles == 2 and game.options.small_city_scores_2
        return 2 if completed and not small else 1
    return 1


def field_numbers(game: Game, event: ScoreEvent) -> list[int]:
    """A field's sentences, one per rate: each winner gets 3 per completed city, or 4 with a
    pig in the field (D45, only with Traders & Builders)."""
    cities = event.detail["completed_cities"]
    numbers = []
    for got in set(event.points.values()):
        rate, rest = divmod(got, cities)
        assert rest == 0 and rate in ((3, 4) if game.options.traders_builders else (3,))
        numbers += [got, cities, rate, got]
    return numbers


def expected_numbers(game: Game, event: ScoreEvent) -> list[int] | None:
    """Every number the sentence must hold (None: the log leaves out an event paying nothing)."""
    points = max(event.points.values(), default=0)
    detail = event.detail
    square = list(detail.get("square") or [])
    if event.source == "bet":
        paid = [points] if detail["paid"] else []
        return [*square, *chip_numbers(detail["chip"]), *paid, detail["tiles"]]
    # An unfinished road with an inn or city with a cathedral pays its owners 0: news.
    marked_nothing = event.source in ("inn", "cathedral") and event.points
    if not points and not marked_nothing:
        return None
    # Who had how many figures is said when several seats shared a feature.
    figures = list(event.figures.values()) if len(event.figures) > 1 else []
    if event.source == "map-chip":
        return [*square, points]
    if event.source == "wine":
        return [*detail["chips"], points]
    if event.source == "goods":
        return [detail["tokens"], points]
    if event.source == "field":
        return [*field_numbers(game, event), *figures]
    if event.source in ("city", "cathedral"):
        arms = [event.coats_of_arms] if event.coats_of_arms else []
        return [points, event.tiles, *arms, per_tile(game, event), points, *figures]
    if event.source in ("road", "inn"):
        return [points, event.tiles, per_tile(game, event), points, *figures]
    # A monastery or garden: 1 + its neighbours, at the square the abbot left if recalled.
    around = neighbours(game, event)
    assert points == 1 + around
    return [points, *square, 1, around, points, *figures]


def describe_all(tab: Any, url: str, events: list[dict[str, Any]], lang: str) -> list[Any]:
    tab.goto(url + "/")
    return tab.evaluate(  # type: ignore[no-any-return]
        """async ([events, seats, lang]) => {
            const i18n = await import("/static/js/i18n.js");
            const { describeEvent } = await import("/static/js/panels.js");
            await (await import("/static/js/tiles.js")).loadTiles();
            await i18n.setLanguage(lang);
            return events.map((ev) => {
                const described = describeEvent(ev, seats);
                return described ? described.text : null;
            });
        }""",
        [events, SEATS, lang],
    )


def test_every_score_sentence_holds_the_events_own_numbers(
    server: Server,  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    scored = [(g, e) for g in games() for e in g.events if isinstance(e, ScoreEvent)]
    kinds = {(e.source, e.reason) for _, e in scored if e.points and max(e.points.values()) > 0}
    assert kinds >= PAYING, f"the games scored no {sorted(PAYING - kinds)}"
    field_rates = [
        sorted({p // e.detail["completed_cities"] for p in e.points.values()})
        for _, e in scored
        if e.source == "field" and e.detail["completed_cities"]
    ]
    assert [4] in field_rates and [3, 4] in field_rates, "no field won with a pig, alone and tied"
    events = [public_event(e) for _, e in scored]
    for lang in LANGUAGES:
        texts = describe_all(page, server.url, events, lang)
        assert len(texts) == len(scored)
        wrong = []
        for (game, event), text in zip(scored, texts, strict=True):
            expected = expected_numbers(game, event)
            if expected is None:
                if text is not None:
                    wrong.append((event.source, event.reason, "a zero-point line", text))
                continue
            found = [int(n) for n in NUMBER.findall(text or "")]
            if Counter(found) != Counter(expected) or "{" in (text or ""):
                wrong.append((event.source, event.reason, sorted(expected), text))
        assert wrong == [], f"{lang}: {len(wrong)} wrong sentences, e.g. {wrong[:5]}"


def score(source: str, reason: str, points: dict[int, int], **fields: Any) -> dict[str, Any]:
    return {
        "type": "score", "turn": 5, "source": source, "reason": reason,
        "points": {str(k): v for k, v in points.items()}, "tiles": 0, "coats_of_arms": 0,
        "figures": {}, "squares": [], "detail": {}, **fields,
    }  # fmt: skip


def test_sentences_read_right(server: Server, page: Any) -> None:  # noqa: F811
    events = [
        score("monastery", "final", {0: 6}, figures={"0": 1}, squares=[[2, 3]]),
        score("monastery", "completed", {1: 9}, figures={"1": 1}, squares=[[2, 3]]),
        score("garden", "abbot-recall", {0: 4}, detail={"square": [1, -1], "value": 4}),
        score(
            "city",
            "completed",
            {0: 8, 1: 8},
            tiles=3,
            coats_of_arms=1,
            figures={"0": 1, "1": 1},
            detail={"value": 8, "per_tile": 2},
        ),  # fmt: skip
        score("road", "final", {2: 3}, tiles=3, figures={"2": 1}, detail={"per_tile": 1}),
        score(
            "field",
            "final",
            {0: 6},
            figures={"0": 2, "1": 1},
            detail={"completed_cities": 2, "value": 6, "per_city": {"0": 3}},
        ),  # fmt: skip
        score("field", "final", {1: 0}, figures={"1": 1}, detail={"completed_cities": 0}),
        score("map-chip", "collected", {1: 2}, detail={"square": [4, 5], "colour": "orange"}),
        score(
            "bet",
            "final",
            {0: 0},
            detail={
                "owner": 0,
                "chip": "3/5",
                "square": [1, 0],
                "feature": "road",
                "tiles": 4,
                "paid": 0,
            },
        ),  # fmt: skip
        {
            "type": "event",
            "event": "discard",
            "turn": 3,
            "seat": None,
            "detail": {"tile": "base/D"},
        },
    ]
    assert describe_all(page, server.url, events, "en") == [
        "Ana scores 6 for an unfinished monastery at the end: 1 + 5 neighbours = 6.",
        "Bob scores 9 for a surrounded monastery: 1 + 8 neighbours = 9.",
        "Ana scores 4 by recalling the abbot from the garden at (1, -1): 1 + 3 neighbours = 4.",
        "Ana and Bob score 8 each for a completed city: (3 tiles + 1 coat of arms) × 2 = 8."
        " Figures: Ana ×1, Bob ×1.",
        "Cy scores 3 for an unfinished road at the end: 3 tiles × 1 = 3.",
        "Ana scores 6 for a field at the end: 2 completed cities × 3 = 6. Farmers: Ana ×2, Bob ×1.",
        None,
        "Bob collects an orange map chip at (4, 5): +2.",
        "Bet at (1, 0): Ana's chip 3/5 loses — the road has 4 tiles (final scoring).",
        "The drawn tile (City and road) fits nowhere and is removed from the game.",
    ]
    assert describe_all(page, server.url, events[:1], "fr") == [
        "Ana marque 6 pour une abbaye inachevée en fin de partie : 1 + 5 tuiles voisines = 6."
    ]
    assert describe_all(page, server.url, events[:1], "ro") == [
        "Ana primește 6 pentru o mănăstire neterminată la final: 1 + 5 vecini = 6."
    ]


def test_romanian_counts_from_20_say_de(server: Server, page: Any) -> None:  # noqa: F811
    # Points said "20 de puncte" but every other count "20 piese": Romanian puts "de" between a
    # number and its noun from 20 to 100 and from 120 on, not from 0 to 19 nor 101 to 119.
    events = [
        score("road", "final", {2: 20}, tiles=20, figures={"2": 1}, detail={"per_tile": 1}),
        score("road", "final", {2: 19}, tiles=19, figures={"2": 1}, detail={"per_tile": 1}),
        score(
            "city",
            "completed",
            {0: 123},
            tiles=102,
            coats_of_arms=21,
            figures={"0": 1},
            detail={"value": 123, "per_tile": 1},
        ),  # fmt: skip
        score(
            "field",
            "final",
            {0: 60},
            figures={"0": 1},
            detail={"completed_cities": 20, "value": 60, "per_city": {"0": 3}},
        ),  # fmt: skip
    ]
    texts = describe_all(page, server.url, events, "ro")
    assert [text.split(": ", 1)[1] for text in texts] == [
        "20 de piese × 1 = 20.",
        "19 piese × 1 = 19.",
        "(102 piese + 21 de steme) × 1 = 123.",
        "20 de orașe terminate × 3 = 60.",
    ]


def test_french_elides_de_before_a_seat_name_with_a_vowel(server: Server, page: Any) -> None:  # noqa: F811
    # "le jeton 3/5 de Ana" is "d'Ana" in French; Bob keeps "de".
    bet = {"chip": "3/5", "square": [1, 0], "feature": "road", "tiles": 4, "paid": 0}
    events = [score("bet", "final", {seat: 0}, detail={"owner": seat, **bet}) for seat in (0, 1)]
    assert describe_all(page, server.url, events, "fr") == [
        "Pari en (1, 0) : le jeton 3/5 d'Ana perd — la route a 4 tuiles (décompte final).",
        "Pari en (1, 0) : le jeton 3/5 de Bob perd — la route a 4 tuiles (décompte final).",
    ]


def test_a_goods_majority_reads_right_in_every_language(server: Server, page: Any) -> None:  # noqa: F811
    # Romanian said "cele mai multe vin" (a plural "most" on an uncounted noun); the tokens are
    # counted instead, whatever the goods' gender.
    events = [
        score("goods", "final", {0: 10}, detail={"goods": goods, "tokens": n})
        for goods, n in (("wine", 6), ("cloth", 1))
    ]
    assert describe_all(page, server.url, events, "ro") == [
        "Ana: cele mai multe jetoane de vin (6): +10.",
        "Ana: cele mai multe jetoane de stofă (1): +10.",
    ]
    assert describe_all(page, server.url, events, "fr") == [
        "Ana : le plus de vin (6) : +10.",
        "Ana : le plus de tissu (1) : +10.",
    ]
    assert describe_all(page, server.url, events, "en") == [
        "Ana: most wine (6): +10.",
        "Ana: most cloth (1): +10.",
    ]


def test_a_settling_choice_reads_right_in_every_language(server: Server, page: Any) -> None:  # noqa: F811
    # The replay's banner said "decontează pe drum piesei din (9, 11)" in Romanian (a bare noun
    # before a genitive).
    page.goto(server.url + "/")
    labels = page.evaluate(
        """async () => {
            const i18n = await import("/static/js/i18n.js");
            const { actionLabel } = await import("/static/js/game.js");
            const out = [];
            for (const lang of ["en", "fr", "ro"]) {
                await i18n.setLanguage(lang);
                for (const kind of ["road", "city"])
                    out.push(actionLabel({ type: "settle-bet", x: 9, y: 11, kind, location: "N" }));
            }
            return out;
        }"""
    )
    assert labels == [
        "settles against the road of the tile at (9, 11)",
        "settles against the city of the tile at (9, 11)",
        "règle contre la route de la tuile en (9, 11)",
        "règle contre la ville de la tuile en (9, 11)",
        "decontează pe elementul drum al piesei din (9, 11)",
        "decontează pe elementul oraș al piesei din (9, 11)",
    ]


def test_the_wine_panel_counts_one_point_in_the_singular(server: Server, page: Any) -> None:  # noqa: F811
    # A seat with one chip of 1 read "1 pts in chips".
    page.goto(server.url + "/")
    texts = page.evaluate(
        """async (seats) => {
            const i18n = await import("/static/js/i18n.js");
            const { winePanel } = await import("/static/js/panels.js");
            const in_front = [[{ colour: "purple", value: 1 }],
                              [{ colour: "orange", value: 2 }, { colour: "orange", value: 1 }]];
            const chips = { in_front, towns: [], face_down: [], sold: 0 };
            const view = { expansions: { "map-chips": chips } };
            const out = [];
            for (const lang of ["en", "fr", "ro"]) {
                await i18n.setLanguage(lang);
                const panel = winePanel({ seats }, view);
                out.push([...panel.querySelectorAll(".wine-points")].map((e) => e.textContent));
            }
            return out;
        }""",
        SEATS[:2],
    )
    assert texts == [
        ["1 pt in chips", "3 pts in chips"],
        ["1 pt en jetons", "3 pts en jetons"],
        ["1 pct. în jetoane", "3 pct. în jetoane"],
    ]


def test_the_winner_line_counts_points_as_each_language_does(server: Server, page: Any) -> None:  # noqa: F811
    # Romanian said "câștigă cu 7 de puncte" ("de" comes only from 20 on, and not after 101 to
    # 119); English said "1 points".
    page.goto(server.url + "/")
    lines = page.evaluate(
        """async (seats) => {
            const i18n = await import("/static/js/i18n.js");
            const { summaryPanel } = await import("/static/js/panels.js");
            const out = {};
            for (const lang of ["en", "fr", "ro"]) {
                await i18n.setLanguage(lang);
                out[lang] = [1, 7, 20, 101, 134].map((best) => {
                    const summary = { scores: [best, 0], by_source: [{}, {}], winners: [0] };
                    return summaryPanel(summary, seats).querySelector(".winner-line").textContent;
                });
                const tie = { scores: [7, 7], by_source: [{}, {}], winners: [0, 1] };
                out[lang].push(summaryPanel(tie, seats).querySelector(".winner-line").textContent);
            }
            return out;
        }""",
        SEATS[:2],
    )
    assert lines == {
        "en": ["Ana wins with 1 point!", "Ana wins with 7 points!", "Ana wins with 20 points!",
               "Ana wins with 101 points!", "Ana wins with 134 points!",
               "Shared victory with 7 points: Ana and Bob!"],
        "fr": ["Ana gagne avec 1 point !", "Ana gagne avec 7 points !",
               "Ana gagne avec 20 points !", "Ana gagne avec 101 points !",
               "Ana gagne avec 134 points !", "Victoire partagée avec 7 points : Ana et Bob !"],
        "ro": ["Ana câștigă cu 1 punct!", "Ana câștigă cu 7 puncte!",
               "Ana câștigă cu 20 de puncte!", "Ana câștigă cu 101 puncte!",
               "Ana câștigă cu 134 de puncte!", "Victorie împărțită cu 7 puncte: Ana și Bob!"],
    }  # fmt: skip


# ------------------------------------------------------------------ the turn panel and names

STACK = ["base/E", "base/B", "bets/01", "base/U", "base/V", "base/K"]
BASE_STACK = [tile for tile in STACK if not tile.startswith("bets/")]


def open_seat(
    tab: Any, srv: Server, body: dict[str, Any], token_key: str = "seats"
) -> tuple[str, str]:
    """Create a game, open the first seat's page (or the hotseat's); its state URL and token."""
    created = srv.create(body)
    token = created["hotseat_token"] if token_key == "hotseat" else created["seats"][0]["token"]
    tab.goto(f"{srv.url}/#/play/{created['id']}/{token}")
    expect(tab.locator("[data-square]").first).to_be_attached(timeout=15_000)
    return f"{srv.url}/api/games/{created['id']}/state", token


def state(tab: Any, url: str, token: str) -> dict[str, Any]:
    """The seat's state as the server sends it, fetched by the page."""
    return tab.evaluate(  # type: ignore[no-any-return]
        """async ([url, token]) =>
            (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).json()""",
        [url, token],
    )


def marked(tab: Any, cls: str) -> list[tuple[int, int]]:
    """The board squares marked with ``cls`` (marks are inset 2 units in 100-unit squares)."""
    xy = tab.locator(f".layer-marks .{cls}").evaluate_all(
        "els => els.map(e => [Number(e.getAttribute('x')), Number(e.getAttribute('y'))])"
    )
    return sorted(((x - 2) // 100, (y - 2) // 100) for x, y in xy)


def test_placed_tile_keeps_the_legal_squares_lit_and_the_tile_has_a_name(
    server: Server,  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    body = {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}],
            "options": {"stack": BASE_STACK}}  # fmt: skip
    open_seat(page, server, body)
    turn = page.locator("[data-turn-panel]")
    expect(turn).to_contain_text("Drawn tile: City")
    expect(turn).not_to_contain_text("base/")
    expect(page.locator(".tile-preview")).to_have_attribute("aria-label", "City")
    squares = page.locator("[data-square]").count()
    assert squares > 1
    page.locator('[data-square="0,-1"]').click()
    expect(page.locator(".hl-pending")).to_be_attached()
    # The tile waits for confirmation; every square stays lit, and another moves it there.
    expect(page.locator("[data-square]")).to_have_count(squares)
    shot(page, "20-pending-keeps-squares")
    other = page.locator(".hl-legal:not([data-square='0,-1'])").first
    target = other.get_attribute("data-square")
    other.click()
    pending = page.locator(".layer-pending g").first
    x, y = (int(v) for v in (target or "").split(","))
    expect(pending).to_have_attribute("transform", f"translate({x * 100} {y * 100})")
    # Default names in the page's language: the seat left unnamed, the greedy bot.
    expect(page.locator(".scores")).to_contain_text("Player 1")
    expect(page.locator(".scores")).to_contain_text("Greedy bot")


def test_french_page_names_seats_and_bets_in_french(
    server: Server,  # noqa: F811
    browser: Browser,  # noqa: F811
) -> None:
    body = {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}],
            "options": {"bets": True, "stack": STACK}}  # fmt: skip
    with open_page(browser, viewport={"width": 1400, "height": 900}, locale="fr-FR") as tab:
        open_seat(tab, server, body)
        scores = tab.locator(".scores")
        expect(scores).to_contain_text("Joueur 1")
        expect(scores).to_contain_text("Robot glouton")
        expect(scores).not_to_contain_text("Player")
        # The Bets panel is not "Paris", the name of a city on the France map.
        expect(tab.locator(".bets-panel h3")).to_have_text("Mises")
        expect(tab.locator(".sidebar")).not_to_contain_text("Paris")
        expect(tab.locator("[data-turn-panel]")).to_contain_text("Tuile piochée : Ville")
        shot(tab, "21-french-names")


def test_hotseat_banner_names_the_seat_to_play(
    server: Server,  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    body = {"seats": [{"kind": "human"}, {"kind": "human"}], "hotseat": True,
            "options": {"stack": BASE_STACK}}  # fmt: skip
    open_seat(page, server, body, "hotseat")
    expect(page.locator(".banner")).to_have_text("Player 1, your turn: place the tile")
    page.locator('[data-square="0,-1"]').click()
    confirm_turn(page)
    expect(page.locator(".banner")).to_have_text(
        "Player 2, your turn: place the tile", timeout=15_000
    )


# ------------------------------------------------------------------ settling bets at the end


def test_final_settlement_outlines_the_office_and_each_candidate(
    server: Server,  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    # bets/06 at (1, 0) keeps its city and both roads open to the end: the chip on its office
    # is settled at the end against the one the player picks.
    body = {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "random"}],
            "options": {"bets": True, "stack": ["bets/06", "base/U", "base/U"]}}  # fmt: skip
    state_url, token = open_seat(page, server, body)
    page.locator('[data-square="1,0"]').click()
    expect(page.locator(".tile-preview")).to_have_attribute("data-rotation", "0")
    confirm_turn(page)
    page.locator('[data-decision="bet"] [data-bet="3/6"]').click()
    expect(page.locator(".hl-legal").first).to_be_attached(timeout=15_000)
    page.locator(".hl-legal").first.click()
    confirm_turn(page)
    decision = page.locator('[data-decision="settle-final"]')
    expect(decision).to_be_visible(timeout=15_000)
    # No drawn tile any more: no empty tile frame in the turn panel.
    expect(page.locator(".tile-preview")).to_be_hidden()
    expect(decision.locator("[data-settle]")).to_have_count(3)
    expect(decision.locator('[data-settle="city:N"]')).to_have_text("City (1 tile)")
    candidates = {
        f"{c['kind']}:{c['location']}": sorted((x, y) for x, y in c["squares"])
        for c in state(page, state_url, token)["view"]["expansions"]["bets"]["settle"]
    }
    assert set(candidates) == {"city:N", "road:E", "road:W"}
    # The office is outlined, and every candidate's squares are marked.
    assert marked(page, "hl-office") == [(1, 0)]
    assert marked(page, "hl-candidate") == sorted(sq for c in candidates.values() for sq in c)
    shot(page, "22-settle-final-candidates")
    # Pointing at the west road outlines its squares alone; keyboard focus does the same.
    west = decision.locator('[data-settle="road:W"]')
    west.hover()
    assert marked(page, "hl-settle") == candidates["road:W"]
    assert marked(page, "hl-candidate") == []
    shot(page, "23-settle-final-pointed")
    decision.locator('[data-settle="city:N"]').focus()
    assert marked(page, "hl-settle") == [(1, 0)]
    west.click()
    expect(page.locator(".banner")).to_contain_text("Game over", timeout=15_000)
    expect(page.locator(".log")).to_contain_text("Bet at (1, 0): Ana's chip 3/6")


# ------------------------------------------------------------------ banner and summary layout


def test_banner_never_covers_the_map(server: Server, page: Any) -> None:  # noqa: F811
    body = {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "random"}],
            "options": {"map": "france", "seed": 5}}  # fmt: skip
    open_seat(page, server, body)
    page.locator("[data-tool=whole-map]").click()
    banner = page.locator(".banner").bounding_box()
    board = page.locator("svg.board").bounding_box()
    assert banner and board
    assert banner["y"] + banner["height"] <= board["y"]
    # The whole map, top row included, is on the board below the banner.
    top_row = min(
        page.locator(".map-square").evaluate_all(
            "els => els.map(e => e.getBoundingClientRect().top)"
        )
    )
    assert top_row >= board["y"]
    shot(page, "24-banner-above-the-map")


def test_summary_shows_whole_seat_names(server: Server, page: Any) -> None:  # noqa: F811
    body = {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}],
            "options": {"stack": BASE_STACK}}  # fmt: skip
    open_seat(page, server, body)
    while page.locator("[data-summary]").count() == 0:
        page.wait_for_selector(".hl-legal, [data-summary]", timeout=15_000)
        if page.locator(".hl-legal").count():
            page.locator(".hl-legal").first.click()
            confirm_turn(page)
        page.wait_for_timeout(100)
    page.locator('[data-end="close"]').click()
    headers = page.locator("[data-summary] .seat-short")
    expect(headers).to_have_count(2)
    assert sorted(headers.all_text_contents()) == ["Greedy bot", "Player 1"]
    # Nothing of a name is cut off: each header is as wide as its text.
    cut = headers.evaluate_all("els => els.filter(e => e.scrollWidth > e.clientWidth).length")
    assert cut == 0
    page.locator("[data-summary]").scroll_into_view_if_needed()
    shot(page, "25-summary-names")


def test_rules_gallery_names_tiles_in_words(server: Server, page: Any) -> None:  # noqa: F811
    page.goto(server.url + "/#/rules")
    caption = page.locator('.gallery figure[data-tile="base/D"] figcaption')
    expect(caption).to_have_text("D · City and road ×4")
    expect(page.locator('.gallery figure[data-tile="bets/09"] figcaption')).to_have_text(
        "09 · Monastery, betting office and road ×1"
    )
    page.select_option("#language", "fr")
    expect(caption).to_have_text("D · Ville et route ×4")


# ------------------------------------------------------------------ item 21: pig fields, moves


def test_d45_a_field_with_a_pig_says_4_per_city(server: Server, page: Any) -> None:  # noqa: F811
    # Ana's pig stands in the field: 4 per city; Bob ties without one: 3 (D45).
    field = {"completed_cities": 2, "value": 6}
    events = [
        score("field", "final", {0: 8}, figures={"0": 1}, detail={**field, "per_city": {"0": 4}}),
        score(
            "field",
            "final",
            {0: 8, 1: 6},
            figures={"0": 1, "1": 1},
            detail={**field, "per_city": {"0": 4, "1": 3}},
        ),
    ]
    assert describe_all(page, server.url, events, "en") == [
        "Ana scores 8 for a field at the end: 2 completed cities × 4 = 8.",
        "Ana scores 8 for a field at the end: 2 completed cities × 4 = 8."
        " Bob scores 6 for a field at the end: 2 completed cities × 3 = 6."
        " Farmers: Ana ×1, Bob ×1.",
    ]
    assert describe_all(page, server.url, events[:1], "fr") == [
        "Ana marque 8 pour un pré en fin de partie : 2 villes achevées × 4 = 8."
    ]
    assert describe_all(page, server.url, events[:1], "ro") == [
        "Ana primește 8 pentru un câmp la final: 2 orașe terminate × 4 = 8."
    ]


#: every betting chip's name (docs/rules.md §3): none may show before the chip is flipped
CHIPS = ("2/6", "3/5", "3/6", "4/7", "5/8")
# Ana's road, then two greedy bots on betting offices (each seat bets on both), Ana again.
MOVES_STACK = ["base/U", "bets/01", "bets/02", "base/V", "base/E", "base/K", "base/U", "base/B"]


def act(srv: Server, game_id: str, token: str, actions: list[Any], ply: int) -> dict[str, Any]:
    """Play ``actions`` for the token's seat over HTTP; the state after them."""
    request = urllib.request.Request(
        f"{srv.url}/api/games/{game_id}/actions",
        data=json.dumps({"actions": actions, "ply": ply}).encode(),
        headers={"content-type": "application/json", "authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def test_the_log_tells_every_move_and_marks_each_seat(
    server: Server,  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    body = {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "bot", "bot": "greedy"},
                      {"kind": "bot", "bot": "greedy"}],
            "options": {"bets": True, "stack": MOVES_STACK}}  # fmt: skip
    created = server.create(body)
    game_id, token = created["id"], created["seats"][0]["token"]
    page.goto(f"{server.url}/#/play/{game_id}/{token}")
    state_url = f"{server.url}/api/games/{game_id}/state"
    expect(page.locator("[data-square]").first).to_be_attached(timeout=15_000)
    # Ana plays the first legal tile without a figure and passes every bet, until her second tile.
    placed = 0
    for _ in range(300):
        now = state(page, state_url, token)
        view = now["view"]
        if view["to_move"] == 0 and view["phase"] == "tile":
            if placed == 1:
                break
            first = view["legal_actions"][0]
            act(server, game_id, token, [first, {"type": "pass"}], now["ply"])
            placed += 1
        elif view["to_move"] == 0 and view.get("legal_actions"):
            act(server, game_id, token, [{"type": "pass"}], now["ply"])
        else:
            page.wait_for_timeout(100)
    now = state(page, state_url, token)
    tiles = [t for t in now["view"]["tiles"] if t["seat"] is not None]
    assert [t["seat"] for t in tiles] == [0, 1, 2], "Ana and each bot placed a tile"
    log = page.locator(".log")
    moves = log.locator('[data-event="move"]')
    expect(moves).to_have_count(3, timeout=15_000)
    # Newest first; Ana's straight road has no figure; each bot is numbered.
    expect(moves.nth(2)).to_contain_text("T1Ana places a tile at (1, 0): Road.")
    names = {0: "Ana", 1: "Greedy bot 1", 2: "Greedy bot 2"}
    for entry, tile in zip(moves.all(), reversed(tiles), strict=True):
        who, square = names[tile["seat"]], f"({tile['x']}, {tile['y']})"
        expect(entry).to_contain_text(f"T{tile['turn'] + 1}{who} places a tile at {square}: ")
        assert entry.get_attribute("data-log-seats") == str(tile["seat"])
    expect(page.locator(".scores")).to_contain_text("Greedy bot 1")
    expect(page.locator(".scores")).to_contain_text("Greedy bot 2")
    # The bots' bets on the second office are still face down: the log says who, never what.
    bets = log.locator('[data-event="bet"]')
    expect(bets.first).to_be_attached()
    bet_texts = bets.evaluate_all("els => els.map(e => e.textContent)")
    second = f"({tiles[2]['x']}, {tiles[2]['y']})"
    assert {re.sub(r"^T\d+", "", t) for t in bet_texts} >= {
        f"{names[seat]} places a chip face down on the office at {second}." for seat in (1, 2)
    }
    offices = now["view"]["expansions"]["bets"]["offices"]
    assert any(c["chip"] is None for o in offices for c in o["chips"]), "a chip is still hidden"
    # Nothing about the second office names a chip (the first may have been settled, face up).
    for text in log.locator(".entry").evaluate_all("els => els.map(e => e.textContent)"):
        assert second not in text or not any(chip in text for chip in CHIPS), text
    # Each line carries the colour mark of every seat it concerns, in that seat's colour.
    colours = {
        seat: page.locator(f'.scores tr[data-seat="{seat}"] .swatch > circle').get_attribute("fill")
        for seat in names
    }
    assert len(set(colours.values())) == 3
    for entry in log.locator("[data-log-seats]").all():
        seats = [int(s) for s in (entry.get_attribute("data-log-seats") or "").split()]
        fills = entry.locator(".log-marks .swatch > circle").evaluate_all(
            "els => els.map(e => e.getAttribute('fill'))"
        )
        assert fills == [colours[s] for s in seats]
    # Each seat's last tile is outlined in its colour.
    outlines = page.locator(".layer-marks .hl-seat-last").evaluate_all(
        """els => els.map(e => [Number(e.dataset.seatLast),
            Math.floor(Number(e.getAttribute('x')) / 100),
            Math.floor(Number(e.getAttribute('y')) / 100), e.getAttribute('stroke')])"""
    )
    assert sorted(outlines) == [[t["seat"], t["x"], t["y"], colours[t["seat"]]] for t in tiles]
    shot(page, "24-log-every-move")


def test_wine_marked_only_on_chips_that_make_one(server: Server, page: Any) -> None:  # noqa: F811
    # Ana: an orange 2 and 1 (one wine, the 2; the 1 is spare); Bob: three purple 1s (one wine
    # of two 1s, one spare) and a light blue 1 (no wine); Cy: none.
    chip = lambda colour, value: {"colour": colour, "value": value}  # noqa: E731
    in_front = [
        [chip("orange", 2), chip("orange", 1)],
        [chip("purple", 1), chip("light-blue", 1), chip("purple", 1), chip("purple", 1)],
        [],
    ]
    page.goto(server.url + "/")
    marked_wines = page.evaluate(
        """async (inFront) => {
            const i18n = await import("/static/js/i18n.js");
            const { winePanel } = await import("/static/js/panels.js");
            await i18n.setLanguage("en");
            const seats = ["blue", "yellow", "green"].map((colour) => ({ name: "S", colour }));
            const chips = { in_front: inFront, towns: [], face_down: [], sold: 0 };
            const view = { expansions: { "map-chips": chips } };
            const panel = winePanel({ seats }, view);
            return [...panel.querySelectorAll("[data-wine-seat]")].map((row) => ({
                wines: [...row.querySelectorAll(".ready")].map((w) => [
                    ...w.querySelectorAll("[data-wine-chip]")].map((c) => c.dataset.wineChip)),
                ready: row.querySelectorAll(".wine-ready").length,
                chips: row.querySelectorAll("[data-wine-chip]").length,
            }));
        }""",
        in_front,
    )
    assert marked_wines == [
        {"wines": [["orange:2"]], "ready": 1, "chips": 2},
        {"wines": [["purple:1", "purple:1"]], "ready": 1, "chips": 4},
        {"wines": [], "ready": 0, "chips": 0},
    ]


def test_the_replay_log_tells_the_moves_made_by_each_step(
    server: Server,  # noqa: F811
    page: Any,  # noqa: F811
) -> None:
    body = {"seats": [{"kind": "bot", "bot": "greedy"}, {"kind": "bot", "bot": "greedy"}],
            "options": {"stack": BASE_STACK}}  # fmt: skip
    game_id = server.create(body)["id"]
    replay_url = f"{server.url}/api/games/{game_id}/replay"
    for _ in range(300):
        try:
            with urllib.request.urlopen(replay_url, timeout=5) as response:
                data = json.loads(response.read())
            break
        except urllib.error.HTTPError:  # not finished yet
            page.wait_for_timeout(100)
    moves = data["placements"]
    assert len(moves) == len(BASE_STACK)
    # The greedy bot closes the start's city with base/E and puts its meeple in it.
    first = moves[0]
    meeple = {"figure": "meeple", "location": "S"}
    assert (first["x"], first["y"], first["figure"]) == (0, -1, meeple)
    page.goto(f"{server.url}/#/replay/{game_id}")
    entries = page.locator('.log [data-event="move"]')
    expect(entries).to_have_count(len(moves), timeout=15_000)
    expect(page.locator(".scores")).to_contain_text("Greedy bot 2")
    # Step 1 follows the first tile: it is told, without the figure its step 2 may add.
    page.locator('[aria-label="First step"]').click()
    expect(entries).to_have_count(0)
    page.locator('[data-step="forward"]').click()
    expect(entries).to_have_count(1)
    expect(entries.first).to_have_text("T1Greedy bot 1 places a tile at (0, -1): City.")
    page.locator('[data-step="forward"]').click()
    expect(entries).to_have_count(1)
    expect(entries.first).to_have_text(
        "T1Greedy bot 1 places a tile at (0, -1): City; Meeple on the city."
    )


def test_a_move_reads_right_in_every_language(server: Server, page: Any) -> None:  # noqa: F811
    moves = [
        {"ply": 0, "turn": 1, "seat": 0, "tile": "base/E", "x": 0, "y": -1, "rotation": 180,
         "figure": {"figure": "meeple", "location": "S"}},
        {"ply": 2, "turn": 2, "seat": 1, "tile": "base/U", "x": 1, "y": 0, "rotation": 0,
         "figure": None},
    ]  # fmt: skip
    page.goto(server.url + "/")
    said = {
        lang: page.evaluate(
            """async ([moves, seats, lang]) => {
                const i18n = await import("/static/js/i18n.js");
                const { describeMove } = await import("/static/js/panels.js");
                await (await import("/static/js/tiles.js")).loadTiles();
                await i18n.setLanguage(lang);
                return moves.map((m) => describeMove(m, seats));
            }""",
            [moves, SEATS, lang],
        )
        for lang in LANGUAGES
    }
    assert said == {
        "en": ["Ana places a tile at (0, -1): City; Meeple on the city.",
               "Bob places a tile at (1, 0): Road."],
        "fr": ["Ana pose une tuile en (0, -1) : Ville ; Partisan — ville.",
               "Bob pose une tuile en (1, 0) : Route."],
        "ro": ["Ana pune o piesă în (0, -1): Oraș; Omuleț pe oraș.",
               "Bob pune o piesă în (1, 0): Drum."],
    }  # fmt: skip


def test_a_fresh_gain_leaves_the_scores_aligned(server: Server, page: Any) -> None:  # noqa: F811
    # "+4" after a score pushed that seat's number left of the others, and with Traders &
    # Builders' wide rows a "+113" stuck out of the panel.
    stack = ["base/E", "base/U", "base/V"]
    body = {"seats": [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bob"}],
            "options": {"traders_builders": True, "stack": stack}}  # fmt: skip
    open_seat(page, server, body)
    page.locator('[data-square="0,-1"]').click()
    page.keyboard.press("Enter")
    page.locator('.spot[data-location="S"]').click()
    page.keyboard.press("Enter")
    gain = page.locator(".scores .gain")
    expect(gain).to_have_text("+4")
    shot(page, "25-gain-under-the-score")
    edges = page.locator(".scores .pts").evaluate_all(
        """cells => cells.map((cell) => {
            const range = document.createRange();
            range.selectNodeContents(cell.firstChild);  // the score's own digits
            return Math.round(range.getBoundingClientRect().right);
        })"""
    )
    assert len(edges) == 2 and abs(edges[0] - edges[1]) <= 1, edges
    panel = page.locator(".scores").locator("xpath=ancestor::section[1]").bounding_box()
    box = gain.bounding_box()
    assert panel and box and box["x"] + box["width"] <= panel["x"] + panel["width"], (box, panel)
