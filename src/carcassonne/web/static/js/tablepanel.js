// The table panel of a seat's page: the turn alert's settings (sound, notifications) and what
// the server says this seat may do about the table now (`may` in each state): resign, take its
// seat back from the stand-in, or hand an absent seat to the stand-in.

import { t } from "./i18n.js";
import { html } from "./svg.js";
import { muted, setMuted, mayAskForNotifications, askForNotifications } from "./turnalert.js";

/**
 * What the seat is asked to do about the table now, from the state's `may` ({resign, return,
 * stand_in: [seats]}): take its seat back from the stand-in, or hand an absent seat (`why(seat)`
 * says why: away, out of time) to it. Null when there is nothing to do. `onChange(change, seat)`
 * sends the change.
 */
export function seatActionsPanel({ may, seats, seatName, why, onChange }) {
  const actions = [];
  if (may && may.return) {
    actions.push(html("button", { class: "primary", "data-seat-change": "return", onclick: () => onChange("return") }, t("table.take_back")));
  }
  for (const seat of (may && may.stand_in) || []) {
    actions.push(html("button", { "data-seat-change": "stand-in", "data-seat": seat, onclick: () => onChange("stand-in", seat) },
      t("table.stand_in", { who: seatName(seats, seat), why: why(seat) })));
  }
  if (!actions.length) return null;
  return html("section", { class: "panel table-panel", "data-seat-actions": "", "aria-label": t("table.title") },
    html("div", { class: "row table-actions" }, actions));
}

/**
 * The table panel: resigning (when `may.resign`, after a confirmation) and the turn alert's
 * settings (the sound; notifications in a `turnBased` game). `rerender()` draws it again after
 * a setting changed. On a shared (hotseat) screen `who` names the seat that would resign: the
 * one to move.
 */
export function tablePanel({ may, onChange, rerender, turnBased, who = null }) {
  const settings = [html("button", {
    class: "sound-toggle", "data-sound": muted() ? "off" : "on", "aria-pressed": String(!muted()),
    onclick: () => {
      setMuted(!muted());
      rerender();
    },
  }, muted() ? `♪ ${t("table.sound_off")}` : `♪ ${t("table.sound_on")}`)];
  if (turnBased && mayAskForNotifications()) {
    settings.push(html("button", {
      "data-notify": "",
      onclick: async () => {
        await askForNotifications();
        rerender();
      },
    }, t("table.notify")));
  }
  if (may && may.resign) {
    settings.push(html("button", { class: "danger", "data-seat-change": "resign", onclick: () => confirmResign(who, () => onChange("resign")) },
      who ? t("table.resign_named", { who }) : t("table.resign")));
  }
  return html("section", { class: "panel table-panel", "data-table-panel": "", "aria-label": t("table.title") },
    html("h3", {}, t("table.title")),
    html("div", { class: "row table-settings" }, settings));
}

/** Resigning cannot be undone: a dialog asks first (Esc or "Keep playing" leaves it). */
function confirmResign(who, resign) {
  const dialog = html("dialog", { class: "confirm", "data-confirm": "resign", "aria-labelledby": "resign-title" },
    html("h3", { id: "resign-title" }, who ? t("table.resign_title_named", { who }) : t("table.resign_title")),
    html("p", {}, t("table.resign_text")),
    html("div", { class: "row" },
      html("button", { class: "danger", "data-confirm-yes": "", onclick: () => { dialog.close(); resign(); } }, t("table.resign_yes")),
      html("button", { "data-confirm-no": "", autofocus: true, onclick: () => dialog.close() }, t("table.resign_no"))));
  dialog.addEventListener("close", () => dialog.remove());
  document.body.appendChild(dialog);
  dialog.showModal();
}
