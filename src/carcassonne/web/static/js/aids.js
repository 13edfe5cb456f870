// The information aids of a table that allows them (issue 25): the tiles left by kind, drawn as
// small tiles with their counts, the open squares no remaining tile fits, crossed on the board,
// and what each unfinished feature would score now, on hover or tap. The server works them out
// from public facts only (carcassonne/aids.py) and sends them as the state's `aids`; a "no
// aids" table sends none, and then nothing here draws anything.

import { t, plural } from "./i18n.js";
import { html, svg } from "./svg.js";
import { drawTile } from "./tiles.js";
import { tileName } from "./panels.js";

// a board square's size in the board's units (board.js draws a tile 100 units wide)
const S = 100;
// a remaining tile's picture in the panel, px
const THUMB_PX = 30;

/** The panel of tiles left by kind, or null without aids (or for a dealt stack). */
export function aidsPanel(aids) {
  if (!aids || !aids.remaining) return null;
  const items = Object.entries(aids.remaining).map(([tileId, count]) => {
    const picture = svg("svg", { viewBox: "0 0 100 100", width: THUMB_PX, height: THUMB_PX, "aria-hidden": "true" });
    drawTile(picture, tileId, 0);
    const name = tileName(tileId);
    return html("li", { class: "aids-tile", title: name, "data-remaining": tileId, "aria-label": `${name}: ${count}` },
      picture, html("span", { class: "aids-count" }, `×${count}`));
  });
  return html("section", { class: "panel aids-panel", "aria-label": t("aids.remaining") },
    html("h3", {}, t("aids.remaining")), html("ul", { class: "plain aids-tiles" }, items));
}

/** Cross out, in `layer` (a board layer), the squares no remaining tile can fill. */
export function drawHoles(layer, aids) {
  layer.replaceChildren();
  for (const { x, y } of (aids && aids.unfillable) || []) {
    const g = svg("g", { class: "aids-hole", "data-hole": `${x},${y}` }, layer);
    svg("rect", { x: x * S + 8, y: y * S + 8, width: S - 16, height: S - 16, rx: 6 }, g);
    svg("path", { d: `M${x * S + 25} ${y * S + 25}L${x * S + 75} ${y * S + 75}M${x * S + 75} ${y * S + 25}L${x * S + 25} ${y * S + 75}` }, g);
    svg("title", {}, g).textContent = t("aids.hole", { x, y });
  }
}

/**
 * Over each square of an unfinished feature, a hover (or tap) target in `layer`: it names the
 * features there with what each would score now, and lights their squares in `marks`.
 */
export function drawFeatureTips(layer, marks, aids) {
  layer.replaceChildren();
  marks.replaceChildren();
  const bySquare = new Map();
  for (const feature of (aids && aids.features) || []) {
    for (const { x, y } of feature.squares) {
      const key = `${x},${y}`;
      if (!bySquare.has(key)) bySquare.set(key, []);
      bySquare.get(key).push(feature);
    }
  }
  for (const [key, features] of bySquare) {
    const [x, y] = key.split(",").map(Number);
    const text = features.map((f) => t("aids.feature_points", { kind: t(`aids.kind.${f.kind}`), points: plural("count.points", f.points) })).join(" · ");
    const target = svg("rect", { x: x * S, y: y * S, width: S, height: S, class: "aids-tip", "data-feature-tip": key, "aria-label": text }, layer);
    svg("title", {}, target).textContent = text;
    const light = () => {
      marks.replaceChildren();
      for (const f of features) {
        for (const sq of f.squares) svg("rect", { x: sq.x * S + 4, y: sq.y * S + 4, width: S - 8, height: S - 8, rx: 4, class: "hl-feature" }, marks);
      }
    };
    target.addEventListener("pointerenter", light);
    target.addEventListener("pointerleave", () => marks.replaceChildren());
  }
}
