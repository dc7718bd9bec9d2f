// The clock screen (#/t/<id>/clock): what a room projects on the wall for a whole event. The level, its blinds and
// the time left in big digits (on a break: BREAK, its time and the level after it), the director's latest
// announcement, the time of day and the projected finish, then the next level, the time to the break, the field,
// the average stack, the prize pool and the next pay jump, the levels to come and the top prizes. It follows the
// board feed as an observer (no seat, no token) and ticks once a second.

import { chips, el, money, ordinal } from "./dom.js";
import { aheadOfPlan, clockTime, dealOpen, minutes, secondsLeft } from "./lobby.js";

const ANNOUNCEMENT_SHOWN = 30 * 60; // seconds an announcement stays on the screen
const UPCOMING = 3; // levels to come listed
const PRIZE_BANDS = 10; // places paid alike are one band ("10th-12th $150.00"); so many bands listed
import { Feed, Socket } from "./net.js";
import { chime, prefs, setPref } from "./prefs.js";

const blinds = (level) =>
  `${chips(level.small_blind)}/${chips(level.big_blind)}` +
  (level.ante ? ` · ante ${chips(level.ante)}${level.bb_ante ? " (BB)" : ""}` : "");

// The next pay jump from the prize table (prizes by place, in cents) and the field: before the money how many are
// still to go out; in it, the next place that pays more than the place a bust takes now.
export function nextPayJump(prizes, playersLeft) {
  const paid = prizes.filter((cents) => cents > 0).length;
  if (!paid || playersLeft <= 1) return null;
  if (playersLeft > paid) {
    const toGo = playersLeft - paid;
    return { text: `${toGo} more out`, more: `${paid} paid · min-cash ${money(prizes[paid - 1])}`, place: paid };
  }
  const now = prizes[playersLeft - 1];
  for (let place = playersLeft - 1; place >= 1; place--) {
    if (prizes[place - 1] > now) return { text: `${money(prizes[place - 1])} at ${place} left`, more: "", place };
  }
  return null;
}

// The paid places as the rooms list them: one line per amount, the places that pay it together.
export function prizeBands(prizes) {
  const bands = [];
  prizes.forEach((cents, i) => {
    if (cents <= 0) return;
    const last = bands.at(-1);
    if (last && last.cents === cents) last.to = i + 1;
    else bands.push({ from: i + 1, to: i + 1, cents });
  });
  return bands.map(({ from, to, cents }) => `${ordinal(from)}${to > from ? `–${ordinal(to)}` : ""} ${money(cents)}`);
}

export class ClockPage {
  constructor(view, statusLine, { id }) {
    Object.assign(this, { view, statusLine, id });
    document.body.classList.add("clock-screen");
    this.root = el("main", { class: "clock-face", id: "clock", "aria-live": "off" });
    // Built once, outside the face drawn anew each second: the tick survives.
    const sound = el("input", { type: "checkbox", id: "clock-sound", checked: prefs().clockSound });
    sound.onchange = () => {
      setPref("clockSound", sound.checked);
      chime(); // heard at once: the room knows what it will hear, and the browser lets the page sound from now on
    };
    this.soundBox = el("label", { class: "clock-sound" }, sound, " Sound at level changes and breaks");
    view.replaceChildren(this.root, this.soundBox);
    this.board = new Feed("board", {
      resync: () => this.socket.send({ type: "follow" }),
      onChange: () => this.draw(),
    });
    this.socket = new Socket(`/ws/tournaments/${id}?`, {
      onMessage: (m) => this.board.receive(m),
      onOpen: () => this.socket.send({ type: "follow" }),
      onStatus: (s) => {
        this.statusLine.textContent = s === "open" ? "" : "Connection lost: reconnecting…";
      },
    });
    this.ticker = setInterval(() => this.draw(), 1000);
  }

  stop() {
    this.socket.stop();
    clearInterval(this.ticker);
    document.body.classList.remove("clock-screen");
  }

  draw() {
    const t = this.board.rows.get("summary");
    const info = this.board.rows.get("info");
    if (!t || !info) return;
    const running = t.status === "running";
    const levelLeft = secondsLeft(t, t.level_ends_at, t.level_ends_in);
    const breakLeft = running ? secondsLeft(t, t.break_ends_at, t.on_break_for) : null;
    const toBreak = secondsLeft(t, t.break_starts_at, t.break_starts_in);
    const onBreak = breakLeft !== null;
    // Levels count from 1: the one after this is at index t.level; on a break, the one its end starts.
    const after = onBreak && t.level_after_break ? t.level_after_break : t.level + 1;
    const next = info.levels[after - 1];
    const jump = running ? nextPayJump(info.payouts_cents, t.players_left) : null;
    const plan = this.board.rows.get("plan");
    const big = t.big_blind || 1;
    const figure = (name, label, value, more = "") =>
      el(
        "div",
        { class: `figure ${name}` },
        el("span", { class: "label" }, label),
        el("b", { id: `clock-${name}` }, value),
        more ? el("span", { class: "more", id: `clock-${name}-more` }, more) : null,
      );
    const status = !running
      ? t.status === "finished" && t.winner
        ? `Finished: ${t.winner} wins${t.ended_in_deal ? " (a deal)" : ""}`
        : t.status[0].toUpperCase() + t.status.slice(1)
      : t.paused
        ? "Paused"
        : dealOpen(t)
          ? "Paused: the players are deciding on a deal"
          : t.hand_for_hand
          ? "Hand-for-hand"
          : "";
    const said = (this.board.rows.get("announcements") || []).at(-1);
    const fresh = said && Date.now() / 1000 - said.at < ANNOUNCEMENT_SHOWN;
    const level = onBreak
      ? [
          el("div", { class: "level break", id: "clock-level" }, "BREAK"),
          el("div", { class: "time", id: "clock-time" }, minutes(breakLeft)),
          el(
            "div",
            { class: "blinds after-break", id: "clock-after-break" },
            next ? `Then level ${after}: ${blinds(next)}` : "",
          ),
        ]
      : [
          el("div", { class: "level", id: "clock-level" }, `Level ${t.level}`),
          el("div", { class: "blinds", id: "clock-blinds" }, `${chips(t.small_blind)}/${chips(t.big_blind)}`),
          el(
            "div",
            { class: "ante", id: "clock-ante" },
            t.ante ? `Ante ${chips(t.ante)}${t.bb_ante ? " (big blind ante)" : ""}` : "No ante",
          ),
          el("div", { class: "time", id: "clock-time" }, levelLeft === null ? "—" : minutes(levelLeft)),
        ];
    const length = (level) => (level.minutes === null ? `${level.hands} hands` : `${level.minutes} min`);
    const upcoming = info.levels
      .slice(after - 1, after - 1 + UPCOMING)
      .map((level, i) => el("li", {}, `Level ${after + i}: ${blinds(level)} · ${length(level)}`));
    const bands = prizeBands(info.payouts_cents);
    const prizes = bands.slice(0, PRIZE_BANDS);
    // A level's change, a break's start and its end sound (when ticked); the first drawing only learns the moment.
    const moment = running ? `${onBreak ? "break" : "level"}:${t.level}` : null;
    if (this.moment && moment && moment !== this.moment) chime(!onBreak);
    this.moment = moment;
    // No announcement is no node: the DOM's replaceChildren writes a null as the text "null".
    const parts = [
      el(
        "div",
        { class: "clock-head" },
        el("h1", { class: "name" }, t.name),
        el("span", { class: "now", id: "clock-now", "aria-label": "time of day" }, clockTime(Date.now() / 1000)),
      ),
      fresh ? el("div", { class: "announcement", id: "clock-announcement", role: "status" }, said.text) : null,
      ...level,
      el("div", { class: "state", id: "clock-state" }, status),
      el(
        "div",
        { class: "figures" },
        onBreak ? null : figure("next", "Next level", next ? blinds(next) : "—"),
        onBreak ? null : figure("break", "Next break", toBreak === null ? "—" : minutes(toBreak)),
        figure("players", "Players left", `${chips(t.players_left)} / ${chips(t.entries)}`),
        figure(
          "average",
          "Average stack",
          t.average_stack === null ? "—" : `${chips(t.average_stack)} (${(t.average_stack / big).toFixed(1)} BB)`,
        ),
        figure("pool", "Prize pool", money(t.prize_pool_cents)),
        figure("jump", "Next pay jump", jump ? jump.text : "—", jump ? jump.more : ""),
        figure(
          "finish",
          "Projected finish",
          running && plan && plan.projected_end_at ? clockTime(plan.projected_end_at) : "—",
          running && plan
            ? `the plan of ${plan.runs} simulation${plan.runs === 1 ? "" : "s"}${aheadOfPlan(plan, " · ")}`
            : "",
        ),
      ),
      el(
        "div",
        { class: "lists" },
        upcoming.length
          ? el(
              "div",
              {},
              el("span", { class: "label" }, "Levels to come"),
              el("ol", { id: "clock-upcoming" }, upcoming),
            )
          : null,
        prizes.length
          ? el(
              "div",
              {},
              el("span", { class: "label" }, "Prizes"),
              el(
                "ol",
                { id: "clock-prizes" },
                prizes.map((band) => el("li", {}, band)),
                bands.length > prizes.length ? el("li", {}, `${bands.length - prizes.length} more`) : null,
              ),
            )
          : null,
      ),
    ];
    this.root.replaceChildren(...parts.filter((part) => part !== null));
    this.statusLine.textContent = `${t.name}: clock`;
  }
}
