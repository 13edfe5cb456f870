// Open tables (issue 25): the #/tables page listing the tables waiting for players, taking an
// open seat with a name, and the game page's panel while a table waits (who is missing, the link
// that invites). A seat taken is kept like the creator's links (rememberGame) and opened as
// #/play/<id>/<token>, so the joiner lands on it as a creator's link would.

import { t } from "./i18n.js";
import { api } from "./api.js";
import { errorText } from "./errors.js";
import { html, seatSwatch } from "./svg.js";
import { seatName } from "./panels.js";
import { COLOURS, rememberGame, watchLink } from "./lobby.js";
import { PRESETS } from "./timecontrol.js";

// The server's page size (opentables.PAGE_SIZE), and how often the list is read again.
const PAGE_SIZE = 20;
const REFRESH_MS = 20_000;

/** Take the open `seat` of game `id` as `name`; on success the page goes to the seat. Returns an
 * error's text, or null. */
async function takeSeat(id, seat, name) {
  try {
    const taken = await api(`/api/games/${encodeURIComponent(id)}/join`, { method: "POST", body: { seat, name } });
    const game = await api(`/api/games/${encodeURIComponent(id)}`);
    rememberGame(id, { token: taken.token, seats: game.seats, you: [seat] });
    location.hash = `#/play/${id}/${taken.token}`;
    return null;
  } catch (error) {
    return errorText(error);
  }
}

/** A name field and a button taking `seat`; `onError(text)` says why it failed. */
function seatForm(id, seat, onError, onCancel = null) {
  const input = html("input", { type: "text", maxlength: 24, name: "join-name", "aria-label": t("tables.your_name"), placeholder: t("tables.your_name") });
  const submit = async (e) => {
    e.preventDefault();
    button.disabled = true;
    const error = await takeSeat(id, seat, input.value.trim() || null);
    button.disabled = false;
    if (error) onError(error);
  };
  const button = html("button", { class: "primary", type: "submit", "data-take-seat": seat }, t("tables.sit", { n: seat + 1 }));
  const form = html("form", { class: "row join-form", "data-join-form": seat, onsubmit: submit }, input, button,
    onCancel ? html("button", { type: "button", onclick: onCancel }, t("tables.cancel")) : null);
  setTimeout(() => input.focus(), 0);
  return form;
}

/** The clock of a table's settings, in words: a preset's name, or minutes and seconds. */
function clockText(table) {
  const clock = (table && table.clock) || { kind: "none" };
  if (clock.kind === "none") return t("tables.no_clock");
  const preset = Object.entries(PRESETS[clock.kind] || {})
    .find(([, p]) => p.initial_ms === clock.initial_ms && p.increment_ms === clock.increment_ms);
  if (preset) return t(`clock.preset.${preset[0]}`);
  return t("tables.clock_custom", { min: Math.round(clock.initial_ms / 60_000), sec: Math.round(clock.increment_ms / 1000) });
}

/** The expansions, map and variants a table plays (as /api/meta names them), in words. */
function optionsText(options, meta) {
  const parts = [];
  for (const e of meta.expansions || []) {
    if (options[e.option]) parts.push(t(e.label));
  }
  if (options.map) parts.push(t("option.map"));
  for (const v of meta.variants || []) {
    if (options[v.option] !== undefined && options[v.option] !== v.default) parts.push(t(v.label));
  }
  return parts.length ? parts.join(" · ") : t("tables.base_game");
}

export function mountTables(container) {
  const page = html("div", { class: "page" });
  container.appendChild(page);
  const state = { tables: [], next: null, loaded: false, error: null, joining: null, meta: {} };

  async function load(more = false) {
    state.error = null;
    try {
      const query = more && state.next ? `?page=${encodeURIComponent(state.next)}` : "";
      const answer = await api(`/api/tables${query}`);
      state.tables = more ? [...state.tables, ...answer.tables] : answer.tables;
      state.next = answer.next;
    } catch (error) {
      state.error = errorText(error);
    }
    state.loaded = true;
    render();
  }

  function seatItem(table, seat) {
    const i = seat.seat;
    const name = seat.kind === "open" ? html("em", { class: "muted" }, t("tables.open_seat")) : html("span", {}, seatName(table.seats, i));
    const join = seat.kind === "open" && !(state.joining && state.joining.id === table.id)
      ? html("button", { "data-join": i, onclick: () => { state.joining = { id: table.id, seat: i, error: null }; render(); } }, t("tables.join"))
      : null;
    return html("li", { class: "table-seat", "data-seat": i }, seatSwatch(i, COLOURS[i], t(`colour.${COLOURS[i]}`)), " ", name, " ", join);
  }

  function tableCard(table) {
    const joining = state.joining && state.joining.id === table.id ? state.joining : null;
    const details = [optionsText(table.options, state.meta), clockText(table.table)];
    if (table.table && table.table.aids === false) details.push(t("tables.aids_off"));
    if (table.options.fixed_stack || table.options.fixed_seed) details.push(t("tables.fixed_order"));
    return html("section", { class: "card open-table", "data-table": table.id },
      html("p", { class: "muted" }, details.join(" · ")),
      html("ul", { class: "table-seats" }, table.seats.map((seat) => seatItem(table, seat))),
      joining ? seatForm(table.id, joining.seat, (error) => { joining.error = error; render(); }, () => { state.joining = null; render(); }) : null,
      joining && joining.error ? html("p", { class: "error-box", role: "alert" }, joining.error) : null);
  }

  function render() {
    const list = !state.loaded ? null
      : state.tables.length ? state.tables.map(tableCard) : html("p", { class: "muted", "data-no-tables": "" }, t("tables.none"));
    page.replaceChildren(html("div", { class: "page-narrow" },
      html("h1", {}, t("tables.title")),
      html("p", { class: "muted" }, t("tables.intro")),
      html("div", { class: "row" }, html("button", { "data-refresh": "", onclick: () => { state.joining = null; load(); } }, t("tables.refresh"))),
      state.error ? html("p", { class: "error-box", role: "alert" }, state.error) : null,
      html("div", { class: "open-tables" }, list),
      state.next ? html("button", { "data-more": "", onclick: () => load(true) }, t("tables.more")) : null));
  }

  api("/api/meta").then((meta) => { state.meta = meta; render(); }).catch(() => {});
  render();
  load();
  // New tables come while a visitor looks: the first page is read again now and then, unless a
  // seat is being taken or more pages were read (a refresh would drop them).
  const timer = setInterval(() => {
    if (!state.joining && !(state.tables.length > PAGE_SIZE)) load();
  }, REFRESH_MS);
  return { relabel: render, destroy: () => clearInterval(timer) };
}

/**
 * The game page's panel while its table waits for players (`state.waiting`: the open seats):
 * who is missing, the game's link to invite someone (the spectator's link: anyone holding it may
 * take an open seat) and, for a page that holds no seat, a form to take one. Null once full.
 */
export function waitingPanel(gameId, info, state, you, onError) {
  const waiting = state.waiting || [];
  if (!waiting.length) return null;
  const link = watchLink(gameId);
  const input = html("input", { type: "text", readonly: true, value: link, "aria-label": t("waiting.invite"), onfocus: (e) => e.target.select() });
  const copy = html("button", {
    "data-copy-invite": "",
    onclick: async (e) => {
      try {
        await navigator.clipboard.writeText(link);
        e.target.textContent = t("lobby.copied");
      } catch {
        input.select();
      }
    },
  }, t("lobby.copy"));
  const missing = waiting.map((seat) => t("seat.n", { n: seat + 1 })).join(", ");
  return html("section", { class: "panel waiting-panel", "data-waiting": waiting.join(","), "aria-label": t("waiting.title") },
    html("h3", {}, t("waiting.title")),
    html("p", {}, t("waiting.missing", { seats: missing })),
    html("p", { class: "muted" }, t("waiting.invite")),
    html("div", { class: "link-row" }, input, copy),
    you.seats.length ? null : keptForm(gameId, waiting[0], onError));
}

// The form of the waiting panel, kept while the panel is drawn again (a player coming online):
// a name being typed stays.
let kept = null;

function keptForm(gameId, seat, onError) {
  if (!kept || kept.gameId !== gameId || kept.seat !== seat) kept = { gameId, seat, form: seatForm(gameId, seat, onError) };
  return kept.form;
}

/** The game's public setup again, when seats were taken since the page read it (a state's
 * `waiting` lists fewer seats than the setup has open): the new players' names. */
export async function seatsTaken(gameId, info, state) {
  const open = info.seats.filter((s) => s.kind === "open").length;
  if (open <= (state.waiting || []).length) return null;
  try {
    return (await api(`/api/games/${encodeURIComponent(gameId)}`)).seats;
  } catch {
    return null;
  }
}
