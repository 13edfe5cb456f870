// The replay viewer: step through a finished game (from the server) or an uploaded record.
// The server replays the record through the engine and sends one spectator view per action
// (the first whole, the others as what changed: see expandFrames), so stepping back and forth
// needs no engine here.

import { t } from "./i18n.js";
import { api } from "./api.js";
import { errorText } from "./errors.js";
import { html } from "./svg.js";
import { BoardView } from "./board.js";
import { chatLogPanel } from "./chat.js";
import { scoresPanel, betsPanel, winePanel, logPanel, summaryPanel, seatName, localSeats, spentText, viewTurn } from "./panels.js";
import { actionLabel } from "./game.js";
import { scoreChart } from "./chart.js";
import { ReviewPanel } from "./review.js";

/** `#/replay/<id>`; `#/review/<id>` opens the same viewer and starts the game's review. */
export function mountReview(container, [gameId]) {
  return mountReplay(container, [gameId], { review: true });
}

export function mountReplay(container, [gameId], { review = false } = {}) {
  const page = html("div", { class: "page" });
  container.appendChild(page);
  let viewer = null;

  function showUpload(error = null) {
    const input = html("input", { type: "file", accept: ".json,application/json", "data-upload": "" });
    input.addEventListener("change", async () => {
      const file = input.files[0];
      if (!file) return;
      try {
        JSON.parse(await file.text()); // only to say so here if it is not JSON at all
        // The file goes as it is: parsed and written again here, a seed beyond 2^53 would be
        // rounded and the server would replay another shuffle.
        start(await api("/api/replay", { method: "POST", raw: file }));
      } catch (e) {
        showUpload(e instanceof SyntaxError ? t("replay.not_json") : errorText(e));
      }
    });
    page.replaceChildren(html("div", { class: "page-narrow" },
      html("h1", {}, t("replay.title")),
      html("section", { class: "card" },
        html("p", {}, t("replay.upload_hint")),
        input,
        error ? html("p", { class: "error-box", role: "alert" }, error) : null)));
  }

  function start(data) {
    page.remove();
    viewer = new ReplayViewer(container, expandFrames(data), gameId, review);
  }

  if (gameId) {
    api(`/api/games/${encodeURIComponent(gameId)}/replay`).then(start).catch((e) => showUpload(errorText(e)));
  } else {
    showUpload();
  }
  return {
    destroy: () => viewer && viewer.destroy(),
    relabel: () => (viewer ? viewer.relabel() : showUpload()),
  };
}

// Frames after the first carry `delta` instead of a view (web/replay.py view_delta): `set`
// replaces keys, `append` extends lists, `patch` applies a delta inside an object, `drop` removes.
function applyDelta(before, delta) {
  const after = { ...before, ...(delta.set || {}) };
  for (const [key, items] of Object.entries(delta.append || {})) after[key] = before[key].concat(items);
  for (const [key, inner] of Object.entries(delta.patch || {})) after[key] = applyDelta(before[key], inner);
  for (const key of delta.drop || []) delete after[key];
  return after;
}

export function expandFrames(data) {
  let view = null;
  for (const frame of data.frames) {
    if (frame.delta) {
      frame.view = applyDelta(view, frame.delta);
      delete frame.delta;
    }
    view = frame.view;
  }
  return data;
}

class ReplayViewer {
  constructor(container, data, gameId = null, startReview = false) {
    this.data = data;
    this.gameId = gameId;
    // a finished game of the server may be reviewed (an uploaded record: by the CLI)
    const people = data.game.seats.some((seat) => seat.kind === "human"); // only people's moves are reviewed
    this.review = gameId && data.summary.over && people ? new ReviewPanel(gameId, () => this.render()) : null;
    this.index = 0;
    this.timer = null;
    this.root = html("div", { class: "game-screen" });
    this.boardWrap = html("div", { class: "board-wrap" });
    this.sidebar = html("aside", { class: "sidebar" });
    this.root.append(this.boardWrap, this.sidebar);
    container.appendChild(this.root);
    this.board = new BoardView(this.boardWrap);
    this.board.setBoard(data.game.board, localSeats(data.game.seats));
    this.banner = html("div", { class: "banner", role: "status" });
    this.boardWrap.append(this.banner);
    this.onKey = (e) => {
      if (e.key === "ArrowRight") this.go(this.index + 1);
      else if (e.key === "ArrowLeft") this.go(this.index - 1);
      else if (e.key === " ") this.toggle();
      else return;
      e.preventDefault();
    };
    document.addEventListener("keydown", this.onKey);
    this.go(data.frames.length - 1);
    this.board.fit();
    if (this.review) this.review.load(startReview);
  }

  destroy() {
    if (this.review) this.review.destroy();
    this.board.destroy();
    clearInterval(this.timer);
    document.removeEventListener("keydown", this.onKey);
  }

  relabel() {
    this.board.relabel();
    this.render();
  }

  go(index) {
    this.index = Math.max(0, Math.min(this.data.frames.length - 1, index));
    if (this.index === this.data.frames.length - 1) this.stop();
    this.render();
  }

  toggle() {
    if (this.timer) this.stop();
    else {
      if (this.index === this.data.frames.length - 1) this.index = 0;
      this.timer = setInterval(() => this.go(this.index + 1), 700);
      this.render();
    }
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }

  /** The whole game's score chart, marking this step; clicking a turn steps to its end. */
  chart(view) {
    const frames = this.data.frames;
    const end = this.index === frames.length - 1 && this.data.summary.over;
    return scoreChart(frames.flatMap((f) => f.events), this.data.game.seats, {
      cursor: end ? "final" : view.turn,
      width: 320,
      onPick: (turn) => {
        const at = turn === "final" ? frames.length - 1 : frames.findLastIndex((f) => f.view.turn === turn);
        if (at >= 0) this.go(at);
      },
    });
  }

  /** The table's seat changes up to this step, each with the turn it happened in (a change at
   * ply n came after n actions: frame n shows the game then). */
  changesSoFar() {
    const frames = this.data.frames;
    return (this.data.changes || []).filter((c) => c.ply <= this.index)
      .map((c) => ({ ...c, turn: viewTurn(frames[Math.min(c.ply, frames.length - 1)].view) }));
  }

  timed() {
    const clock = (this.data.table || {}).clock;
    return !!clock && clock.kind !== "none";
  }

  /** The tiles placed by this step (frame n follows the action of ply n - 1); a figure shows from its own step. */
  placementsSoFar() {
    return (this.data.placements || []).filter((m) => m.ply < this.index).map((m) => (m.ply + 1 < this.index ? m : { ...m, figure: null }));
  }

  render() {
    const frames = this.data.frames;
    const frame = frames[this.index];
    const seats = this.data.game.seats;
    const view = frame.view;
    this.board.update(view);
    const last = this.index === frames.length - 1;
    // Frame n follows action n - 1: how long a person took for that decision, when the game
    // kept times.
    const human = frame.action && seats[frame.seat] && seats[frame.seat].kind === "human";
    const spent = this.data.spent_ms && human ? this.data.spent_ms[this.index - 1] : undefined;
    const took = spent === undefined ? "" : ` · ${spentText(spent)}`;
    const action = frame.action ? `${seatName(seats, frame.seat)}: ${actionLabel(frame.action)}${took}` : t("replay.start");
    this.banner.textContent = `${t("replay.step", { n: this.index, total: frames.length - 1 })} — ${action}`;
    const mark = this.review && this.review.markAt(this.index);
    if (mark) this.banner.prepend(html("span", { class: `review-badge review-${mark.mark}`, "data-banner-mark": mark.mark }, t(`review.mark.${mark.mark}`)), " ");
    if (this.review) this.review.drawBetter(this.board, this.index, frames);
    const events = frames.slice(0, this.index + 1).flatMap((f) => f.events);
    const slider = html("input", {
      type: "range", min: 0, max: frames.length - 1, value: this.index, "aria-label": t("replay.position"),
      oninput: (e) => this.go(Number(e.target.value)),
    });
    const controls = html("section", { class: "panel" },
      html("h3", {}, t("replay.title")),
      html("div", { class: "replay-controls" },
        html("button", { "aria-label": t("replay.first"), onclick: () => this.go(0) }, "|◀"),
        html("button", { "aria-label": t("replay.back"), onclick: () => this.go(this.index - 1), "data-step": "back" }, "◀"),
        html("button", { "aria-label": t("replay.play"), onclick: () => this.toggle() }, this.timer ? "❚❚" : "▶"),
        html("button", { "aria-label": t("replay.forward"), onclick: () => this.go(this.index + 1), "data-step": "forward" }, "▶▶"),
        html("button", { "aria-label": t("replay.last"), onclick: () => this.go(frames.length - 1) }, "▶|"),
        slider),
      html("p", { class: "turn-hint key-hints" }, t("replay.keys")));
    const info = { seats };
    const panels = [controls];
    if (this.review) panels.push(this.review.panel(seats, this.index, (i) => this.go(i)));
    if (last && this.data.summary.over) {
      const actions = [html("a", { class: "button-link", href: "#/", "data-end": "new-game" }, `+ ${t("summary.new_game")}`)];
      if (this.review && this.review.state.status === "none") {
        actions.unshift(html("button", { onclick: () => this.review.start(), "data-end": "review" }, `★ ${t("review.start")}`));
      }
      if (this.gameId) {
        actions.unshift(html("a", { class: "button-link", href: `/api/games/${encodeURIComponent(this.gameId)}/record`, download: "", "data-end": "download" }, `⬇ ${t("summary.download")}`));
      }
      panels.push(summaryPanel(this.data.summary, seats, actions, { changes: this.changesSoFar(), timed: this.timed() }));
    }
    panels.push(scoresPanel(info, view));
    panels.push(html("section", { class: "panel", "data-replay-chart": "" }, this.chart(view)));
    const bets = betsPanel(info, view, null);
    if (bets) panels.push(bets);
    const wine = winePanel(info, view);
    if (wine) panels.push(wine);
    panels.push(logPanel(events, seats, (squares) => {
      this.board.drawMarks(view);
      if (this.review) this.review.drawBetter(this.board, this.index, frames);
      this.board.markSquares(squares, "hl-feature");
    }, this.placementsSoFar(), { changes: this.changesSoFar(), spent: this.data.spent_ms || null, timed: this.timed() }));
    const chat = chatLogPanel(this.data.chat);
    if (chat) panels.push(chat);
    this.sidebar.replaceChildren(...panels);
  }
}
