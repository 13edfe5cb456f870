// The seats' clocks as the page shows them: the server is their authority (each state carries
// `clocks`: every seat's remaining time, the running seat and its deadline, and the server's
// time when it was sent); the page only counts down the running one between two states. It
// counts on the server's time, from an offset to its own monotonic clock (performance.now):
// a computer whose clock is wrong, or is set while the game goes on, shows the same times.

import { t } from "./i18n.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Low time: the last 30 seconds of a real-time clock, the last hour of a turn-based one. */
const LOW = { "real-time": 30 * SECOND, "turn-based": HOUR };

/** `ms` as a clock says it: "4:05" or "1:02:05" real-time; "2 d 5 h", "5 h 12 min" or, in the
 * last hour, "59:30" turn-based. Rounded up: "0:00" only once the time is all gone. */
function clockText(ms, kind) {
  const whole = Math.max(0, Math.ceil(ms / SECOND)) * SECOND;
  if (kind === "turn-based" && whole >= DAY) {
    return t("clock.days", { d: Math.floor(whole / DAY), h: Math.floor((whole % DAY) / HOUR) });
  }
  if (kind === "turn-based" && whole >= HOUR) {
    return t("clock.hours", { h: Math.floor(whole / HOUR), m: Math.floor((whole % HOUR) / MINUTE) });
  }
  const h = Math.floor(whole / HOUR);
  const m = Math.floor((whole % HOUR) / MINUTE);
  const s = String(Math.floor((whole % MINUTE) / SECOND)).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

function isLow(ms, kind) {
  return ms <= (LOW[kind] ?? 0);
}

/**
 * The clocks of one game screen. `set` takes each state's `clocks`; `remaining(seat)` is the
 * seat's time now. The offset kept is the largest seen (server time − own time at arrival):
 * every state reaches the page some time after the server sent it, so the largest is the one
 * that spent the least on its way.
 */
export class SeatClocks {
  constructor(kind) {
    this.kind = kind;
    this.clocks = null;
    this.offset = null;
  }

  set(clocks) {
    this.clocks = clocks || null;
    if (!this.clocks) return;
    const sample = this.clocks.server_now_ms - performance.now();
    this.offset = this.offset === null ? sample : Math.max(this.offset, sample);
  }

  serverNow() {
    return performance.now() + this.offset;
  }

  get running() {
    return this.clocks ? this.clocks.running : null;
  }

  remaining(seat) {
    if (!this.clocks) return null;
    const { remaining_ms: left, running, deadline_ms: deadline } = this.clocks;
    if (seat === running && deadline !== null && deadline !== undefined) return Math.max(0, deadline - this.serverNow());
    return left[seat];
  }

  text(seat) {
    const ms = this.remaining(seat);
    return ms === null || ms === undefined ? "" : clockText(ms, this.kind);
  }

  low(seat) {
    const ms = this.remaining(seat);
    return ms !== null && ms !== undefined && isLow(ms, this.kind);
  }
}
