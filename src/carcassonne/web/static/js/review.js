// The game review in the replay viewer (web/reviews.py): start it, follow its progress, then
// mark each reviewed move with its class (a symbol and a colour: colour is never the only cue),
// outline the better move on the board at that step, and chart each seat's accuracy.
//
// A reviewed decision at ply n (counted from 1) is the action that frame n follows, so the
// viewer's step index is the mark's ply.

import { t } from "./i18n.js";
import { api } from "./api.js";
import { errorText } from "./errors.js";
import { html, svg, SEAT_COLOURS, drawMark } from "./svg.js";
import { seatName } from "./panels.js";
import { actionLabel } from "./game.js";

/** The classes, best first, with the symbol each is shown by (as chess annotators write). */
export const MARK_SYMBOLS = { best: "★", good: "✓", inaccuracy: "?!", mistake: "?", blunder: "??" };
const POLL_MS = 1500;
const CHART_W = 320;
const CHART_H = 130;
const PAD = { left: 30, right: 12, top: 8, bottom: 18 };
const DASHES = [null, "9 4", "2 3", "12 3 2 3", "5 5", "1 5"];

export class ReviewPanel {
  /** `onChange()` is called whenever there is something new to show. */
  constructor(gameId, onChange) {
    this.gameId = gameId;
    this.onChange = onChange;
    this.state = { status: "loading" };
    this.error = null;
    this.timer = null;
    this.destroyed = false;
    this.path = `/api/games/${encodeURIComponent(gameId)}/review`;
  }

  /** Ask what the server has (`start`: and start the review if it has none). */
  async load(start = false) {
    try {
      this.show(await api(this.path));
      if (start && this.state.status === "none") await this.start();
    } catch (e) {
      this.fail(e);
    }
  }

  async start() {
    this.error = null;
    try {
      this.show(await api(this.path, { method: "POST", body: {} }));
    } catch (e) {
      this.fail(e);
    }
  }

  show(state) {
    if (this.destroyed) return; // an answer that came after the page was left
    this.state = state;
    clearTimeout(this.timer);
    if (state.status === "running") this.timer = setTimeout(() => this.load(), POLL_MS);
    this.onChange();
  }

  fail(e) {
    if (this.destroyed) return;
    this.error = errorText(e);
    if (this.state.status === "loading" || this.state.status === "running") this.state = { status: "none" };
    this.onChange();
  }

  destroy() {
    this.destroyed = true;
    clearTimeout(this.timer);
    this.timer = null;
  }

  get review() {
    return this.state.status === "done" ? this.state.review : null;
  }

  /** The mark of the decision frame `index` follows, if it was reviewed. */
  markAt(index) {
    const review = this.review;
    return review ? review.marks.find((m) => m.ply === index) || null : null;
  }

  /**
   * Draw the better move on the board when the decision of this step lost points: a better
   * placement as a ghost of the tile, turned as it should have been, outlined; for a figure or
   * another decision, the square of the tile placed that turn outlined (the panel words it).
   */
  drawBetter(board, index, frames) {
    const mark = this.markAt(index);
    board.setPending(null);
    if (!mark || mark.lost <= 0) return;
    const { best, played } = mark;
    if (best.type === "place-tile") {
      const placed = frames[index].view.tiles.find((tile) => tile.x === played.x && tile.y === played.y);
      if (placed) board.setPending({ x: best.x, y: best.y, tile: placed.tile, rotation: best.rotation }, true);
      board.markSquares([{ x: best.x, y: best.y }], "hl-better");
      return;
    }
    const turn = frames.slice(1, index + 1).findLast((f) => f.action && f.action.type === "place-tile");
    const square = "x" in best && "y" in best ? best : turn && turn.action;
    if (square) board.markSquares([{ x: square.x, y: square.y }], "hl-better");
  }

  /** The review's panel for the viewer at step `index`; `go(index)` steps there. */
  panel(seats, index, go) {
    const section = html("section", { class: "panel review-panel", "data-review": this.state.status, "data-review-game": this.gameId });
    section.append(html("h3", {}, t("review.title")));
    if (this.error) section.append(html("p", { class: "error-box", role: "alert" }, this.error));
    const { status } = this.state;
    if (status === "loading") return section;
    if (status === "none") {
      section.append(
        html("p", { class: "turn-hint" }, t("review.explain")),
        html("button", { class: "primary", "data-review-start": "", onclick: () => this.start() }, t("review.start")));
      return section;
    }
    if (status === "running") {
      const { done, total } = this.state;
      section.append(
        html("progress", { max: Math.max(1, total), value: done, "data-review-progress": "" }),
        html("p", { class: "turn-hint", role: "status" }, total ? t("review.progress", { done, total }) : t("review.preparing")));
      return section;
    }
    const review = this.review;
    section.append(this.current(seats, index), this.accuracy(seats, review), accuracyChart(review, seats, index),
      this.moveList(seats, review, index, go));
    return section;
  }

  /** What the review says of this step's decision. */
  current(seats, index) {
    const mark = this.markAt(index);
    if (!mark) return html("p", { class: "turn-hint", "data-review-current": "" }, t("review.not_reviewed"));
    const lines = [html("div", {},
      badge(mark.mark), " ", seatName(seats, mark.seat), ": ", t(`review.mark.${mark.mark}`),
      mark.lost > 0 ? ` (${t("review.lost", { points: mark.lost.toFixed(1) })})` : "")];
    if (mark.lost > 0) lines.push(html("div", { class: "review-better" }, t("review.better", { move: actionLabel(mark.best) })));
    return html("div", { class: "review-current", "data-review-current": mark.mark }, ...lines);
  }

  accuracy(seats, review) {
    const rows = review.seats.map((seat) => {
      const accuracy = review.accuracy[String(seat)];
      const counts = review.counts[String(seat)];
      const marks = Object.keys(MARK_SYMBOLS).map((name) =>
        html("span", { class: `review-count review-${name}`, title: t(`review.mark.${name}`) }, `${MARK_SYMBOLS[name]} ${counts[name]}`));
      return html("div", { class: "review-seat", "data-review-seat": seat },
        html("strong", {}, seatName(seats, seat)), " ",
        html("span", { "data-accuracy": accuracy ?? "" }, accuracy === null ? "–" : t("review.accuracy", { n: accuracy.toFixed(1) })),
        html("div", { class: "review-counts" }, ...marks));
    });
    return html("div", { class: "review-seats" }, ...rows);
  }

  /** Every reviewed move, in the game's order, marked; a click steps to it. */
  moveList(seats, review, index, go) {
    const items = review.marks.map((m) => html("li", {},
      html("button", {
        class: `review-move review-${m.mark}${m.ply === index ? " current" : ""}`, "data-review-ply": m.ply, "data-mark": m.mark,
        onclick: () => go(m.ply),
      }, badge(m.mark), ` ${t("chart.turn", { n: m.turn })} · ${seatName(seats, m.seat)}: ${actionLabel(m.played)}`,
      m.lost > 0 ? ` −${m.lost.toFixed(1)}` : "")));
    const list = html("ol", { class: "review-moves", "aria-label": t("review.moves") }, ...items);
    // keep the current move in sight as the viewer steps
    requestAnimationFrame(() => list.querySelector(".current")?.scrollIntoView({ block: "nearest" }));
    return list;
  }
}

function badge(mark) {
  return html("span", { class: `review-badge review-${mark}`, "aria-label": t(`review.mark.${mark}`) }, MARK_SYMBOLS[mark]);
}

/** Each reviewed seat's running accuracy (0-100) after each of its decisions, by ply. */
function accuracyChart(review, seats, index) {
  const lastPly = Math.max(1, ...review.marks.map((m) => m.ply));
  const plotW = CHART_W - PAD.left - PAD.right;
  const plotH = CHART_H - PAD.top - PAD.bottom;
  const xOf = (ply) => PAD.left + (plotW * ply) / lastPly;
  const yOf = (v) => PAD.top + plotH * (1 - v / 100);
  const figure = html("figure", { class: "score-chart", "data-accuracy-chart": "" });
  figure.append(html("figcaption", {}, t("review.chart")));
  const chart = svg("svg", { viewBox: `0 0 ${CHART_W} ${CHART_H}`, role: "img", "aria-label": t("review.chart") }, figure);
  for (const v of [0, 50, 100]) {
    svg("line", { x1: PAD.left, x2: CHART_W - PAD.right, y1: yOf(v), y2: yOf(v), class: "chart-grid" }, chart);
    svg("text", { x: PAD.left - 5, y: yOf(v), class: "chart-axis chart-y" }, chart).textContent = String(v);
  }
  if (index > 0) svg("line", { x1: xOf(index), x2: xOf(index), y1: PAD.top, y2: PAD.top + plotH, class: "chart-cursor" }, chart);
  for (const seat of review.seats) {
    const series = review.series[String(seat)] || [];
    if (!series.length) continue;
    const colour = SEAT_COLOURS[seats[seat].colour] || seats[seat].colour || "#777";
    const points = series.map(([ply, v]) => `${xOf(ply).toFixed(1)},${yOf(v).toFixed(1)}`).join(" ");
    svg("polyline", { points, class: "chart-line", stroke: colour, "stroke-dasharray": DASHES[seat % DASHES.length], "data-accuracy-seat": seat }, chart);
    const [ply, v] = series.at(-1);
    svg("circle", { cx: xOf(ply), cy: yOf(v), r: 6, fill: colour, class: "chart-end" }, chart);
    drawMark(chart, seat, seats[seat].colour, xOf(ply), yOf(v), 6.5);
  }
  return figure;
}
