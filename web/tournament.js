// A tournament's page: its clock and banners, and tabs (the table, info, payouts or results, players, tables, hands,
// and the director's console). The table plays or watches over one websocket; the tabs follow the board feed.

import { histogram, lineChart } from "./charts.js";
import { api, chips, el, money, ordinal } from "./dom.js";
import { MOVED_BECAUSE, describe, refusalText } from "./describe.js";
import {
  aheadOfPlan,
  clockTime,
  dealOpen,
  hoursMinutes,
  lateRegistration,
  minutes,
  secondsLeft,
  terms,
} from "./lobby.js";
import { Feed, Socket } from "./net.js";
import { consolePanel, refundTable } from "./console.js";
import { handsPanel } from "./replay.js";
import { adminToken, moreSeats, mySeat, saveSeat } from "./seats.js";
import { TableState } from "./state.js";
import { TableView } from "./table.js";

const TABS = [
  ["table", "Table"],
  ["info", "Info"],
  ["payouts", "Payouts"],
  ["players", "Players"],
  ["tables", "Tables"],
  ["hands", "Hands"],
  ["console", "Console"],
];

const STATUS_NOTICES = {
  open: "",
  lost: "Connection lost: reconnecting…",
  refused: "The server refused this page: no such tournament, or a seat it does not know (registered elsewhere?).",
};

// When a day-1 flight stops: at the end of a level, or at a share of the field.
const flightStop = (flight) =>
  flight.stop_level
    ? `when level ${flight.stop_level} ends`
    : `when ${flight.stop_share_percent}% of the field is left`;

const duration = (seconds) => {
  const whole = Math.round(seconds / 60);
  return whole >= 60 ? `${Math.floor(whole / 60)} h ${String(whole % 60).padStart(2, "0")} min` : `${whole} min`;
};

export class TournamentPage {
  constructor(view, statusLine, { id, table, entry }) {
    Object.assign(this, { view, statusLine, id });
    this.seat = table ? null : entry ? moreSeats(id).find((more) => more.player_id === entry) : mySeat(id);
    this.watching = table;
    this.state = new TableState();
    this.state.known = (player) => this.board?.rows.get(`p:${player}`)?.name;
    this.nodes = {};
    for (const name of [
      "summary",
      "banner",
      "finish",
      "notice",
      "refunds",
      "announcements",
      "table",
      "log",
      "chat",
      "payouts",
      "players",
      "tables",
      "info",
    ]) {
      this.nodes[name] = el("div", { id: name });
    }
    this.nodes.notice.className = "notice";
    // On a phone the banners are one line; a tap opens them (docs/web.md), another folds them again.
    this.nodes.banner.onclick = (event) => {
      if (!event.target.closest("button, a, input")) this.nodes.banner.classList.toggle("open");
    };
    this.nodes.notice.hidden = true;
    this.nodes.log.className = "log";
    // A scrolled box a keyboard reaches (WCAG 2.1.1), read out as it grows.
    for (const [name, value] of [["tabindex", "0"], ["role", "log"], ["aria-label", "Hand log"]])
      this.nodes.log.setAttribute(name, value); // attributes, not the ARIA properties some browsers lack
    this.nodes.payouts = el("table", { class: "payouts", id: "payouts" });
    this.payoutsTitle = el("h3", {}, "Payouts");
    this.resultsSummary = el("p", { class: "results-summary", id: "results-summary", hidden: true });
    this.payoutSummary = el("p", { class: "payout-summary", id: "payout-summary", hidden: true });
    // Before the start: the table above is the entries' so far; this says what a full field would pay.
    this.fullField = el("p", { class: "payout-summary", id: "full-field-payouts", hidden: true });
    this.fieldCharts = el("div", { class: "charts", id: "field-charts" });
    this.payoutChart = el("div", { class: "charts", id: "payout-chart" });
    this.search = el("input", {
      id: "player-search",
      placeholder: "find a player",
      "aria-label": "find a player",
      oninput: () => this.drawPlayers(),
    });
    this.panels = {
      table: el(
        "div",
        { class: "layout" },
        el("div", {}, this.nodes.table),
        el("div", { class: "side" }, el("h3", {}, "Hand log"), this.nodes.log, this.nodes.chat),
      ),
      info: this.nodes.info,
      payouts: el(
        "div",
        {},
        this.payoutsTitle,
        this.resultsSummary,
        this.payoutSummary,
        this.fullField,
        this.nodes.payouts,
        this.payoutChart,
      ),
      players: el("div", {}, this.fieldCharts, this.search, this.nodes.players),
      tables: this.nodes.tables,
      hands: handsPanel(id, this.seat, () => this.names()),
      console: adminToken() ? consolePanel(id, () => this.board) : null,
    };
    this.tabBar = el(
      "nav",
      { class: "tabs", role: "tablist" },
      TABS.filter(([key]) => this.panels[key]).map(([key, label]) =>
        el(
          "button",
          { class: "tab", role: "tab", id: `tab-${key}`, "data-tab": key, onclick: () => this.show(key) },
          label,
        ),
      ),
    );
    view.replaceChildren(
      this.nodes.summary,
      this.nodes.banner,
      this.nodes.announcements,
      this.nodes.finish,
      this.nodes.notice,
      this.nodes.refunds,
      this.tabBar,
      ...Object.values(this.panels).filter(Boolean),
    );
    this.show("table");
    const who = this.seat
      ? `token=${encodeURIComponent(this.seat.token)}${entry ? `&entry=${encodeURIComponent(entry)}` : ""}`
      : table
        ? `table=${table}`
        : "";
    this.tableView = new TableView(this.state, {
      send: (m) => this.socket.send(m),
      root: this.nodes.table,
      log: this.nodes.log,
      chat: this.nodes.chat,
      player: Boolean(this.seat),
      figures: (keepCents) => api(`/api/tournaments/${id}/deal-figures?keep_cents=${keepCents}`),
      logKey: `mttsim:log:${id}:${this.seat ? this.seat.player_id : `table ${table || ""}`}`,
    });
    this.board = new Feed("board", {
      resync: () => this.socket.send({ type: "follow" }),
      onChange: () => this.drawBoard(),
    });
    this.socket = new Socket(`/ws/tournaments/${id}?${who}`, {
      onMessage: (m) => this.receive(m),
      onOpen: () => this.socket.send({ type: "follow" }),
      onStatus: (s) => this.notice(STATUS_NOTICES[s]),
    });
    this.ticker = setInterval(() => this.drawSummary(), 1000);
  }

  stop() {
    this.socket.stop();
    this.tableView.stop();
    clearInterval(this.ticker);
  }

  show(key) {
    for (const [name, panel] of Object.entries(this.panels)) if (panel) panel.hidden = name !== key;
    for (const button of this.tabBar.children) button.setAttribute("aria-selected", String(button.dataset.tab === key));
    this.tab = key;
    if (key === "hands") this.panels.hands.refresh();
    if (key === "console") this.panels.console.refresh();
  }

  // A new entry under the same token; the page opens again on it (the token now leads to the new entry).
  async reenter() {
    try {
      const entry = await api(`/api/tournaments/${this.id}/reenter`, { method: "POST", token: this.seat.token });
      saveSeat(this.id, { ...this.seat, player_id: entry.player_id });
      window.dispatchEvent(new HashChangeEvent("hashchange"));
    } catch (error) {
      this.notice(error.message);
    }
  }

  notice(text) {
    this.nodes.notice.textContent = text;
    this.nodes.notice.hidden = !text;
  }

  names() {
    const names = new Map(this.state.names);
    for (const row of this.board ? this.board.list("p:") : []) names.set(row.key, row.name);
    for (const row of this.board ? this.board.list("r:") : []) names.set(row.player, row.name);
    return names;
  }

  receive(message) {
    if (this.board.receive(message)) return;
    const { state, tableView } = this;
    switch (message.type) {
      case "snapshot":
        state.snapshot(message);
        break;
      case "event": {
        const applied = state.numbered(message);
        if (applied === null) return;
        if (!applied) {
          this.socket.send({ type: "sync" });
          return;
        }
        const event = message.event;
        tableView.write(event.type, describe(event, state), event.type === "board_dealt" ? event.cards : []);
        if (state.stale) {
          state.stale = false;
          this.socket.send({ type: "sync" });
        }
        if (state.mine(event) && event.type === "player_eliminated") {
          this.notice(
            `You finished in place ${event.place}${event.prize_cents ? `, for ${money(event.prize_cents)}` : ""}.`,
          );
          const summary = this.board.rows.get("summary");
          if (summary) this.drawBanner(summary);
        }
        if (state.mine(event) && event.type === "player_removed")
          this.notice("The director removed you from the tournament.");
        break;
      }
      case "private":
        state.private(message.event);
        if (message.event.type === "moved") {
          const move = message.event;
          this.notice(
            `You were moved from table ${move.from_table} to table ${move.to_table}, seat ${move.seat + 1} ` +
              `(${MOVED_BECAUSE[move.reason]}).`,
          );
          tableView.write("moved_me", describe({ type: "moved_me", ...move }, state));
        }
        break;
      case "chat":
        tableView.said(message);
        return;
      case "chat_history":
        tableView.chatLines?.replaceChildren();
        for (const line of message.lines) tableView.said(line);
        return;
      case "announcement":
        tableView.write("announcement", `Director: ${message.text}`);
        break;
      case "error":
        tableView.write("error", refusalText(message.code, message.message));
        break;
    }
    tableView.draw();
  }

  // ------------------------------------------------------------------ the header: clock, banners, the finish

  drawSummary() {
    const t = this.board.rows.get("summary");
    if (!t) return;
    const levelLeft = secondsLeft(t, t.level_ends_at, t.level_ends_in);
    const breakLeft = secondsLeft(t, t.break_ends_at, t.on_break_for);
    // On a break its time left takes the level's place: the level's clock is not running then.
    const clock =
      breakLeft !== null
        ? ["Break ends in", minutes(breakLeft)]
        : ["Next level", levelLeft === null ? "—" : `${minutes(levelLeft)}${dealOpen(t) ? " (deal: stopped)" : ""}`];
    const items = [
      ["Level", `${t.level}: ${chips(t.small_blind)}/${chips(t.big_blind)}${t.ante ? ` (${chips(t.ante)})` : ""}`],
      clock,
      ["Players left", `${t.players_left} / ${t.entries}`],
      ["Prize pool", money(t.prize_pool_cents)],
      ...(t.bounty_pool_cents !== null && t.bounty_pool_cents !== undefined
        ? [["Bounty pool", money(t.bounty_pool_cents)]]
        : []),
      ["Average stack", t.average_stack === null ? "—" : chips(t.average_stack)],
      ["Largest stack", t.largest_stack === null ? "—" : chips(t.largest_stack)],
      ["Status", t.paused ? "paused" : dealOpen(t) ? "running: a deal is being decided" : t.status],
    ];
    this.nodes.summary.replaceChildren(
      el(
        "div",
        // On a phone it scrolls sideways: a keyboard reaches it too (WCAG 2.1.1).
        { class: "summary", tabindex: 0, role: "region", "aria-label": "the tournament now" },
        items.map(([k, v]) => el("div", {}, k, el("b", {}, v))),
      ),
    );
    const brk = this.nodes.banner.querySelector("#break");
    if (brk && breakLeft !== null) brk.textContent = `Break: play resumes in ${minutes(breakLeft)}`;
  }

  drawBoard() {
    const t = this.board.rows.get("summary");
    if (!t) return;
    this.drawSummary();
    this.drawBanner(t);
    this.drawPayouts(t);
    this.drawPlayers();
    this.drawTables();
    this.drawInfo(t);
    if (this.panels.console) this.panels.console.update(t);
    const refunds = this.board.rows.get("refunds");
    this.nodes.refunds.replaceChildren(...(refunds ? [refundTable("Refunds paid", refunds)] : []));
    const said = this.board.rows.get("announcements") || [];
    this.nodes.announcements.replaceChildren(
      ...said
        .slice(-1)
        .map((a) => el("div", { class: "banner announcement", id: "announcement" }, `Director: ${a.text}`)),
    );
    // A person's name, with the entry's id beside it: a second entry or a re-entry is told apart by it.
    const name = this.seat && (this.seat.name || this.names().get(this.seat.player_id));
    const who = this.seat && (name ? `${name} (${this.seat.player_id})` : this.seat.player_id);
    const out = this.seat && this.board && this.board.list("r:").find((r) => r.player === this.seat.player_id);
    const where = this.watching
      ? ` · watching table ${this.watching}`
      : out
        ? ` · finished ${ordinal(out.place)} as ${who}`
        : this.seat
          ? ` · playing as ${who}`
          : " · observer";
    this.statusLine.textContent = `${t.name}: ${t.status}${where}`;
  }

  drawBanner(t) {
    const voided = t.voided_hands || [];
    const parts = [];
    if (t.flight)
      parts.push(
        el(
          "span",
          { class: "banner format" },
          `Day-1 flight: it stops ${flightStop(t.flight)}; every stack left goes to the final`,
        ),
      );
    else if (t.satellite)
      parts.push(
        el("span", { class: "banner format" }, `Satellite: every seat is worth ${money(t.satellite.seat_value_cents)}`),
      );
    if (t.rebuys || t.add_on || t.late_registration || t.reentry || (t.bounty && t.bounty.mystery))
      parts.push(el("span", { class: "banner format terms", id: "terms" }, terms(t)));
    const late = lateRegistration(t);
    if (late) parts.push(el("span", { class: "banner late", id: "late" }, late));
    const you = this.state.you;
    if (this.seat && you && you.result && t.reentry_open)
      parts.push(
        el(
          "span",
          { class: "banner reentry", id: "reentry" },
          `You are out. Re-enter for ${money(t.buy_in_cents + t.fee_cents)}: a new stack at a new table. `,
          el("button", { id: "reenter", onclick: () => this.reenter() }, "Re-enter"),
        ),
      );
    if (t.hand_for_hand) parts.push(el("span", { class: "banner" }, "Hand-for-hand: every table deals together"));
    if (t.break_ends_at || t.on_break_for) parts.push(el("span", { class: "banner break", id: "break" }, "Break"));
    if (t.restored_at)
      parts.push(
        el(
          "span",
          { class: "banner restored", id: "restored" },
          `The server restarted at ${new Date(t.restored_at * 1000).toLocaleTimeString()}: ` +
            (voided.length
              ? `${voided.map((v) => `hand #${v.hand} (table ${v.table})`).join(", ")} void, ` +
                "start-of-hand stacks restored"
              : "no hand was in progress"),
        ),
      );
    this.nodes.banner.replaceChildren(...parts);
  }

  drawPayouts(t) {
    const info = this.board.rows.get("info");
    const results = this.board.list("r:").sort((a, b) => a.place - b.place);
    this.drawResultsSummary(t, results);
    const paid = results.filter((r) => r.prize_cents > 0 || r.place === 1);
    const tab = this.tabBar.querySelector("#tab-payouts");
    if (t.status === "finished" && paid.length) {
      this.payoutChart.replaceChildren(); // what was paid is the results' list
      // what was paid, a deal's amounts included
      const winner = results.find((r) => r.place === 1);
      this.payoutSummary.hidden = true;
      this.payoutsTitle.textContent = "Results";
      tab.textContent = "Results";
      this.nodes.payouts.replaceChildren(
        el("tr", {}, ["Place", "Player", "Prize"].map((h) => el("th", { scope: "col" }, h))),
        ...results.map((r) =>
          el(
            "tr",
            { class: r.prize_cents > 0 || r.place === 1 ? "standing" : "standing unpaid" },
            el("td", {}, `${r.place}`),
            el("td", {}, r.name),
            el("td", {}, r.ticket ? `a seat (${money(r.prize_cents)})` : r.prize_cents ? money(r.prize_cents) : ""),
          ),
        ),
      );
      if (winner)
        this.nodes.finish.replaceChildren(
          el(
            "span",
            { class: "banner winner", id: "winner" },
            t.ended_in_deal
              ? `Ended in a deal: ${winner.name} first, for ${money(winner.prize_cents)}`
              : `${winner.name} wins${winner.prize_cents ? ` ${money(winner.prize_cents)}` : ""}`,
          ),
        );
      this.nodes.payouts.querySelectorAll("tr.unpaid").forEach((row) => row.classList.remove("standing"));
    } else if (info) {
      this.payoutsTitle.textContent = "Payouts";
      tab.textContent = "Payouts";
      this.drawPrizeTable(t, info.payouts_cents, results);
      const full = info.full_field_payouts_cents || [];
      const before = t.status === "register" || t.status === "waiting";
      this.fullField.hidden = !before || !full.length;
      if (before && full.length)
        this.fullField.textContent =
          `So far, from ${chips(t.entries)} entries. If the field fills: ` +
          `${chips(full.length)} paid, first ${money(full[0])}, min-cash ${money(full[full.length - 1])}.`;
      const paidPrizes = info.payouts_cents.filter((cents) => cents > 0);
      this.payoutChart.replaceChildren(
        ...(paidPrizes.length > 1
          ? [
              lineChart({
                id: "chart-payouts",
                title: "Prize by place",
                xLabel: "place",
                yLabel: "$ (log scale)",
                points: paidPrizes.map((cents, i) => [i + 1, cents / 100]),
                logY: true,
                whole: true,
                x: [1, paidPrizes.length],
              }),
            ]
          : []),
      );
    }
  }

  // The prize table as rooms show it: places with the same prize as one row ("10-12"), each with its amount and
  // its share of the pool, who took it so far; above it, how many are paid, the min-cash and the bubble.
  drawPrizeTable(t, prizes, results) {
    const seats = t.satellite ? Math.floor(t.prize_pool_cents / t.satellite.seat_value_cents) : 0;
    const placed = new Map(results.map((r) => [r.place, r]));
    const pool = prizes.reduce((a, b) => a + b, 0);
    const paid = prizes.filter((cents) => cents > 0).length;
    const bands = [];
    prizes.forEach((cents, i) => {
      const last = bands[bands.length - 1];
      if (last && last.cents === cents && last.seat === i < seats) last.to = i + 1;
      else bands.push({ from: i + 1, to: i + 1, cents, seat: i < seats });
    });
    const share = (cents) => (pool ? `${((100 * cents) / pool).toFixed(cents * 1000 < pool ? 2 : 1)}%` : "");
    const minCash = paid ? prizes[paid - 1] : 0;
    const bubble = paid + 1;
    const fraction = t.entries ? ((100 * paid) / t.entries).toFixed(1) : "0";
    const parts = [`${chips(paid)} of ${chips(t.entries)} paid (${fraction}%)`];
    if (minCash && t.buy_in_cents)
      parts.push(`min-cash ${money(minCash)} (${(minCash / t.buy_in_cents).toFixed(1)}x the buy-in)`);
    if (paid < t.entries) {
      const now = t.status === "running" && t.players_left === bubble;
      parts.push(
        now ? `on the bubble now: the next out, ${ordinal(bubble)}, is paid nothing` : `the bubble: ${ordinal(bubble)}`,
      );
    }
    this.payoutSummary.textContent = parts.join(" · ");
    this.payoutSummary.hidden = false;
    this.nodes.payouts.replaceChildren(
      el("thead", {}, el("tr", {}, ["Place", "Prize", "Share", "Player"].map((h) => el("th", {}, h)))),
      el(
        "tbody",
        {},
        bands.map((band) =>
          el(
            "tr",
            { class: "prize", "data-from": band.from, "data-to": band.to, "data-cents": band.cents },
            el("td", {}, band.from === band.to ? `${band.from}` : `${band.from}-${band.to}`),
            el(
              "td",
              {},
              (band.seat ? `a seat (${money(band.cents)})` : money(band.cents)) +
                (band.from === band.to ? "" : " each"),
            ),
            el("td", { class: "share" }, share(band.cents)),
            el(
              "td",
              {},
              Array.from({ length: band.to - band.from + 1 }, (_, k) => placed.get(band.from + k))
                .filter(Boolean)
                .map((r) => r.name)
                .join(", "),
            ),
          ),
        ),
      ),
    );
  }

  // What the rooms' results say at the top: how long it lasted, the field, and one's own place and knockouts.
  drawResultsSummary(t, results) {
    const own = this.seat && results.find((r) => r.player === this.seat.player_id);
    const finished = t.status === "finished" && t.started_at && t.finished_at;
    this.resultsSummary.hidden = !finished && !own;
    if (this.resultsSummary.hidden) return;
    const parts = [];
    if (finished) parts.push(`Played in ${duration(t.finished_at - t.started_at)}`);
    if (finished && t.ended_in_deal) parts.push("ended in a deal: the players left shared the pool");
    parts.push(`${chips(t.entries)} entries`);
    if (own)
      parts.push(
        `you finished ${ordinal(own.place)} of ${chips(t.entries)}` +
          (own.prize_cents ? ` (${money(own.prize_cents)})` : "") +
          ` with ${own.knockouts} knockout${own.knockouts === 1 ? "" : "s"}`,
      );
    this.resultsSummary.textContent = parts.join(" · ");
  }

  // The field's pictures, from the board feed: the stacks in big blinds now, the players left over time with the
  // levels as bands, the average stack in big blinds as each level began (the board's `timeline` row).
  drawFieldCharts(t, players) {
    const charts = [];
    if (t.status === "running" && players.length)
      charts.push(
        histogram({
          id: "chart-stacks",
          title: "Stacks now, in big blinds",
          xLabel: "big blinds",
          yLabel: "players",
          values: players.map((p) => p.stack / t.big_blind),
          bins: Math.min(12, Math.max(4, Math.ceil(Math.sqrt(players.length)))),
        }),
      );
    const timeline = this.board.rows.get("timeline");
    const plan = this.board.rows.get("plan");
    if (timeline && (timeline.players.length > 1 || plan)) {
      const levels = timeline.levels;
      const now = Math.max(timeline.players[timeline.players.length - 1][0], levels[levels.length - 1].at);
      const projected = plan && t.status === "running" ? plan.projected_end : null;
      const planEnd = plan ? plan.players[plan.players.length - 1][0] : 0;
      const hours = Math.max(now, planEnd, projected || 0) >= 7200;
      const unit = hours ? 3600 : 60;
      const end = (Math.max(now * 1.03, planEnd, projected || 0) || 60) / unit; // a margin for the level under way
      charts.push(
        lineChart({
          id: "chart-players-left",
          title: plan ? "Players left, the plan and its spread" : "Players left",
          xLabel: hours ? "hours (bands: levels)" : "minutes (bands: levels)",
          yLabel: "players",
          points: timeline.players.map(([at, left]) => [at / unit, left]),
          x: [0, end],
          now: (now * 1.03) / unit,
          plan: plan ? plan.players.map(([at, left]) => [at / unit, left]) : [],
          planBand:
            plan && plan.spread && plan.spread.length === plan.players.length
              ? plan.players.map(([at], i) => [at / unit, ...plan.spread[i]])
              : [],
          marks: projected ? [[projected / unit, "projected end"]] : [],
          bands: levels.map((level, i) => [
            level.at / unit,
            i + 1 < levels.length ? levels[i + 1].at / unit : (now * 1.03) / unit, // the one under way, however young
            String(level.level),
          ]),
          step: true,
        }),
      );
      if (projected && plan.projected_end_at)
        charts.push(
          el(
            "p",
            { id: "projected-end", class: "projected" },
            `Projected end: ${clockTime(plan.projected_end_at)}${aheadOfPlan(plan, ", ")}, from the plan of ` +
              `${plan.runs} quick simulation${plan.runs === 1 ? "" : "s"} of this field, read from where the field ` +
              "stands now. Dashed: the plan's field (its middle run's) and average stack; shaded: where 8 runs in " +
              "10 had the field.",
          ),
        );
      // The plan's levels as far as the tournament has come, and the next: its line beside the actual.
      const planned = plan && plan.average_bb ? plan.average_bb.filter(([level]) => level <= levels.length + 1) : [];
      if (levels.length > 1 || planned.length > 1) {
        charts.push(
          lineChart({
            id: "chart-average-bb",
            title: planned.length ? "Average stack by level, and the plan" : "Average stack as each level began",
            xLabel: "level",
            yLabel: "big blinds",
            points: levels.map((level) => [level.level, level.average_bb]),
            plan: planned,
            whole: true,
          }),
        );
      }
    }
    this.fieldCharts.replaceChildren(...charts);
  }

  drawPlayers() {
    if (!this.board) return;
    const wanted = this.search.value.trim().toLowerCase();
    const players = this.board.list("p:").sort((a, b) => b.stack - a.stack);
    const playing = new Set(players.map((p) => p.key));
    const out = this.board
      .list("r:")
      .filter((r) => !playing.has(r.player)) // a winner still holding chips is listed once, with them
      .sort((a, b) => a.place - b.place);
    const t = this.board.rows.get("summary");
    if (t) this.drawFieldCharts(t, players);
    const rows = players
      .map((p, i) => ({ rank: i + 1, ...p }))
      .filter((p) => !wanted || p.name.toLowerCase().includes(wanted));
    this.nodes.players.replaceChildren(
      el(
        "table",
        { class: "list players" },
        el(
          "tr",
          {},
          ["#", "Player", "Stack", "Bounty", "Table or prize"].map((h) => el("th", {}, h)),
        ),
        rows
          .slice(0, 500)
          .map((p) =>
            el(
              "tr",
              { "data-player": p.key },
              el("td", {}, `${p.rank}`),
              el("td", {}, p.name),
              el("td", {}, chips(p.stack)),
              el("td", {}, p.bounty_cents ? money(p.bounty_cents) : ""),
              el("td", {}, p.table ? el("a", { href: `#/t/${this.id}/table/${p.table}` }, `table ${p.table}`) : ""),
            ),
          ),
        out
          .filter((r) => !wanted || r.name.toLowerCase().includes(wanted))
          .slice(0, 500)
          .map((r) =>
            el(
              "tr",
              { class: "out" },
              el("td", {}, `${r.place}`),
              el("td", {}, r.name),
              el("td", {}, `out in place ${r.place}`),
              el("td", {}, ""),
              el("td", {}, r.prize_cents ? `won ${money(r.prize_cents)}` : ""),
            ),
          ),
      ),
    );
  }

  drawTables() {
    const tables = this.board.list("t:").sort((a, b) => a.id - b.id);
    this.nodes.tables.replaceChildren(
      el(
        "table",
        { class: "list tables" },
        el(
          "tr",
          {},
          ["Table", "Players", "Largest", "Smallest", ""].map((h) => el("th", {}, h)),
        ),
        tables.map((t) =>
          el(
            "tr",
            { "data-table": t.id },
            el("td", {}, `Table ${t.id}`),
            el("td", {}, `${t.players}`),
            el("td", {}, chips(t.largest)),
            el("td", {}, chips(t.smallest)),
            el("td", {}, el("a", { class: "watch", href: `#/t/${this.id}/table/${t.id}` }, "watch")),
          ),
        ),
      ),
    );
  }

  drawInfo(t) {
    const info = this.board.rows.get("info");
    if (!info) return;
    // The server's schedule (engine.structure.level_starts: hourly breaks lengthen the level they fall in).
    const starts = info.level_starts;
    const clock = (minute) => hoursMinutes(minute / 60);
    const rows = [];
    info.levels.forEach((level, i) => {
      rows.push(
        el(
          "tr",
          { class: i + 1 === t.level ? "current" : "" },
          el("td", {}, `${i + 1}`),
          el("td", {}, `${chips(level.small_blind)}/${chips(level.big_blind)}`),
          el("td", {}, level.ante ? `${chips(level.ante)}${level.bb_ante ? " (BB)" : ""}` : ""),
          el("td", {}, level.minutes ? `${level.minutes} min` : `${level.hands} hands`),
          el("td", {}, starts[i] === null ? "" : clock(starts[i])),
        ),
      );
      // a break after the level: every N levels, and the level's own break row (engine.structure.break_after)
      const every = info.breaks && info.breaks.every_levels;
      const pause = (every && (i + 1) % every === 0 ? info.breaks.minutes : 0) + (level.break_minutes || 0);
      if (pause && i + 1 < info.levels.length) {
        const next = starts[i + 1];
        rows.push(
          el(
            "tr",
            { class: "break-row" },
            el("td", {}, ""),
            el("td", { colspan: 3 }, `Break, ${pause} min`),
            el("td", {}, next === null ? "" : clock(next - pause)),
          ),
        );
      }
    });
    this.nodes.info.replaceChildren(
      el(
        "p",
        {},
        `Buy-in ${money(t.buy_in_cents + t.fee_cents)} (${money(t.buy_in_cents)} + ${money(t.fee_cents)} fee) · ` +
          `${chips(t.starting_stack)} chips · ${info.action_seconds} s to act, ` +
          `a ${info.time_bank_seconds} s time bank · at least ${t.min_players} players`,
      ),
      el("p", {}, t.rebuys || t.add_on ? terms(t) : "A freezeout: no re-buys, no add-on."),
      el(
        "section",
        { id: "refund-terms", "aria-label": "If the tournament is cancelled" },
        el("p", {}, `If the tournament is cancelled (refund policy ${info.refund_policy.name}):`),
        el("ul", {}, ...(info.refund_terms || []).map((term) => el("li", {}, term))),
      ),
      el("p", {}, el("a", { href: `#/t/${this.id}/clock`, id: "clock-link" }, "The clock screen"), " for a projector."),
      // replaceChildren writes a null child as the text "null": no hourly breaks, no paragraph at all.
      ...(info.breaks && info.breaks.at_minute !== null
        ? [
            el(
              "p",
              { id: "hourly-breaks" },
              `Every hour, a ${info.breaks.minutes}-minute break ` +
                `at :${String(info.breaks.at_minute).padStart(2, "0")}.`,
            ),
          ]
        : []),
      el(
        "table",
        { class: "list structure" },
        el(
          "tr",
          {},
          ["Level", "Blinds", "Ante", "Length", "Starts at"].map((h) => el("th", {}, h)),
        ),
        rows,
      ),
    );
  }
}
