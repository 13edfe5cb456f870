// The rules summary (from the message catalogue) and a gallery of every tile.

import { t, has } from "./i18n.js";
import { html, svg } from "./svg.js";
import { drawTile, tileIds, tileInfo } from "./tiles.js";
import { tileName } from "./panels.js";

const SECTIONS = ["goal", "turn", "scoring", "final", "river", "abbot", "bets", "map", "mapchips", "inns", "traders", "variants"];

export function mountRules(container) {
  const page = html("div", { class: "page" });
  container.appendChild(page);
  function render() {
    const body = html("div", { class: "page-narrow rules card" }, html("h1", {}, t("rules.title")), html("p", { class: "muted" }, t("rules.intro")));
    for (const section of SECTIONS) {
      body.appendChild(html("h2", {}, t(`rules.${section}.title`)));
      const list = html("ul");
      for (let i = 1; has(`rules.${section}.${i}`); i++) list.appendChild(html("li", {}, t(`rules.${section}.${i}`)));
      body.appendChild(list);
    }
    body.appendChild(html("h2", {}, t("rules.tiles.title")));
    body.appendChild(html("p", { class: "muted" }, t("rules.tiles.intro")));
    const gallery = html("div", { class: "gallery" });
    // every tile set in the server's order: the base game's, then the expansions' (registry)
    for (const id of tileIds()) {
      const info = tileInfo(id);
      // The letter (the usual name among players, e.g. "D") and what the tile shows.
      const name = `${info.name} · ${tileName(id)}`;
      const s = svg("svg", { viewBox: "-2 -2 104 104", role: "img", "aria-label": name });
      drawTile(s, id, 0);
      gallery.appendChild(html("figure", { "data-tile": id }, s, html("figcaption", {}, `${name} ×${info.count}`)));
    }
    body.appendChild(gallery);
    page.replaceChildren(body);
  }
  render();
  return { relabel: render };
}
