// mttsim in the browser: the lobby (with the admin's controls), and a tournament's tables, played or watched live.

import { api, chips, el, money } from "./dom.js";
import { TableClient } from "./table.js";

const view = document.getElementById("view");
const statusLine = document.getElementById("status");
const DEFAULT_DEFINITION = {
  name: "Friday freezeout", seats_per_table: 6, starting_stack: 3000, buy_in_cents: 500, fee_cents: 50,
  min_players: 2, max_players: 60, action_seconds: 15, time_bank_seconds: 30,
  levels: [{ small_blind: 10, big_blind: 20, minutes: 5 }, { small_blind: 20, big_blind: 40, minutes: 5 },
    { small_blind: 40, big_blind: 80, ante: 80, bb_ante: true, minutes: 5 }],
  payouts: [{ places: "1", percent: 60 }, { places: "2", percent: 40 }],
};
let current = null;  // what the page shows: { stop() }

const seatKey = (id) => `mttsim:seat:${id}`;
const mySeat = (id) => JSON.parse(localStorage.getItem(seatKey(id)) || "null");
// More entries of the same person (multi-entry, rules.md M.50): each plays on its own page.
const moreKey = (id) => `mttsim:more:${id}`;
const moreSeats = (id) => JSON.parse(localStorage.getItem(moreKey(id)) || "[]");
const adminToken = () => localStorage.getItem("mttsim:admin") || "";

function show(...children) {
  if (current) current.stop();
  current = null;
  view.replaceChildren(...children);
}

async function lobby(note = "") {
  const tournaments = await api("/api/tournaments");
  if (/^#\/t\//.test(location.hash)) return;  // the page moved on to a tournament while the list loaded
  const message = el("p", { id: "message", class: "message" }, note);
  const attempt = async (work) => {
    try { const said = await work(); await lobby(typeof said === "string" ? said : ""); } catch (error) { message.textContent = error.message; }
  };
  const rows = tournaments.map((t) => {
    const seat = mySeat(t.id);
    const name = el("input", { placeholder: "your name", class: "name-input", "aria-label": `name for ${t.name}` });
    const actions = [];
    if (t.status === "register" && !seat) {
      actions.push(name, el("button", { class: "register", onclick: () => attempt(async () => {
        const answer = await api(`/api/tournaments/${t.id}/register`, { method: "POST", body: { name: name.value } });
        localStorage.setItem(seatKey(t.id), JSON.stringify(answer));
      }) }, "Register"));
    }
    if (seat && t.status === "register" && t.entries_per_person > 1) {
      actions.push(el("button", { class: "another-entry", onclick: () => attempt(async () => {
        const answer = await api(`/api/tournaments/${t.id}/register`, { method: "POST", token: seat.token, body: { name: name.value || "another entry" } });
        localStorage.setItem(moreKey(t.id), JSON.stringify([...moreSeats(t.id), answer]));
      }) }, "Another entry"));
    }
    if (seat && t.status === "register") {
      actions.push(el("button", { class: "unregister", onclick: () => attempt(async () => {
        await api(`/api/tournaments/${t.id}/unregister`, { method: "POST", token: seat.token });
        localStorage.removeItem(seatKey(t.id));
      }) }, "Unregister"));
    }
    if (adminToken()) {
      const count = el("input", { type: "number", value: 20, min: 1, class: "bot-count", "aria-label": "bots" });
      const mix = el("input", { class: "bot-mix", placeholder: "tag=4,pushfold=3,station=2,random=1", "aria-label": "bot mix" });
      const admin = (command, body) => attempt(async () => {
        // Destructive commands ask first, and every command says what it did.
        const short = command === "start" && t.entries < t.min_players;
        if (command === "cancel" && !window.confirm(`Cancel ${t.name}? Refunds are paid by its policy; this cannot be undone.`)) return "";
        if (short && !window.confirm(`${t.name} has ${t.entries} of the ${t.min_players} entries it needs: starting now cancels it and refunds everyone. Go on?`)) return "";
        const answer = await api(`/api/tournaments/${t.id}/${command}`, { method: "POST", token: adminToken(), body });
        if (command === "start") return answer.status === "running" ? `${t.name} started with ${answer.entries} players at ${answer.tables} tables.`
          : `${t.name} had too few entries (${answer.entries} of ${t.min_players}): it is cancelled and everyone is refunded.`;
        if (command === "cancel") return `${t.name} is cancelled; the refunds are paid (its page lists them).`;
        return `${t.name}: ${command} done.`;
      });
      actions.push(el("span", { class: "admin" }, count, mix,
        el("button", { class: "add-bots", onclick: () => admin("bots", { count: Number(count.value), mix: mix.value || null }) }, "Add bots"),
        ...[...(t.status === "waiting" ? ["open"] : []), "start", "pause", "resume", "cancel"].map((c) => el("button", { class: c, onclick: () => admin(c) }, c[0].toUpperCase() + c.slice(1)))));
    }
    return el("tr", { "data-id": t.id },
      el("td", {}, el("a", { href: `#/t/${t.id}` }, t.name)), el("td", { class: "status" }, t.paused ? "paused" : t.status),
      el("td", {}, `${t.players_left} / ${t.entries}`), el("td", {}, money(t.buy_in_cents + t.fee_cents)),
      el("td", { class: "times" }, t.started_at ? new Date(t.started_at * 1000).toLocaleTimeString() : [
        t.status === "waiting" && t.registration_opens_at ? `registration opens ${clock(t.registration_opens_at)}` : "",
        t.starts_at ? `starts ${clock(t.starts_at)}` : "", t.registration_opens_at || t.starts_at ? "" : "not yet"]
        .filter(Boolean).join(", ")),
      el("td", {}, `${t.level}: ${t.small_blind}/${t.big_blind}`),
      el("td", { class: "terms" }, terms(t)),
      el("td", {}, seat ? `you are ${seat.player_id}` : "", ...moreSeats(t.id).map((more) =>
        el("a", { class: "more-entry", href: `#/t/${t.id}/seat/${more.player_id}` }, ` and ${more.player_id}`))),
      el("td", {}, actions));
  });
  show(el("h2", {}, "Tournaments"), message,
    el("table", { class: "list" }, el("tr", {}, ...["Name", "Status", "Players", "Buy-in", "Started", "Level", "Re-buys and add-on", "", ""].map((h) => el("th", {}, h))), rows),
    adminPanel(attempt));
  statusLine.textContent = `${tournaments.length} tournament${tournaments.length === 1 ? "" : "s"}`;
}

const clock = (epochSeconds) => new Date(epochSeconds * 1000).toLocaleString([], { dateStyle: "short", timeStyle: "short" });

// A tournament's re-buy and add-on terms, as the lobby and its page show them.
function terms(t) {
  const parts = [];
  const r = t.rebuys;
  if (r) parts.push(`Re-buys: ${money(r.price_cents + r.fee_cents)} for ${chips(r.chips)} chips, up to ${r.max_count}, until the end of level ${r.levels}` +
    (r.allowed_at === "starting_stack" ? " (at or below the starting stack)" : " (at zero chips)"));
  const a = t.add_on;
  if (a) parts.push(`Add-on: ${money(a.price_cents + a.fee_cents)} for ${chips(a.chips)} chips, once, when the re-buys end`);
  return parts.join(" · ") || "none";
}

function adminPanel(attempt) {
  const token = el("input", { id: "admin-token", type: "password", value: adminToken(), placeholder: "admin token" });
  const definition = el("textarea", { id: "definition", rows: 10 }, JSON.stringify(DEFAULT_DEFINITION, null, 1));
  const file = el("input", { type: "file", accept: ".json,.toml" });
  file.onchange = async () => { definition.value = await file.files[0].text(); };
  return el("details", { class: "admin-panel", open: adminToken() ? true : undefined }, el("summary", {}, "Admin"),
    el("p", {}, token, el("button", { id: "save-token", onclick: () => { localStorage.setItem("mttsim:admin", token.value); lobby(); } }, "Use token")),
    el("p", {}, "A tournament definition (docs/config.md), typed here or read from a file: ", file), definition,
    el("p", {}, el("button", { id: "create", onclick: () => attempt(async () => {
      const response = await fetch("/api/tournaments", { method: "POST", body: definition.value,
        headers: { Authorization: `Bearer ${adminToken()}`, "content-type": definition.value.trim().startsWith("{") ? "application/json" : "application/toml" } });
      const data = await response.json();
      if (!response.ok) throw new Error(data.message);
    }) }, "Create tournament")));
}

function tournamentPage(id, table, entry) {
  const seat = table ? null : entry ? moreSeats(id).find((more) => more.player_id === entry) : mySeat(id);
  const summary = el("div", { class: "summary", id: "summary" });
  const banner = el("div", { id: "banner" });
  const notices = el("div", { class: "notice", id: "notice", hidden: true });
  const board = el("div", { id: "table" });
  const log = el("div", { class: "log", id: "log" });
  const payouts = el("table", { class: "payouts", id: "payouts" });
  const thumbs = el("div", { class: "thumbs", id: "thumbs" });
  const refunds = el("div", { id: "refunds" });
  const finish = el("div", { id: "finish" });
  const payoutsTitle = el("h3", {}, "Payouts");
  show(summary, banner, finish, notices, refunds,
    el("div", { class: "layout" }, el("div", {}, board, el("h3", {}, "Tables"), thumbs),
      el("div", {}, el("h3", {}, "Hand log"), log, payoutsTitle, payouts, cancellationPanel(id), correctionsPanel(id))));
  let tournament = null;
  let levelClock = null;
  const drawSummary = () => {
    if (!tournament) return;
    const endsIn = levelClock ? Math.max(0, levelClock.seconds - (Date.now() - levelClock.since) / 1000) : null;
    const items = [["Level", `${tournament.level}: ${tournament.small_blind}/${tournament.big_blind}${tournament.ante ? ` (${tournament.ante})` : ""}`],
      ["Next level", endsIn === null ? "—" : `${Math.floor(endsIn / 60)}:${String(Math.floor(endsIn % 60)).padStart(2, "0")}`],
      ["Players left", `${tournament.players_left} / ${tournament.entries}`],
      ["Average stack", tournament.average_stack === null ? "—" : chips(tournament.average_stack)],
      ["Largest stack", tournament.largest_stack === null ? "—" : chips(tournament.largest_stack)],
      ["Status", tournament.paused ? "paused" : tournament.status]];
    summary.replaceChildren(...items.map(([k, v]) => el("div", {}, k, el("b", {}, v))));
    const voided = tournament.voided_hands || [];
    const flight = tournament.flight;
    const format = flight ? [el("span", { class: "banner format" }, `Day-1 flight: it stops ${flight.stop_level ? `when level ${flight.stop_level} ends` : `when ${flight.stop_share_percent}% of the field is left`}; every stack left goes to the final`)]
      : tournament.satellite ? [el("span", { class: "banner format" }, `Satellite: every seat is worth ${money(tournament.satellite.seat_value_cents)}`)] : [];
    if (tournament.rebuys || tournament.add_on) format.push(el("span", { class: "banner format terms", id: "terms" }, terms(tournament)));
    banner.replaceChildren(...format, ...(tournament.hand_for_hand ? [el("span", { class: "banner" }, "Hand-for-hand: every table deals together")] : []),
      ...(tournament.restored_at ? [el("span", { class: "banner restored", id: "restored" },
        `The server restarted at ${new Date(tournament.restored_at * 1000).toLocaleTimeString()}: ` +
        (voided.length ? `${voided.map((v) => `hand #${v.hand} (table ${v.table})`).join(", ")} void, start-of-hand stacks restored` : "no hand was in progress"))] : []));
  };
  const client = new TableClient(id, { token: seat && seat.token, table, root: board, log, notices,
    onTournament: (t) => { tournament = { ...tournament, ...t }; drawSummary(); } });
  const refresh = async () => {
    const details = await api(`/api/tournaments/${id}`);
    tournament = details;
    levelClock = details.level_ends_in === null ? null : { seconds: details.level_ends_in, since: Date.now() };
    drawSummary();
    refunds.replaceChildren(...(details.refunds.length ? [refundTable("Refunds paid", details.refunds)] : []));
    const seats = details.satellite ? Math.floor(details.prize_pool_cents / details.satellite.seat_value_cents) : 0;
    const paid = details.results.filter((r) => r.prize_cents > 0 || r.place === 1);
    if (details.status === "finished" && paid.length) {  // what was paid, a deal's amounts included
      const winner = details.results.find((r) => r.place === 1);
      payoutsTitle.textContent = "Results";
      payouts.replaceChildren(...paid.map((r) => el("tr", { class: "standing" }, el("td", {}, `${r.place}`), el("td", {}, r.name),
        el("td", {}, r.ticket ? `a seat (${money(r.prize_cents)})` : money(r.prize_cents)))));
      if (winner) finish.replaceChildren(el("span", { class: "banner winner", id: "winner" },
        `${winner.name} wins${winner.prize_cents ? ` ${money(winner.prize_cents)}` : ""}`));
    } else {
      payoutsTitle.textContent = "Payouts";
      payouts.replaceChildren(...details.payouts_cents.map((cents, i) => el("tr", {}, el("td", {}, `${i + 1}`),
        el("td", {}, i < seats ? `a seat (${money(cents)})` : money(cents)))));
    }
    thumbs.replaceChildren(...details.table_list.map((t) => el("a", { class: "thumb", href: `#/t/${id}/table/${t.id}`, "data-table": t.id },
      el("b", {}, `Table ${t.id}`), ...t.seats.map((s) => el("div", {}, `${s.name}: ${chips(s.stack)}`)))));
    statusLine.textContent = `${details.name}: ${details.status}${table ? ` · watching table ${table}` : seat ? ` · playing as ${seat.player_id}` : " · observer"}`;
  };
  refresh();
  const timers = [setInterval(refresh, 2000), setInterval(drawSummary, 1000)];
  current = { stop: () => { client.stop(); timers.forEach(clearInterval); } };
}

// Who gets what back, and by which rule (rules.md I); the total is what left the prize pool and the fees.
function refundTable(title, rows) {
  const total = rows.reduce((sum, r) => sum + r.refund_cents, 0);
  return el("div", { class: "refunds" }, el("h3", {}, title),
    el("table", { class: "list refund-list" },
      el("tr", {}, el("th", {}, "Player"), el("th", {}, "Refund"), el("th", {}, "Rule")),
      rows.map((r) => el("tr", { "data-player": r.player }, el("td", {}, r.name), el("td", { class: "cents", "data-cents": r.refund_cents }, money(r.refund_cents)), el("td", {}, r.rule))),
      el("tr", { class: "total" }, el("td", {}, "Total"), el("td", { id: "refund-total", "data-cents": total }, money(total)), el("td", {}, ""))));
}

// The admin's cancellation: preview the refunds under policy A or B, then cancel with them.
// The director's corrections (seed 004): a compensation from the house, or a prize paid in error taken back.
// Each asks for a confirmation first, and says what happened.
function correctionsPanel(id) {
  if (!adminToken()) return null;
  const player = el("input", { id: "correction-player", placeholder: "player (p7)", "aria-label": "player" });
  const cents = el("input", { id: "correction-cents", type: "number", min: 1, placeholder: "cents (withdraw: empty for all)", "aria-label": "cents" });
  const reason = el("input", { id: "correction-reason", placeholder: "reason", "aria-label": "reason" });
  const out = el("p", { id: "correction-result", class: "message" });
  const act = (command, question) => async () => {
    const amount = cents.value ? Number(cents.value) : null;
    if (!window.confirm(question(amount))) return;
    try {
      const details = await api(`/api/tournaments/${id}/${command}`, { method: "POST", token: adminToken(),
        body: { player: player.value, reason: reason.value, ...(amount !== null || command === "compensate" ? { cents: amount } : {}) } });
      out.textContent = `Done. Compensations ${money(details.ledger.compensations)}, withdrawn ${money(details.ledger.withdrawn)}.`;
    } catch (error) { out.textContent = error.message; }
  };
  return el("details", { class: "admin-panel" }, el("summary", {}, "Corrections (admin)"),
    el("p", {}, player, cents, reason),
    el("p", {}, el("button", { id: "compensate", onclick: act("compensate", (a) => `Pay ${player.value} ${money(a || 0)} from the house?`) }, "Pay compensation"),
      el("button", { id: "withdraw", onclick: act("withdraw", (a) => `Take back ${a === null ? "all of the prize" : money(a)} from ${player.value}?`) }, "Withdraw prize")), out);
}

function cancellationPanel(id) {
  if (!adminToken()) return null;
  const policy = el("select", { id: "policy" }, el("option", { value: "" }, "the tournament's policy"),
    el("option", { value: "A" }, "policy A"), el("option", { value: "B" }, "policy B"));
  const out = el("div", { id: "cancellation-preview" });
  const fail = (error) => out.replaceChildren(el("p", { class: "message" }, error.message));
  const preview = () => api(`/api/tournaments/${id}/cancellation${policy.value ? `?policy=${policy.value}` : ""}`, { token: adminToken() })
    .then((answer) => out.replaceChildren(refundTable("If cancelled now", answer.refunds))).catch(fail);
  const cancel = () => window.confirm("Cancel this tournament? The refunds are paid; this cannot be undone.") &&
    api(`/api/tournaments/${id}/cancel`, { method: "POST", token: adminToken(), body: policy.value ? { policy: { name: policy.value } } : {} })
      .then(() => out.replaceChildren(el("p", { class: "message" }, "Cancelled: the refunds are paid."))).catch(fail);
  return el("details", { class: "admin-panel" }, el("summary", {}, "Cancel with refunds (admin)"),
    el("p", {}, policy, el("button", { id: "preview-refunds", onclick: preview }, "Preview refunds"),
      el("button", { id: "cancel-tournament", onclick: cancel }, "Cancel tournament")), out);
}

function route() {
  const match = location.hash.match(/^#\/t\/([^/]+)(?:\/table\/(\d+)|\/seat\/([^/]+))?/);
  if (match) tournamentPage(match[1], match[2] ? Number(match[2]) : null, match[3] || null);
  else lobby().catch((error) => { statusLine.textContent = error.message; });
}

window.addEventListener("hashchange", route);
route();
