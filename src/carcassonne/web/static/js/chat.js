// The table's chat panel (issue 25): the seats' chat for a seat, the spectators' for a
// spectator (the server sends each only its own). Every line is shown as text (text nodes,
// never markup), so nothing a player writes can run in another page. Quick phrases travel as
// ids and are worded in the reader's language. Each reader may mute seats: kept per game in
// localStorage, on this browser only (the others still see them).

import { t } from "./i18n.js";
import { html } from "./svg.js";

export const MAX_CHAT_CHARS = 500;
const PHRASES = ["gg", "wp", "sorry", "thanks"];
// Phones: collapsed at first, a button over the board's corner opens it.
const NARROW = "(max-width: 700px)";
const muteKey = (gameId) => `carcassonne.chat.mute.${gameId}`;

export class ChatPanel {
  /** ``send(message)`` sends on the game's socket and says whether it could. */
  constructor(gameId, send) {
    this.gameId = gameId;
    this.send = send;
    this.seats = [];
    this.you = null;
    this.lines = []; // the server's chat messages, by ``n``
    this.unread = 0;
    this.open = !window.matchMedia(NARROW).matches;
    this.muted = new Set(readMutes(gameId));
    this.element = html("section", { class: "chat hidden", "aria-label": t("chat.title") });
    this.toggle = html("button", { type: "button", class: "chat-toggle", "aria-expanded": "false",
      onclick: () => this.setOpen(!this.open) });
    this.log = html("ol", { class: "chat-log", "aria-live": "polite" });
    this.mutes = html("div", { class: "chat-mutes" });
    this.phrases = html("div", { class: "chat-phrases" });
    this.input = html("input", { type: "text", class: "chat-input", maxlength: String(2 * MAX_CHAT_CHARS),
      autocomplete: "off" });
    this.sendButton = html("button", { type: "submit" });
    this.form = html("form", { class: "chat-form", onsubmit: (e) => this.submit(e) },
      this.input, this.sendButton);
    this.body = html("div", { class: "chat-body" }, this.log, this.mutes, this.phrases, this.form);
    this.element.append(this.toggle, this.body);
    this.relabel();
  }

  /** The welcome: who the seats are, who this page is, the recent lines of its chat. */
  welcome(info, you, lines) {
    this.seats = info.seats;
    this.you = you;
    // a hotseat screen has no chat: its players sit together
    this.element.classList.toggle("hidden", you.hotseat);
    this.lines = [];
    for (const line of lines) this.add(line, false);
    this.unread = 0;
    this.relabel();
  }

  /** A line the server sent. */
  heard(line) {
    this.add(line, true);
    this.relabel();
  }

  add(line, fresh) {
    if (this.lines.some((l) => l.n === line.n)) return; // heard again after a reconnect
    this.lines.push(line);
    this.lines.sort((a, b) => a.n - b.n);
    if (fresh && !this.open && !this.muted.has(line.from)) this.unread += 1;
  }

  setOpen(open) {
    this.open = open;
    if (open) this.unread = 0;
    this.relabel();
    if (open) this.input.focus();
  }

  submit(event) {
    event.preventDefault();
    const text = this.input.value.trim();
    if (!text) return;
    if (this.send({ type: "chat", text })) this.input.value = "";
  }

  toggleMute(seat) {
    if (this.muted.has(seat)) this.muted.delete(seat);
    else this.muted.add(seat);
    try {
      localStorage.setItem(muteKey(this.gameId), JSON.stringify([...this.muted]));
    } catch { /* private mode: muted for this page only */ }
    this.relabel();
  }

  /** Everything drawn again (a new line, the language changed). */
  relabel() {
    const spectator = this.you ? this.you.spectator : false;
    const title = t(spectator ? "chat.spectators_title" : "chat.title");
    this.element.setAttribute("aria-label", title);
    this.element.classList.toggle("open", this.open);
    this.toggle.setAttribute("aria-expanded", String(this.open));
    this.toggle.textContent = this.unread ? t("chat.show", { count: this.unread }) : title;
    this.input.placeholder = t("chat.placeholder");
    this.input.setAttribute("aria-label", t("chat.placeholder"));
    this.sendButton.textContent = t("chat.send");
    this.phrases.replaceChildren(...PHRASES.map((id) => html("button", { type: "button",
      dataset: { phrase: id }, onclick: () => this.send({ type: "chat", phrase: id }) },
    t(`chat.phrase.${id}`))));
    const mine = new Set(this.you ? this.you.seats : []);
    const others = spectator ? [] : this.seats.filter((s) => s.kind === "human" && !mine.has(s.seat));
    this.mutes.replaceChildren(...others.map((s) => html("button", { type: "button",
      class: "chat-mute", "aria-pressed": String(this.muted.has(s.seat)), dataset: { seat: s.seat },
      onclick: () => this.toggleMute(s.seat) },
    t(this.muted.has(s.seat) ? "chat.unmute" : "chat.mute", { name: s.name }))));
    const shown = this.lines.filter((l) => l.from === null || !this.muted.has(l.from));
    this.log.replaceChildren(...shown.map(lineNode));
    this.log.scrollTop = this.log.scrollHeight;
  }
}

/** The seats' chat of a finished game, for its replay's sidebar (null when nobody talked). */
export function chatLogPanel(lines) {
  if (!lines || !lines.length) return null;
  return html("section", { class: "panel", "data-replay-chat": "" },
    html("h3", {}, t("chat.title")),
    html("ol", { class: "chat-log" }, lines.map(lineNode)));
}

/** One line, as text only: a name, and what was said or the phrase in the reader's language. */
function lineNode(line) {
  const name = line.from === null ? t("chat.spectator") : line.name;
  const said = line.phrase ? t(`chat.phrase.${line.phrase}`) : line.text;
  return html("li", { class: "chat-line", dataset: { n: line.n } },
    html("b", {}, name), ": ",
    html("span", { class: "chat-text" }, said));
}

function readMutes(gameId) {
  try {
    const kept = JSON.parse(localStorage.getItem(muteKey(gameId)) || "[]");
    return Array.isArray(kept) ? kept.filter(Number.isInteger) : [];
  } catch {
    return [];
  }
}
