// The lobby: every tournament, live from the server's lobby feed, with its format badges, filters and sorting;
// registration; and, with the admin token saved, the admin's controls and the form that creates a tournament.

import { api, chips, el, money } from "./dom.js";
import { Feed, Socket } from "./net.js";
import { adminToken, moreSeats, mySeat, saveMore, saveSeat, forgetSeat } from "./seats.js";

const DEFAULT_DEFINITION = {
  name: "Friday freezeout",
  seats_per_table: 6,
  starting_stack: 3000,
  buy_in_cents: 500,
  fee_cents: 50,
  min_players: 2,
  max_players: 60,
  action_seconds: 15,
  time_bank_seconds: 30,
  levels: [
    { small_blind: 10, big_blind: 20, minutes: 5 },
    { small_blind: 20, big_blind: 40, minutes: 5 },
    { small_blind: 40, big_blind: 80, ante: 80, bb_ante: true, minutes: 5 },
  ],
  // The prize table follows the entries (docs/config.md): 15% of the field paid, a min-cash of 1.5x the buy-in.
  payout_rule: { paid_percent: 15, min_cash_multiple: 1.5 },
};
const STATUS_ORDER = { running: 0, register: 1, waiting: 2, finished: 3, cancelled: 4 };

export const clock = (epochSeconds) =>
  new Date(epochSeconds * 1000).toLocaleString([], { dateStyle: "short", timeStyle: "short" });
export const minutes = (seconds) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, "0")}`;

// A summary's running clock in seconds left. The feed gives a moment (seconds since the epoch) that the page counts
// down to; while the clock stands still (the tournament paused, or the level's while a deal is open) the seconds.
export function secondsLeft(t, at, standing) {
  const given = (value) => value !== null && value !== undefined;
  if (t.paused || (!given(at) && given(standing))) return given(standing) ? standing : null;
  return given(at) ? Math.max(0, at - Date.now() / 1000) : null;
}

// How far the projected end is before (ahead of) or after the plan's, in whole minutes ("12 min ahead of the plan"),
// after `before`; nothing before the projection or within a minute.
export function aheadOfPlan(plan, before = "") {
  if (plan.ahead === null || plan.ahead === undefined) return "";
  const minutesOff = Math.round(Math.abs(plan.ahead) / 60);
  if (!minutesOff) return `${before}on the plan`;
  return `${before}${minutesOff} min ${plan.ahead > 0 ? "ahead of" : "behind"} the plan`;
}

// Whether the players are deciding on a deal: play and the level's clock wait (rules.md H.36).
export const dealOpen = (t) => Boolean(t.deal && t.deal.amounts);

// A moment (seconds since the epoch) as the time of day, to the minute: "21:45" or "9:45 PM" as the reader's locale
// writes it.
export const clockTime = (seconds) =>
  new Date(seconds * 1000).toLocaleTimeString([], { hour: "numeric", minute: "2-digit" });

// Hours as a clock shows them: 2.5 -> "2:30".
// Runs of a comparison: three swung a duration's change by half again (+31% where eight said +19%).
const COMPARE_RUNS = 5;

export const hoursMinutes = (hours) => {
  const total = Math.round(hours * 60);
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
};

// A structure as a director reads it (POST /api/estimates, as `mttsim structure`): the levels with their
// clock time, and the field and average stack in big blinds the quick simulations expect at each.
export function scheduleTable(made) {
  const head = ["Level", "Blinds", "Ante", "Minutes", "Start BB", "Field", "Avg BB", "Clock"];
  const cell = (text) => el("td", { class: "n" }, text);
  const one = (value) => (value === null ? "" : value.toLocaleString(undefined, { maximumFractionDigits: 1 }));
  return el(
    "table",
    { class: "schedule" },
    el("caption", {}, `${made.name}: ${made.levels.length} levels, ${made.players.toLocaleString()} players expected`),
    el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { scope: "col" }, h)))),
    el(
      "tbody",
      {},
      ...made.levels.flatMap((row, index) => {
        const level = el(
          "tr",
          {},
          cell(String(row.level)),
          cell(`${chips(row.small_blind)}/${chips(row.big_blind)}`),
          cell(row.ante ? `${chips(row.ante)}${row.bb_ante ? " BB ante" : ""}` : ""),
          cell(row.minutes !== null ? String(row.minutes) : `${row.hands} hands`),
          cell(one(row.starting_bb)),
          cell(row.players_left === null ? "" : Math.round(row.players_left).toLocaleString()),
          cell(one(row.average_bb)),
          cell(row.starts_minute === null ? "" : hoursMinutes(row.starts_minute / 60)),
        );
        const next = made.levels[index + 1];
        if (!row.break_minutes || !next) return [level];
        // a break row after the level (breaks are rows in every levels table)
        const begins = next.starts_minute === null ? "" : hoursMinutes((next.starts_minute - row.break_minutes) / 60);
        const pause = el(
          "tr",
          { class: "break-row" },
          el("td", {}, "Break"),
          el("td", { colspan: 2 }),
          cell(String(row.break_minutes)),
          el("td", { colspan: 3 }),
          cell(begins),
        );
        return [level, pause];
      }),
    ),
  );
}

// The formats a tournament plays, as the lobby's badges (and its filter) name them.
export function badges(t) {
  const names = [];
  if (t.rebuys) names.push("re-buy");
  if (t.add_on) names.push("add-on");
  if (t.bounty) names.push(t.bounty.mystery ? "mystery" : t.bounty.progressive_percent ? "PKO" : "bounty");
  if (t.flight) names.push("flight");
  if (t.final) names.push("final");
  if (t.entries_per_person > 1) names.push("multi-entry");
  if (t.deals) names.push("deal");
  if (t.satellite) names.push("satellite");
  if (t.late_registration) names.push("late reg");
  if (t.reentry) names.push("re-entry");
  return names;
}

const started = (t) => t.status === "running" || t.status === "finished" || t.status === "cancelled";

// The badges a row shows: its formats, less the windows that have closed (the format filter still finds them).
export function liveBadges(t) {
  return badges(t).filter(
    (b) => !started(t) || ((b !== "late reg" || t.late_registration_open) && (b !== "re-entry" || t.reentry_open)),
  );
}

// A tournament's late registration, re-entry, re-buy and add-on terms, as the lobby and its page show them.
export function terms(t) {
  const parts = [];
  const r = t.rebuys;
  const addOnOpen = Boolean(t.add_on_open_for || t.add_on_closes_at);
  if (r && started(t) && !t.rebuy_period) parts.push(`Re-buys: over (they ran to the end of level ${r.levels})`);
  else if (r)
    parts.push(
      `Re-buys: ${money(r.price_cents + r.fee_cents)} for ${chips(r.chips)} chips, up to ${r.max_count}, ` +
        `until the end of level ${r.levels}` +
        (r.allowed_at === "starting_stack" ? " (at or below the starting stack)" : " (at zero chips)"),
    );
  const a = t.add_on;
  const addOnTerms = a && `${money(a.price_cents + a.fee_cents)} for ${chips(a.chips)} chips, once`;
  if (a && addOnOpen) parts.push(`Add-on: open now, ${addOnTerms}`);
  else if (a && started(t) && !t.rebuy_period) parts.push("Add-on: over");
  else if (a) parts.push(`Add-on: ${addOnTerms}, when the re-buys end`);
  const b = t.bounty;
  if (b && b.mystery)
    parts.push(
      `Mystery bounties: ${money(b.cents)} of each buy-in to ${b.mystery.reduce((n, e) => n + e.count, 0)} ` +
        `envelopes, drawn at random by each knockout from ${b.from_players_left} players left`,
    );
  const late = t.late_registration;
  const stack = chips((late && late.stack) || t.starting_stack);
  if (late && started(t) && !t.late_registration_open) parts.push("Late registration: closed");
  else if (late) parts.push(`Late registration until the end of level ${late.until_level}, with ${stack} chips`);
  const again = t.reentry;
  if (again && started(t) && !t.reentry_open) parts.push("Re-entry: closed");
  else if (again)
    parts.push(
      `Re-entry: ${money(t.buy_in_cents + t.fee_cents)} for ${stack} chips and a new seat, up to ${again.max_count}, ` +
        `until the end of level ${again.until_level}`,
    );
  return parts.join(" · ") || "none";
}

// Status with its time: when it starts, the time left in the level, or the break.
export function when(t) {
  const now = Date.now() / 1000;
  if (t.status === "running") {
    const late = lateRegistration(t, now);
    if (t.paused) return ["paused", late].filter(Boolean).join(", ");
    if (t.break_ends_at) return [`break, ${minutes(Math.max(0, t.break_ends_at - now))} left`, late].join(", ");
    const left = secondsLeft(t, t.level_ends_at, t.level_ends_in);
    const level =
      left !== null
        ? `level ${t.level}, ${minutes(left)} left${dealOpen(t) ? " (stands still: a deal is open)" : ""}`
        : `level ${t.level}`;
    return [level, late].filter(Boolean).join("; ");
  }
  const starts = t.starts_at ? `starts ${clock(t.starts_at)}` : "";
  if (t.status === "waiting" && t.registration_opens_at)
    return [`registration opens ${clock(t.registration_opens_at)}`, starts].filter(Boolean).join(", ");
  if (t.status === "register" && starts) return starts;
  if (t.status === "finished")
    return [t.winner && `won by ${t.winner}`, t.finished_at && `finished ${clock(t.finished_at)}`]
      .filter(Boolean)
      .join(", ");
  if (t.status === "cancelled" && t.finished_at) return `cancelled ${clock(t.finished_at)}`;
  return t.started_at ? `started ${new Date(t.started_at * 1000).toLocaleTimeString()}` : "not started";
}

// "late registration: 12:30 / until level 6" while it is open; nothing once closed.
export function lateRegistration(t, now = Date.now() / 1000) {
  if (!t.late_registration_open) return "";
  const left = t.paused
    ? t.late_registration_ends_in
    : t.late_registration_ends_at
      ? t.late_registration_ends_at - now
      : null;
  const time = left === null || left === undefined ? "" : `${minutes(Math.max(0, left))} / `;
  return `late registration: ${time}until level ${t.late_registration.until_level}`;
}

// An input of a lobby row, as the same input of the row drawn again: its tournament and its class.
const inputKey = (input) => `${input.closest("tr[data-id]")?.dataset.id} ${input.className}`;

export class Lobby {
  constructor(view, statusLine) {
    Object.assign(this, { view, statusLine });
    this.filter = { text: "", status: "", format: "" };
    this.sort = { key: "status", up: true };
    this.message = el("p", { id: "message", class: "message" });
    this.body = el("tbody");
    this.feed = new Feed("lobby", { resync: () => this.socket.send({ type: "sync" }), onChange: () => this.changed() });
    this.statuses = new Map(); // each tournament's status as last drawn: a start of one's own opens its table
    this.socket = new Socket("/ws/lobby", {
      onMessage: (m) => this.feed.receive(m),
      onStatus: (s) => {
        if (s === "lost") this.statusLine.textContent = "reconnecting…";
      },
    });
    this.ticker = setInterval(() => this.drawTimes(), 1000);
    view.replaceChildren(
      el("h2", {}, "Tournaments"),
      this.message,
      this.filters(),
      el("table", { class: "list lobby" }, el("thead", {}, this.headings()), this.body),
      this.adminPanel(),
    );
  }

  stop() {
    this.socket.stop();
    clearInterval(this.ticker);
  }

  say(text, ok = false) {
    this.message.textContent = text;
    this.message.classList.toggle("ok", ok); // what worked is not said in the colour of errors
  }

  async attempt(work) {
    try {
      const said = await work();
      this.say(typeof said === "string" ? said : "", true);
      this.draw();
    } catch (error) {
      this.say(error.message);
    }
  }

  // The feed changed: when a tournament one is registered in starts, its table opens, as the rooms' lobbies do.
  changed() {
    for (const [id, t] of this.feed.rows) {
      const before = this.statuses.get(id);
      this.statuses.set(id, t.status);
      if (before === "register" && t.status === "running" && mySeat(id)) {
        location.hash = `#/t/${id}`;
        return;
      }
    }
    this.draw();
  }

  filters() {
    const text = el("input", { id: "filter-text", placeholder: "search by name", "aria-label": "search" });
    const status = el(
      "select",
      { id: "filter-status", "aria-label": "status" },
      el("option", { value: "" }, "any status"),
      ...Object.keys(STATUS_ORDER).map((s) => el("option", { value: s }, s)),
    );
    const format = el(
      "select",
      { id: "filter-format", "aria-label": "format" },
      el("option", { value: "" }, "any format"),
      ...[
        "freezeout",
        "re-buy",
        "bounty",
        "PKO",
        "mystery",
        "satellite",
        "flight",
        "multi-entry",
        "deal",
        "late reg",
      ].map((f) => el("option", { value: f }, f)),
    );
    const update = () => {
      this.filter = { text: text.value.toLowerCase(), status: status.value, format: format.value };
      this.draw();
    };
    text.oninput = update;
    status.onchange = update;
    format.onchange = update;
    return el("p", { class: "filters" }, text, status, format);
  }

  headings() {
    const columns = [
      ["name", "Name"],
      ["status", "Status"],
      ["entries", "Players"],
      ["buy_in", "Buy-in"],
      ["pool", "Prize pool"],
      [null, "Level"],
      [null, "Formats"],
      ["terms", "Re-buys and add-on"],
      [null, ""],
      [null, ""],
    ];
    return el(
      "tr",
      {},
      columns.map(([key, label]) =>
        el(
          "th",
          key === "terms"
            ? { class: "terms" }
            : key
              ? {
                  class: "sortable",
                  "data-sort": key,
                  onclick: () => {
                    this.sort = { key, up: this.sort.key === key ? !this.sort.up : true };
                    this.draw();
                  },
                }
              : {},
          label,
        ),
      ),
    );
  }

  sorted(rows) {
    const key = {
      name: (t) => t.name.toLowerCase(),
      status: (t) => STATUS_ORDER[t.status] ?? 9,
      entries: (t) => t.entries,
      buy_in: (t) => t.buy_in_cents + t.fee_cents,
      pool: (t) => t.prize_pool_cents,
    }[this.sort.key];
    return rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * (this.sort.up ? 1 : -1));
  }

  draw() {
    const all = [...this.feed.rows.values()];
    const { text, status, format } = this.filter;
    const shown = this.sorted(
      all.filter(
        (t) =>
          (!text || t.name.toLowerCase().includes(text)) &&
          (!status || t.status === status) &&
          (!format || (format === "freezeout" ? !t.rebuys : badges(t).includes(format))),
      ),
    );
    const typed = this.typed();
    this.patch(shown.map((t) => this.row(t)));
    this.retype(typed);
    const filtered = shown.length !== all.length ? `, ${shown.length} shown` : "";
    this.statusLine.textContent = `${all.length} tournament${all.length === 1 ? "" : "s"}${filtered} · live`;
  }

  // A cell that would be drawn the same is kept, not replaced: an input someone is typing in keeps its text, its
  // focus and its selection (a number field selected to be typed over would otherwise take "3" as "320"). A kept
  // cell's buttons read the tournament's row as it is when they are pressed, not as it was drawn.
  patch(rows) {
    const drawn = new Map([...this.body.children].map((tr) => [tr.dataset.id, tr]));
    rows.forEach((fresh, index) => {
      const old = drawn.get(fresh.dataset.id);
      drawn.delete(fresh.dataset.id);
      let tr = fresh;
      if (old && old.cells.length === fresh.cells.length) {
        [...fresh.cells].forEach((cell, i) => {
          if (!old.cells[i].isEqualNode(cell)) old.replaceChild(cell, old.cells[i]);
        });
        old.dataset.status = fresh.dataset.status;
        tr = old;
      }
      if (this.body.children[index] !== tr) this.body.insertBefore(tr, this.body.children[index] ?? null);
    });
    for (const gone of drawn.values()) gone.remove();
  }

  // Every update redraws the rows that changed: what a person was typing in one (a name, a number of bots) and
  // where their cursor was are read before and put back after.
  typed() {
    const focused = document.activeElement;
    const inRow = focused instanceof HTMLInputElement && this.body.contains(focused);
    const inputs = [...this.body.querySelectorAll("tr[data-id] input")];
    return {
      values: new Map(inputs.map((input) => [inputKey(input), input.value])),
      focused: inRow ? inputKey(focused) : null,
      cursor: inRow && focused.type === "text" ? [focused.selectionStart, focused.selectionEnd] : null,
    };
  }

  retype(typed) {
    for (const input of this.body.querySelectorAll("tr[data-id] input")) {
      if (input === document.activeElement) continue; // kept as it was, selection and all
      const key = inputKey(input);
      if (typed.values.has(key)) input.value = typed.values.get(key);
      if (key !== typed.focused) continue;
      input.focus();
      if (typed.cursor && input.type === "text") input.setSelectionRange(...typed.cursor);
    }
  }

  // The row as the feed has it now: a kept cell's handler was made from the row as it was drawn.
  now(t) {
    return this.feed.rows.get(t.id) ?? t;
  }

  drawTimes() {
    for (const cell of this.body.querySelectorAll("td.times")) {
      const t = this.feed.rows.get(cell.parentElement.dataset.id);
      if (t) cell.textContent = when(t);
    }
  }

  row(t) {
    const seat = mySeat(t.id);
    const name = el("input", {
      placeholder: "your name",
      class: "name-input",
      maxlength: 40,
      "aria-label": `name for ${t.name}`,
    });
    const actions = [];
    if ((t.status === "register" || t.late_registration_open) && !seat) {
      actions.push(
        name,
        el(
          "button",
          {
            class: "register",
            onclick: () =>
              this.attempt(async () => {
                const seat = await api(`/api/tournaments/${t.id}/register`, {
                  method: "POST",
                  body: { name: name.value },
                });
                saveSeat(t.id, { ...seat, name: name.value.trim() });
                if (this.now(t).status === "running") location.hash = `#/t/${t.id}`; // late: straight to the seat
                return `Registered in ${t.name} as ${name.value.trim()}: your table opens when it starts.`;
              }),
          },
          "Register",
        ),
      );
    }
    if (seat && t.status === "register" && t.entries_per_person > 1) {
      actions.push(
        el(
          "button",
          {
            class: "another-entry",
            onclick: () =>
              this.attempt(async () => {
                saveMore(
                  t.id,
                  await api(`/api/tournaments/${t.id}/register`, {
                    method: "POST",
                    token: seat.token,
                    body: { name: seat.name || "another entry" }, // the person's name: their entries tell apart by id
                  }),
                );
              }),
          },
          "Another entry",
        ),
      );
    }
    if (seat && t.status === "register") {
      actions.push(
        el(
          "button",
          {
            class: "unregister",
            onclick: () =>
              this.attempt(async () => {
                const answer = await api(`/api/tournaments/${t.id}/unregister`, { method: "POST", token: seat.token });
                forgetSeat(t.id);
                return `Unregistered from ${t.name}: ${money(answer.refund_cents)} refunded.`;
              }),
          },
          "Unregister",
        ),
      );
    }
    // A finished or cancelled tournament takes no command: its row offers none.
    if (adminToken() && t.status !== "finished" && t.status !== "cancelled") actions.push(this.adminControls(t));
    return el(
      "tr",
      { "data-id": t.id, "data-status": t.status },
      el("td", {}, el("a", { href: `#/t/${t.id}` }, t.name)),
      el("td", { class: "status", "data-label": "Status" }, t.paused ? "paused" : t.status),
      el("td", { "data-label": "Players" }, `${t.players_left} / ${t.entries}`),
      el("td", { "data-label": "Buy-in" }, money(t.buy_in_cents + t.fee_cents)),
      el("td", { class: "pool", "data-label": "Prize pool" }, money(t.prize_pool_cents)),
      el("td", { class: "times" }, when(t)),
      el(
        "td",
        { class: "badges" },
        liveBadges(t).map((b) => el("span", { class: `badge badge-${b}` }, b)),
      ),
      el("td", { class: "terms" }, terms(t)),
      el(
        "td",
        {},
        seat
          ? el(
              "span",
              { class: "registered" },
              `Registered as ${seat.name || seat.player_id} · `,
              el("a", { class: "my-table", href: `#/t/${t.id}` }, t.status === "running" ? "your table" : "your page"),
            )
          : "",
        ...moreSeats(t.id).map((more) =>
          el("a", { class: "more-entry", href: `#/t/${t.id}/seat/${more.player_id}` }, ` and ${more.player_id}`),
        ),
      ),
      el("td", { class: "actions" }, actions),
    );
  }

  adminControls(t) {
    const count = el("input", { type: "number", value: 20, min: 1, class: "bot-count", "aria-label": "bots" });
    const mix = el("input", {
      class: "bot-mix",
      placeholder: "regular=1 (the default; or tag, pushfold, station, random)",
      "aria-label": "bot mix",
    });
    // Where re-entry is possible, how likely a bot that is out buys a new entry (0 to 100%).
    const again = t.reentry
      ? el("input", { type: "number", min: 0, max: 100, value: 50, class: "bot-reentry", "aria-label": "re-entry %" })
      : null;
    const admin = (command, body) =>
      this.attempt(async () => {
        // Destructive commands ask first, and every command says what it did.
        const { entries } = this.now(t);
        const short = command === "start" && entries < t.min_players;
        if (
          command === "cancel" &&
          !window.confirm(`Cancel ${t.name}? Refunds are paid by its policy; this cannot be undone.`)
        )
          return "";
        if (
          short &&
          !window.confirm(
            `${t.name} has ${entries} of the ${t.min_players} entries it needs: ` +
              "starting now cancels it and refunds everyone. Go on?",
          )
        )
          return "";
        const answer = await api(`/api/tournaments/${t.id}/${command}`, { method: "POST", token: adminToken(), body });
        if (command === "start")
          return answer.status === "running"
            ? `${t.name} started with ${answer.entries} players at ${answer.tables} tables.`
            : `${t.name} had too few entries (${answer.entries} of ${t.min_players}): ` +
                "it is cancelled and everyone is refunded.";
        if (command === "cancel") return `${t.name} is cancelled; the refunds are paid (its page lists them).`;
        if (command === "bots") return `${answer.players.length} bots registered in ${t.name}.`;
        return `${t.name}: ${command} done.`;
      });
    // Only what the status allows: bots while entries are taken, the clock's pause or resume while it runs.
    const running = t.status === "running";
    const takesEntries = t.status === "register" || (running && t.late_registration_open);
    const commands = running
      ? [t.paused ? "resume" : "pause", "cancel"]
      : [...(t.status === "waiting" ? ["open"] : []), "start", "cancel"];
    const addBots = el(
      "button",
      {
        class: "add-bots",
        onclick: () =>
          admin("bots", {
            count: Number(count.value),
            mix: mix.value || null,
            reentry: again ? Math.min(1, Math.max(0, Number(again.value) / 100)) : 0,
          }),
      },
      "Add bots",
    );
    const bots = takesEntries ? [count, mix, again, addBots] : [];
    return el(
      "span",
      { class: "admin" },
      ...bots,
      ...commands.map((c) =>
        el("button", { class: c, onclick: () => admin(c) }, c[0].toUpperCase() + c.slice(1)),
      ),
    );
  }

  // A whole structure from a few numbers (POST /api/structures, as `mttsim structure`), into the definition box.
  structureForm(definition) {
    const number = (id, value, label) => el("input", { id, type: "number", value, min: 1, "aria-label": label });
    const players = number("structure-players", 180, "players");
    const hours = number("structure-hours", 3, "hours");
    const stack = number("structure-stack", 10000, "starting stack");
    const choice = (id, label, options) =>
      el("select", { id, "aria-label": label }, ...options.map((o) => el("option", { value: o }, o)));
    const speed = choice("structure-speed", "speed", ["regular", "turbo", "hyper"]);
    const ante = choice("structure-ante", "ante", ["bb", "classic", "none"]);
    // The pace the levels are fitted at: hands a full table deals in an hour (docs/config.md)
    const pace = el(
      "select",
      { id: "structure-pace", "aria-label": "pace" },
      el("option", { value: "" }, "online pace (64 hands an hour)"),
      el("option", { value: "35" }, "live pace (35 hands an hour)"),
    );
    const name = el("input", { id: "structure-name", type: "text", placeholder: "name", "aria-label": "name" });
    const optional = (id, label) =>
      el("input", { id, type: "number", min: 1, placeholder: label, "aria-label": label });
    const minutes = optional("structure-minutes", "minutes a level");
    const buyIn = optional("structure-buy-in", "buy-in, $");
    const late = optional("structure-late", "late registration, levels");
    const again = optional("structure-reentry", "re-entry, levels");
    // The event's options: a blank box keeps the generator's default
    const options = () => {
      const given = { name: name.value.trim() || null, minutes: Number(minutes.value) || null };
      if (buyIn.value) given.buy_in_cents = Math.round(Number(buyIn.value) * 100);
      if (late.value) given.late_levels = Number(late.value);
      if (again.value) given.reentry_levels = Number(again.value);
      if (pace.value) given.hands_per_hour = Number(pace.value);
      return given;
    };
    // The structure as it started (generated, or the box as the page drew it), to compare the edited one with.
    let original = definition.value;
    const generate = () =>
      this.attempt(async () => {
        const body = { players: Number(players.value), hours: Number(hours.value), stack: Number(stack.value) };
        const made = await api("/api/structures", {
          method: "POST",
          body: { ...body, speed: speed.value, ante: ante.value, options: options(), fit: true },
          token: adminToken(),
        });
        definition.value = JSON.stringify(made, null, 1);
        original = definition.value;
        return `A structure of ${made.levels.length} levels: ${made.name}. ${await estimate()}`;
      });
    const comparison = el("div", { id: "comparison", "aria-live": "polite" });
    const compare = async () => {
      comparison.replaceChildren(el("p", {}, "Simulating both structures on the same seeds..."));
      try {
        const made = await api("/api/comparisons", {
          method: "POST",
          body: {
            definitions: [JSON.parse(original), JSON.parse(definition.value)],
            players: Number(players.value),
            runs: COMPARE_RUNS,
          },
          token: adminToken(),
        });
        const [, ...names] = made.header;
        const header = ["", "as it started", "as edited", ...names.slice(2).map(() => "change")];
        comparison.replaceChildren(
          el(
            "table",
            { class: "compare" },
            el(
              "caption",
              {},
              `The structure as edited against the one it started from: median [p10-p90] of ${COMPARE_RUNS} runs`,
            ),
            el("thead", {}, el("tr", {}, ...header.map((cell) => el("th", { scope: "col" }, cell)))),
            el("tbody", {}, ...made.rows.map((row) => el("tr", {}, ...row.map((cell) => el("td", {}, cell))))),
          ),
        );
        const duration = made.rows.find((row) => row[0] === "Duration");
        return `Compared: the duration ${duration[1]} as it started, ${duration[2]} as edited (${duration[3]}).`;
      } catch (error) {
        comparison.replaceChildren();
        throw error;
      }
    };
    // What the definition in the box would play like: its levels as a table and the duration to expect.
    const schedule = el("div", { id: "schedule", "aria-live": "polite" });
    const estimate = async () => {
      schedule.replaceChildren(el("p", {}, "Simulating the structure..."));
      try {
        const made = await api("/api/estimates", {
          method: "POST",
          body: { definition: JSON.parse(definition.value), players: Number(players.value), runs: 3 },
          token: adminToken(),
        });
        const { median, p10, p90 } = made.hours;
        const duration = `Estimated duration ${hoursMinutes(median)} (${hoursMinutes(p10)} to ${hoursMinutes(p90)}`;
        schedule.replaceChildren(
          el("p", { class: "estimate" }, `${duration}, ${made.runs} simulated runs).`),
          scheduleTable(made),
        );
        return `${duration}).`;
      } catch (error) {
        schedule.replaceChildren();
        throw error;
      }
    };
    return el(
      "div",
      { class: "structure-form" },
      "Or from a few numbers: players ",
      players,
      " hours ",
      hours,
      " stack ",
      stack,
      " ",
      speed,
      " ante ",
      ante,
      " ",
      pace,
      " ",
      name,
      " ",
      minutes,
      " ",
      buyIn,
      " ",
      late,
      " ",
      again,
      " ",
      el("button", { id: "generate", onclick: generate }, "Generate"),
      " ",
      el("button", { id: "estimate", onclick: () => this.attempt(estimate) }, "Estimate"),
      " ",
      el("button", { id: "compare", onclick: () => this.attempt(compare) }, "Compare with the original"),
      schedule,
      comparison,
    );
  }

  // The definition's levels as a table edited cell by cell: blinds, ante and minutes; a level
  // inserted below or deleted; a break row after a level (its break_minutes). Every change is written back to the
  // definition box at once, so that Create, Estimate and Compare take the table as it stands.
  levelEditor(definition) {
    const box = el("div", { id: "levels-editor" });
    const read = () => JSON.parse(definition.value);
    const write = (changed) => {
      definition.value = JSON.stringify(changed, null, 1);
      draw();
    };
    const number = (value, label, change, step = 1) =>
      el("input", {
        type: "number",
        min: 0,
        step,
        value: value ?? "",
        "aria-label": label,
        onchange: (event) => change(event.target.value === "" ? null : Number(event.target.value)),
      });
    const button = (text, label, action) =>
      el("button", { type: "button", "aria-label": label, onclick: action }, text);
    const draw = () => {
      let made;
      try {
        made = read();
      } catch {
        box.replaceChildren(el("p", {}, "The definition box does not hold JSON: the levels cannot be shown."));
        return;
      }
      const levels = made.levels ?? [];
      const edit = (index, field) => (value) => {
        const changed = levels.map((level, n) => (n === index ? { ...level, [field]: value } : level));
        write({ ...made, levels: changed });
      };
      const splice = (index, remove, ...insert) => {
        const changed = [...levels];
        changed.splice(index, remove, ...insert);
        write({ ...made, levels: changed });
      };
      const rows = [];
      levels.forEach((level, index) => {
        const name = `level ${index + 1}`;
        rows.push(
          el(
            "tr",
            { class: "level-row", "data-level": index + 1 },
            el("td", {}, String(index + 1)),
            el("td", {}, number(level.small_blind, `${name} small blind`, edit(index, "small_blind"))),
            el("td", {}, number(level.big_blind, `${name} big blind`, edit(index, "big_blind"))),
            el("td", {}, number(level.ante ?? 0, `${name} ante`, edit(index, "ante"))),
            el("td", {}, number(level.minutes, `${name} minutes`, edit(index, "minutes"), "any")),
            el(
              "td",
              {},
              button("+", `insert a level after ${name}`, () =>
                splice(index + 1, 0, { ...level, small_blind: level.big_blind, big_blind: level.big_blind * 2 }),
              ),
              button("−", `delete ${name}`, () => splice(index, 1)),
              level.break_minutes
                ? null
                : button("Break", `a break after ${name}`, () => edit(index, "break_minutes")(5)),
            ),
          ),
        );
        if (level.break_minutes) {
          rows.push(
            el(
              "tr",
              { class: "break-row", "data-after": index + 1 },
              el("td", {}, "Break"),
              el(
                "td",
                { colspan: 4 },
                number(level.break_minutes, `break after ${name}, minutes`, edit(index, "break_minutes"), "any"),
                " minutes",
              ),
              el("td", {}, button("−", `no break after ${name}`, () => edit(index, "break_minutes")(null))),
            ),
          );
        }
      });
      const header = ["Level", "Small blind", "Big blind", "Ante", "Minutes", ""];
      box.replaceChildren(
        el(
          "table",
          { class: "levels-editor" },
          el("thead", {}, el("tr", {}, ...header.map((cell) => el("th", { scope: "col" }, cell)))),
          el("tbody", {}, ...rows),
        ),
      );
    };
    return { box, draw };
  }

  adminPanel() {
    const token = el("input", {
      id: "admin-token",
      type: "password",
      value: adminToken(),
      placeholder: "admin token",
      "aria-label": "admin token",
    });
    const definition = el(
      "textarea",
      { id: "definition", rows: 10, "aria-label": "definition" },
      JSON.stringify(DEFAULT_DEFINITION, null, 1),
    );
    const file = el("input", { type: "file", accept: ".json,.toml", "aria-label": "definition file" });
    file.onchange = async () => {
      definition.value = await file.files[0].text();
    };
    const levels = this.levelEditor(definition);
    return el(
      "details",
      { class: "admin-panel", open: adminToken() ? true : undefined },
      el("summary", {}, "Admin"),
      el(
        "p",
        {},
        token,
        el(
          "button",
          {
            id: "save-token",
            onclick: () => {
              localStorage.setItem("mttsim:admin", token.value);
              this.draw();
              this.say("Admin token saved.");
            },
          },
          "Use token",
        ),
      ),
      el("p", {}, "A tournament definition (docs/config.md), typed here or read from a file: ", file),
      this.structureForm(definition),
      definition,
      el("p", {}, el("button", { id: "edit-levels", type: "button", onclick: levels.draw }, "Edit the levels")),
      levels.box,
      el(
        "p",
        {},
        el(
          "button",
          {
            id: "create",
            onclick: () =>
              this.attempt(async () => {
                const response = await fetch("/api/tournaments", {
                  method: "POST",
                  body: definition.value,
                  headers: {
                    Authorization: `Bearer ${adminToken()}`,
                    "content-type": definition.value.trim().startsWith("{") ? "application/json" : "application/toml",
                  },
                });
                const data = await response.json();
                if (!response.ok) throw new Error(data.message);
                return "Tournament created.";
              }),
          },
          "Create tournament",
        ),
      ),
    );
  }
}
