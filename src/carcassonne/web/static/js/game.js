// The game screen: the board, the drawn tile, the turn being built, the panels.
//
// A turn is built in the browser and sent only on confirm, in two steps. The tile: the player
// puts it on a highlighted square (R / Shift+R rotate, clicking the tile again also rotates, so
// no figure spot is offered yet: a click there would be ambiguous), and the server answers a
// "preview" with the figure actions that placement allows. Enter (or ✓) fixes the tile. The
// figure: the player may pick a spot (or the abbot's recall), and Enter (or ✓) sends tile and
// figure together; a placement that allows no figure is sent at the first Enter. Esc undoes the
// figure, then fixing the tile, then the tile. The server and its engine decide legality; the
// browser only offers what they listed.

import { t, has, plural, pointerText } from "./i18n.js";
import { apiFile, GameSocket } from "./api.js";
import { errorText } from "./errors.js";
import { html, svg, seatSwatch } from "./svg.js";
import { BoardView } from "./board.js";
import { drawTile, segmentAt } from "./tiles.js";
import { scoresPanel, betsPanel, winePanel, logPanel, summaryPanel, seatName, localSeats, tileName, turnOfPly, viewTurn } from "./panels.js";
import { rememberGame } from "./lobby.js";
import { scoreChart } from "./chart.js";
import { hintPanel, hintNotes } from "./hints.js";
import { tablePanel, seatActionsPanel } from "./tablepanel.js";
import { SeatClocks } from "./seatclocks.js";
import { TurnAlert, playTick } from "./turnalert.js";
import { ChatPanel } from "./chat.js";
import { aidsPanel, drawHoles, drawFeatureTips } from "./aids.js";
import { Rematch } from "./rematch.js";
import { waitingPanel, seatsTaken } from "./tables.js";

const ROTATIONS = [0, 90, 180, 270];
const keyOf = (a) => JSON.stringify(a);

export function mountGame(container, [gameId, token]) {
  return new GameScreen(container, gameId, token || null);
}

class GameScreen {
  constructor(container, gameId, token) {
    this.gameId = gameId;
    this.token = token;
    this.info = null;
    this.you = null;
    this.state = null;
    this.events = [];
    this.rotation = 0;
    this.figureType = null;
    this.pending = null; // {x, y, rotation, tile, figureLegal, figure, fixed}
    this.waiting = false;
    this.hover = null;
    this.gains = [];
    this.hint = null; // null, { pending: true } or the server's hint for this ply
    this.alert = new TurnAlert(gameId);
    this.clocks = null; // a SeatClocks once the game is known to have a clock
    this.ticked = null; // the seat and second of the last low-time tick
    // Between two states only the running clock changes: its cell is counted down in place.
    this.clockTimer = setInterval(() => this.tickClocks(), 250);

    this.root = html("div", { class: "game-screen" });
    this.boardWrap = html("div", { class: "board-wrap" });
    this.banner = html("div", { class: "banner", role: "status" }, t("game.connecting"));
    this.toast = html("div", { class: "toast hidden", role: "alert" });
    this.sidebar = html("aside", { class: "sidebar" });
    this.root.append(this.boardWrap, this.sidebar);
    container.appendChild(this.root);
    this.board = new BoardView(this.boardWrap, {
      onSquare: (sq) => this.clickSquare(sq),
      onHover: (sq) => this.hoverSquare(sq),
      onSpot: (key) => this.clickSpot(key),
    });
    this.chat = new ChatPanel(gameId, (m) => this.socket.send(m));
    this.rematch = new Rematch(token, {
      send: (m) => this.socket.send(m),
      changed: () => this.rematchChanged(),
      offline: () => this.showError(t("game.offline")),
    });
    this.boardWrap.append(this.banner, this.toast, this.chat.element);
    this.onKey = (e) => this.key(e);
    document.addEventListener("keydown", this.onKey);
    // A resized window may change which table fits on the end card.
    this.onResize = () => {
      if (this.endCard) this.renderEnd();
    };
    window.addEventListener("resize", this.onResize);
    this.socket = new GameSocket(gameId, token, {
      onMessage: (m) => this.message(m),
      onStatus: (s) => {
        if (s === "closed" && !this.socket.closed) this.setBanner(t("game.reconnecting"), "");
      },
    });
  }

  destroy() {
    this.board.destroy();
    document.removeEventListener("keydown", this.onKey);
    window.removeEventListener("resize", this.onResize);
    this.socket.close();
    clearTimeout(this.toastTimer);
    clearInterval(this.clockTimer);
    this.alert.destroy();
  }

  relabel() {
    this.alert.relabel();
    this.chat.relabel();
    this.board.relabel();
    this.render();
    if (this.endCard) this.renderEnd();
  }

  // ------------------------------------------------------------------ messages

  message(m) {
    if (m.type === "welcome") {
      this.info = m.game;
      this.you = m.you;
      const clock = (this.info.table || {}).clock;
      this.clocks = clock && clock.kind !== "none" ? new SeatClocks(clock.kind) : null;
      const seats = localSeats(this.info.seats);
      this.board.setBoard(this.info.board, seats);
      rememberGame(this.gameId, { token: this.token, seats: this.info.seats, you: m.you.seats });
      this.chat.welcome(m.game, m.you, m.chat || []);
    } else if (m.type === "chat") {
      this.chat.heard(m);
    } else if (m.type === "rematch") {
      this.rematch.offered(m);
    } else if (m.type === "state") {
      this.setState(m);
    } else if (m.type === "presence") {
      if (this.state) {
        this.state.online = m.online;
        this.render();
      }
    } else if (m.type === "hint") {
      if (this.state && m.ply === this.state.ply) {
        this.hint = m;
        this.renderSidebar();
      }
    } else if (m.type === "preview") {
      const p = this.pending;
      if (p && m.ply === this.state.ply && keyOf(m.action) === keyOf(this.tileAction(p))) {
        p.figureLegal = m.legal_actions;
        // Fixed before the answer came, and nothing to choose: the turn is complete.
        if (p.fixed && !hasFigureChoice(p.figureLegal)) this.confirm();
        else this.renderTurn();
      }
    } else if (m.type === "error") {
      this.waiting = false;
      if (this.hint && this.hint.pending) this.hint = null;
      this.rematch.refused();
      this.showError(errorText(m));
      if (m.code === "not-found" || m.code === "unauthorised") this.setBanner(errorText(m), "");
      else this.renderTurn();
    }
  }

  setState(m) {
    const previous = this.state;
    if (m.events_from === 0) this.events = [];
    this.events = this.events.slice(0, m.events_from).concat(m.events);
    this.gains = previous ? m.view.scores.map((s, i) => s - previous.view.scores[i]) : [];
    if (!previous || previous.ply !== m.ply || previous.perspective !== m.perspective) {
      this.pending = null;
      this.figure = null;
      this.waiting = false;
      this.figureType = null;
      this.hint = null;
    }
    this.state = m;
    this.rematch.stated(m);
    if (this.clocks) this.clocks.set(m.clocks);
    this.render();
    seatsTaken(this.gameId, this.info, m).then((seats) => {
      if (seats) this.info.seats = seats;
      if (seats) this.render();
    });
  }

  /** Count the running clock down in its cell; in its last seconds (or hour), a seat of this
   * page hears a tick: every second real-time, once turn-based. */
  tickClocks() {
    const clocks = this.clocks;
    if (!clocks || !clocks.clocks || this.view.phase === "over") return;
    const seat = clocks.running;
    const cells = seat === null ? [] : this.sidebar.querySelectorAll(`[data-clock="${seat}"]`);
    if (!cells.length) return;
    const low = clocks.low(seat);
    for (const cell of cells) {
      cell.textContent = clocks.text(seat);
      cell.classList.toggle("low", low);
    }
    if (!low || !this.you.seats.includes(seat) || clocks.remaining(seat) <= 0) return;
    const mark = clocks.kind === "real-time" ? `${seat}:${this.state.ply}:${Math.ceil(clocks.remaining(seat) / 1000)}` : `${seat}:${this.state.ply}`;
    if (mark !== this.ticked) playTick();
    this.ticked = mark;
  }

  /** Each seat's status with the turn it began ({status, turn}), or null for an older server. */
  seatStatuses() {
    const statuses = this.state.seat_status;
    if (!statuses) return null;
    return statuses.map(({ status, since_ply: since }) => ({
      status,
      turn: since === null || since === undefined ? null : turnOfPly(since, this.state.placements || [], this.currentTurn()),
    }));
  }

  currentTurn() {
    return { ply: this.state.ply, turn: viewTurn(this.view) };
  }

  /** The seat changes so far, each with the turn it happened in (for the log). */
  changes() {
    return (this.state.changes || []).map((c) => ({ ...c, turn: turnOfPly(c.ply, this.state.placements || [], this.currentTurn()) }));
  }

  /** This page's own seat's status, when it plays one seat. */
  myStatus() {
    const statuses = this.state.seat_status;
    if (!statuses || this.you.seats.length !== 1) return "playing";
    return statuses[this.you.seats[0]].status;
  }

  send(actions) {
    if (this.waiting) return;
    if (this.socket.send({ type: "act", actions, ply: this.state.ply })) this.waiting = true;
    else this.showError(t("game.offline"));
    this.renderTurn();
  }

  askHint() {
    if (this.hint) return;
    if (!this.socket.send({ type: "hint", ply: this.state.ply })) return this.showError(t("game.offline"));
    this.hint = { pending: true };
    this.renderSidebar();
  }

  showError(text) {
    this.toast.textContent = text;
    this.toast.classList.remove("hidden");
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => this.toast.classList.add("hidden"), 5000);
  }

  // ------------------------------------------------------------------ what may I do

  get view() {
    return this.state ? this.state.view : null;
  }

  legal() {
    return (this.view && this.view.legal_actions) || [];
  }

  myTurn() {
    return this.toMove() && !this.waiting;
  }

  /** Whether this page's player is to decide now: the seat to move is theirs, and played by
   * them (a seat the stand-in plays, or that left the game, is offered its actions, but its
   * bot decides). */
  toMove() {
    const status = (this.state.seat_status || [])[this.view.to_move];
    return this.legal().length > 0 && !this.state.broken && (!status || status.status === "playing");
  }

  placements() {
    return this.legal().filter((a) => a.type === "place-tile");
  }

  rotationsAt(x, y) {
    return this.placements().filter((a) => a.x === x && a.y === y).map((a) => a.rotation);
  }

  legalSquares() {
    const seen = new Map();
    for (const a of this.placements()) seen.set(`${a.x},${a.y}`, { x: a.x, y: a.y });
    return [...seen.values()];
  }

  tileAction(p) {
    return { type: "place-tile", x: p.x, y: p.y, rotation: p.rotation };
  }

  /** The figure choices now: from the preview (tile phase) or the legal actions (figure phase). */
  figureLegal() {
    if (this.view.phase === "figure") return this.legal();
    return this.pending && this.pending.figureLegal ? this.pending.figureLegal : [];
  }

  /** The tile whose figure spots are offered: the one just placed, or the pending one once fixed. */
  figureTile() {
    if (this.view.phase === "figure") return this.board.last;
    return this.pending && this.pending.fixed ? this.pending : null;
  }

  // ------------------------------------------------------------------ input

  clickSquare({ x, y }) {
    if (!this.myTurn() || this.view.phase !== "tile" || (this.pending && this.pending.fixed)) return;
    const fits = this.rotationsAt(x, y);
    if (!fits.length) return;
    let rotation;
    if (this.pending && this.pending.x === x && this.pending.y === y) {
      rotation = nextRotation(fits, this.pending.rotation, 1);
    } else {
      rotation = fits.includes(this.rotation) ? this.rotation : nextRotation(fits, this.rotation, 1);
    }
    this.place(x, y, rotation);
  }

  place(x, y, rotation) {
    this.rotation = rotation;
    this.pending = { x, y, rotation, tile: this.view.current_tile, figureLegal: null, figure: null, fixed: false };
    this.socket.send({ type: "preview", action: this.tileAction(this.pending), ply: this.state.ply });
    this.renderTurn();
  }

  hoverSquare(sq) {
    const key = sq ? `${sq.x},${sq.y}` : null;
    if (key === this.hover) return;
    this.hover = key;
    if (this.pending || !this.myTurn() || this.view.phase !== "tile") return;
    if (!sq) {
      this.board.setPending(null);
      return;
    }
    const fits = this.rotationsAt(sq.x, sq.y);
    if (!fits.length) {
      this.board.setPending(null);
      return;
    }
    const rotation = fits.includes(this.rotation) ? this.rotation : nextRotation(fits, this.rotation, 1);
    this.board.setPending({ x: sq.x, y: sq.y, rotation, tile: this.view.current_tile }, true);
  }

  rotate(step) {
    if (!this.myTurn() || this.view.phase !== "tile") return;
    if (this.pending && this.pending.fixed) return;
    if (this.pending) {
      const fits = this.rotationsAt(this.pending.x, this.pending.y);
      if (fits.length > 1) this.place(this.pending.x, this.pending.y, nextRotation(fits, this.pending.rotation, step));
      return;
    }
    const available = [...new Set(this.placements().map((a) => a.rotation))];
    if (!available.length) return;
    this.rotation = nextRotation(available, this.rotation, step);
    this.hover = null;
    this.renderTurn();
  }

  clickSpot(key) {
    if (!this.figureTile()) return;
    const legal = this.figureLegal();
    const action = legal.find((a) => keyOf(a) === key);
    if (!action) return;
    const holder = this.view.phase === "figure" ? this : this.pending;
    if (holder.figure && keyOf(holder.figure) === key) holder.figure = null;
    else holder.figure = action;
    this.renderTurn();
  }

  chooseFigure(action) {
    const holder = this.view.phase === "figure" ? this : this.pending;
    if (!holder) return;
    holder.figure = holder.figure && keyOf(holder.figure) === keyOf(action) ? null : action;
    this.renderTurn();
  }

  confirm() {
    if (!this.myTurn()) return;
    const phase = this.view.phase;
    const p = this.pending;
    if (phase === "tile" && p && !p.fixed) {
      // The tile is fixed; its figure spots come next (once the preview says which).
      p.fixed = true;
      if (!p.figureLegal || hasFigureChoice(p.figureLegal)) {
        this.renderTurn();
        return;
      }
    }
    if (phase === "tile" && p) {
      this.send([this.tileAction(p), p.figure || { type: "pass" }]);
    } else if (phase === "figure") {
      this.send([this.figure || { type: "pass" }]);
    }
  }

  undo() {
    if (this.view && this.view.phase === "figure" && this.figure) {
      this.figure = null;
    } else if (this.pending && this.pending.figure) {
      this.pending.figure = null;
    } else if (this.pending && this.pending.fixed) {
      this.pending.fixed = false;
    } else if (this.pending) {
      this.pending = null;
    } else {
      return;
    }
    this.renderTurn();
  }

  key(e) {
    if (e.target.closest && e.target.closest("input, select, textarea")) return;
    // Enter on a focused button or link activates that, not "confirm".
    if (e.key === "Enter" && e.target.closest && e.target.closest("button, a, [role=button]")) return;
    if (e.key === "r" || e.key === "R") {
      this.rotate(e.shiftKey ? -1 : 1);
      e.preventDefault();
    } else if (e.key === "Enter") {
      this.confirm();
      e.preventDefault();
    } else if (e.key === "Escape") {
      this.undo();
      e.preventDefault();
    }
  }

  // ------------------------------------------------------------------ rendering

  setBanner(text, cls) {
    this.banner.textContent = text;
    this.banner.className = `banner ${cls || ""}`;
  }

  render() {
    if (!this.state || !this.info) return;
    this.board.extra = this.myTurn() ? this.legalSquares() : [];
    this.board.update(this.view);
    this.renderTurn();
    this.alertTurn();
  }

  /** The tab says when the seat (or a seat of this shared screen) is to move. */
  alertTurn() {
    const mine = this.toMove();
    const colour = mine ? this.info.seats[this.view.to_move].colour : null;
    this.alert.update(mine, { colour, text: this.banner.textContent, turnBased: this.turnBased() });
  }

  turnBased() {
    const clock = (this.info.table || {}).clock;
    return !!clock && clock.kind === "turn-based";
  }

  /** A seat change asked for by this seat (resign, return, stand-in for `seat`). */
  changeSeat(change, seat = null) {
    const message = { type: change, ply: this.state.ply };
    if (seat !== null) message.seat = seat;
    if (!this.socket.send(message)) this.showError(t("game.offline"));
  }

  /** Board aids, the banner and the side panels for the current state. */
  renderTurn() {
    if (!this.state || !this.info) return;
    const view = this.view;
    const seats = this.info.seats;
    const mine = this.myTurn();
    const phase = view.phase;
    this.board.setHighlights();
    this.board.setPending(null);
    this.board.drawMarks(view);
    drawHoles(this.board.layers.aids, this.state.aids);
    drawFeatureTips(this.board.layers.tips, this.board.layers.tipMarks, this.state.aids);

    if (this.state.broken) {
      this.setBanner(t("game.broken", { why: this.state.broken }), "");
    } else if ((this.state.waiting || []).length) {
      this.setBanner(t("waiting.title"), "");
    } else if (phase === "over") {
      const winners = (this.state.summary || {}).winners || [];
      this.setBanner(t("game.over", { who: winners.map((w) => seatName(seats, w)).join(", ") }), "over");
      if (!this.endCard && !this.endClosed) this.renderEnd();
    } else if (this.myStatus() !== "playing") {
      this.setBanner(t(`game.you_${this.myStatus()}`), this.myStatus() === "stood-in" ? "your-turn" : "");
    } else if (this.waiting) {
      this.setBanner(t("game.sending"), "");
    } else if (mine) {
      // On a shared screen the banner says whose turn it is.
      const step = this.turnStep();
      const key = step === "figure" ? "game.your_figure" : phase === "tile" ? "game.your_tile" : "game.your_decision";
      const text = this.you.hotseat ? t(`${key}_named`, { who: seatName(seats, view.to_move) }) : t(key);
      this.setBanner(text, "your-turn");
    } else {
      this.setBanner(t("game.waiting", { who: seatName(seats, view.to_move) }), "");
    }

    if (mine && phase === "tile" && this.pending && this.pending.fixed) {
      this.board.setPending(this.pending);
    } else if (mine && phase === "tile") {
      // The legal squares stay lit while a placed tile awaits confirmation: clicking another
      // one moves the tile there.
      const squares = this.legalSquares();
      const available = [...new Set(this.placements().map((a) => a.rotation))];
      if (!available.includes(this.rotation)) this.rotation = available[0];
      const legal = this.placements().filter((a) => a.rotation === this.rotation).map((a) => ({ x: a.x, y: a.y }));
      const legalKeys = new Set(legal.map((s) => `${s.x},${s.y}`));
      this.board.setHighlights(legal, squares.filter((s) => !legalKeys.has(`${s.x},${s.y}`)));
      if (this.pending) this.board.setPending(this.pending);
    }
    const figureTile = mine ? this.figureTile() : null;
    if (!figureTile) this.board.setSpots(null);
    else {
      const holder = phase === "figure" ? this : this.pending;
      const chosen = holder && holder.figure && holder.figure.type === "place-figure" ? holder.figure : null;
      const colour = seats[view.to_move].colour;
      const spots = this.figureLegal()
        .filter((a) => a.type === "place-figure" && (!this.figureType || a.figure === this.figureType || !this.hasFigureType(this.figureType)))
        .filter((a, i, all) => all.findIndex((b) => b.location === a.location) === i)
        .map((a) => {
          const segment = segmentAt(figureTile.tile, figureTile.rotation, a.location);
          const feature = segment ? t(`feature.${segment.kind}`) : a.location;
          return { key: keyOf(a), location: a.location, selected: chosen && chosen.location === a.location, label: t("turn.spot", { figure: t(`figure.${a.figure}`), feature }) };
        });
      this.board.setSpots(figureTile, spots, chosen ? { ...chosen, colour, seat: view.to_move } : null);
    }
    this.decisionMarks();
    this.renderSidebar();
  }

  hasFigureType(type) {
    return this.figureLegal().some((a) => a.type === "place-figure" && a.figure === type);
  }

  renderSidebar() {
    const view = this.view;
    const seats = this.info.seats;
    const panels = view.phase === "over" ? [] : [this.turnPanel()];
    const decisions = this.decisionPanel();
    if (decisions) panels.push(decisions);
    if (this.myTurn()) panels.push(hintPanel(this.hint, actionLabel, {
      onAsk: () => this.askHint(),
      onPoint: (a) => {
        this.board.drawMarks(view);
        if (a && a.x !== undefined) this.board.markSquares([{ x: a.x, y: a.y }], "hl-feature");
      },
    }));
    const notes = hintNotes(this.state.hints_used, seats);
    if (notes) panels.push(notes);
    if (this.state.summary) panels.push(summaryPanel(this.state.summary, seats, this.endActions(), { changes: this.changes(), timed: !!this.clocks }));
    panels.push(scoresPanel(this.info, view, {
      you: this.you.seats, gains: this.gains, online: this.state.online, clocks: this.clocks, statuses: this.seatStatuses(),
    }));
    const table = this.tablePanel();
    if (table) panels.push(table);
    // Taking one's seat back, or handing an absent one over, is what matters most then.
    const asked = this.seatActionsPanel();
    if (asked) panels.unshift(asked);
    const waitingFor = waitingPanel(this.gameId, this.info, this.state, this.you, (e) => this.showError(e));
    if (waitingFor) panels.unshift(waitingFor);
    const bets = betsPanel(this.info, view, this.state.perspective);
    if (bets) panels.push(bets);
    const wine = winePanel(this.info, view);
    if (wine) panels.push(wine);
    const aids = aidsPanel(this.state.aids);
    if (aids) panels.push(aids);
    panels.push(logPanel(this.events, seats, (squares) => {
      this.board.drawMarks(view);
      if (squares.length) this.board.markSquares(squares, "hl-feature");
      else this.decisionMarks();
    }, this.state.placements || [], { changes: this.changes(), timed: !!this.clocks }));
    this.gains = [];
    const scroll = this.sidebar.scrollTop;
    this.sidebar.replaceChildren(...panels);
    this.sidebar.scrollTop = scroll;
  }

  /** The seat's table panel (none for a spectator, nor once the game is over). */
  tablePanel() {
    if (!this.you.seats.length || this.view.phase === "over" || this.state.broken) return null;
    return tablePanel({
      may: this.state.may,
      onChange: (change, seat) => this.changeSeat(change, seat),
      rerender: () => this.renderSidebar(),
      turnBased: this.turnBased(),
      who: this.you.hotseat ? seatName(this.info.seats, this.view.to_move) : null,
    });
  }

  /** Taking the seat back, handing an absent seat to the stand-in: when the server allows it. */
  seatActionsPanel() {
    if (!this.you.seats.length || this.view.phase === "over" || this.state.broken) return null;
    return seatActionsPanel({
      may: this.state.may,
      seats: this.info.seats,
      seatName,
      // With a clock, only time running out lets a seat be handed over; without, an absence.
      why: (seat) => t(this.clocks && this.clocks.remaining(seat) === 0 ? "table.why_out_of_time" : "table.why_away"),
      onChange: (change, seat) => this.changeSeat(change, seat),
    });
  }

  /** The next game was made or asked for: the summary's buttons change. */
  rematchChanged() {
    if (!this.state || !this.info) return;
    this.renderSidebar();
    if (this.endCard) this.renderEnd();
  }

  /** What one may do once the game is over: play again with the same players, keep the
   * record, watch it again, or set up another game. */
  endActions() {
    return [
      ...this.rematch.actions(this.info.seats, this.you),
      html("button", { onclick: () => this.download(), "data-end": "download" }, `⬇ ${t("summary.download")}`),
      html("a", { class: "button-link", href: `#/replay/${this.gameId}`, "data-end": "replay" }, `▶ ${t("summary.replay")}`),
      // a review looks at people's moves: a game of bots has none
      this.info.seats.some((seat) => seat.kind === "human")
        ? html("a", { class: "button-link", href: `#/review/${this.gameId}`, "data-end": "review" }, `★ ${t("review.start")}`)
        : null,
      html("a", { class: "button-link", href: "#/", "data-end": "new-game" }, `+ ${t("summary.new_game")}`),
    ];
  }

  /**
   * The end-of-game card over the board (until closed); the sidebar keeps the same summary.
   * A row per seat reads best, but with several expansions that table is wider than the card:
   * then the card turns it as the sidebar does (a row per source), so no column, least of all
   * the Total, is cut off or hidden behind a scroll bar.
   */
  renderEnd(bySource = false) {
    if (this.endCard) this.endCard.remove();
    this.endCard = null;
    if (!this.state.summary || this.endClosed) return;
    const card = summaryPanel(this.state.summary, this.info.seats, this.endActions(), { card: true, bySource, changes: this.changes(), timed: !!this.clocks });
    card.querySelector(".summary-actions").before(scoreChart(this.events, this.info.seats));
    // Another player's offer to play again is news: it goes under the winner, above the chart
    // (on a phone the card's foot may be below the fold).
    const offer = card.querySelector(".rematch-offer");
    if (offer) card.querySelector(".winner-line").after(offer);
    card.prepend(html("button", {
      class: "close", title: t("summary.close"), "aria-label": t("summary.close"), "data-end": "close",
      onclick: () => {
        this.endClosed = true;
        this.renderEnd();
      },
    }, "✕"));
    this.endCard = html("div", { class: "end-overlay", role: "dialog", "aria-label": t("summary.title") }, card);
    this.boardWrap.appendChild(this.endCard);
    const table = card.querySelector(".table-scroll");
    if (!bySource && table.scrollWidth > table.clientWidth) this.renderEnd(true);
  }

  turnPanel() {
    const view = this.view;
    const mine = this.myTurn();
    const phase = view.phase;
    const rotation = this.pending ? this.pending.rotation : this.rotation;
    const shown = mine && phase === "tile" ? rotation : 0;
    const preview = svg("svg", {
      class: "tile-preview", viewBox: "-4 -4 108 108", role: "img", "aria-label": view.current_tile ? tileName(view.current_tile) : "",
      "data-tile": view.current_tile || "", "data-rotation": shown,
    });
    if (view.current_tile && phase !== "over") drawTile(preview, view.current_tile, shown);
    else preview.classList.add("hidden"); // no drawn tile (the stack is empty): no empty frame
    const side = html("div", { class: "turn-side" });
    let actions = null;
    const keys = html("div", { class: "turn-hint key-hints" }, html("span", { class: "kbd" }, "R"), " ", t("turn.key_rotate"), " · ",
      html("span", { class: "kbd" }, "⏎"), " ", t("turn.key_confirm"), " · ", html("span", { class: "kbd" }, "Esc"), " ", t("turn.key_undo"));
    if (mine && (phase === "tile" || phase === "figure")) {
      const canUndo = phase === "tile" ? !!this.pending : !!this.figure;
      actions = html("div", { class: "turn-actions" },
        html("button", { class: "primary", disabled: phase === "tile" && !this.pending, onclick: () => this.confirm(), "data-action": "confirm" }, `✓ ${t("turn.confirm")}`),
        html("button", { disabled: !canUndo, onclick: () => this.undo(), "data-action": "undo" }, `↶ ${t("turn.undo")}`));
    }
    const step = this.turnStep();
    if (step === "figure") {
      side.append(html("div", { class: "turn-hint" }, pointerText("turn.hint_figure")), this.figureChoice());
    } else if (step === "tile" || step === "placed") {
      side.append(
        html("div", { class: "row rotate" },
          html("button", { title: t("turn.rotate_left"), "aria-label": t("turn.rotate_left"), onclick: () => this.rotate(-1), "data-action": "rotate-left" }, "⟲"),
          html("button", { title: t("turn.rotate_right"), "aria-label": t("turn.rotate_right"), onclick: () => this.rotate(1), "data-action": "rotate-right" }, "⟳")),
        html("div", { class: "turn-hint" }, pointerText(step === "placed" ? "board.hint_placed" : "turn.hint_tile")));
    } else if (phase === "over") {
      side.append(html("div", {}, t("turn.over")));
    } else {
      side.append(html("div", { class: "turn-hint" }, mine ? t("turn.decide") : (this.state.waiting || []).length ? t("waiting.title") : t("game.waiting", { who: seatName(this.info.seats, view.to_move) })));
    }
    const tilesLeft = html("div", { class: "muted" }, view.current_tile ? t("turn.tile", { tile: tileName(view.current_tile) }) : "");
    return html("section", { class: "panel", "data-turn-panel": "", "data-turn-step": step },
      html("h3", { class: "turn-title" }, t("turn.title"), this.runningClock()), html("div", { class: "turn-panel" }, preview, side), actions, actions ? keys : null, tilesLeft);
  }

  /** The running seat's clock by the turn's title, so that a phone sees it without scrolling. */
  runningClock() {
    const seat = this.clocks ? this.clocks.running : null;
    if (seat === null || seat === undefined) return null;
    return html("span", { class: "turn-clock" }, seatSwatch(seat, this.info.seats[seat].colour),
      html("span", { class: `clock${this.clocks.low(seat) ? " low" : ""}`, "data-clock": seat, title: t("clock.title") }, this.clocks.text(seat)));
  }

  /**
   * Where the player is in building the turn: "tile" (choosing a square), "placed" (the tile
   * is down and still turns), "figure" (choosing a figure), or "" (not the player's tile turn).
   */
  turnStep() {
    if (!this.myTurn()) return "";
    if (this.view.phase === "figure") return "figure";
    if (this.view.phase !== "tile") return "";
    if (!this.pending) return "tile";
    return this.pending.fixed ? "figure" : "placed";
  }

  /** Which figure to place (when there is a choice), and the abbot's recall. */
  figureChoice() {
    const legal = this.figureLegal();
    const holder = this.view.phase === "figure" ? this : this.pending;
    const types = [...new Set(legal.filter((a) => a.type === "place-figure").map((a) => a.figure))];
    const box = html("div", { class: "figure-choice" });
    if (types.length > 1) {
      for (const type of types) {
        box.append(html("button", {
          class: (this.figureType || types[0]) === type ? "selected" : "",
          onclick: () => {
            this.figureType = type;
            if (holder && holder.figure && holder.figure.type === "place-figure") {
              const same = legal.find((a) => a.type === "place-figure" && a.figure === type && a.location === holder.figure.location);
              holder.figure = same || null;
            }
            this.renderTurn();
          },
        }, t(`figure.${type}`)));
      }
    }
    for (const a of legal.filter((a) => a.type !== "place-figure" && a.type !== "pass")) {
      const selected = holder && holder.figure && keyOf(holder.figure) === keyOf(a);
      box.append(html("button", { class: selected ? "selected" : "", onclick: () => this.chooseFigure(a), "data-action": a.type }, actionLabel(a)));
    }
    return box;
  }

  /** Decisions that are neither tile nor figure: bets, settlements, wine, or anything new. */
  decisionPanel() {
    const view = this.view;
    if (!this.myTurn() || ["tile", "figure", "over"].includes(view.phase)) return null;
    const legal = this.legal();
    const passes = legal.filter((a) => a.type === "pass");
    const others = legal.filter((a) => a.type !== "pass");
    const title = has(`decision.${view.phase}`) ? t(`decision.${view.phase}`) : view.phase;
    const passLabel = has(`decision.pass.${view.phase}`) ? t(`decision.pass.${view.phase}`) : t("decision.pass");
    const chips = others.filter((a) => a.type === "place-bet");
    const rest = others.filter((a) => a.type !== "place-bet");
    const body = [];
    if (chips.length) {
      body.push(html("div", { class: "chips" }, chips.map((a) => html("button", {
        class: "chip", onclick: () => this.send([a]), "data-bet": a.chip, title: t("bets.place", { chip: a.chip }),
      }, a.chip))));
    }
    for (const a of rest) {
      const candidate = this.settleCandidate(a);
      if (candidate) {
        // Pointing at (or tabbing to) a choice outlines its feature on the board.
        const show = (on) => () => this.decisionMarks(on ? candidate : null);
        body.push(html("button", {
          onclick: () => this.send([a]), "data-action": a.type, "data-settle": `${a.kind}:${a.location}`,
          onmouseenter: show(true), onmouseleave: show(false), onfocus: show(true), onblur: show(false),
        }, settleLabel(candidate)));
      } else {
        body.push(html("button", { onclick: () => this.send([a]), "data-action": a.type }, actionLabel(a)));
      }
    }
    for (const a of passes) body.push(html("button", { onclick: () => this.send([a]), "data-action": "pass" }, passLabel));
    return html("section", { class: "panel", "data-decision": view.phase },
      html("h3", {}, title),
      has(`decision.${view.phase}.hint`) ? html("p", { class: "turn-hint" }, t(`decision.${view.phase}.hint`)) : null,
      view.phase === "wine" ? this.wineReasons(rest) : null,
      html("div", { class: "decisions" }, body));
  }

  /** The feature a settle-bet action names, with its squares (from the Bets view). */
  settleCandidate(action) {
    if (action.type !== "settle-bet") return null;
    const candidates = ((this.view.expansions || {}).bets || {}).settle || [];
    return candidates.find((c) => c.x === action.x && c.y === action.y && c.kind === action.kind && c.location === action.location) || null;
  }

  /**
   * What a decision is about, on the board: the office a bet goes on; while bets are settled,
   * the office and every candidate feature, or only `chosen` (the choice pointed at).
   */
  decisionMarks(chosen = null) {
    const phase = this.view.phase;
    if (!this.myTurn() || ["tile", "figure", "over"].includes(phase)) return;
    this.board.drawMarks(this.view);
    if (phase === "bet" && this.board.last) this.board.markSquares([this.board.last]);
    const candidates = ((this.view.expansions || {}).bets || {}).settle;
    if (!candidates || !candidates.length) return;
    const squares = (c) => c.squares.map(([x, y]) => ({ x, y }));
    if (chosen) this.board.markSquares(squares(chosen), "hl-settle");
    else for (const c of candidates) this.board.markSquares(squares(c), "hl-candidate");
    this.board.markSquares([{ x: candidates[0].x, y: candidates[0].y }], "hl-office");
  }

  /** Why these sales are open this turn: the export connection, the town the tile covers. */
  wineReasons(sales) {
    const reasons = [];
    if (sales.some((a) => a.type === "sell-wine" && a.outlet === "export")) reasons.push(t("decision.wine.export_why"));
    const town = sales.find((a) => a.type === "sell-wine" && a.outlet === "town");
    const last = this.board.last;
    if (town && last) {
      const found = (this.info.board.towns || []).find((tw) => tw.x === last.x && tw.y === last.y);
      reasons.push(t("decision.wine.town_why", { town: found ? found.name : "", colour: t(`grape.${town.colour}`) }));
    }
    return reasons.length ? html("ul", { class: "plain turn-hint wine-why" }, reasons.map((r) => html("li", {}, r))) : null;
  }

  /** Saves the server's record byte for byte: parsed here, its seed could be rounded. */
  async download() {
    try {
      const record = await apiFile(`/api/games/${encodeURIComponent(this.gameId)}/record`);
      const url = URL.createObjectURL(record);
      const a = html("a", { href: url, download: `carcassonne-${this.gameId}.json` });
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (error) {
      this.showError(errorText(error));
    }
  }
}

/** A readable label for an action the server offered (known types get proper text). */
export function actionLabel(a) {
  switch (a.type) {
    case "place-tile":
      return t("action.place_tile", { x: a.x, y: a.y, rotation: a.rotation });
    case "place-figure":
      return t("action.place_figure", { figure: t(`figure.${a.figure}`), location: a.location });
    case "recall-abbot":
      return t("action.recall_abbot", { x: a.x, y: a.y });
    case "sell-wine":
      return t(a.outlet === "town" ? "action.sell_town" : "action.sell_export", { colour: t(`grape.${a.colour}`), chips: (a.chips || []).join("+") });
    case "settle-bet":
      return t("action.settle_bet", { feature: t(`feature.${a.kind}`), location: a.location, x: a.x, y: a.y });
    case "place-bet":
      return t("bets.place", { chip: a.chip });
    case "pass":
      return t("decision.pass");
    default: {
      const fields = Object.entries(a).filter(([k]) => k !== "type").map(([k, v]) => `${k}: ${v}`).join(", ");
      return fields ? `${a.type} (${fields})` : a.type;
    }
  }
}

/** "City (4 tiles)": a feature a chip may be settled against, by what it counts. */
function settleLabel(candidate) {
  const text = t("decision.settle_choice", { feature: t(`feature.${candidate.kind}`), tiles: plural("count.tiles", candidate.tiles) });
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function nextRotation(options, current, step) {
  const sorted = ROTATIONS.filter((r) => options.includes(r));
  if (!sorted.length) return current;
  if (step > 0) return sorted.find((r) => r > current) ?? sorted[0];
  return [...sorted].reverse().find((r) => r < current) ?? sorted[sorted.length - 1];
}

/** Whether the figure actions after a placement offer anything but passing. */
function hasFigureChoice(actions) {
  return actions.some((a) => a.type !== "pass");
}
