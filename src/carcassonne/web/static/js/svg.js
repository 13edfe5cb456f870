// Small SVG helpers shared by the board, the tile drawings and the panels.

export const SVG_NS = "http://www.w3.org/2000/svg";

/** Create an SVG element with attributes, optionally appended to a parent. */
export function svg(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  }
  if (parent) parent.appendChild(node);
  return node;
}

/** Create an HTML element with attributes and children (strings become text nodes). */
export function html(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(typeof child === "string" || typeof child === "number"
      ? document.createTextNode(String(child)) : child);
  }
  return node;
}

// Seat colours keep their names (the engine's and the lobby's) but use a palette that stays
// distinct under the common colour-vision deficiencies (after Okabe and Ito); every seat also
// has a mark drawn on its figures and swatches, so colour is never the only cue.
export const SEAT_COLOURS = {
  blue: "#0072b2",
  yellow: "#f0e442",
  green: "#009e73",
  pink: "#cc79a7",
  red: "#d55e00",
  black: "#2b2b2b",
};

// Ink for a mark drawn on a seat's colour: dark on the light colours, white on the others.
const MARK_INK = { yellow: "#1d1a14", pink: "#1d1a14" };

/** The mark shapes by seat, in a 10 x 10 box centred on (0, 0). */
const MARKS = [
  (g, ink) => svg("circle", { r: 3.6, fill: ink }, g),
  (g, ink) => svg("rect", { x: -3.3, y: -3.3, width: 6.6, height: 6.6, fill: ink }, g),
  (g, ink) => svg("path", { d: "M0,-4.2 L4,3.2 L-4,3.2 Z", fill: ink }, g),
  (g, ink) => svg("path", { d: "M0,-4.4 L4.4,0 L0,4.4 L-4.4,0 Z", fill: ink }, g),
  (g, ink) => svg("path", { d: "M-1.5,-4.2 H1.5 V-1.5 H4.2 V1.5 H1.5 V4.2 H-1.5 V1.5 H-4.2 V-1.5 H-1.5 Z", fill: ink }, g),
  (g, ink) => svg("path", { d: "M-3.8,-3.8 L3.8,3.8 M3.8,-3.8 L-3.8,3.8", stroke: ink, "stroke-width": 2.2 }, g),
];

/** Draw seat `seat`'s mark centred at (x, y), `size` units wide, in ink that suits `colour`. */
export function drawMark(parent, seat, colour, x, y, size = 10) {
  const make = MARKS[seat % MARKS.length];
  const g = svg("g", { class: "seat-mark", transform: `translate(${x} ${y}) scale(${size / 10})` }, parent);
  make(g, MARK_INK[colour] || "#fff");
  return g;
}

/** A small round swatch of a seat's colour with its mark (for panels and the lobby). */
export function seatSwatch(seat, colour, title = null) {
  const s = svg("svg", { class: "swatch", viewBox: "-6 -6 12 12", role: "img", "aria-hidden": title ? null : "true", "aria-label": title });
  svg("circle", { r: 5.4, fill: SEAT_COLOURS[colour] || colour || "#999", stroke: "#0008", "stroke-width": 0.9 }, s);
  drawMark(s, seat, colour, 0, 0, 6.2);
  return s;
}

export const GRAPE_COLOURS = {
  purple: "#7d3c98",
  "light-blue": "#5dade2",
  orange: "#eb8c1e",
};

// A meeple standing in a 20 x 21 box whose foot-centre is (10, 21).
const MEEPLE_PATH =
  "M10,0 C13,0 14.6,2.2 14.6,4.7 C14.6,6.1 14.1,7.1 13.3,7.8 L19,9.8 C20.3,10.3 20.5,11.9 " +
  "19.3,12.6 L15,14.2 L17.7,19.3 C18.1,20.1 17.6,21 16.7,21 L12.1,21 L10,17.2 L7.9,21 L3.3,21 " +
  "C2.4,21 1.9,20.1 2.3,19.3 L5,14.2 L0.7,12.6 C-0.5,11.9 -0.3,10.3 1,9.8 L6.7,7.8 " +
  "C5.9,7.1 5.4,6.1 5.4,4.7 C5.4,2.2 7,0 10,0 Z";
// The abbot: a hooded figure in a long robe.
const ABBOT_PATH =
  "M10,0 C13.4,0 15.2,2.6 15.2,5.4 C15.2,7.2 14.4,8.4 13.4,9.2 L17.9,19.6 C18.3,20.4 17.8,21 " +
  "16.9,21 L3.1,21 C2.2,21 1.7,20.4 2.1,19.6 L6.6,9.2 C5.6,8.4 4.8,7.2 4.8,5.4 C4.8,2.6 6.6,0 10,0 Z";

// Traders & Builders: the builder, a worker in a flat cap; the pig, side on.
const BUILDER_PATH =
  "M5,3 L15,3 L15,4.6 L13.8,4.6 C14.2,5.3 14.4,6 14.4,6.8 C14.4,8.4 13.5,9.6 12.4,10.2 " +
  "L16.5,21 L3.5,21 L7.6,10.2 C6.5,9.6 5.6,8.4 5.6,6.8 C5.6,6 5.8,5.3 6.2,4.6 L5,4.6 Z";
const PIG_PATH =
  "M3,10 C3,6.5 6.5,5 10.5,5 C14.5,5 17.5,6.5 18,9 L20,8.4 L19.6,11.4 C19.4,14 17.6,15.6 15.6,16 " +
  "L15.6,21 L13,21 L12.6,17 L8,17 L7.6,21 L5,21 L5,15.8 C3.8,14.8 3,12.6 3,10 Z";
const FIGURE_PATHS = { abbot: ABBOT_PATH, builder: BUILDER_PATH, pig: PIG_PATH };

/**
 * Draw a figure centred on (x, y) in tile units. Farmers lie down, as on the real board.
 * `size` is the figure height in tile units (a tile is 100); `seat` adds the seat's mark.
 */
export function drawFigure(parent, { x, y, colour, seat = null, figure = "meeple", lying = false, size = 26 }) {
  // The large meeple (Inns & Cathedrals) is the same figure, a third taller.
  const scale = (figure === "large-meeple" ? size * 1.35 : size) / 21;
  const rotate = lying && figure !== "pig" ? " rotate(-90 10 10.5)" : "";  // the pig stands
  const g = svg("g", {
    class: `figure figure-${figure}`,
    transform: `translate(${x - 10 * scale} ${y - 10.5 * scale}) scale(${scale})${rotate}`,
  }, parent);
  const path = FIGURE_PATHS[figure] || MEEPLE_PATH;
  svg("path", { d: path, class: "figure-halo" }, g);
  svg("path", { d: path, fill: SEAT_COLOURS[colour] || colour, class: "figure-body" }, g);
  if (figure === "abbot") {
    svg("path", { d: "M6.6,9.2 Q10,11.5 13.4,9.2", class: "figure-detail" }, g);
  }
  if (seat !== null) drawMark(g, seat, colour, 10, figure === "abbot" ? 14.5 : 12, 6.5);
  return g;
}
