// The board: an SVG of placed tiles, figures and markers, with pan and zoom.
//
// Squares are 100 units; square (x, y) spans [100x, 100x + 100) with y growing south, as in the
// engine. The board keeps the drawn tiles between updates and only adds or removes what changed,
// so a long game stays smooth.
//
// The view: until the player pans or zooms, it follows the game: a map is shown whole (▦); the
// open table, or a map after ⤢, fits the played area (tiles and the squares where the drawn tile
// may go). Following never shrinks a square below a playable size (a map too large for the
// screen is then not shown whole unless the player asks with ▦): past it the view pans to the
// newest tile and the squares where the drawn tile may go, and the player pans to the rest.
// Panning is limited so the board cannot be lost off screen. Mouse: drag, wheel. Touch: one
// finger drags, two fingers pinch. Names on a map keep a readable size on screen when zoomed
// out (CSS variable --k). While a figure is chosen on the board, the view zooms to the tile if
// its spots would be too small to point at, and goes back afterwards.

import { svg, html, drawFigure, SEAT_COLOURS, GRAPE_COLOURS } from "./svg.js";
import { drawTile, drawLargeCity, tileModel, spotOf, segmentAt } from "./tiles.js";
import { t, has } from "./i18n.js";

const S = 100;
const MIN_SCALE = 0.12;
const MAX_SCALE = 3;
// Fitting never zooms in further than this (a fresh game would otherwise show two huge tiles).
const FIT_MAX_SCALE = 1.25;
// The played area is shown at least this many squares across and down (fewer on a phone).
const FIT_MIN_SQUARES = [6, 5];
const FIT_SQUARE_PX = 120;
// The smallest square (px) the view shrinks to by itself: a finger's 44 px and a little on a
// touch screen; with a mouse, small enough that a large map is shown whole on a laptop.
const PLAYABLE_SQUARE_PX = { touch: 48, mouse: 32 };
// A figure spot is pointed at within this radius (units) of where the figure stands: the closest
// two spots of any tile are about 20 units apart, so neighbouring targets barely meet.
const SPOT_HIT_RADIUS = 10;
// With a mouse a spot's target is at least this wide on screen (px); smaller, the board zooms
// to the tile, to this many px per unit (a target of 28 px, a tile of 140 px).
const SPOT_TARGET_PX = 24;
const SPOT_FOCUS_SCALE = 1.4;
// How long the view takes to glide to the tile and back (ms).
const GLIDE_MS = 280;
// On a touch screen the figure spots are chosen on a magnified copy of the tile: a tap target is
// at least 44 px across (the usual guideline for fingers), and the closest two spots of any tile
// are about 20 units apart, so the copy shows 2.2 px per unit and each target is 10 units round.
const PICKER_MARGIN = 10;
const PICKER_PX_PER_UNIT = 2.2;
const PICKER_TARGET = 10;
// The board's layers the magnified copy repeats (not the squares to place on, not the spots).
const PICKER_LAYERS = ["map", "tiles", "marks", "overlay", "pending", "labels", "figures", "spots"];
let boardCount = 0;

export class BoardView {
  constructor(container, { onSquare, onHover, onSpot } = {}) {
    this.onSquare = onSquare || (() => {});
    this.onHover = onHover || (() => {});
    this.onSpot = onSpot || (() => {});
    this.wrap = container;
    // A group, not an image: the squares and figure spots inside are buttons.
    this.svg = svg("svg", { class: "board", role: "group", "aria-label": t("board.label") }, container);
    this.viewport = svg("g", {}, this.svg);
    this.id = `board-${++boardCount}`;
    const layer = (name) => svg("g", { class: `layer-${name}`, id: `${this.id}-${name}` }, this.viewport);
    this.layers = {
      map: layer("map"),
      tiles: layer("tiles"),
      marks: layer("marks"),
      aids: layer("aids"),
      tips: layer("tips"),
      tipMarks: layer("tip-marks"),
      overlay: layer("overlay"),
      highlights: layer("highlights"),
      pending: layer("pending"),
      labels: layer("labels"),
      figures: layer("figures"),
      spots: layer("spots"),
    };
    this.tiles = new Map();
    this.seatColours = [];
    // seat -> the last tile that seat placed (outlined in its colour)
    this.lastBySeat = new Map();
    this.tx = 0;
    this.ty = 0;
    this.scale = 1;
    this.fitted = false;
    // Until the player pans or zooms, the view follows the game (refits as the board grows),
    // showing the whole map or, when `wholeMap` is false, the played area.
    this.userMoved = false;
    this.wholeMap = false;
    // The player chose ▦: the whole map stays in view even with squares under the playable size.
    this.wholeMapAsked = false;
    // Counts the views the player chose (pans, zooms, ⤢, ▦), to know whether they chose one
    // while zoomed on a tile (then the view does not go back).
    this.moves = 0;
    // While figure spots are chosen on a zoomed-in tile: that tile and the view to go back to.
    this.focus = null;
    this.glide = 0;
    // Squares to keep in view besides the tiles (the legal squares of the turn).
    this.extra = [];
    this.bounds = null;
    this.installPanZoom();
    this.tools = html("div", { class: "board-tools" });
    this.picker = html("div", { class: "spot-picker hidden" });
    container.append(this.tools, this.picker);
    this.renderTools();
    // A resized window (or a phone turned) refits a view that follows the game.
    this.resizer = new ResizeObserver(() => {
      if (!this.userMoved && this.fitted) this.follow();
      else this.apply();
    });
    this.resizer.observe(this.svg);
  }

  destroy() {
    this.resizer.disconnect();
  }

  /** Say everything again in the language just chosen. */
  relabel() {
    this.svg.setAttribute("aria-label", t("board.label"));
    for (const label of this.layers.map.querySelectorAll("[data-geo-label]")) label.textContent = geoName(label.dataset.geoLabel);
    this.renderTools();
  }

  /** Zoom and fit buttons; a map also gets "the whole map". */
  renderTools() {
    const button = (label, text, onclick, key) => html("button", { title: label, "aria-label": label, onclick, "data-tool": key }, text);
    const buttons = [
      button(t("board.zoom_in"), "+", () => this.zoom(1.25), "zoom-in"),
      button(t("board.zoom_out"), "−", () => this.zoom(0.8), "zoom-out"),
      button(t("board.fit"), "⤢", () => this.fit(this.extra), "fit"),
    ];
    if (this.bounds) {
      buttons.push(button(t("board.whole_map"), "▦", () => {
        this.asked();
        this.wholeMapAsked = true;
        this.fitAll();
      }, "whole-map"));
    }
    this.tools.replaceChildren(...buttons);
  }

  // ------------------------------------------------------------------ pan and zoom

  apply() {
    this.clampPan();
    this.viewport.setAttribute("transform", `translate(${this.tx} ${this.ty}) scale(${this.scale})`);
    // Labels grow as the board shrinks, so names stay readable when zoomed out.
    const k = Math.min(2.1, Math.max(0.6, 0.72 / this.scale));
    this.svg.style.setProperty("--k", k.toFixed(3));
  }

  /** The area the view may not lose: the map, or the tiles with a margin. */
  contentBox() {
    if (this.bounds) {
      const b = this.bounds;
      return { x0: (b.minX - 0.5) * S, y0: (b.minY - 0.5) * S, x1: (b.maxX + 1.5) * S, y1: (b.maxY + 1.5) * S };
    }
    const box = this.tileBox([]);
    return { x0: (box.minX - 2) * S, y0: (box.minY - 2) * S, x1: (box.maxX + 3) * S, y1: (box.maxY + 3) * S };
  }

  /** Keep at least the middle half of the screen over the content, whatever the pan. */
  clampPan() {
    const r = this.svg.getBoundingClientRect();
    if (!r.width || !r.height) return;
    const c = this.contentBox();
    const s = this.scale;
    this.tx = Math.min(r.width * 0.75 - c.x0 * s, Math.max(r.width * 0.25 - c.x1 * s, this.tx));
    this.ty = Math.min(r.height * 0.75 - c.y0 * s, Math.max(r.height * 0.25 - c.y1 * s, this.ty));
  }

  /** How far out one may zoom: a map no smaller than a bit under the whole map. */
  minScale() {
    const r = this.svg.getBoundingClientRect();
    if (!this.bounds || !r.width || !r.height) return MIN_SCALE;
    const c = this.contentBox();
    return Math.max(MIN_SCALE, 0.8 * Math.min(r.width / (c.x1 - c.x0), r.height / (c.y1 - c.y0)));
  }

  zoomAt(factor, cx, cy, base = null) {
    const from = base || { scale: this.scale, tx: this.tx, ty: this.ty };
    const scale = Math.min(MAX_SCALE, Math.max(this.minScale(), from.scale * factor));
    const k = scale / from.scale;
    this.tx = cx - (cx - from.tx) * k;
    this.ty = cy - (cy - from.ty) * k;
    this.scale = scale;
    this.apply();
  }

  /** The player pans or zooms: the view stops following the game and any glide stops. */
  userMove() {
    this.userMoved = true;
    this.asked();
  }

  /** The player chose a view (moved it, or asked for ⤢ or ▦): no glide overrides it. */
  asked() {
    this.moves += 1;
    cancelAnimationFrame(this.glide);
  }

  /** Move the view smoothly to `target` ({scale, tx, ty}); at once if motion is to be reduced. */
  glideTo(target) {
    cancelAnimationFrame(this.glide);
    const from = { scale: this.scale, tx: this.tx, ty: this.ty };
    const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
    const start = performance.now();
    const step = (now) => {
      const k = still ? 1 : Math.min(1, (now - start) / GLIDE_MS);
      const eased = 1 - (1 - k) ** 3;
      this.scale = from.scale + (target.scale - from.scale) * eased;
      this.tx = from.tx + (target.tx - from.tx) * eased;
      this.ty = from.ty + (target.ty - from.ty) * eased;
      this.apply();
      if (k < 1) this.glide = requestAnimationFrame(step);
    };
    this.glide = requestAnimationFrame(step);
  }

  /**
   * While the figure spots of the tile at (x, y) are chosen with a mouse: if their targets would
   * be narrower than SPOT_TARGET_PX on screen (a map shown whole), or the tile is not wholly in
   * view, glide to the tile, remembering the view to go back to.
   */
  focusOn({ x, y }) {
    if (this.focus && this.focus.x === x && this.focus.y === y) return;
    const room = this.room();
    if (!room) return;
    const r = this.svg.getBoundingClientRect();
    const side = S * this.scale;
    const [left, top] = [this.tx + x * side, this.ty + y * side];
    const inView = left >= 0 && top >= 0 && left + side <= r.width && top + side <= r.height;
    const scale = 2 * SPOT_HIT_RADIUS * this.scale >= SPOT_TARGET_PX ? this.scale : SPOT_FOCUS_SCALE;
    if (scale === this.scale && inView) return;
    this.focus = { x, y, back: { scale: this.scale, tx: this.tx, ty: this.ty }, moves: this.moves };
    this.glideTo({ scale, tx: room.width / 2 - (x + 0.5) * S * scale, ty: room.top + room.height / 2 - (y + 0.5) * S * scale });
  }

  /** The figure is chosen: back to the view before, unless the player chose another meanwhile. */
  leaveFocus() {
    const focus = this.focus;
    if (!focus) return;
    this.focus = null;
    if (this.moves === focus.moves) this.glideTo(focus.back);
    else if (!this.userMoved) this.follow();
  }

  zoom(factor) {
    this.userMove();
    const r = this.svg.getBoundingClientRect();
    this.zoomAt(factor, r.width / 2, r.height / 2);
  }

  squareAt(clientX, clientY) {
    const r = this.svg.getBoundingClientRect();
    const wx = (clientX - r.left - this.tx) / this.scale;
    const wy = (clientY - r.top - this.ty) / this.scale;
    return { x: Math.floor(wx / S), y: Math.floor(wy / S) };
  }

  /**
   * Pointer input. One pointer: a click (no movement) picks a square or a figure spot, a drag
   * pans. Two pointers (touch): pinch to zoom around their midpoint, and pan with it. A gesture
   * that ever had two pointers never ends in a click.
   */
  installPanZoom() {
    const el = this.svg;
    const pointers = new Map();
    let drag = null;
    let pinch = null;
    let gesture = false;
    // Keep receiving a pointer's moves outside the board; a pointer already gone cannot be.
    const capture = (id) => {
      try {
        if (!el.hasPointerCapture(id)) el.setPointerCapture(id);
      } catch {
        // the pointer ended between its event and this call
      }
    };
    const local = (e) => {
      const r = el.getBoundingClientRect();
      return { x: e.clientX - r.left, y: e.clientY - r.top };
    };
    const pinchState = () => {
      const [a, b] = [...pointers.values()];
      return { mid: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }, dist: Math.max(10, Math.hypot(a.x - b.x, a.y - b.y)) };
    };
    el.addEventListener("wheel", (e) => {
      e.preventDefault();
      this.userMove();
      const p = local(e);
      this.zoomAt(Math.exp(-e.deltaY * 0.0015), p.x, p.y);
    }, { passive: false });
    el.addEventListener("pointerdown", (e) => {
      if (e.pointerType === "mouse" && e.button !== 0) return;
      pointers.set(e.pointerId, local(e));
      if (pointers.size === 1) {
        gesture = false;
        drag = { x: e.clientX, y: e.clientY, tx: this.tx, ty: this.ty, moved: false, id: e.pointerId };
      } else if (pointers.size === 2) {
        gesture = true;
        drag = null;
        for (const id of pointers.keys()) capture(id);
        pinch = { ...pinchState(), scale: this.scale, tx: this.tx, ty: this.ty };
      }
    });
    el.addEventListener("pointermove", (e) => {
      if (pointers.has(e.pointerId)) pointers.set(e.pointerId, local(e));
      if (pinch && pointers.size >= 2) {
        const now = pinchState();
        this.userMove();
        // Zoom around the first midpoint, then follow the midpoint's movement.
        this.zoomAt(now.dist / pinch.dist, pinch.mid.x, pinch.mid.y, pinch);
        this.tx += now.mid.x - pinch.mid.x;
        this.ty += now.mid.y - pinch.mid.y;
        this.apply();
        return;
      }
      if (drag && drag.id === e.pointerId) {
        const dx = e.clientX - drag.x;
        const dy = e.clientY - drag.y;
        if (!drag.moved && Math.hypot(dx, dy) > 5) {
          drag.moved = true;
          capture(e.pointerId);
          el.classList.add("dragging");
        }
        if (drag.moved) {
          this.userMove();
          this.tx = drag.tx + dx;
          this.ty = drag.ty + dy;
          this.apply();
          return;
        }
      }
      if (e.pointerType === "mouse") this.onHover(this.squareAt(e.clientX, e.clientY));
    });
    const end = (e) => {
      if (!pointers.delete(e.pointerId)) return;
      if (pinch) {
        if (pointers.size < 2) pinch = null;
        return;
      }
      if (!drag || drag.id !== e.pointerId) return;
      const wasDrag = drag.moved;
      drag = null;
      el.classList.remove("dragging");
      if (wasDrag || gesture || e.type === "pointercancel") return;
      const spot = e.target.closest && e.target.closest(".spot");
      if (spot) {
        this.onSpot(spot.dataset.key);
        return;
      }
      this.onSquare(this.squareAt(e.clientX, e.clientY));
    };
    // Keyboard: Enter or Space on a focused square or figure spot acts like a click on it
    // (and is not also taken as "confirm" by the game screen).
    el.addEventListener("keydown", (e) => {
      if (e.key !== "Enter" && e.key !== " ") return;
      const target = e.target.closest && e.target.closest("[data-square], .spot");
      if (!target) return;
      e.preventDefault();
      e.stopPropagation();
      if (target.classList.contains("spot")) this.onSpot(target.dataset.key);
      else {
        const [x, y] = target.dataset.square.split(",").map(Number);
        this.onSquare({ x, y });
      }
    });
    el.addEventListener("pointerup", end);
    el.addEventListener("pointercancel", end);
    el.addEventListener("pointerleave", (e) => {
      if (e.pointerType === "mouse") this.onHover(null);
    });
  }

  /** The squares spanned by the tiles and `extra` (the start square when there are none). */
  tileBox(extra) {
    let minX = Infinity;
    let minY = Infinity;
    let maxX = -Infinity;
    let maxY = -Infinity;
    const add = ({ x, y }) => {
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    };
    for (const tile of this.tiles.values()) add(tile);
    for (const sq of extra) add(sq);
    if (minX === Infinity) add(this.bounds ? { x: Math.round((this.bounds.minX + this.bounds.maxX) / 2), y: Math.round((this.bounds.minY + this.bounds.maxY) / 2) } : { x: 0, y: 0 });
    return { minX, minY, maxX, maxY };
  }

  /**
   * The room a fitted box has (px): the banner has its own strip above the board, so a thin
   * margin on top, and the right edge is left to the zoom buttons. Null before layout.
   */
  room() {
    const r = this.svg.getBoundingClientRect();
    if (!r.width || !r.height) return null;
    const [top, right] = [8, 52];
    return { top, width: Math.max(50, r.width - right), height: Math.max(50, r.height - top) };
  }

  /** The scale that shows the world box whole, at most `maxScale`. */
  scaleToFit({ x0, y0, x1, y1 }, maxScale) {
    const room = this.room();
    if (!room) return null;
    return Math.min(maxScale, Math.max(MIN_SCALE, Math.min(room.width / (x1 - x0), room.height / (y1 - y0))));
  }

  /** The smallest scale the view shrinks to by itself (PLAYABLE_SQUARE_PX). */
  playableScale() {
    return (matchMedia("(pointer: coarse)").matches ? PLAYABLE_SQUARE_PX.touch : PLAYABLE_SQUARE_PX.mouse) / S;
  }

  /** Show the world box [x0, x1] × [y0, y1] (units) as large as fits, at most `maxScale`. */
  fitBox({ x0, y0, x1, y1 }, maxScale) {
    const room = this.room();
    if (!room) return;
    const { top, width, height } = room;
    const scale = this.scaleToFit({ x0, y0, x1, y1 }, maxScale);
    this.scale = scale;
    this.tx = width / 2 - ((x0 + x1) / 2) * scale;
    this.ty = top + height / 2 - ((y0 + y1) / 2) * scale;
    // On a map, use the room the box leaves to show more map rather than sea.
    if (this.bounds) this.slideInside(this.contentBox(), room);
    this.apply();
    this.fitted = true;
  }

  /**
   * Slide the view (at its scale) inside the world box where the box is larger than the room,
   * and centre the box where it is not: no more of the table or the sea than needed.
   */
  slideInside(box, { top, width, height }) {
    const s = this.scale;
    const inside = (t, lo, hi, pad, room) => {
      const span = (hi - lo) * s;
      if (span <= room) return pad + (room - span) / 2 - lo * s;
      return Math.min(pad - lo * s, Math.max(pad + room - hi * s, t));
    };
    this.tx = inside(this.tx, box.x0, box.x1, 0, width);
    this.ty = inside(this.ty, box.y0, box.y1, top, height);
  }

  /**
   * The view that follows the game: the whole map, or the played area, but no square smaller
   * than playable (the whole map only if it is that large, or if the player asked for it).
   * Left alone while the spots of a tile are chosen (the view is zoomed on that tile).
   */
  follow() {
    const room = this.room();
    if (this.focus || !room) return;
    cancelAnimationFrame(this.glide);
    const playable = this.playableScale();
    if (this.wholeMap && this.bounds && (this.wholeMapAsked || this.scaleToFit(this.contentBox(), FIT_MAX_SCALE) >= playable)) {
      this.fitAll();
      return;
    }
    const box = this.playedBox(this.extra);
    if (this.scaleToFit(box, FIT_MAX_SCALE) >= playable) {
      this.fitBox(box, FIT_MAX_SCALE);
      return;
    }
    // Too large to show whole at a playable size: keep that size and show where the game is
    // now, the newest tile and the squares where the drawn tile may go (or, if even these do
    // not fit, the newest tile in the middle).
    const near = this.squaresBox([...(this.last ? [this.last] : []), ...this.extra]);
    const fits = near && (near.x1 - near.x0) * playable <= room.width && (near.y1 - near.y0) * playable <= room.height;
    const centre = fits || !this.last ? near || box : this.squaresBox([this.last]);
    this.scale = playable;
    this.tx = room.width / 2 - ((centre.x0 + centre.x1) / 2) * playable;
    this.ty = room.top + room.height / 2 - ((centre.y0 + centre.y1) / 2) * playable;
    this.slideInside(box, room);
    this.apply();
    this.fitted = true;
  }

  /** The world box (units) around whole squares, or null for none. */
  squaresBox(squares) {
    if (!squares.length) return null;
    const xs = squares.map((s) => s.x);
    const ys = squares.map((s) => s.y);
    return { x0: Math.min(...xs) * S, y0: Math.min(...ys) * S, x1: (Math.max(...xs) + 1) * S, y1: (Math.max(...ys) + 1) * S };
  }

  /** Fit the played area (every tile and the given squares); the view follows the game again. */
  fit(extra = []) {
    this.asked();
    this.userMoved = false;
    this.wholeMap = false;
    this.wholeMapAsked = false;
    this.fitBox(this.playedBox(extra), FIT_MAX_SCALE);
  }

  /** The world box (units) of the played area, every tile and `extra`, with a margin. */
  playedBox(extra) {
    const box = this.tileBox(extra);
    // The squares where the tile may go already surround the tiles: a thin margin will do.
    const margin = extra.length ? 0.3 : 0.6;
    let x0 = box.minX - margin;
    let x1 = box.maxX + 1 + margin;
    let y0 = box.minY - margin;
    let y1 = box.maxY + 1 + margin;
    const grow = (lo, hi, min) => {
      const more = Math.max(0, min - (hi - lo)) / 2;
      return [lo - more, hi + more];
    };
    const r = this.svg.getBoundingClientRect();
    const least = (px, most) => Math.min(most, Math.max(3, Math.round(px / FIT_SQUARE_PX)));
    [x0, x1] = grow(x0, x1, least(r.width, FIT_MIN_SQUARES[0]));
    [y0, y1] = grow(y0, y1, least(r.height, FIT_MIN_SQUARES[1]));
    if (this.bounds) {
      // On a map, never show more sea than needed: slide the box inside the map; once the
      // game spans most of the map, show all of it (a few more squares cost little).
      const b = this.bounds;
      const slide = (lo, hi, min, max) => {
        if (hi - lo >= 0.8 * (max - min)) return [min, max];
        if (lo < min) return [min, min + (hi - lo)];
        if (hi > max) return [max - (hi - lo), max];
        return [lo, hi];
      };
      [x0, x1] = slide(x0, x1, b.minX - 0.45, b.maxX + 1.45);
      [y0, y1] = slide(y0, y1, b.minY - 0.45, b.maxY + 1.45);
    }
    return { x0: x0 * S, y0: y0 * S, x1: x1 * S, y1: y1 * S };
  }

  /** The whole map (or, on the open table, the played area) in view, and kept so. */
  fitAll() {
    if (!this.bounds) {
      this.fit(this.extra);
      return;
    }
    this.userMoved = false;
    this.wholeMap = true;
    this.fitBox(this.contentBox(), FIT_MAX_SCALE);
  }

  // ------------------------------------------------------------------ content

  /**
   * The playing area: nothing for the open table; for a map its parchment squares, frame and
   * coordinates, large cities, towns (tinted by grape, with name and grape) and start squares.
   */
  setBoard(board, seats) {
    this.seatColours = seats.map((s) => s.colour);
    this.seatNames = seats.map((s) => s.name);
    const g = this.layers.map;
    const labels = this.layers.labels;
    g.replaceChildren();
    labels.replaceChildren();
    this.wrap.classList.toggle("bounded", !!board.bounded);
    this.bounds = null;
    if (board.bounded) this.drawMap(board, g, labels);
    // A map opens whole: where the start squares are matters less than seeing the country.
    this.wholeMap = !!this.bounds;
    this.renderTools();
  }

  drawMap(board, g, labels) {
    const squares = board.squares || [];
    const xs = squares.map((s) => s[0]);
    const ys = squares.map((s) => s[1]);
    const b = { minX: Math.min(...xs), maxX: Math.max(...xs), minY: Math.min(...ys), maxY: Math.max(...ys) };
    this.bounds = b;
    const frame = { x: b.minX * S, y: b.minY * S, width: (b.maxX - b.minX + 1) * S, height: (b.maxY - b.minY + 1) * S };
    // A margin band around the map carries the coordinates the log refers to.
    svg("rect", { x: frame.x - 42, y: frame.y - 42, width: frame.width + 84, height: frame.height + 84, rx: 14, class: "map-margin" }, g);
    svg("rect", { ...frame, class: "map-paper" + (board.geography ? " sea" : "") }, g);
    if (board.geography) this.drawGeography(board.geography, frame, g);
    for (const [x, y] of squares) svg("rect", { x: x * S, y: y * S, width: S, height: S, class: "map-square" }, g);
    const towns = board.towns || [];
    for (const town of towns) this.drawTownSquare(g, town);
    svg("rect", { ...frame, class: "map-edge" }, g);
    svg("rect", { x: frame.x - 7, y: frame.y - 7, width: frame.width + 14, height: frame.height + 14, class: "map-edge-outer" }, g);
    // Columns along the top, rows down the left: the (x, y) of the log and of the tooltips.
    for (let x = b.minX; x <= b.maxX; x++) {
      svg("text", { x: x * S + 50, y: frame.y - 22, class: "map-coord" }, labels).textContent = String(x);
    }
    for (let y = b.minY; y <= b.maxY; y++) {
      svg("text", { x: frame.x - 22, y: y * S + 50, class: "map-coord" }, labels).textContent = String(y);
    }
    if (board.title) {
      const title = board.approximate ? t("map.title_approximate", { title: board.title }) : board.title;
      svg("text", { x: frame.x + frame.width / 2, y: frame.y + frame.height + 26, class: "map-title" }, g).textContent = title;
    }
    for (const city of board.printed || []) {
      const cg = svg("g", { transform: `translate(${city.x * S} ${city.y * S})`, "data-large-city": city.name }, g);
      drawLargeCity(cg, city.name, city.open);
      cg.appendChild(titleOf(t("map.large_city", { name: city.name })));
      svg("text", { x: city.x * S + 50, y: city.y * S + 93, class: "city-label" }, labels).textContent = city.name;
    }
    for (const start of board.start_squares || []) {
      const sg = svg("g", { class: "start-square" + (start.used ? " used" : ""), "data-start": start.name }, g);
      if (!start.used) svg("rect", { x: start.x * S + 5, y: start.y * S + 5, width: S - 10, height: S - 10, rx: 8, class: "start-outline" }, sg);
      svg("path", { d: star(start.x * S + 86, start.y * S + 86, 10), class: "start-mark" }, labels)
        .appendChild(titleOf(t(start.used ? "map.start_square" : "map.start_unused", { name: start.name })));
    }
    for (const town of towns) {
      const label = svg("g", { class: "town", "data-town": town.name }, labels);
      if (town.grape) {
        drawGrapes(label, town.x * S + 13, town.y * S + 13, GRAPE_COLOURS[town.grape] || "#999");
        label.appendChild(titleOf(t("map.town", { name: town.name, grape: t(`grape.${town.grape}`) })));
      }
      svg("text", { x: town.x * S + (town.grape ? 25 : 6), y: town.y * S + 19, class: "town-label" }, label).textContent = town.name;
    }
  }

  /**
   * The real country under the grid (server-projected into squares): land and sea, the coast,
   * dashed land borders, and the neighbours and seas named; clipped to the map's frame.
   */
  drawGeography(geo, frame, g) {
    const clip = svg("clipPath", { id: `${this.id}-frame` }, svg("defs", {}, g));
    svg("rect", frame, clip);
    const gg = svg("g", { class: "geography", "clip-path": `url(#${this.id}-frame)` }, g);
    const path = (points, closed) => {
      const xy = [];
      for (let i = 0; i < points.length; i += 2) xy.push(`${(points[i] * S).toFixed(0)},${(points[i + 1] * S).toFixed(0)}`);
      return `M${xy.join("L")}${closed ? "Z" : ""}`;
    };
    for (const area of geo.areas) {
      svg("path", { d: path(area.points, true), class: `geo-${area.kind}`, "data-geo": area.name || area.kind }, gg);
    }
    for (const line of geo.lines) {
      svg("path", { d: path(line.points, false), class: `geo-line geo-${line.kind}`, "data-between": line.between ? line.between.join("|") : null }, gg);
    }
    for (const label of geo.labels) {
      svg("text", { x: label.x * S, y: label.y * S, class: `geo-label geo-label-${label.kind}`, "data-geo-label": label.name }, gg)
        .textContent = geoName(label.name);
    }
  }

  /** An empty town square: a tint of its grape colour and a few roofs, so towns show from afar. */
  drawTownSquare(g, town) {
    const tg = svg("g", { class: "town-square", transform: `translate(${town.x * S} ${town.y * S})` }, g);
    svg("rect", { x: 3, y: 3, width: S - 6, height: S - 6, rx: 6, fill: GRAPE_COLOURS[town.grape] || "#b9a27a", class: "town-tint" }, tg);
    for (const [x, y] of [[38, 56], [58, 50], [50, 72], [70, 70], [30, 76]]) {
      svg("path", { d: `M${x - 8},${y + 6} V${y - 2} L${x},${y - 10} L${x + 8},${y - 2} V${y + 6} Z`, class: "town-house" }, tg);
    }
  }

  /** Draw the view's tiles, figures, bets and map chips. */
  update(view) {
    const seen = new Set();
    let last = null;
    const lastBySeat = new Map();
    for (const tile of view.tiles) {
      const key = `${tile.x},${tile.y}`;
      seen.add(key);
      if (!last || tile.turn > last.turn) last = tile;
      const seatLast = lastBySeat.get(tile.seat);
      if (tile.seat !== null && tile.seat !== undefined && (!seatLast || tile.turn > seatLast.turn)) lastBySeat.set(tile.seat, tile);
      const have = this.tiles.get(key);
      if (have && have.tile === tile.tile && have.rotation === tile.rotation) continue;
      if (have) have.g.remove();
      const g = svg("g", { transform: `translate(${tile.x * S} ${tile.y * S})`, "data-tile-at": key }, this.layers.tiles);
      // A tile arriving after the first drawing settles in (so a bot's move catches the eye).
      const inner = svg("g", { class: this.fitted ? "arriving" : null }, g);
      drawTile(inner, tile.tile, tile.rotation);
      this.tiles.set(key, { ...tile, g });
    }
    for (const [key, have] of this.tiles) {
      if (!seen.has(key)) {
        have.g.remove();
        this.tiles.delete(key);
      }
    }
    this.last = last && last.turn > 0 ? last : null;
    this.lastBySeat = lastBySeat;
    this.drawMarks(view);
    this.drawFigures(view.figures);
    this.drawExpansions(view.expansions || {});
    if (!this.fitted || !this.userMoved) this.follow();
  }

  drawMarks(view) {
    const g = this.layers.marks;
    g.replaceChildren();
    if (this.last) {
      svg("rect", { x: this.last.x * S + 2, y: this.last.y * S + 2, width: S - 4, height: S - 4, class: "hl-last" }, g);
    }
    // Each seat's own last tile, in its colour: with many opponents, one can see what each did.
    for (const [seat, tile] of this.lastBySeat) {
      svg("rect", {
        x: tile.x * S + 6, y: tile.y * S + 6, width: S - 12, height: S - 12, rx: 3, class: "hl-seat-last",
        stroke: SEAT_COLOURS[this.seatColours[seat]] || "#fff", "data-seat-last": seat,
      }, g);
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
        seat: f.seat,
        figure: f.figure,
        lying: segment && segment.kind === "field",
      });
    }
  }

  drawExpansions(expansions) {
    const g = this.layers.overlay;
    g.replaceChildren();
    const chips = expansions["map-chips"];
    if (chips && chips.face_down) {
      for (const { x, y } of chips.face_down) {
        // A wooden token lying face down: its colour and value are hidden until collected.
        const c = svg("g", { class: "face-down-chip", "data-chip": `${x},${y}`, transform: `translate(${x * S + 50} ${y * S + 54})` }, g);
        svg("circle", { r: 17, class: "map-chip-shadow", cy: 2 }, c);
        svg("circle", { r: 17, class: "map-chip" }, c);
        svg("circle", { r: 12.5, class: "map-chip-ring" }, c);
        svg("text", { y: 6, class: "map-chip-text" }, c).textContent = "?";
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
          const c = svg("g", { class: "bet-marker" + (chip.chip ? "" : " face-down"), "data-bet-chip": chip.chip || "?" }, g);
          svg("circle", { cx, cy, r: 9, fill: SEAT_COLOURS[this.seatColours[chip.seat]] || "#777", class: "bet-chip" }, c);
          svg("text", { x: cx, y: cy + 3, class: "bet-chip-text" }, c).textContent = chip.chip ? chip.chip.replace("+", "") : "?";
          c.appendChild(titleOf(chip.chip ? t("bets.chip_of", { chip: chip.chip, who: this.seatNames[chip.seat] || "" }) : t("bets.hidden_chip_of", { who: this.seatNames[chip.seat] || "" })));
        });
      }
    }
  }

  // ------------------------------------------------------------------ turn aids

  /** Legal squares for the chosen rotation (bright) and for other rotations (dashed). */
  setHighlights(legal = [], other = []) {
    const g = this.layers.highlights;
    g.replaceChildren();
    // Each square is a button for the keyboard too (Tab to it, Enter or Space to place).
    const square = (x, y, cls, label) => svg("rect", {
      x: x * S + 3, y: y * S + 3, width: S - 6, height: S - 6, rx: 6, class: cls, "data-square": `${x},${y}`,
      tabindex: 0, role: "button", "aria-label": label,
    }, g);
    for (const { x, y } of other) square(x, y, "hl-other", t("board.square_rotated", { x, y }));
    for (const { x, y } of legal) square(x, y, "hl-legal", t("board.square", { x, y }));
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
   * (if any) standing on the selected one. With a finger (coarse pointer) the spots on the board
   * only show where they are, and the choice is made on a magnified copy of the tile; with a
   * mouse the view zooms to the tile while its spots are too small (focusOn).
   */
  setSpots(tile, spots = [], chosen = null) {
    const g = this.layers.spots;
    g.replaceChildren();
    const byFinger = spots.length > 0 && matchMedia("(pointer: coarse)").matches;
    this.setPicker(byFinger ? tile : null, spots);
    if (tile && spots.length && !byFinger) this.focusOn(tile);
    else this.leaveFocus();
    if (!tile) return;
    for (const spot of spots) {
      const at = spotOf(tile.tile, tile.rotation, spot.location);
      if (!at) continue;
      const label = spot.label || spot.location;
      const s = byFinger
        ? svg("g", { class: "spot-mark" + (spot.selected ? " selected" : ""), "aria-hidden": "true" }, g)
        : svg("g", {
          class: "spot" + (spot.selected ? " selected" : ""), "data-key": spot.key, "data-location": spot.location,
          role: "button", tabindex: 0, "aria-label": label, "aria-pressed": spot.selected ? "true" : "false",
        }, g);
      const [cx, cy] = [tile.x * S + at[0], tile.y * S + at[1]];
      if (!byFinger) svg("circle", { cx, cy, r: SPOT_HIT_RADIUS, class: "spot-hit" }, s);
      svg("circle", { cx, cy, r: 8 }, s);
      if (!byFinger) s.appendChild(titleOf(label));
    }
    if (chosen) {
      const at = spotOf(tile.tile, tile.rotation, chosen.location);
      const segment = segmentAt(tile.tile, tile.rotation, chosen.location);
      if (at) {
        const fg = svg("g", { "pointer-events": "none" }, g);
        drawFigure(fg, {
          x: tile.x * S + at[0], y: tile.y * S + at[1], colour: chosen.colour, seat: chosen.seat, figure: chosen.figure,
          lying: segment && segment.kind === "field",
        });
      }
    }
  }

  /**
   * The magnified tile for choosing a figure spot by finger (hidden when `tile` is null): the
   * board's own drawing around the tile, repeated at a fixed size, with a large target per spot.
   */
  setPicker(tile, spots) {
    this.picker.classList.toggle("hidden", !tile);
    if (!tile) {
      this.picker.replaceChildren();
      return;
    }
    const side = S + 2 * PICKER_MARGIN;
    const px = Math.round(side * PICKER_PX_PER_UNIT);
    const view = svg("svg", {
      class: "spot-picker-tile", width: px, height: px,
      viewBox: `${tile.x * S - PICKER_MARGIN} ${tile.y * S - PICKER_MARGIN} ${side} ${side}`,
      role: "group", "aria-label": t("board.spot_picker"),
    });
    for (const name of PICKER_LAYERS) svg("use", { href: `#${this.id}-${name}`, "pointer-events": "none" }, view);
    for (const spot of spots) {
      const at = spotOf(tile.tile, tile.rotation, spot.location);
      if (!at) continue;
      const label = spot.label || spot.location;
      const s = svg("g", {
        class: "spot" + (spot.selected ? " selected" : ""), "data-key": spot.key, "data-location": spot.location,
        role: "button", tabindex: 0, "aria-label": label, "aria-pressed": spot.selected ? "true" : "false",
      }, view);
      const [cx, cy] = [tile.x * S + at[0], tile.y * S + at[1]];
      svg("circle", { cx, cy, r: PICKER_TARGET, class: "spot-target" }, s);
      svg("circle", { cx, cy, r: PICKER_TARGET * 0.55, class: "spot-dot" }, s);
      s.appendChild(titleOf(label));
    }
    const choose = (e) => {
      const spot = e.target.closest && e.target.closest(".spot");
      if (!spot) return false;
      this.onSpot(spot.dataset.key);
      return true;
    };
    view.addEventListener("click", choose);
    view.addEventListener("keydown", (e) => {
      if ((e.key === "Enter" || e.key === " ") && choose(e)) {
        e.preventDefault();
        e.stopPropagation();
      }
    });
    this.picker.replaceChildren(html("div", { class: "spot-picker-hint" }, t("board.spot_picker")), view);
  }

  /** Outline squares (e.g. the office whose bet is being decided). */
  markSquares(squares, cls = "hl-office") {
    const g = this.layers.marks;
    for (const { x, y } of squares) svg("rect", { x: x * S + 2, y: y * S + 2, width: S - 4, height: S - 4, rx: 4, class: cls }, g);
  }
}

/** A country's or sea's name in the reader's language (the map's own English name if none). */
function geoName(name) {
  const key = `geo.${name.toLowerCase().replace(/\W+/g, "_")}`;
  return has(key) ? t(key) : name;
}

function titleOf(text) {
  const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
  title.textContent = text;
  return title;
}

/** A bunch of grapes (a town's grape colour) with its top-left near (x, y). */
function drawGrapes(parent, x, y, fill) {
  const g = svg("g", { class: "grapes", transform: `translate(${x} ${y})` }, parent);
  svg("path", { d: "M0,-7 Q2,-11 6,-11", class: "grape-stem" }, g);
  for (const [dx, dy] of [[-4.5, -2.5], [0, -3], [4.5, -2.5], [-2.3, 1.6], [2.3, 1.6], [0, 5.6]]) {
    svg("circle", { cx: dx, cy: dy, r: 3.1, fill, class: "grape" }, g);
  }
  return g;
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
