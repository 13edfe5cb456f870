// Entry point: language, tile data, and a small hash router over the screens.
//
//   #/                     lobby (create a game, your games)
//   #/play/<id>/<token>    play a seat (or every human seat of a hotseat game)
//   #/watch/<id>           watch as a spectator
//   #/replay[/<id>]        replay a finished game or an uploaded record
//   #/review/<id>          replay a finished game and review it
//   #/rules                rules summary and the tiles
//   #/tables               the open tables: tables waiting for players, to join

import { LANGUAGES, preferredLanguage, setLanguage, translatePage, language } from "./i18n.js";
import { loadTiles } from "./tiles.js";
import { html } from "./svg.js";
import { setFavicon } from "./turnalert.js";

const app = document.getElementById("app");
let screen = null;

const ROUTES = [
  [/^#?\/?$/, async () => (await import("./lobby.js")).mountLobby],
  [/^#\/play\/([\w-]+)\/([\w-]+)$/, async () => (await import("./game.js")).mountGame],
  [/^#\/watch\/([\w-]+)$/, async () => (await import("./game.js")).mountGame],
  [/^#\/replay(?:\/([\w-]+))?$/, async () => (await import("./replay.js")).mountReplay],
  [/^#\/review\/([\w-]+)$/, async () => (await import("./replay.js")).mountReview],
  [/^#\/rules$/, async () => (await import("./rules.js")).mountRules],
  [/^#\/tables$/, async () => (await import("./tables.js")).mountTables],
];

async function route() {
  if (screen && screen.destroy) screen.destroy();
  screen = null;
  const hash = location.hash || "#/";
  for (const link of document.querySelectorAll(".topbar nav a")) {
    link.classList.toggle("active", link.getAttribute("href") === (hash.split("/").slice(0, 2).join("/") || "#/"));
  }
  for (const [pattern, load] of ROUTES) {
    const match = hash.match(pattern);
    if (!match) continue;
    const mount = await load();
    app.replaceChildren();
    const params = match.slice(1).map((p) => (p === undefined ? null : decodeURIComponent(p)));
    screen = await mount(app, params, hash);
    return;
  }
  location.hash = "#/";
}

async function start() {
  setFavicon();
  await setLanguage(preferredLanguage());
  const select = document.getElementById("language");
  for (const [code, name] of Object.entries(LANGUAGES)) {
    select.appendChild(html("option", { value: code, selected: code === language() }, name));
  }
  select.addEventListener("change", async () => {
    await setLanguage(select.value);
    translatePage();
    if (screen && screen.relabel) screen.relabel();
    else route();
  });
  translatePage();
  try {
    await loadTiles();
  } catch (error) {
    app.replaceChildren(html("div", { class: "page" }, html("p", { class: "error-box" }, String(error))));
    return;
  }
  window.addEventListener("hashchange", route);
  route();
}

start();
