// Play again: the end card's way to the next game with the same players (docs/web.md,
// "Rematch"). The server makes it once, whoever asks first, with the seats rotated; every
// player's token opens their seat there, so following it is opening #/play/<new id>/<the same
// token>. The one who asked goes there at once; the others are offered it ("Ana wants to play
// again — Join"): one click each.

import { t } from "./i18n.js";
import { html } from "./svg.js";
import { seatName } from "./panels.js";

export class Rematch {
  /** `send` sends a websocket message (false when offline); `changed` draws the end card again. */
  constructor(token, { send, changed, offline }) {
    this.token = token;
    this.send = send;
    this.changed = changed;
    this.offline = offline;
    this.game = null; // the next game's id, once made
    this.by = null; // the seat (of this game) that asked for it, when told
    this.asked = false; // this page asked: it follows the offer at once
  }

  /** A state (drawn by the caller): the next game, if it was made before this page came. */
  stated(m) {
    if (m.rematch && !this.game) this.game = m.rematch;
  }

  /** The server's `rematch` message: the next game is made. */
  offered(m) {
    this.game = m.game;
    if (m.by !== null && m.by !== undefined) this.by = m.by;
    if (this.asked) this.follow();
    else this.changed();
  }

  /** An error came while asking (a cap, a rate limit): the button may be pressed again. */
  refused() {
    if (this.asked && !this.game) {
      this.asked = false;
      this.changed();
    }
  }

  ask() {
    if (this.game) return this.follow();
    if (!this.send({ type: "rematch" })) return this.offline();
    this.asked = true;
    this.changed();
  }

  follow() {
    location.hash = this.token ? `#/play/${this.game}/${this.token}` : `#/watch/${this.game}`;
  }

  /** The end card's buttons for the next game: play again, join the one another made, or
   * (a spectator) watch it. */
  actions(seats, you) {
    if (!you.seats.length) {
      return this.game ? [html("button", { onclick: () => this.follow(), "data-end": "rematch-watch" }, `▶ ${t("summary.rematch_watch")}`)] : [];
    }
    if (!this.game) {
      const label = this.asked ? t("summary.rematch_asking") : `↻ ${t("summary.play_again")}`;
      return [html("button", { class: "primary", disabled: this.asked, onclick: () => this.ask(), "data-end": "rematch" }, label)];
    }
    const other = this.by !== null && !you.seats.includes(this.by);
    const text = other ? t("summary.rematch_offer", { who: seatName(seats, this.by) }) : t("summary.rematch_ready");
    return [html("div", { class: "rematch-offer", role: "status" },
      html("span", {}, text),
      html("button", { class: "primary", onclick: () => this.follow(), "data-end": "rematch-join" }, t("summary.rematch_join")))];
  }
}
