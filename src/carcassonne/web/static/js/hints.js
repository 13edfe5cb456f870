// Hints: the expert's best moves for the seat to move, on request, and who used one.
//
// The server computes a hint from what the asking seat knows only (about a second of a worker's
// time) and answers once per turn; when several people play, every page shows who used a hint.

import { t } from "./i18n.js";
import { html } from "./svg.js";
import { seatName } from "./panels.js";

/**
 * The hint panel of the seat to move: a button, then the suggestions best first.
 * `hint`: null (not asked), { pending: true }, or the server's { moves: [{action, expected_points}] }.
 * `onAsk()` asks; `onPoint(action)` is called when a suggestion is pointed at (null when left).
 */
export function hintPanel(hint, label, { onAsk, onPoint }) {
  const body = [];
  if (!hint) {
    body.push(html("button", { "data-hint": "ask", onclick: onAsk }, `💡 ${t("hint.button")}`));
  } else if (hint.pending) {
    body.push(html("p", { class: "muted", role: "status" }, t("hint.thinking")));
  } else {
    body.push(html("ol", { class: "hint-moves" }, hint.moves.map((m) => html("li", {
      tabindex: 0,
      "data-hint-move": "",
      onmouseenter: () => onPoint(m.action),
      onfocus: () => onPoint(m.action),
      onmouseleave: () => onPoint(null),
      onblur: () => onPoint(null),
    }, `${capitalised(label(m.action))} — ${t("hint.lead", { points: signed(m.expected_points) })}`))));
  }
  return html("section", { class: "panel hint-panel", "aria-label": t("hint.title") },
    html("h3", {}, t("hint.title")), ...body);
}

/** "Ana used a hint." for each hint used in this game (shown when several people play). */
export function hintNotes(used, seats) {
  if (!used || !used.length) return null;
  const last = used.slice(-3);
  return html("section", { class: "panel hint-notes", "aria-label": t("hint.title") },
    ...last.map((u) => html("p", { "data-hint-used": u.seat }, t("hint.used", { who: seatName(seats, u.seat) }))));
}

function capitalised(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function signed(x) {
  return x > 0 ? `+${x}` : `${x}`;
}
