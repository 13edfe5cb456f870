// Side panels shared by the game and the replay: scores, bets, wine, the event log, the summary.
// Each function returns a fresh element built from the view; the caller swaps it in.

import { t, has } from "./i18n.js";
import { html, SEAT_COLOURS, GRAPE_COLOURS } from "./svg.js";

export function seatName(seats, seat) {
  if (seat === null || seat === undefined) return t("seat.nobody");
  const s = seats[seat];
  return s ? s.name : t("seat.n", { n: seat + 1 });
}

function swatch(seats, seat) {
  const colour = seats[seat] ? SEAT_COLOURS[seats[seat].colour] : "#999";
  return html("span", { class: "swatch", style: `background:${colour}` });
}

function names(seats, list) {
  const parts = list.map((s) => seatName(seats, s));
  if (parts.length <= 1) return parts.join("");
  return t("list.and", { first: parts.slice(0, -1).join(", "), last: parts[parts.length - 1] });
}

const SUPPLY_ICONS = { meeple: "♟", abbot: "✝" };

/** Scores, figures left and who is to move; `gains` shows what each seat just scored. */
export function scoresPanel(info, view, { you = [], gains = [], online = null } = {}) {
  const rows = info.seats.map((seat, i) => {
    const supply = view.supply[i] || {};
    const supplyText = Object.entries(supply)
      .map(([figure, n]) => `${SUPPLY_ICONS[figure] || figure} ${n}`)
      .join("  ");
    const offline = online && seat.kind === "human" && !online.includes(i);
    return html("tr", { class: (view.to_move === i && view.phase !== "over" ? "to-move" : "") + (offline ? " offline" : ""), "data-seat": i },
      html("td", {}, swatch(info.seats, i)),
      html("td", {},
        html("span", { class: "name" }, seat.name),
        you.includes(i) ? html("span", { class: "you" }, t("seat.you")) : null,
        seat.kind === "bot" ? html("span", { class: "bot-badge", title: t(`bot.${seat.bot}`) }, t("seat.bot")) : null,
        offline ? html("span", { class: "muted", title: t("seat.offline") }, " ◌") : null),
      html("td", { class: "supply", title: t("scores.supply") }, supplyText),
      html("td", { class: "pts", "data-score": i }, String(view.scores[i]),
        gains[i] ? html("span", { class: "gain" }, `+${gains[i]}`) : null));
  });
  return html("section", { class: "panel", "aria-label": t("scores.title") },
    html("h3", {}, t("scores.title")),
    html("table", { class: "scores" }, html("tbody", {}, rows)),
    html("p", { class: "muted", "data-tiles-left": view.tiles_left }, t("scores.tiles_left", { n: view.tiles_left })));
}

/** The Bets: own supply, where chips lie (own values, others face down), others' supplies. */
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
    const list = html("ul", { class: "plain" });
    for (const office of offices) {
      const chips = office.chips.map((c) => html("span", {
        class: "chip" + (c.chip ? "" : " face-down"),
        style: `border-color:${SEAT_COLOURS[info.seats[c.seat]?.colour] || "#999"}`,
        title: seatName(info.seats, c.seat),
      }, c.chip || "?"));
      list.appendChild(html("li", {}, t("bets.office_at", { x: office.x, y: office.y }), " ", html("span", { class: "chips" }, chips)));
    }
    body.push(html("div", { class: "muted" }, t("bets.on_board")), list);
  }
  if (Array.isArray(bets.supply_counts)) {
    body.push(html("div", { class: "muted" }, t("bets.supplies")),
      html("div", {}, bets.supply_counts.map((n, i) => html("span", { class: "row" }, swatch(info.seats, i), ` ${seatName(info.seats, i)}: ${n} `))));
  }
  return html("section", { class: "panel bets-panel" }, body);
}

/** Map-Chips: the chips in front of each seat (face up) and what is left on the map. */
export function winePanel(info, view) {
  const chips = (view.expansions || {})["map-chips"] || (view.expansions || {}).mapchips;
  if (!chips) return null;
  const rows = (chips.in_front || []).map((list, i) => html("div", { class: "row", "data-wine-seat": i },
    swatch(info.seats, i), html("span", { class: "name" }, seatName(info.seats, i)),
    html("span", { class: "chips" }, list.length ? list.map((c) => html("span", {
      class: "chip wine-chip", style: `background:${GRAPE_COLOURS[c.colour] || "#777"}`, title: t(`grape.${c.colour}`),
    }, String(c.value))) : html("span", { class: "muted" }, "–"))));
  return html("section", { class: "panel wine-panel" },
    html("h3", {}, t("wine.title")),
    ...rows,
    html("p", { class: "muted" }, t("wine.status", { face_down: (chips.face_down || []).length, sold: chips.sold ?? 0 })));
}

// ------------------------------------------------------------------ the event log

function where(sq) {
  return sq ? `(${sq[0]}, ${sq[1]})` : "";
}

function figuresText(seats, figures) {
  const parts = Object.entries(figures || {}).map(([seat, n]) => `${seatName(seats, Number(seat))} ×${n}`);
  return parts.join(", ");
}

/** One event as {cls, text, squares}: every score says what, how big, who and why. */
export function describeEvent(ev, seats) {
  if (ev.type === "score") {
    const winners = Object.keys(ev.points || {}).map(Number);
    const pts = winners.length ? ev.points[winners[0]] : 0;
    const who = names(seats, winners);
    const d = ev.detail || {};
    const squares = (ev.squares || []).map(([x, y]) => ({ x, y }));
    if (ev.source === "bet") {
      const key = d.paid ? "log.bet_won" : "log.bet_lost";
      return {
        cls: "bet",
        text: t(key, { who, chip: d.chip, points: d.paid, feature: t(`feature.${d.feature}`), tiles: d.tiles, square: where(d.square), reason: t(`reason.${ev.reason}`) }),
        squares: d.square ? [{ x: d.square[0], y: d.square[1] }] : [],
      };
    }
    if (ev.source === "map-chip") {
      return { cls: "wine", text: t("log.chip_collected", { who, points: pts, colour: t(`grape.${d.colour}`), square: where(d.square) }), squares: d.square ? [{ x: d.square[0], y: d.square[1] }] : [] };
    }
    if (ev.source === "wine") {
      const key = ev.reason === "town" ? "log.wine_town" : "log.wine_export";
      return { cls: "wine", text: t(key, { who, points: pts, colour: t(`grape.${d.colour}`), chips: (d.chips || []).join("+"), town: d.town || "" }), squares: [] };
    }
    if (ev.reason === "abbot-recall") {
      return { cls: "score", text: t("log.abbot_recall", { who, points: pts, feature: t(`feature.${ev.source}`), square: where(d.square) }), squares: d.square ? [{ x: d.square[0], y: d.square[1] }] : [] };
    }
    if (ev.source === "field") {
      const why = figuresText(seats, ev.figures);
      return { cls: "score", text: t("log.field", { who, points: pts, cities: d.completed_cities ?? 0, why }), squares };
    }
    if (["city", "road", "monastery", "garden"].includes(ev.source)) {
      const size = ev.source === "city"
        ? t(ev.coats_of_arms ? "log.size_city_arms" : "log.size_city", { tiles: ev.tiles, arms: ev.coats_of_arms })
        : ev.source === "road" ? t("log.size_road", { tiles: ev.tiles }) : t("log.size_cloister", { tiles: ev.tiles });
      const params = { who, points: pts, feature: t(`feature.${ev.source}`), size, reason: t(`reason.${ev.reason}`), why: figuresText(seats, ev.figures) };
      return { cls: "score", text: t(winners.length ? (winners.length > 1 ? "log.feature_tie" : "log.feature") : "log.feature_nobody", params), squares };
    }
    return { cls: "score", text: t("log.generic_score", { who, points: pts, source: ev.source, reason: ev.reason }), squares };
  }
  const d = ev.detail || {};
  const who = seatName(seats, ev.seat);
  const key = `log.event.${ev.event}`;
  if (has(key)) {
    return { cls: ev.event.startsWith("bet") ? "bet" : ev.event.startsWith("wine") ? "wine" : "", text: t(key, { who, tile: d.tile || "", square: where(d.square) }), squares: d.square ? [{ x: d.square[0], y: d.square[1] }] : [] };
  }
  return { cls: "", text: `${ev.event}${ev.seat !== null && ev.seat !== undefined ? ` (${who})` : ""}`, squares: [] };
}

/** The log, newest first; hovering an entry outlines its squares on the board. */
export function logPanel(events, seats, onHover = () => {}) {
  const list = html("div", { class: "log", role: "log", "aria-live": "polite" });
  for (let i = events.length - 1; i >= 0; i--) {
    const ev = events[i];
    const { cls, text, squares } = describeEvent(ev, seats);
    const entry = html("div", { class: `entry ${cls}`, "data-event": ev.type === "score" ? ev.source : ev.event },
      html("span", { class: "turn" }, t("log.turn", { n: ev.turn })), text);
    entry.addEventListener("mouseenter", () => onHover(squares));
    entry.addEventListener("mouseleave", () => onHover([]));
    list.appendChild(entry);
  }
  if (!events.length) list.appendChild(html("div", { class: "muted" }, t("log.empty")));
  return html("section", { class: "panel" }, html("h3", {}, t("log.title")), list);
}

/** End of game: winners and where every seat's points came from. */
export function summaryPanel(summary, seats, extra = []) {
  const sources = [];
  for (const bySource of summary.by_source) for (const key of Object.keys(bySource)) if (!sources.includes(key)) sources.push(key);
  const winners = summary.winners || [];
  const head = html("tr", {}, html("th", {}, t("summary.seat")), sources.map((s) => html("th", {}, t(`source.${s}`))), html("th", {}, t("summary.total")));
  const rows = seats.map((seat, i) => html("tr", { class: winners.includes(i) ? "winner" : "" },
    html("td", {}, swatch(seats, i), " ", seat.name, winners.includes(i) ? " ★" : ""),
    sources.map((s) => html("td", {}, String(summary.by_source[i][s] || 0))),
    html("td", {}, String(summary.scores[i]))));
  const title = winners.length > 1 ? t("summary.winners", { who: names(seats, winners) }) : t("summary.winner", { who: names(seats, winners) });
  return html("section", { class: "panel summary", "data-summary": "" },
    html("h3", {}, t("summary.title")),
    html("p", { class: "name" }, title),
    html("table", {}, html("thead", {}, head), html("tbody", {}, rows)),
    extra.length ? html("div", { class: "row", style: "margin-top:0.6rem" }, extra) : null);
}
