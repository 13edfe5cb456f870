// The lobby: create a game (seats, expansions, seed), hand out the seat links, list your games.
// Links hold the seat's secret token after '#', so it never reaches a server log; the games you
// created or joined are remembered in this browser's localStorage.

import { t, language } from "./i18n.js";
import { api } from "./api.js";
import { errorText } from "./errors.js";
import { html, seatSwatch } from "./svg.js";
import { seatName } from "./panels.js";
import { defaultTable, tableRequest, tableSettings } from "./timecontrol.js";

const GAMES_KEY = "carcassonne.games";
export const COLOURS = ["blue", "yellow", "green", "pink", "red", "black"];
const DEFAULT_BOT = "greedy";

/** A remembered game: its seats (as the server describes them, so that names are shown in the
 * page's language), the links this browser holds to it and which seats each plays. Entries
 * stored before were one per link, with the names as shown then: they are merged by game. */
function normalEntry(g) {
  if (!g || typeof g.id !== "string") return null;
  const seats = (Array.isArray(g.seats) ? g.seats : []).map((s) => (typeof s === "string" ? { name: s } : s));
  const links = Array.isArray(g.links) ? g.links : [{ token: g.token || null, you: g.you || [] }];
  return { id: g.id, seats, links: links.filter((l) => l.token), when: g.when || 0 };
}

function loadGames() {
  let stored;
  try {
    stored = JSON.parse(localStorage.getItem(GAMES_KEY) || "[]");
  } catch {
    return [];
  }
  const games = [];
  for (const entry of Array.isArray(stored) ? stored : []) {
    const g = normalEntry(entry);
    const same = g && games.find((other) => other.id === g.id);
    if (same) same.links.push(...g.links.filter((l) => !same.links.some((m) => m.token === l.token)));
    else if (g) games.push(g);
  }
  return games;
}

/** Remember a game this browser plays, watches or created (newest first, at most 30): one entry
 * per game, with every link to it (the creator of a game of two humans holds both seats), in
 * seat order whichever was opened last. */
export function rememberGame(id, { token = null, seats = [], you = [] }) {
  const games = loadGames();
  const old = games.find((g) => g.id === id);
  const links = (old ? old.links : []).filter((l) => l.token !== token);
  if (token) links.push({ token, you });
  links.sort((a, b) => Math.min(...a.you) - Math.min(...b.you));
  const kept = seats.map(({ name, kind, bot, default_name }) => ({ name, kind, bot, default_name }));
  const entry = { id, seats: kept.length ? kept : (old ? old.seats : []), links, when: Date.now() };
  localStorage.setItem(GAMES_KEY, JSON.stringify([entry, ...games.filter((g) => g.id !== id)].slice(0, 30)));
}

function forgetGame(id) {
  localStorage.setItem(GAMES_KEY, JSON.stringify(loadGames().filter((g) => g.id !== id)));
}

/** When a game was last opened, in the page's language (the browser's own region when it
 * speaks that language: an en-US browser keeps its month-first dates, a Romanian page shows
 * day.month.year whatever the browser). */
function when(time) {
  const lang = language();
  const browser = navigator.language || "";
  const locale = browser.split("-")[0] === lang ? browser : lang;
  return new Intl.DateTimeFormat(locale, { dateStyle: "short", timeStyle: "short" }).format(new Date(time));
}

export const playLink = (id, token) => `${location.origin}/#/play/${id}/${token}`;
export const watchLink = (id) => `${location.origin}/#/watch/${id}`;

export function mountLobby(container) {
  const page = html("div", { class: "page" });
  container.appendChild(page);
  const state = {
    // a newcomer's first opponent plays to win: the greedy bot (the expert thinks for
    // seconds per move, the random one plays nonsense)
    seats: [{ kind: "human", name: "" }, { kind: `bot:${DEFAULT_BOT}`, name: "" }],
    // checkbox name -> ticked: the map, and the expansions and variants /api/meta offers
    options: { map: false },
    expansions: [],
    variants: [],
    seed: "",
    // the form waits for /api/meta: drawn before it, it would be drawn again under the
    // player's fingers and lose what they had typed
    ready: false,
    hotseat: false,
    // on the open tables page (#/tables): only with an open seat
    listed: false,
    table: defaultTable(),
    created: null,
    error: null,
    // the ladder's levels (weakest first), offered before the bots
    levels: [],
    bots: ["random", "greedy"],
    thinkTimes: {},
  };
  api("/api/meta").then((meta) => {
    state.levels = meta.levels || [];
    state.bots = meta.bots;
    state.thinkTimes = meta.think_times || {};
    state.expansions = meta.expansions;
    state.variants = meta.variants;
    for (const e of meta.expansions) state.options[e.option] = false;
    for (const v of meta.variants) state.options[v.checkbox] = false;
  }).catch(() => {}).finally(() => {
    state.ready = true;
    render();
  });

  function seatRow(seat, i) {
    const choice = (value, label) => html("option", { value, selected: seat.kind === value }, label);
    const group = (label, names) => html("optgroup", { label },
      names.map((b) => choice(`bot:${b}`, t(`bot.${b}`))));
    return html("div", { class: "seat-row", "data-seat-row": i },
      seatSwatch(i, COLOURS[i], t(`colour.${COLOURS[i]}`)),
      html("select", {
        "aria-label": t("lobby.seat_kind", { n: i + 1 }),
        name: `kind-${i}`,
        onchange: (e) => { seat.kind = e.target.value; render(); },
      }, choice("human", t("lobby.human")), choice("open", t("lobby.open_seat")),
      state.levels.length ? group(t("lobby.levels"), state.levels) : null,
      group(t("lobby.bots"), state.bots)),
      thinkSelect(seat, i),
      seat.kind === "open" ? html("span", { class: "muted open-seat-hint" }, t("lobby.open_seat_hint")) : html("input", {
        type: "text", maxlength: 24, name: `name-${i}`, value: seat.name,
        placeholder: seat.kind === "human" ? t("lobby.player_n", { n: i + 1 }) : t(`bot.${seat.kind.slice(4)}`),
        "aria-label": t("lobby.seat_name", { n: i + 1 }),
        oninput: (e) => { seat.name = e.target.value; },
      }),
      html("button", {
        "aria-label": t("lobby.remove_seat"), title: t("lobby.remove_seat"), disabled: state.seats.length <= 2,
        onclick: () => { state.seats.splice(i, 1); render(); },
      }, "✕"));
  }

  /** A think time for the bots that search (the expert), or nothing. */
  function thinkSelect(seat, i) {
    const times = state.thinkTimes[seat.kind.slice(4)];
    if (!seat.kind.startsWith("bot:") || !times) return null;
    if (!times.includes(seat.think)) seat.think = times[0];
    return html("select", {
      "aria-label": t("lobby.think_time", { n: i + 1 }),
      name: `think-${i}`,
      onchange: (e) => { seat.think = Number(e.target.value); },
    }, times.map((s) => html("option", { value: s, selected: seat.think === s }, t("lobby.seconds", { n: s }))));
  }

  function option(key, disabled = false, label = `option.${key}`) {
    return html("label", {},
      html("input", {
        type: "checkbox", name: key, checked: state.options[key], disabled,
        onchange: (e) => {
          state.options[key] = e.target.checked;
          keepOptionsPlayable();
          render();
        },
      }),
      html("span", {}, t(label), html("small", {}, t(`${label}.hint`))));
  }

  // What the registry says goes together (/api/meta): an expansion needs the map or is never
  // played on one; an expansion's variants are offered only with it (docs/rules.md D54), and
  // one that needs another variant left on only while one is.
  const variantOn = (field) => state.variants.some((v) => v.option === field && state.options[v.checkbox]);
  const pointless = (v) => v.needs_any_of.length > 0 && v.needs_any_of.every(variantOn);
  const offMap = (e) => (state.options.map ? e.never_on_map : e.needs_map);

  function keepOptionsPlayable() {
    for (const e of state.expansions) if (offMap(e)) state.options[e.option] = false;
    for (const v of state.variants) {
      if ((v.needs && !state.options[v.needs]) || pointless(v)) state.options[v.checkbox] = false;
    }
  }

  /** The expansions' checkboxes, the map's just before those played on it. */
  function expansionOptions() {
    const box = (e) => option(e.option, offMap(e), e.label);
    return html("div", { class: "options" },
      state.expansions.filter((e) => !e.needs_map).map(box),
      option("map"),
      state.expansions.filter((e) => e.needs_map).map(box));
  }

  /** The variants of the base game, then those of each expansion ticked. */
  function variantOptions() {
    const box = (v) => option(v.checkbox, pointless(v), v.label);
    return [
      html("div", { class: "options" }, state.variants.filter((v) => !v.needs).map(box)),
      ...state.expansions.filter((e) => state.options[e.option]).map((e) => {
        const own = state.variants.filter((v) => v.needs === e.option);
        return own.length ? html("div", { class: "options", "data-variants-of": e.option }, own.map(box)) : null;
      }),
    ];
  }

  /** The expansions and variants of the create request, by option field. */
  function optionsRequest() {
    const request = {};
    for (const e of state.expansions) request[e.option] = state.options[e.option];
    for (const v of state.variants) request[v.option] = state.options[v.checkbox] !== v.default;
    return request;
  }

  const hasOpenSeat = () => state.seats.some((s) => s.kind === "open");

  function botSpec(seat) {
    const name = seat.kind.slice(4);
    return state.thinkTimes[name] ? `${name}:seconds=${seat.think}` : name;
  }

  async function create() {
    state.error = null;
    const body = {
      seats: state.seats.map((s) => {
        if (s.kind === "open") return { kind: "open" };
        return s.kind === "human" ? { kind: "human", name: s.name.trim() || null } : { kind: "bot", bot: botSpec(s), name: s.name.trim() || null };
      }),
      options: {
        ...optionsRequest(),
        map: state.options.map ? "france" : null,
        seed: typedSeed(state.seed),
      },
      hotseat: state.hotseat && !hasOpenSeat(),
      listed: state.listed && hasOpenSeat(),
    };
    if (body.options.seed === undefined) {
      state.error = t("lobby.bad_seed", { max: Number.MAX_SAFE_INTEGER });
      render();
      return;
    }
    const { table, error } = tableRequest(state.table);
    if (error) {
      state.error = error;
      render();
      return;
    }
    if (table) body.table = table;
    try {
      const created = await api("/api/games", { method: "POST", body });
      state.created = created;
      const seats = created.game.seats;
      if (created.hotseat_token) rememberGame(created.id, { token: created.hotseat_token, seats, you: seats.filter((s) => s.kind === "human").map((s) => s.seat) });
      for (const s of created.seats) rememberGame(created.id, { token: s.token, seats, you: [s.seat] });
    } catch (error) {
      state.error = errorText(error);
    }
    render();
  }

  function linkRow(label, url, open) {
    const input = html("input", { type: "text", readonly: true, value: url, "aria-label": label, onfocus: (e) => e.target.select() });
    return html("div", { class: "link-row" },
      html("span", { style: "min-width:8rem" }, label), input,
      html("button", {
        onclick: async (e) => {
          try {
            await navigator.clipboard.writeText(url);
            e.target.textContent = t("lobby.copied");
          } catch {
            input.select();
          }
        },
      }, t("lobby.copy")),
      open ? html("a", { href: url.slice(url.indexOf("#")), class: "button-link", "data-open-seat": open }, t("lobby.open")) : null);
  }

  function createdCard() {
    const c = state.created;
    const seats = c.game.seats;
    const rows = [];
    if (c.hotseat_token) rows.push(linkRow(t("lobby.hotseat_link"), playLink(c.id, c.hotseat_token), "hotseat"));
    for (const s of c.seats) rows.push(linkRow(seatName(seats, s.seat), playLink(c.id, s.token), String(s.seat)));
    if (seats.some((s) => s.kind === "open")) rows.push(linkRow(t("lobby.invite_link"), watchLink(c.id), null));
    rows.push(linkRow(t("lobby.spectator_link"), watchLink(c.id), null));
    const first = c.hotseat_token || (c.seats[0] && c.seats[0].token);
    return html("section", { class: "card", "data-created": c.id },
      html("h2", {}, t("lobby.created")),
      html("p", { class: "muted" }, t("lobby.links_hint")),
      html("div", { class: "links" }, rows),
      html("div", { class: "row", style: "margin-top:1rem" },
        first ? html("a", { href: `#/play/${c.id}/${first}` }, html("button", { class: "primary", "data-play": "" }, t("lobby.play_now"))) : html("a", { href: `#/watch/${c.id}` }, html("button", { class: "primary" }, t("lobby.watch"))),
        html("button", { onclick: () => { state.created = null; render(); } }, t("lobby.new_game"))));
  }

  function createCard() {
    if (!state.ready) return html("section", { class: "card" }, html("h2", {}, t("lobby.new_game")), html("p", { class: "muted" }, t("lobby.loading")));
    const humans = state.seats.filter((s) => s.kind === "human").length;
    return html("section", { class: "card" },
      html("h2", {}, t("lobby.new_game")),
      html("h3", {}, t("lobby.seats")),
      html("div", { class: "seat-rows" }, state.seats.map(seatRow)),
      html("button", {
        disabled: state.seats.length >= 6,
        onclick: () => { state.seats.push({ kind: `bot:${DEFAULT_BOT}`, name: "" }); render(); },
      }, `+ ${t("lobby.add_seat")}`),
      html("h3", { style: "margin-top:1rem" }, t("lobby.options")),
      expansionOptions(),
      html("h3", { style: "margin-top:1rem" }, t("lobby.variants")),
      variantOptions(),
      html("h3", { style: "margin-top:1rem" }, t("lobby.table")),
      tableSettings(state.table, render),
      html("div", { class: "row" },
        html("label", {}, html("input", {
          type: "checkbox", name: "hotseat", checked: state.hotseat && !hasOpenSeat(), disabled: humans < 2 || hasOpenSeat(),
          onchange: (e) => { state.hotseat = e.target.checked; },
        }), " ", t("lobby.hotseat")),
        html("label", {}, html("input", {
          type: "checkbox", name: "listed", checked: state.listed && hasOpenSeat(), disabled: !hasOpenSeat(),
          onchange: (e) => { state.listed = e.target.checked; },
        }), " ", t("lobby.listed")),
        html("label", {}, t("lobby.seed"), " ", html("input", {
          type: "text", inputmode: "numeric", name: "seed", value: state.seed, size: 10, placeholder: t("lobby.seed_random"),
          oninput: (e) => { state.seed = e.target.value; },
        }))),
      hasOpenSeat() ? html("p", { class: "muted", "data-listed-hint": "" }, t("lobby.listed_hint")) : null,
      state.error ? html("p", { class: "error-box", role: "alert" }, state.error) : null,
      html("div", { class: "row", style: "margin-top:1rem" },
        html("button", { class: "primary", onclick: create, "data-create": "" }, t("lobby.create"))));
  }

  /** A remembered game: its seats, when, the seats this browser holds, a link to go on with
   * each (named by its seats when there are several). */
  function gameEntry(g) {
    const you = g.links.flatMap((l) => l.you);
    const continueLink = (l) => html("a", { href: `#/play/${g.id}/${l.token}`, "data-continue": l.you.join(",") },
      g.links.length > 1 ? t("lobby.continue_as", { who: l.you.map((s) => seatName(g.seats, s)).join(", ") }) : t("lobby.continue"));
    return html("li", { "data-game": g.id },
      html("span", {}, html("strong", {}, g.seats.map((_, i) => seatName(g.seats, i)).join(" · ")), html("br"),
        html("small", { class: "muted" }, [when(g.when), you.length ? t("lobby.as", { who: you.map((s) => seatName(g.seats, s)).join(", ") }) : null].filter(Boolean).join(" · "))),
      html("span", { class: "row" },
        g.links.map(continueLink),
        html("a", { href: `#/watch/${g.id}` }, t("lobby.watch")),
        html("a", { href: `#/replay/${g.id}` }, t("lobby.replay")),
        html("button", { title: t("lobby.forget"), "aria-label": t("lobby.forget"), onclick: () => { forgetGame(g.id); render(); } }, "✕")));
  }

  function gamesCard() {
    const games = loadGames();
    return html("section", { class: "card" },
      html("h2", {}, t("lobby.your_games")),
      games.length ? html("ul", { class: "game-list" }, games.map(gameEntry)) : html("p", { class: "muted" }, t("lobby.no_games")));
  }

  function render() {
    page.replaceChildren(html("div", { class: "page-narrow" },
      html("h1", {}, t("lobby.title")),
      html("p", { class: "muted" }, t("lobby.intro")),
      html("div", { class: "lobby-grid" },
        html("div", {}, state.created ? createdCard() : createCard()),
        html("div", {}, gamesCard()))));
  }

  render();
  return { relabel: render };
}

/**
 * The seed typed in: null for none, undefined if it is not decimal digits up to 2^53 - 1 (the
 * server's bound: a larger number would be rounded on its way, docs/web.md).
 */
function typedSeed(text) {
  const digits = text.trim();
  if (digits === "") return null;
  if (!/^[0-9]+$/.test(digits) || BigInt(digits) > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  return Number(digits);
}
