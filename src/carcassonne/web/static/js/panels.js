// Side panels shared by the game and the replay: scores, bets, wine, the event log, the summary.
// Each function returns a fresh element built from the view; the caller swaps it in.

import { t, has, plural } from "./i18n.js";
import { html, seatSwatch, SEAT_COLOURS, GRAPE_COLOURS } from "./svg.js";
import { tileInfo, segmentAt } from "./tiles.js";

/**
 * A seat's name; a name its creator left to the server ("Player 2") in this page's language.
 * Bots of one kind left unnamed are numbered in seat order ("Greedy bot 1", "Greedy bot 2").
 */
export function seatName(seats, seat) {
  if (seat === null || seat === undefined) return t("seat.nobody");
  const s = seats[seat];
  if (!s) return t("seat.n", { n: seat + 1 });
  if (s.kind === "open") return t("tables.open_seat");
  if (!s.default_name) return s.name;
  if (s.kind !== "bot" || !s.bot) return t("lobby.player_n", { n: seat + 1 });
  const twins = seats.filter((o) => o.kind === "bot" && o.default_name && o.bot === s.bot);
  const name = t(`bot.${s.bot}`);
  return twins.length > 1 ? t("log.bot_numbered", { name, n: twins.indexOf(s) + 1 }) : name;
}

/** The seats with the names shown on this page, for code that reads `seat.name`. */
export function localSeats(seats) {
  return seats.map((s, i) => ({ ...s, name: seatName(seats, i) }));
}

function swatch(seats, seat) {
  return seatSwatch(seat, seats[seat] ? seats[seat].colour : null);
}

function names(seats, list) {
  const parts = list.map((s) => seatName(seats, s));
  if (parts.length <= 1) return parts.join("");
  return t("list.and", { first: parts.slice(0, -1).join(", "), last: parts[parts.length - 1] });
}

// Figures without an icon that every font has (the pig) are named.
const SUPPLY_ICONS = { meeple: "♟", abbot: "✝", "large-meeple": "♜", builder: "⚒" };
const GOODS = ["wine", "grain", "cloth"];

/** A seat's Traders & Builders trade goods ("wine 2 · grain 0 · cloth 1"), public to all. */
function goodsText(held) {
  return GOODS.map((kind) => `${t(`goods.${kind}`)} ${held[kind] || 0}`).join(" · ");
}

/** A seat's status other than playing ("stood-in", "resigned", "timed-out"), with the turn it
 * began: a badge by its name. */
function statusBadge(status, turn) {
  if (!status || status === "playing") return null;
  return html("span", { class: `status-badge status-${status}`, "data-status": status, title: turn ? t("seat.status_since", { n: turn }) : null },
    t(`seat.status.${status}`));
}

/**
 * Scores, figures left and who is to move; `gains` shows what each seat just scored. A table's
 * game adds each seat's `clocks` (a SeatClocks: the page ticks its [data-clock] cells) and
 * `statuses` ({status, turn} per seat).
 */
export function scoresPanel(info, view, { you = [], gains = [], online = null, clocks = null, statuses = null } = {}) {
  const goods = view.expansions && view.expansions.traders_builders ? view.expansions.traders_builders.goods : null;
  const rows = info.seats.map((seat, i) => {
    const supply = view.supply[i] || {};
    const supplyText = Object.entries(supply)
      .map(([figure, n]) => `${SUPPLY_ICONS[figure] || (has(`figure.${figure}`) ? t(`figure.${figure}`) : figure)} ${n}`)
      .join("  ");
    const offline = online && seat.kind === "human" && !online.includes(i);
    return html("tr", { class: (view.to_move === i && view.phase !== "over" ? "to-move" : "") + (offline ? " offline" : ""), "data-seat": i },
      html("td", {}, swatch(info.seats, i)),
      html("td", {},
        html("span", { class: "name" }, seatName(info.seats, i)),
        you.includes(i) ? html("span", { class: "you" }, t("seat.you")) : null,
        seat.kind === "bot" ? html("span", { class: "bot-badge", title: t(`bot.${seat.bot}`) }, t("seat.bot")) : null,
        offline ? html("span", { class: "muted", title: t("seat.offline") }, " ◌") : null,
        statuses ? statusBadge(statuses[i].status, statuses[i].turn) : null),
      clocks ? clockCell(clocks, i, seat.kind === "bot") : null,
      html("td", { class: "supply", title: t("scores.supply") }, supplyText,
        goods ? html("div", { class: "goods", "data-goods": i, title: t("goods.title") }, goodsText(goods[i] || {})) : null),
      html("td", { class: "pts", "data-score": i }, String(view.scores[i]),
        gains[i] ? html("span", { class: "gain" }, `+${gains[i]}`) : null));
  });
  return html("section", { class: "panel", "aria-label": t("scores.title") },
    html("h3", {}, t("scores.title")),
    html("table", { class: "scores" }, html("tbody", {}, rows)),
    html("p", { class: "muted", "data-tiles-left": view.tiles_left }, t("scores.tiles_left", { n: view.tiles_left })),
    // Whoever fixed the stack or chose the seed can know the draw order: the others are told.
    info.options && (info.options.fixed_stack || info.options.fixed_seed) ? html("p", { class: "muted", "data-fixed-order": "" }, t("scores.fixed_order")) : null);
}

/** A seat's clock (none for a bot: bots have no time). */
function clockCell(clocks, seat, bot) {
  if (bot) return html("td", { class: "clock" });
  const running = clocks.running === seat;
  return html("td", {
    class: `clock${running ? " running" : ""}${clocks.low(seat) ? " low" : ""}`, "data-clock": seat,
    title: t("clock.title"),
  }, clocks.text(seat));
}

// What each betting chip pays (docs/rules.md §3): [chip, wins at, points] rows for the help table.
const CHIP_PAYOUTS = [
  ["2/6", "2 · 6", "2 · 6"],
  ["3/5", "3 · 5", "3 · 5"],
  ["3/6", "3 · 6", "3 · 6"],
  ["4", "4", "8"],
  ["4/7+", "4 · 7+", "4 · 7"],
  ["5/8+", "5 · 8+", "5 · 8"],
];

function betChip(info, c) {
  const owner = seatName(info.seats, c.seat);
  return html("span", {
    class: "chip" + (c.chip ? "" : " face-down"),
    style: `border-color:${SEAT_COLOURS[info.seats[c.seat]?.colour] || "#999"}`,
    role: "img",
    title: c.chip ? t("bets.chip_of", { chip: c.chip, who: owner }) : t("bets.hidden_chip_of", { who: owner }),
    "aria-label": c.chip ? t("bets.chip_of", { chip: c.chip, who: owner }) : t("bets.hidden_chip_of", { who: owner }),
  }, swatch(info.seats, c.seat), c.chip || "?");
}

/** The Bets: own supply, where chips lie (own values, others face down), supplies, payouts. */
export function betsPanel(info, view, perspective) {
  const bets = (view.expansions || {}).bets;
  if (!bets) return null;
  const body = [html("h3", {}, t("bets.title"))];
  if (Array.isArray(bets.supply)) {
    body.push(html("div", { class: "muted" }, t("bets.your_supply")));
    body.push(html("div", { class: "chips", "data-own-supply": "" },
      bets.supply.length ? bets.supply.map((chip) => html("span", { class: "chip" }, chip)) : html("span", { class: "muted" }, t("bets.none"))));
  }
  const offices = bets.offices || [];
  if (offices.length) {
    const list = html("ul", { class: "plain offices" });
    for (const office of offices) {
      list.appendChild(html("li", { "data-office": `${office.x},${office.y}` },
        html("span", {}, t("bets.office_at", { x: office.x, y: office.y })), " ",
        html("span", { class: "chips" }, office.chips.map((c) => betChip(info, c)))));
    }
    const revealed = offices.every((o) => o.chips.every((c) => c.chip));
    body.push(html("div", { class: "muted" }, revealed ? t("bets.on_board_revealed") : t("bets.on_board")), list);
  }
  if (Array.isArray(bets.supply_counts)) {
    body.push(html("div", { class: "muted" }, t("bets.supplies")),
      html("div", { class: "row" }, bets.supply_counts.map((n, i) => html("span", { class: "row tight" }, swatch(info.seats, i), ` ${seatName(info.seats, i)}: ${n}`))));
  }
  body.push(html("details", { class: "help" },
    html("summary", {}, t("bets.how")),
    html("p", {}, t("bets.how_text")),
    html("table", { class: "payouts" },
      html("thead", {}, html("tr", {}, html("th", {}, t("bets.chip")), html("th", {}, t("bets.wins_at")), html("th", {}, t("bets.pays")))),
      html("tbody", {}, CHIP_PAYOUTS.map(([chip, at, pays]) => html("tr", {}, html("td", {}, html("span", { class: "chip small" }, chip)), html("td", {}, at), html("td", {}, pays)))))));
  return html("section", { class: "panel bets-panel", "aria-label": t("bets.title") }, body);
}

const GRAPES = ["purple", "light-blue", "orange"];

function wineChip(c) {
  return html("span", {
    class: "chip wine-chip", style: `background:${GRAPE_COLOURS[c.colour] || "#777"}`, role: "img",
    title: t("wine.chip", { colour: t(`grape.${c.colour}`), value: c.value }),
    "aria-label": t("wine.chip", { colour: t(`grape.${c.colour}`), value: c.value }),
    "data-wine-chip": `${c.colour}:${c.value}`,
  }, String(c.value));
}

/**
 * One colour's chips split into wines and the rest (docs/rules.md §5): a wine is a 2 alone or
 * two 1s, never a 1 and a 2 together, so an orange 2 and 1 are one wine and a spare 1.
 */
function winesOf(chips) {
  const twos = chips.filter((c) => c.value === 2);
  const ones = chips.filter((c) => c.value === 1);
  const wines = [...twos.map((c) => [c])];
  for (let i = 0; i + 1 < ones.length; i += 2) wines.push([ones[i], ones[i + 1]]);
  const rest = ones.length % 2 ? [ones[ones.length - 1]] : [];
  return { wines, rest: [...rest, ...chips.filter((c) => c.value !== 1 && c.value !== 2)] };
}

/** A colour's chips: each wine ringed and marked, the chips that make no wine beside them. */
function grapeGroup(list, colour) {
  const { wines, rest } = winesOf(list.filter((c) => c.colour === colour));
  return html("span", { class: "wine-group", "data-grape": colour },
    wines.map((wine) => html("span", { class: "wine-set ready", "data-wine": wine.map((c) => c.value).join("+") },
      wine.map(wineChip), html("span", { class: "wine-ready", title: t("wine.ready_hint") }, t("wine.ready")))),
    rest.map(wineChip));
}

/**
 * Map-Chips: the chips in front of each seat by colour (a ready wine is marked), how selling
 * works, the towns still open for a sale by colour, and what is left on the map.
 */
export function winePanel(info, view) {
  const chips = (view.expansions || {})["map-chips"];
  if (!chips) return null;
  const rows = (chips.in_front || []).map((list, i) => {
    const groups = GRAPES.filter((g) => list.some((c) => c.colour === g)).map((g) => grapeGroup(list, g));
    const points = list.reduce((n, c) => n + c.value, 0);
    return html("div", { class: "wine-row", "data-wine-seat": i },
      swatch(info.seats, i), html("span", { class: "name" }, seatName(info.seats, i)),
      html("span", { class: "chips" }, groups.length ? groups : html("span", { class: "muted" }, t("wine.no_chips"))),
      points ? html("span", { class: "muted wine-points" }, plural("wine.points", points)) : null);
  });
  const towns = chips.towns || [];
  const open = GRAPES.map((g) => {
    const names = towns.filter((town) => town.grape === g && !town.covered).map((town) => town.name);
    return names.length ? html("li", {}, html("span", { class: "grape-dot", style: `background:${GRAPE_COLOURS[g]}` }), html("strong", {}, `${t(`grape.${g}`)}: `), names.join(", ")) : null;
  }).filter(Boolean);
  return html("section", { class: "panel wine-panel", "aria-label": t("wine.title") },
    html("h3", {}, t("wine.title")),
    ...rows,
    html("div", { class: "wine-rules" },
      html("p", {}, t("wine.rule_wine")),
      html("ul", { class: "plain" },
        html("li", {}, html("strong", {}, t("wine.export_title")), " ", t("wine.export_rule")),
        html("li", {}, html("strong", {}, t("wine.town_title")), " ", t("wine.town_rule")))),
    open.length ? html("details", { class: "help" }, html("summary", {}, t("wine.open_towns")), html("ul", { class: "plain" }, open)) : null,
    html("p", { class: "muted" }, t("wine.status", { face_down: (chips.face_down || []).length, sold: chips.sold ?? 0 })));
}

// ------------------------------------------------------------------ the event log

/**
 * A tile in words ("City with a coat of arms and road") from what is on it: its centre
 * (monastery, garden, betting office), cities, roads and river. Ids like "base/U" mean
 * nothing to a player.
 */
export function tileName(tileId) {
  const info = tileInfo(tileId);
  if (!info) return tileId;
  const segments = info.rotations[0].segments;
  const cities = segments.filter((g) => g.kind === "city");
  const roads = segments.filter((g) => g.kind === "road").length;
  const parts = (info.centre || []).map((c) => t(`tile.${c}`));
  if (cities.length === 1) parts.push(t(cities[0].coat_of_arms ? "tile.city_arms" : "tile.city"));
  else if (cities.length) parts.push(t("tile.cities", { n: cities.length }));
  if (roads === 1) parts.push(t("tile.road"));
  else if (roads) parts.push(t("tile.roads", { n: roads }));
  if ((info.rotations[0].rivers || []).length) parts.push(t("tile.river"));
  for (const mark of ["inn", "cathedral"]) {
    if (segments.some((g) => (g.marks || []).includes(mark))) parts.push(t(`tile.${mark}`));
  }
  if (!parts.length) parts.push(t("tile.fields"));
  const text = parts.length === 1 ? parts[0] : t("list.and", { first: parts.slice(0, -1).join(", "), last: parts[parts.length - 1] });
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function where(sq) {
  return sq ? `(${sq[0]}, ${sq[1]})` : "";
}

/** "1 tile" or "3 tiles" (and likewise cities, coats of arms, neighbours, points) in the page's language. */
function count(what, n) {
  return plural(`count.${what}`, n);
}

function figuresText(seats, figures) {
  const parts = Object.entries(figures || {}).map(([seat, n]) => `${seatName(seats, Number(seat))} ×${n}`);
  return parts.join(", ");
}

const FEATURE_SOURCES = ["city", "road", "inn", "cathedral", "monastery", "garden"];
const ROAD_SOURCES = ["road", "inn"];
const CITY_SOURCES = ["city", "cathedral"];

/**
 * How a feature's points add up, from the event's own numbers: a city's tiles and coats of
 * arms, or a road's tiles, times the rate the engine paid (`per_tile`: 2 or 1 for a city, 3 for
 * a cathedral, 0 unfinished…); a monastery or garden 1 + its neighbours.
 */
function breakdown(ev, points) {
  const each = (ev.detail || {}).per_tile;
  if (ROAD_SOURCES.includes(ev.source)) return t("log.size.road", { tiles: count("tiles", ev.tiles), each, points });
  if (CITY_SOURCES.includes(ev.source)) {
    const key = ev.coats_of_arms ? "log.size.city_arms" : "log.size.city";
    return t(key, { tiles: count("tiles", ev.tiles), arms: count("arms", ev.coats_of_arms), each, points });
  }
  // A monastery or garden is worth itself plus each tile around it (9 when surrounded).
  return t("log.size.cloister", { neighbours: count("neighbours", points - 1), points });
}

/** "Ana scores 4" or "Ana and Bo score 4 each": the start of every feature's sentence. */
function scorers(seats, winners, points) {
  return t(winners.length > 1 ? "log.score_each" : "log.score_one", { who: names(seats, winners), points });
}

function at(sq) {
  return sq ? [{ x: sq[0], y: sq[1] }] : [];
}

/**
 * One event as {cls, text, squares}: every score says what, how big, who and why; null for an
 * event that paid nobody anything (a feature without figures, a field by no completed city).
 */
export function describeEvent(ev, seats) {
  if (ev.type === "score") {
    const winners = Object.keys(ev.points || {}).map(Number);
    const pts = winners.length ? ev.points[winners[0]] : 0;
    const who = names(seats, winners);
    const d = ev.detail || {};
    const squares = (ev.squares || []).map(([x, y]) => ({ x, y }));
    if (ev.source === "bet") {
      // A losing chip pays nothing but is news: it says so, without a "0 points" line.
      const owner = d.owner ?? (winners.length ? winners[0] : null);
      const params = { who: seatName(seats, owner), chip: d.chip, points: d.paid, feature: t(`feature.${d.feature}`), tiles: count("tiles", d.tiles), square: where(d.square), reason: t(`reason.${ev.reason}`) };
      return { cls: "bet", text: t(d.paid ? "log.bet_won" : "log.bet_lost", params), squares: at(d.square) };
    }
    // An unfinished road with an inn or city with a cathedral pays nothing, which is news.
    if (!pts && !(winners.length && (ev.source === "inn" || ev.source === "cathedral"))) return null;
    if (ev.source === "map-chip") {
      return { cls: "wine", text: t("log.chip_collected", { who, points: pts, chip: t(`log.chip.${d.colour}`), square: where(d.square) }), squares: at(d.square) };
    }
    if (ev.source === "goods") {
      return { cls: "score", text: t("log.goods_majority", { who, points: pts, goods: t(`goods.${d.goods}`), n: d.tokens }), squares: [] };
    }
    if (ev.source === "wine") {
      const key = ev.reason === "town" ? "log.wine_town" : "log.wine_export";
      return { cls: "wine", text: t(key, { who, points: pts, colour: t(`grape.${d.colour}`), chips: (d.chips || []).join("+"), town: d.town || "" }), squares: at(d.square) };
    }
    const key = `log.${ev.source}.${ev.reason}`;
    if (ev.source === "field" && has(key)) {
      // Each winner's own rate (a pig makes it 4 per city, D45): one sentence per rate.
      const perCity = d.per_city || {};
      const rates = [...new Set(winners.map((s) => perCity[s]))].sort((a, b) => b - a);
      const text = rates.map((each) => {
        const group = winners.filter((s) => perCity[s] === each);
        const points = ev.points[group[0]];
        return t(key, { scores: scorers(seats, group, points), cities: count("cities", d.completed_cities), each, points });
      }).join(" ");
      return { cls: "score", text: withFigures(text, seats, ev.figures, "log.farmers"), squares };
    }
    if (FEATURE_SOURCES.includes(ev.source) && has(key)) {
      const text = t(key, { scores: scorers(seats, winners, pts), size: breakdown(ev, pts), square: where(d.square) });
      return { cls: "score", text: withFigures(text, seats, ev.figures, "log.figures"), squares: ev.reason === "abbot-recall" ? at(d.square) : squares };
    }
    return { cls: "score", text: t("log.generic_score", { who, points: pts, source: ev.source, reason: ev.reason }), squares };
  }
  const d = ev.detail || {};
  const who = seatName(seats, ev.seat);
  const key = `log.event.${ev.event}`;
  if (ev.event === "goods") {
    return { cls: "", text: t(key, { who, goods: goodsText(d.goods || {}) }), squares: [] };
  }
  if (has(key)) {
    return { cls: ev.event.startsWith("bet") ? "bet" : ev.event.startsWith("wine") ? "wine" : "", text: t(key, { who, tile: d.tile ? tileName(d.tile) : "", square: where(d.square) }), squares: at(d.square) };
  }
  return { cls: "", text: `${ev.event}${ev.seat !== null && ev.seat !== undefined ? ` (${who})` : ""}`, squares: [] };
}

/** Who had how many figures in a feature, said only when several seats were in it. */
function withFigures(text, seats, figures, key) {
  if (Object.keys(figures || {}).length < 2) return text;
  return t(key, { text, why: figuresText(seats, figures) });
}

/** The seats an event concerns, whose colours mark its log line: who scored, bet or chose. */
function eventSeats(ev) {
  if (ev.type !== "score") return ev.seat === null || ev.seat === undefined ? [] : [ev.seat];
  if (ev.source === "bet") {
    const owner = (ev.detail || {}).owner;
    if (owner !== undefined && owner !== null) return [owner];
  }
  return Object.keys(ev.points || {}).map(Number);
}

/**
 * A move (a tile placement, public_placements on the server) in words: who put which tile where, and the figure put
 * on it ("Ana places a tile at (1, 0): City and road; Meeple on the road.").
 */
export function describeMove(move, seats) {
  const params = { who: seatName(seats, move.seat), tile: tileName(move.tile), square: where([move.x, move.y]) };
  const f = move.figure;
  if (!f) return t("log.move.tile", params);
  const segment = segmentAt(move.tile, move.rotation, f.location);
  const spot = t("turn.spot", { figure: t(`figure.${f.figure}`), feature: segment ? t(`feature.${segment.kind}`) : f.location });
  return t("log.move.tile_figure", { ...params, spot });
}

/**
 * Moves, events and seat changes in the order they happened: a turn's tile and figure come
 * before its events; a seat change (with its `turn`) comes before the first move made after it.
 */
function chronicle(events, moves, changes = []) {
  const items = [];
  let m = 0;
  for (const ev of events) {
    while (m < moves.length && moves[m].turn <= ev.turn) items.push({ move: moves[m++] });
    items.push({ ev });
  }
  while (m < moves.length) items.push({ move: moves[m++] });
  for (const change of changes) {
    const later = items.findIndex((item) => item.move && item.move.ply >= change.ply);
    items.splice(later < 0 ? items.length : later, 0, { change });
  }
  return items;
}

/**
 * The turn a seat change at `ply` (actions made before it) belongs to: that of the last tile
 * placed at or before it, or the turn being played (`current`: {ply, turn}) for a change made
 * at the state's ply.
 */
export function turnOfPly(ply, placements, current) {
  if (current && ply >= current.ply) return current.turn;
  const placed = placements.filter((m) => m.ply <= ply);
  return placed.length ? placed[placed.length - 1].turn : 1;
}

/** The turn a view is in: its tile's, once placed; the next one while a tile is to be placed. */
export function viewTurn(view) {
  return view.phase === "tile" ? view.turn + 1 : view.turn;
}

/** A seat change in words; a stand-in in a timed game was the clock's doing, else an absence. */
function describeChange(change, seats, timed) {
  const kind = change.change === "stand-in" ? `stand-in.${timed ? "time" : "away"}` : change.change;
  return t(`log.change.${kind}`, { who: seatName(seats, change.seat) });
}

/** How long a move took (its tile and its figure), as the replay tells it: "12 s", "3 min 5 s". */
export function spentText(ms) {
  const s = Math.round(ms / 1000);
  if (s < 60) return t("clock.spent_seconds", { s });
  if (s < 3600) return t("clock.spent_minutes", { m: Math.floor(s / 60), s: s % 60 });
  return t("clock.spent_hours", { h: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60) });
}

function logEntry(item, seats, { spent = null, timed = false } = {}) {
  if (item.change) {
    const change = item.change;
    return { turn: change.turn, cls: "change", kind: `change-${change.change}`, marks: [change.seat], text: describeChange(change, seats, timed), squares: [] };
  }
  if (item.move) {
    const move = item.move;
    let text = describeMove(move, seats);
    // A person's time is news; a bot's (none, or its think time) is not.
    if (spent && spent[move.ply] !== undefined && seats[move.seat] && seats[move.seat].kind === "human") {
      text += ` (${spentText(spent[move.ply] + (spent[move.ply + 1] || 0))})`;
    }
    return { turn: move.turn, cls: "move", kind: "move", marks: [move.seat], text, squares: [{ x: move.x, y: move.y }] };
  }
  const ev = item.ev;
  const described = describeEvent(ev, seats);
  if (!described) return null;
  return { ...described, turn: ev.turn, kind: ev.type === "score" ? ev.source : ev.event, marks: eventSeats(ev) };
}

/**
 * The log, newest first: every tile placed (with its figure), every event and every seat change
 * (`changes`, each with its `turn`), each line marked with the colours of the seats it concerns;
 * hovering an entry outlines its squares on the board. `spent` (the replay's time per ply) adds
 * how long each person's move took; `timed` says a stand-in came from the clock.
 */
export function logPanel(events, seats, onHover = () => {}, placements = [], { changes = [], spent = null, timed = false } = {}) {
  const list = html("div", { class: "log", role: "log", "aria-live": "polite" });
  const items = chronicle(events, placements, changes);
  for (let i = items.length - 1; i >= 0; i--) {
    const described = logEntry(items[i], seats, { spent, timed });
    if (!described) continue;
    const { cls, text, squares, turn, kind, marks } = described;
    const entry = html("div", { class: `entry ${cls}`, "data-event": kind, "data-log-seats": marks.join(" ") },
      html("span", { class: "turn" }, t("log.turn", { n: turn })),
      marks.length ? html("span", { class: "log-marks" }, marks.map((seat) => swatch(seats, seat))) : null,
      text);
    entry.addEventListener("mouseenter", () => onHover(squares));
    entry.addEventListener("mouseleave", () => onHover([]));
    list.appendChild(entry);
  }
  if (!list.children.length) list.appendChild(html("div", { class: "muted" }, t("log.empty")));
  return html("section", { class: "panel" }, html("h3", {}, t("log.title")), list);
}

/**
 * What became of a seat at the table, from its changes (each with its turn): "a bot played for
 * them from turn 5 to 9", "resigned on turn 12", "ran out of time on turn 8".
 */
function seatStory(changes, seat, timed) {
  const parts = [];
  let since = null;
  for (const change of changes.filter((c) => c.seat === seat)) {
    if (change.change === "stand-in") since = change.turn;
    else if (change.change === "return") {
      parts.push(t("summary.stood_in_until", { from: since, to: change.turn }));
      since = null;
    } else {
      if (since !== null && change.change === "resign") parts.push(t("summary.stood_in_from", { from: since }));
      since = null;
      parts.push(t(`summary.${change.change}`, { n: change.turn }));
    }
  }
  if (since !== null) parts.push(t(timed ? "summary.stood_in_time" : "summary.stood_in_from", { from: since }));
  return parts.join(" · ");
}

/** The places, first to last (tied seats share one), with what became of each seat. */
function standingsList(summary, seats, changes, timed) {
  return html("ol", { class: "plain standings", "data-standings": "" }, summary.standings.flatMap((tied, place) => tied.map((seat) => {
    const story = seatStory(changes, seat, timed);
    return html("li", { "data-standing": seat, "data-place": place + 1 },
      html("span", { class: "place" }, t("summary.place", { n: place + 1 })), " ",
      swatch(seats, seat), " ", html("strong", {}, seatName(seats, seat)), " ",
      html("span", { class: "muted" }, count("points", summary.scores[seat])),
      story ? html("div", { class: "story" }, story) : null);
  })));
}

// Score sources in the order a player thinks of them; any other source follows.
const SOURCE_ORDER = ["city", "road", "monastery", "garden", "field", "goods", "bet", "map-chip", "wine"];

/**
 * End of game: the winner, and where every seat's points came from. `extra` are the buttons
 * under the table (record, replay, new game). The `card` (over the board) has a row per seat
 * unless `bySource`; the narrow sidebar always has a row per source and a column per seat (it
 * fits however many sources the expansions bring).
 */
export function summaryPanel(summary, seats, extra = [], { card = false, bySource = !card, changes = [], timed = false } = {}) {
  const found = new Set();
  for (const bySource of summary.by_source) for (const key of Object.keys(bySource)) found.add(key);
  const sources = [...SOURCE_ORDER.filter((s) => found.has(s)), ...[...found].filter((s) => !SOURCE_ORDER.includes(s)).sort()];
  const sourceName = (s) => (has(`source.${s}`) ? t(`source.${s}`) : s);
  const winners = summary.winners || [];
  // Seats that left the table rank below the others whatever their score: the standings say.
  const order = changes.length && summary.standings
    ? summary.standings.flat()
    : seats.map((_, i) => i).sort((a, b) => summary.scores[b] - summary.scores[a] || a - b);
  const trophy = (i) => (winners.includes(i)
    ? html("span", { class: "trophy", title: t("summary.winner_mark") }, html("span", { "aria-hidden": "true" }, " ★"), html("span", { class: "visually-hidden" }, ` (${t("summary.winner_mark")})`))
    : null);
  let table;
  if (!bySource) {
    table = html("table", {},
      html("thead", {}, html("tr", {}, html("th", { scope: "col" }, t("summary.seat")),
        sources.map((s) => html("th", { scope: "col" }, sourceName(s))), html("th", { scope: "col" }, t("summary.total")))),
      html("tbody", {}, order.map((i) => html("tr", { class: winners.includes(i) ? "winner" : "", "data-summary-seat": i },
        html("th", { scope: "row" }, swatch(seats, i), " ", seatName(seats, i), trophy(i)),
        sources.map((s) => html("td", {}, String(summary.by_source[i][s] || 0))),
        html("td", { class: "total" }, String(summary.scores[i]))))));
  } else {
    const cell = (i, text, cls = "") => html("td", { class: `${cls}${winners.includes(i) ? " winner" : ""}` }, text);
    table = html("table", { class: "by-source" },
      html("thead", {}, html("tr", {}, html("th", { scope: "col" }, ""),
        order.map((i) => html("th", { scope: "col", title: seatName(seats, i), class: winners.includes(i) ? "winner" : "" }, swatch(seats, i), html("span", { class: "seat-short" }, seatName(seats, i)), trophy(i))))),
      html("tbody", {},
        sources.map((s) => html("tr", {}, html("th", { scope: "row" }, sourceName(s)), order.map((i) => cell(i, String(summary.by_source[i][s] || 0))))),
        html("tr", { class: "total-row" }, html("th", { scope: "row" }, t("summary.total")), order.map((i) => cell(i, String(summary.scores[i]), "total")))));
  }
  const best = winners.length ? summary.scores[winners[0]] : 0;
  const title = winners.length > 1
    ? t("summary.winners", { who: names(seats, winners), points: count("points", best) })
    : t("summary.winner", { who: names(seats, winners), points: count("points", best) });
  return html("section", { class: `panel summary${card ? " end-card" : ""}`, "data-summary": card ? null : "", "aria-label": t("summary.title") },
    html("h3", {}, t("summary.title")),
    html("p", { class: "winner-line", "data-winner-line": "" }, title),
    changes.length && summary.standings ? standingsList(summary, seats, changes, timed) : null,
    html("div", { class: "table-scroll" }, table),
    extra.length ? html("div", { class: "row summary-actions" }, extra) : null);
}
