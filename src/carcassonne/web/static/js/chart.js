// The score chart: every seat's score after each turn, a line per seat, drawn from the game's
// score events (the same ones the log explains), so it always agrees with the log and the totals.
//
// Plain SVG, no chart library. Pointing at (or tapping) a turn shows who scored what there, by
// source; the final scoring gets a column of its own ("end"). Colour is never the only cue: each
// line also has its own dash pattern and ends in the seat's mark.

import { svg, html, drawMark, SEAT_COLOURS } from "./svg.js";
import { t, has } from "./i18n.js";
import { seatName } from "./panels.js";

// The drawing's size in its own units (text is 11 units): the sidebar asks for a narrower one
// so that its text stays as readable as on the wide end card.
const WIDE = 600;
const HEIGHT = 220;
const PAD = { left: 34, right: 34, top: 10, bottom: 24 };
const DASHES = [null, "9 4", "2 3", "12 3 2 3", "5 5", "1 5"];

/**
 * The game as columns: the start (all 0), each turn, and "final" if the final scoring paid.
 * Each column has every seat's gain by source and total after it.
 */
export function scoreColumns(events, players) {
  const empty = () => Array.from({ length: players }, () => ({}));
  let last = 0;
  const byTurn = new Map();
  const finalGains = empty();
  let hasFinal = false;
  for (const ev of events) {
    last = Math.max(last, ev.turn || 0);
    if (ev.type !== "score") continue;
    let gains = finalGains;
    if (ev.reason === "final") hasFinal = true;
    else {
      if (!byTurn.has(ev.turn)) byTurn.set(ev.turn, empty());
      gains = byTurn.get(ev.turn);
    }
    for (const [seat, points] of Object.entries(ev.points)) {
      const g = gains[Number(seat)];
      if (g) g[ev.source] = (g[ev.source] || 0) + points;
    }
  }
  const totals = new Array(players).fill(0);
  const column = (key, gains) => {
    gains.forEach((g, seat) => {
      for (const points of Object.values(g)) totals[seat] += points;
    });
    return { key, gains, totals: [...totals] };
  };
  const columns = [column(0, empty())];
  for (let turn = 1; turn <= last; turn++) columns.push(column(turn, byTurn.get(turn) || empty()));
  if (hasFinal) columns.push(column("final", finalGains));
  return columns;
}

/** A round step for the score axis: about four lines across the chart. */
function niceStep(max) {
  const raw = Math.max(1, max / 4);
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
}

/**
 * The chart for `events` (a figure element). `cursor`: the turn to mark (the replay's step);
 * `onPick(key)`: called with a column's turn (or "final") when it is clicked; `width`: in text
 * units (11 to a line of text).
 */
export function scoreChart(events, seats, { cursor = null, onPick = null, width = null } = {}) {
  // By default about as many units as the screen has pixels to spare (a phone gets a narrower
  // drawing rather than smaller text).
  if (!width) width = Math.max(300, Math.min(WIDE, window.innerWidth - 90));
  const columns = scoreColumns(events, seats.length);
  const top = Math.max(1, ...columns.flatMap((c) => c.totals));
  const step = niceStep(top);
  const yMax = Math.ceil(top / step) * step;
  const plotW = width - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const colW = plotW / Math.max(1, columns.length - 1);
  const xOf = (i) => PAD.left + i * colW;
  const yOf = (v) => PAD.top + plotH * (1 - v / yMax);
  const label = (key) => (key === "final" ? t("chart.final") : t("chart.turn", { n: key }));

  const figure = html("figure", { class: "score-chart", "data-score-chart": "" });
  const chart = svg("svg", { viewBox: `0 0 ${width} ${HEIGHT}`, role: "img", "aria-label": t("chart.label") }, figure);
  for (let v = 0; v <= yMax; v += step) {
    svg("line", { x1: PAD.left, x2: width - PAD.right, y1: yOf(v), y2: yOf(v), class: "chart-grid" }, chart);
    svg("text", { x: PAD.left - 5, y: yOf(v), class: "chart-axis chart-y" }, chart).textContent = String(v);
  }
  const every = [5, 10, 20, 50].find((n) => (columns.length / n) * 30 < plotW) || 100;
  const lastTurn = columns.findLastIndex((c) => c.key !== "final");
  columns.forEach((c, i) => {
    // A turn number too close to "end" would overlap it.
    const crowded = c.key !== "final" && lastTurn < columns.length - 1 && (columns.length - 1 - i) * colW < 28;
    const text = c.key === "final" ? t("chart.end") : c.key % every === 0 && !crowded ? String(c.key) : null;
    if (text) svg("text", { x: xOf(i), y: HEIGHT - 7, class: "chart-axis chart-x" }, chart).textContent = text;
  });
  const cursorAt = columns.findIndex((c) => c.key === cursor);
  if (cursorAt >= 0) {
    svg("line", { x1: xOf(cursorAt), x2: xOf(cursorAt), y1: PAD.top, y2: PAD.top + plotH, class: "chart-cursor", "data-chart-cursor": cursor }, chart);
  }
  // The leader's line is drawn last, on top.
  const order = seats.map((_, s) => s).sort((a, b) => columns.at(-1).totals[a] - columns.at(-1).totals[b]);
  for (const seat of order) {
    const colour = SEAT_COLOURS[seats[seat].colour] || seats[seat].colour || "#777";
    const points = columns.map((c, i) => `${xOf(i).toFixed(1)},${yOf(c.totals[seat]).toFixed(1)}`).join(" ");
    const total = columns.at(-1).totals[seat];
    svg("polyline", {
      points, class: "chart-line", stroke: colour, "stroke-dasharray": DASHES[seat % DASHES.length],
      "data-chart-seat": seat, "data-total": total,
    }, chart);
    const end = [xOf(columns.length - 1), yOf(total)];
    svg("circle", { cx: end[0], cy: end[1], r: 6, fill: colour, class: "chart-end" }, chart);
    drawMark(chart, seat, seats[seat].colour, end[0], end[1], 6.5);
    svg("text", { x: end[0] + 9, y: end[1], class: "chart-axis chart-total" }, chart).textContent = String(total);
  }

  // One target per column, as wide as the column: hover, tap or click shows the turn's gains.
  const tip = html("div", { class: "chart-tip hidden", role: "status" });
  figure.append(tip);
  const show = (c, i) => {
    const rows = seats.map((_, seat) => {
      const gains = Object.entries(c.gains[seat]).filter(([, p]) => p !== 0);
      const sum = gains.reduce((a, [, p]) => a + p, 0);
      const detail = gains.map(([s, p]) => `${has(`source.${s}`) ? t(`source.${s}`) : s} ${p}`).join(", ");
      return html("div", { class: "chart-tip-row" + (sum ? "" : " quiet"), "data-tip-seat": seat },
        html("span", { class: "chart-tip-name" }, seatName(seats, seat)),
        html("span", {}, sum ? ` +${sum}` : " +0", detail ? ` (${detail})` : "", ` = ${c.totals[seat]}`));
    });
    tip.replaceChildren(html("strong", {}, label(c.key)), ...rows);
    tip.classList.remove("hidden");
    const box = chart.getBoundingClientRect();
    const x = (xOf(i) / width) * box.width;
    tip.style.left = `${Math.max(0, Math.min(box.width - tip.offsetWidth, x - tip.offsetWidth / 2))}px`;
  };
  columns.forEach((c, i) => {
    const hit = svg("rect", {
      x: xOf(i) - colW / 2, y: PAD.top, width: colW, height: plotH, class: "chart-column", "data-chart-turn": c.key,
    }, chart);
    hit.addEventListener("pointerenter", () => show(c, i));
    hit.addEventListener("click", () => {
      show(c, i);
      if (onPick) onPick(c.key);
    });
  });
  chart.addEventListener("pointerleave", () => tip.classList.add("hidden"));
  figure.prepend(html("figcaption", {}, t("chart.title")));
  return figure;
}
