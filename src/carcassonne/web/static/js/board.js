// The board: an SVG of placed tiles, figures and markers, with pan and zoom.
//
// Squares are 100 units; square (x, y) spans [100x, 100x + 100) with y growing south, as in the
// engine. The board keeps the drawn tiles between updates and only adds or removes what changed,
// so a long game stays smooth.

import { svg, drawFigure, SEAT_COLOURS, GRAPE_COLOURS } from "./svg.js";
import { drawTile, drawLargeCity, tileModel, spotOf, segmentAt } from "./tiles.js";
import { t } from "./i18n.js";

const S = 100;
const MIN_SCALE = 0.15;
const MAX_SCALE = 3;

export class BoardView {
  constructor(container, { onSquare, onHover, onSpot } = {}) {
    this.onSquare = onSquare || (() => {});
    this.onHover = onHover || (() => {});
    this.onSpot = onSpot || (() => {});
    this.wrap = container;
    this.svg = svg("svg", { class: "board", role: "img", "aria-label": t("board.label") }, container);
    this.viewport = svg("g", {}, this.svg);
    const layer = (name) => svg("g", { class: `layer-${name}` }, this.viewport);
    this.layers = {
      map: layer("map"),
      tiles: layer("tiles"),
      marks: layer("marks"),
      overlay: layer("overlay"),
      highlights: layer("highlights"),
      pending: layer("pending"),
      figures: layer("figures"),
      spots: layer("spots"),
    };
    this.tiles = new Map();
    this.seatColours = [];
    this.tx = 0;
    this.ty = 0;
    this.scale = 1;
    this.fitted = false;
    // Until the player pans or zooms, the view follows the game (refits as the board grows).
    this.userMoved = false;
    // Squares to keep in view besides the tiles (the legal squares of the turn).
    this.extra = [];
    this.bounds = null;
    this.installPanZoom();
  }

  // ------------------------------------------------------------------ pan and zoom

  apply() {
    this.viewport.setAttribute("transform", `translate(${this.tx} ${this.ty}) scale(${this.scale})`);
  }

  zoomAt(factor, cx, cy) {
    const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, this.scale * factor));
    const k = scale / this.scale;
    this.tx = cx - (cx - this.tx) * k;
    this.ty = cy - (cy - this.ty) * k;
    this.scale = scale;
    this.apply();
  }

  zoom(factor) {
    this.userMoved = true;
    const r = this.svg.getBoundingClientRect();
    this.zoomAt(factor, r.width / 2, r.height / 2);
  }

  squareAt(clientX, clientY) {
    const r = this.svg.getBoundingClientRect();
    const wx = (clientX - r.left - this.tx) / this.scale;
    const wy = (clientY - r.top - this.ty) / this.scale;
    return { x: Math.floor(wx / S), y: Math.floor(wy / S) };
  }

  installPanZoom() {
    const el = this.svg;
    let drag = null;
    el.addEventListener("wheel", (e) => {
      e.preventDefault();
      this.userMoved = true;
      const r = el.getBoundingClientRect();
      this.zoomAt(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    el.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      drag = { x: e.clientX, y: e.clientY, tx: this.tx, ty: this.ty, moved: false, id: e.pointerId };
    });
    el.addEventListener("pointermove", (e) => {
      if (drag && drag.id === e.pointerId) {
        const dx = e.clientX - drag.x;
        const dy = e.clientY - drag.y;
        if (!drag.moved && Math.hypot(dx, dy) > 5) {
          drag.moved = true;
          el.setPointerCapture(e.pointerId);
          el.classList.add("dragging");
        }
        if (drag.moved) {
          this.userMoved = true;
          this.tx = drag.tx + dx;
          this.ty = drag.ty + dy;
          this.apply();
          return;
        }
      }
      this.onHover(this.squareAt(e.clientX, e.clientY));
    });
    const end = (e) => {
      if (!drag || drag.id !== e.pointerId) return;
      const wasDrag = drag.moved;
      drag = null;
      el.classList.remove("dragging");
      if (wasDrag || e.type === "pointercancel") return;
      const spot = e.target.closest && e.target.closest(".spot");
      if (spot) {
        this.onSpot(spot.dataset.key);
        return;
      }
      this.onSquare(this.squareAt(e.clientX, e.clientY));
    };
    el.addEventListener("pointerup", end);
    el.addEventListener("pointercancel", end);
    el.addEventListener("pointerleave", () => this.onHover(null));
  }

  /** Fit the given squares (default: every tile) into the view; the view follows the game again. */
  fit(extra = []) {
    this.userMoved = false;
    const r = this.svg.getBoundingClientRect();
    if (!r.width || !r.height) return;
    let xs = [];
    let ys = [];
    if (this.bounds) {
      xs = [this.bounds.minX, this.bounds.maxX];
      ys = [this.bounds.minY, this.bounds.maxY];
    } else {
      for (const { x, y } of this.tiles.values()) {
        xs.push(x);
        ys.push(y);
      }
      for (const { x, y } of extra) {
        xs.push(x);
        ys.push(y);
      }
    }
    if (!xs.length) {
      xs = [0];
      ys = [0];
    }
    const minX = Math.min(...xs) - 1;
    const maxX = Math.max(...xs) + 2;
    const minY = Math.min(...ys) - 1;
    const maxY = Math.max(...ys) + 2;
    const scale = Math.min(1.6, Math.max(MIN_SCALE, Math.min(r.width / ((maxX - minX) * S), r.height / ((maxY - minY) * S))));
    this.scale = scale;
    this.tx = r.width / 2 - ((minX + maxX) / 2) * S * scale;
    this.ty = r.height / 2 - ((minY + maxY) / 2) * S * scale;
    this.apply();
    this.fitted = true;
  }

  // ------------------------------------------------------------------ content

  /** The playing area: nothing for the open table; a map's squares, cities, towns. */
  setBoard(board, seats) {
    this.seatColours = seats.map((s) => s.colour);
    const g = this.layers.map;
    g.replaceChildren();
    this.wrap.classList.toggle("bounded", !!board.bounded);
    if (!board.bounded) return;
    const squares = board.squares || [];
    const xs = squares.map((s) => s[0]);
    const ys = squares.map((s) => s[1]);
    this.bounds = { minX: Math.min(...xs), maxX: Math.max(...xs), minY: Math.min(...ys), maxY: Math.max(...ys) };
    for (const [x, y] of squares) svg("rect", { x: x * S, y: y * S, width: S, height: S, class: "map-square" }, g);
    const b = this.bounds;
    svg("rect", {
      x: b.minX * S, y: b.minY * S, width: (b.maxX - b.minX + 1) * S, height: (b.maxY - b.minY + 1) * S, class: "map-edge",
    }, g);
    this.labels = svg("g", { class: "map-labels" }, null);
    for (const city of board.printed || []) {
      const cg = svg("g", { transform: `translate(${city.x * S} ${city.y * S})` }, g);
      drawLargeCity(cg, city.name, city.open);
      svg("text", { x: city.x * S + 50, y: city.y * S + 92, class: "city-label", "text-anchor": "middle" }, this.labels).textContent = city.name;
    }
    for (const start of board.start_squares || []) {
      svg("path", {
        d: star(start.x * S + 88, start.y * S + 13, 9),
        class: "start-mark",
      }, this.labels).appendChild(titleOf(t("map.start_square", { name: start.name })));
    }
    for (const town of board.towns || []) {
      const label = svg("g", { class: "town" }, this.labels);
      svg("text", { x: town.x * S + (town.grape ? 20 : 6), y: town.y * S + 17, class: "town-label" }, label).textContent = town.name;
      if (town.grape) {
        svg("circle", { cx: town.x * S + 11, cy: town.y * S + 12, r: 7, fill: GRAPE_COLOURS[town.grape] || "#999", class: "town-dot" }, label)
          .appendChild(titleOf(t(`grape.${town.grape}`)));
      }
    }
  }

  /** Draw the view's tiles, figures, bets and map chips. */
  update(view) {
    const seen = new Set();
    let last = null;
    for (const tile of view.tiles) {
      const key = `${tile.x},${tile.y}`;
      seen.add(key);
      if (!last || tile.turn > last.turn) last = tile;
      const have = this.tiles.get(key);
      if (have && have.tile === tile.tile && have.rotation === tile.rotation) continue;
      if (have) have.g.remove();
      const g = svg("g", { transform: `translate(${tile.x * S} ${tile.y * S})`, "data-tile-at": key }, this.layers.tiles);
      drawTile(g, tile.tile, tile.rotation);
      this.tiles.set(key, { ...tile, g });
    }
    for (const [key, have] of this.tiles) {
      if (!seen.has(key)) {
        have.g.remove();
        this.tiles.delete(key);
      }
    }
    this.last = last && last.turn > 0 ? last : null;
    this.drawMarks(view);
    this.drawFigures(view.figures);
    this.drawExpansions(view.expansions || {});
    if (this.labels) this.layers.overlay.appendChild(this.labels);
    if (!this.fitted || !this.userMoved) this.fit(this.extra);
  }

  drawMarks(view) {
    const g = this.layers.marks;
    g.replaceChildren();
    if (this.last) {
      svg("rect", { x: this.last.x * S + 2, y: this.last.y * S + 2, width: S - 4, height: S - 4, class: "hl-last" }, g);
    }
  }

  drawFigures(figures) {
    const g = this.layers.figures;
    g.replaceChildren();
    for (const f of figures) {
      const tile = this.tiles.get(`${f.x},${f.y}`);
      if (!tile) continue;
      const spot = spotOf(tile.tile, tile.rotation, f.location) || [50, 50];
      const segment = segmentAt(tile.tile, tile.rotation, f.location);
      drawFigure(g, {
        x: f.x * S + spot[0],
        y: f.y * S + spot[1],
        colour: this.seatColours[f.seat] || "black",
        figure: f.figure,
        lying: segment && segment.kind === "field",
      });
    }
  }

  drawExpansions(expansions) {
    const g = this.layers.overlay;
    g.replaceChildren();
    const chips = expansions["map-chips"] || expansions.mapchips;
    if (chips && chips.face_down) {
      for (const { x, y } of chips.face_down) {
        const c = svg("g", { class: "face-down-chip" }, g);
        svg("circle", { cx: x * S + 50, cy: y * S + 55, r: 13, class: "map-chip" }, c);
        svg("text", { x: x * S + 50, y: y * S + 60, class: "map-chip-text" }, c).textContent = "?";
        c.appendChild(titleOf(t("map.face_down_chip")));
      }
    }
    const bets = expansions.bets;
    if (bets && bets.offices) {
      for (const office of bets.offices) {
        const tile = this.tiles.get(`${office.x},${office.y}`);
        if (!tile) continue;
        const centre = tileModel(tile.tile, tile.rotation).centres.find((c) => c.kind === "betting-office");
        const [ox, oy] = centre ? centre.at : [50, 50];
        // Chips stack in rows of four below the office, in the order they were placed.
        const n = office.chips.length;
        office.chips.forEach((chip, i) => {
          const row = Math.floor(i / 4);
          const inRow = Math.min(4, n - row * 4);
          const cx = office.x * S + Math.min(80, Math.max(20, ox)) + ((i % 4) - (inRow - 1) / 2) * 19;
          const cy = office.y * S + Math.min(oy + 21, 88 - 19 * Math.floor((n - 1) / 4)) + row * 19;
          const c = svg("g", { class: "bet-marker" }, g);
          svg("circle", { cx, cy, r: 9, fill: SEAT_COLOURS[this.seatColours[chip.seat]] || "#777", class: "bet-chip" }, c);
          svg("text", { x: cx, y: cy + 3, class: "bet-chip-text" }, c).textContent = chip.chip ? chip.chip.replace("+", "") : "?";
          c.appendChild(titleOf(chip.chip ? t("bets.own_chip", { chip: chip.chip }) : t("bets.hidden_chip")));
        });
      }
    }
  }

  // ------------------------------------------------------------------ turn aids

  /** Legal squares for the chosen rotation (bright) and for other rotations (dashed). */
  setHighlights(legal = [], other = []) {
    const g = this.layers.highlights;
    g.replaceChildren();
    for (const { x, y } of other) svg("rect", { x: x * S + 3, y: y * S + 3, width: S - 6, height: S - 6, rx: 6, class: "hl-other", "data-square": `${x},${y}` }, g);
    for (const { x, y } of legal) svg("rect", { x: x * S + 3, y: y * S + 3, width: S - 6, height: S - 6, rx: 6, class: "hl-legal", "data-square": `${x},${y}` }, g);
  }

  /** A tile not yet confirmed (or a hover preview when `ghost`). */
  setPending(pending, ghost = false) {
    const g = this.layers.pending;
    g.replaceChildren();
    if (!pending) return;
    const tg = svg("g", { transform: `translate(${pending.x * S} ${pending.y * S})` }, g);
    drawTile(tg, pending.tile, pending.rotation, { ghost });
    if (!ghost) svg("rect", { x: pending.x * S + 1, y: pending.y * S + 1, width: S - 2, height: S - 2, class: "hl-pending" }, g);
  }

  /**
   * Clickable figure spots on a tile: `spots` = [{key, location, selected}], plus the figure
   * (if any) standing on the selected one.
   */
  setSpots(tile, spots = [], chosen = null) {
    const g = this.layers.spots;
    g.replaceChildren();
    if (!tile) return;
    for (const spot of spots) {
      const at = spotOf(tile.tile, tile.rotation, spot.location);
      if (!at) continue;
      const s = svg("g", { class: "spot" + (spot.selected ? " selected" : ""), "data-key": spot.key, "data-location": spot.location, role: "button" }, g);
      svg("circle", { cx: tile.x * S + at[0], cy: tile.y * S + at[1], r: 8 }, s);
      s.appendChild(titleOf(spot.label || spot.location));
    }
    if (chosen) {
      const at = spotOf(tile.tile, tile.rotation, chosen.location);
      const segment = segmentAt(tile.tile, tile.rotation, chosen.location);
      if (at) {
        const fg = svg("g", { "pointer-events": "none" }, g);
        drawFigure(fg, {
          x: tile.x * S + at[0], y: tile.y * S + at[1], colour: chosen.colour, figure: chosen.figure,
          lying: segment && segment.kind === "field",
        });
      }
    }
  }

  /** Outline squares (e.g. the office whose bet is being decided). */
  markSquares(squares, cls = "hl-office") {
    const g = this.layers.marks;
    for (const { x, y } of squares) svg("rect", { x: x * S + 2, y: y * S + 2, width: S - 4, height: S - 4, rx: 4, class: cls }, g);
  }
}

function titleOf(text) {
  const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
  title.textContent = text;
  return title;
}

function star(cx, cy, r) {
  const pts = [];
  for (let i = 0; i < 10; i++) {
    const a = (Math.PI / 5) * i - Math.PI / 2;
    const rr = i % 2 ? r * 0.45 : r;
    pts.push(`${(cx + rr * Math.cos(a)).toFixed(1)},${(cy + rr * Math.sin(a)).toFixed(1)}`);
  }
  return `M${pts.join(" L")} Z`;
}
