// The information aids of a table that allows them (issue 25): the tiles left by kind, drawn as
// small tiles with their counts, and the open squares no remaining tile fits, crossed on the
// board. The server works both out from public facts only (carcassonne/aids.py) and sends them
// as the state's `aids`; a "no aids" table sends none, and then nothing here draws anything.

import { t } from "./i18n.js";
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
