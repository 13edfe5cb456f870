// The lobby's table settings: the time control (none, real-time, turn-based) and what happens to
// an absent or timed-out seat (the stand-in bot, or a loss), and whether the page shows aids. Sent as `table` when the game is
// created (docs/web.md); the server checks every value again.

import { t } from "./i18n.js";
import { html } from "./svg.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// The presets of carcassonne.clocks.PRESETS, by the names the catalogues word ("clock.preset.5+20").
// Real-time: initial time + an increment per own turn. Turn-based: a bank of days, one day more
// per move, never above the bank.
export const PRESETS = {
  "real-time": {
    "5+20": { initial_ms: 5 * MINUTE, increment_ms: 20_000 },
    "10+30": { initial_ms: 10 * MINUTE, increment_ms: 30_000 },
    "20+60": { initial_ms: 20 * MINUTE, increment_ms: 60_000 },
  },
  "turn-based": {
    "1d": { initial_ms: DAY, increment_ms: DAY },
    "3d": { initial_ms: 3 * DAY, increment_ms: DAY },
    "7d": { initial_ms: 7 * DAY, increment_ms: DAY },
  },
};
const KINDS = ["none", "real-time", "turn-based"];
// A custom real-time control's bounds (clocks.TimeControl.from_json checks the same).
const CUSTOM = { minutes: [1, 180], seconds: [0, 600] };
const STAND_IN_BOTS = ["greedy", "random"];
const ON_TIMEOUT = ["stand-in", "lose"];

/** The lobby's choice before the player changes anything: the server's defaults. */
export function defaultTable() {
  return { kind: "none", preset: { "real-time": "5+20", "turn-based": "3d" }, minutes: 10, seconds: 5, standIn: "greedy", onTimeout: "stand-in", aids: true };
}

/** The custom real-time control typed in, or null when a field is out of its bounds. */
function customControl(choice) {
  const inBounds = (value, [low, high]) => Number.isInteger(value) && value >= low && value <= high;
  if (!inBounds(choice.minutes, CUSTOM.minutes) || !inBounds(choice.seconds, CUSTOM.seconds)) return null;
  return { initial_ms: choice.minutes * MINUTE, increment_ms: choice.seconds * 1000 };
}

/**
 * The `table` of the create request, or null when every setting is the default (the request
 * then says nothing of it); `{error}` when the custom time is out of bounds (said in the lobby).
 */
export function tableRequest(choice) {
  let clock = { kind: "none" };
  if (choice.kind !== "none") {
    const preset = choice.preset[choice.kind];
    const control = preset === "custom" ? customControl(choice) : PRESETS[choice.kind][preset];
    if (!control) return { error: t("clock.custom_bounds", { min: CUSTOM.minutes[1], inc: CUSTOM.seconds[1] }) };
    clock = { kind: choice.kind, ...control };
  }
  // Without a clock nobody times out: the choice, hidden then, is not sent.
  const table = { clock, stand_in: choice.standIn, on_timeout: clock.kind === "none" ? "stand-in" : choice.onTimeout, aids: choice.aids };
  const plain = clock.kind === "none" && table.stand_in === "greedy" && table.on_timeout === "stand-in" && table.aids;
  return { table: plain ? null : table };
}

function select(name, label, values, current, wording, onChange) {
  return html("label", { class: "table-setting" }, html("span", {}, label), " ",
    html("select", { name, onchange: (e) => onChange(e.target.value) },
      values.map((value) => html("option", { value, selected: value === current }, wording(value)))));
}

function numberField(name, label, value, [min, max], onChange) {
  return html("label", { class: "table-setting" }, html("span", {}, label), " ",
    html("input", { type: "number", name, min, max, step: 1, value, inputmode: "numeric", oninput: (e) => onChange(Number(e.target.value)) }));
}

/** The table settings' part of the lobby's form; `render()` draws the form again after a change
 * that shows or hides a field. */
export function tableSettings(choice, render) {
  const fields = [select("clock-kind", t("clock.kind"), KINDS, choice.kind, (k) => t(`clock.kind.${k}`), (k) => { choice.kind = k; render(); })];
  if (choice.kind !== "none") {
    const presets = [...Object.keys(PRESETS[choice.kind]), ...(choice.kind === "real-time" ? ["custom"] : [])];
    fields.push(select("clock-preset", t("clock.preset"), presets, choice.preset[choice.kind],
      (p) => t(`clock.preset.${p}`), (p) => { choice.preset[choice.kind] = p; render(); }));
    if (choice.preset[choice.kind] === "custom") {
      fields.push(
        numberField("clock-minutes", t("clock.custom_minutes"), choice.minutes, CUSTOM.minutes, (v) => { choice.minutes = v; }),
        numberField("clock-seconds", t("clock.custom_seconds"), choice.seconds, CUSTOM.seconds, (v) => { choice.seconds = v; }));
    }
  }
  const rules = [select("stand-in", t("clock.stand_in"), STAND_IN_BOTS, choice.standIn, (b) => t(`bot.${b}`), (b) => { choice.standIn = b; })];
  if (choice.kind !== "none") {
    rules.push(select("on-timeout", t("clock.on_timeout"), ON_TIMEOUT, choice.onTimeout, (o) => t(`clock.on_timeout.${o}`), (o) => { choice.onTimeout = o; }));
  }
  // "No aids" for tournament-minded players: the page then shows no remaining tiles nor holes.
  rules.push(select("aids", t("aids.setting"), ["on", "off"], choice.aids ? "on" : "off", (a) => t(`aids.setting.${a}`), (a) => { choice.aids = a === "on"; }));
  return html("div", { class: "table-settings-form", "data-table-settings": "" },
    html("div", { class: "row" }, fields),
    html("div", { class: "row" }, rules),
    html("p", { class: "muted" }, t(`clock.kind.${choice.kind}.hint`)));
}
