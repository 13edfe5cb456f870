// "It is your turn", said where a player looking at another tab or window notices it: the tab's
// title and icon, a short chime (unless muted: the choice is kept in localStorage) and, in
// turn-based games where a turn may come hours later, a browser notification while the tab is
// hidden (only once the player allowed it, asked on a click of theirs, never required).

import { t } from "./i18n.js";
import { SEAT_COLOURS } from "./svg.js";

const MUTE_KEY = "carcassonne.muted";
const ASKED_KEY = "carcassonne.notifications-asked";
const TITLE = "Carcassonne";

/** Whether the player turned the page's sounds off (in this browser, for every game). */
export function muted() {
  return localStorage.getItem(MUTE_KEY) === "1";
}

export function setMuted(on) {
  if (on) localStorage.setItem(MUTE_KEY, "1");
  else localStorage.removeItem(MUTE_KEY);
}

// ------------------------------------------------------------------ sounds (no audio file)

let audio = null;

/** The page's audio context. A browser keeps a context silent until the player clicked or typed
 * something: each click or key resumes it, so a chime for a turn that comes while the player
 * looks elsewhere is heard once they have touched the page at all. */
function audioContext() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  if (!audio) audio = new Context();
  return audio;
}

for (const gesture of ["pointerdown", "keydown"]) {
  document.addEventListener(gesture, () => {
    if (!muted() && audioContext()) audio.resume();
  }, { capture: true });
}

function tone(ctx, { frequency, at, length, volume, type = "sine" }) {
  const oscillator = ctx.createOscillator();
  const gain = ctx.createGain();
  oscillator.type = type;
  oscillator.frequency.value = frequency;
  // A quick rise and an exponential fall: a soft bell, not a click.
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(volume, at + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
  oscillator.connect(gain).connect(ctx.destination);
  oscillator.start(at);
  oscillator.stop(at + length + 0.02);
}

/** Two rising notes: the turn has come. */
export function playChime() {
  const ctx = muted() ? null : audioContext();
  if (!ctx) return;
  const now = ctx.currentTime;
  tone(ctx, { frequency: 660, at: now, length: 0.18, volume: 0.2 });
  tone(ctx, { frequency: 880, at: now + 0.14, length: 0.3, volume: 0.2 });
}

/** A short dry tick: the clock is running low. */
export function playTick() {
  const ctx = muted() ? null : audioContext();
  if (!ctx) return;
  tone(ctx, { frequency: 1400, at: ctx.currentTime, length: 0.04, volume: 0.08, type: "square" });
}

// ------------------------------------------------------------------ the tab's icon

/** The tab's icon, drawn here: a tile with a city and a road; on the player's turn a dot of
 * their seat's colour in its corner. */
function faviconUrl(colour = null) {
  const dot = colour
    ? `<circle cx="23" cy="23" r="8" fill="${SEAT_COLOURS[colour] || "#d55e00"}" stroke="#1d1a14" stroke-width="2.5"/>`
    : "";
  const icon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">`
    + `<rect x="1.5" y="1.5" width="29" height="29" rx="4" fill="#7fae4e" stroke="#4a3a24" stroke-width="2"/>`
    + `<path d="M2.5 2.5 H29.5 L22 12 H10 Z" fill="#c9a66b" stroke="#4a3a24" stroke-width="1.5"/>`
    + `<path d="M16 30 V17" stroke="#f3ead7" stroke-width="4"/>${dot}</svg>`;
  return `data:image/svg+xml,${encodeURIComponent(icon)}`;
}

export function setFavicon(colour = null) {
  let link = document.querySelector("link[rel=icon]");
  if (!link) {
    link = document.createElement("link");
    link.rel = "icon";
    document.head.appendChild(link);
  }
  link.type = "image/svg+xml";
  link.href = faviconUrl(colour);
}

// ------------------------------------------------------------------ notifications

const notifications = () => ("Notification" in window ? window.Notification : null);

/** Whether to offer the player browser notifications: the browser has them, the player was
 * never asked (a refusal, or a question dismissed, is not asked again). */
export function mayAskForNotifications() {
  const N = notifications();
  return !!N && N.permission === "default" && !localStorage.getItem(ASKED_KEY);
}

/** Ask (from the player's own click: browsers refuse the question otherwise). */
export async function askForNotifications() {
  const N = notifications();
  localStorage.setItem(ASKED_KEY, "1");
  if (!N) return "denied";
  try {
    return await N.requestPermission();
  } catch {
    return "denied";
  }
}

function notify(text, tag) {
  const N = notifications();
  if (!N || N.permission !== "granted") return;
  try {
    const note = new N(t("alert.notification_title"), { body: text, tag });
    note.onclick = () => {
      window.focus();
      note.close();
    };
  } catch {
    // Some browsers allow notifications only from a service worker: the title and icon still say it.
  }
}

// ------------------------------------------------------------------ the alert

/**
 * The turn alert of one game screen: `update` is told after every state whether the player is to
 * move; the turn coming (not every state of it, nor the page opening on it) chimes and, when
 * asked, notifies.
 */
export class TurnAlert {
  constructor(gameId) {
    this.gameId = gameId;
    this.on = false;
    this.seen = false;
    setFavicon();
  }

  /** `mine`: the player is to move now; `colour` their seat's; `text` what the banner says;
   * `turnBased`: the game's clock counts days (a notification is worth it). */
  update(mine, { colour = null, text = "", turnBased = false } = {}) {
    // The page just opened on the player's turn: they are looking at it, nothing to ring.
    const opening = !this.seen;
    this.seen = true;
    if (mine === this.on) return;
    this.on = mine;
    document.title = mine ? t("alert.title", { title: TITLE }) : TITLE;
    setFavicon(mine ? colour : null);
    if (!mine || opening) return;
    playChime();
    if (turnBased && document.hidden) notify(text, `carcassonne-${this.gameId}`);
  }

  /** The language changed: the title says it in the new one. */
  relabel() {
    if (this.on) document.title = t("alert.title", { title: TITLE });
  }

  destroy() {
    this.update(false);
  }
}
