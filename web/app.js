// mttsim in the browser: the lobby, and a tournament's tables watched live as an observer.
// Plain ES module, no build step. Text from the server is always inserted as text, never as HTML.

const RANKS = "23456789TJQKA";
const SUITS = "cdhs";
const SUIT_SIGNS = { c: "♣", d: "♦", h: "♥", s: "♠" };
const view = document.getElementById("view");
const statusLine = document.getElementById("status");
let socket = null;
let refresher = null;

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

function cardNode(card) {
  const rank = RANKS[Math.floor(card / 4)];
  const suit = SUITS[card % 4];
  return el("span", { class: `card ${suit === "h" || suit === "d" ? "red" : ""}` }, rank + SUIT_SIGNS[suit]);
}

const chips = (n) => Number(n).toLocaleString();
const money = (cents) => `$${(cents / 100).toLocaleString(undefined, { minimumFractionDigits: 2 })}`;

async function getJSON(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

function stop() {
  if (socket) { socket.onclose = null; socket.close(); socket = null; }
  if (refresher) { clearInterval(refresher); refresher = null; }
}

async function lobby() {
  stop();
  const tournaments = await getJSON("/api/tournaments");
  const rows = tournaments.map((t) => el("tr", {},
    el("td", {}, el("a", { href: `#/t/${t.id}` }, t.name)), el("td", {}, t.status),
    el("td", {}, `${t.players_left} / ${t.entries}`), el("td", {}, `${t.level}: ${t.small_blind}/${t.big_blind}`),
    el("td", {}, t.tables)));
  view.replaceChildren(el("h2", {}, "Tournaments"), el("table", { class: "list" },
    el("tr", {}, ...["Name", "Status", "Players", "Level", "Tables"].map((h) => el("th", {}, h))), ...rows));
  statusLine.textContent = `${tournaments.length} tournament(s)`;
}

function tournamentView(id, tableId) {
  stop();
  const state = { table: null, tournament: null, seq: 0, log: [] };
  const summary = el("div", { class: "summary" });
  const banner = el("div");
  const oval = el("div", { class: "oval" });
  const log = el("div", { class: "log" });
  const thumbs = el("div", { class: "thumbs" });
  view.replaceChildren(summary, banner, el("div", { class: "layout" }, el("div", {}, oval, thumbs), log));

  const url = new URL(`/ws/tournaments/${id}`, location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  if (tableId) url.searchParams.set("table", tableId);
  socket = new WebSocket(url);
  socket.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (data.type === "snapshot") {
      Object.assign(state, { seq: data.seq, table: data.table, tournament: data.tournament });
    } else if (data.type === "event") {
      if (data.seq !== state.seq + 1) { socket.send(JSON.stringify({ type: "sync" })); return; }
      state.seq = data.seq;
      apply(state, data.event);
      note(log, data.event, state);
    } else if (data.type === "error") {
      note(log, { type: "error", message: data.message }, state);
    }
    draw(state, summary, banner, oval);
  };
  socket.onclose = () => { statusLine.textContent = "disconnected: reload to reconnect"; };
  const refresh = async () => {
    const details = await getJSON(`/api/tournaments/${id}`);
    thumbs.replaceChildren(...details.table_list.map((t) => el("div", {
      class: `thumb ${state.table && t.id === state.table.id ? "current" : ""}`,
      onclick: () => socket.send(JSON.stringify({ type: "watch", table: t.id })),
    }, `Table ${t.id}: ${t.seats.length} players`)));
    statusLine.textContent = `${details.name}: ${details.status}`;
  };
  refresh();
  refresher = setInterval(refresh, 2000);
}

function apply(state, event) {
  const table = state.table;
  const seat = (player) => table && table.seats.find((s) => s.player === player);
  switch (event.type) {
    case "hand_started":
      if (table) {
        table.hand = event.hand; table.board = []; table.button = event.button; table.pot = 0;
        for (const s of table.seats) { s.bet = 0; s.folded = false; s.shown = []; s.in_hand = false; }
        for (const p of event.players) { const s = seat(p.player); if (s) { s.stack = p.stack; s.in_hand = true; } }
      }
      break;
    case "posted": case "acted": {
      const s = seat(event.player);
      if (s) { s.stack -= event.amount; if (event.kind !== "ante" && event.kind !== "big_blind_ante") s.bet += event.amount; }
      if (s && event.type === "acted" && event.action === "fold") s.folded = true;
      if (table) table.pot += event.amount;
      break;
    }
    case "board_dealt":
      if (table) { table.board.push(...event.cards); for (const s of table.seats) s.bet = 0; }
      break;
    case "shown": { const s = seat(event.player); if (s) s.shown = event.cards; break; }
    case "returned": { const s = seat(event.player); if (s) s.stack += event.amount; if (table) table.pot -= event.amount; break; }
    case "pot_awarded":
      event.winners.forEach((w, i) => { const s = seat(w); if (s) s.stack += event.shares[i]; });
      break;
    case "turn": if (table) table.actor = event.player; break;
    case "hand_ended": if (table) { table.actor = null; table.pot = 0; } break;
    case "level_changed": Object.assign(state.tournament, { level: event.level, small_blind: event.small_blind, big_blind: event.big_blind }); break;
    case "player_eliminated": state.tournament.players_left -= 1; break;
    case "hand_for_hand_started": state.tournament.hand_for_hand = true; break;
    case "hand_for_hand_ended": state.tournament.hand_for_hand = false; break;
  }
}

function name(state, player) {
  const s = state.table && state.table.seats.find((x) => x.player === player);
  return s ? s.name : player;
}

function note(log, event, state) {
  const words = {
    acted: () => `${name(state, event.player)} ${event.action}s${event.action === "raise" || event.action === "bet" ? ` to ${chips(event.to)}` : event.amount ? ` ${chips(event.amount)}` : ""}`,
    hand_started: () => `— hand #${event.hand}`,
    pot_awarded: () => `${event.winners.map((w) => name(state, w)).join(", ")} win${event.winners.length > 1 ? "" : "s"} ${chips(event.amount)}`,
    player_eliminated: () => `${event.player} is out in place ${event.place}${event.prize_cents ? ` (${money(event.prize_cents)})` : ""}`,
    player_moved: () => `${event.player} moves from table ${event.from_table} to ${event.to_table} (${event.reason})`,
    table_broken: () => `table ${event.table} breaks`,
    level_changed: () => `level ${event.level}: ${event.small_blind}/${event.big_blind}`,
    hand_for_hand_started: () => `hand-for-hand at ${event.players_left} players`,
    timed_out: () => `${name(state, event.player)} timed out (${event.action})`,
    tournament_finished: () => `tournament over: ${event.results[0].player} wins`,
    error: () => `error: ${event.message}`,
  }[event.type];
  if (!words) return;
  log.append(el("div", {}, words()));
  while (log.childElementCount > 300) log.firstChild.remove();
  log.scrollTop = log.scrollHeight;
}

function draw(state, summary, banner, oval) {
  const t = state.tournament;
  if (t) {
    summary.replaceChildren(...[["Level", `${t.level}: ${t.small_blind}/${t.big_blind}`],
      ["Players left", `${t.players_left} / ${t.entries}`], ["Status", t.paused ? "paused" : t.status],
      ["Tables", t.tables]].map(([k, v]) => el("div", {}, k, el("b", {}, v))));
    banner.replaceChildren(...(t.hand_for_hand ? [el("span", { class: "banner" }, "Hand-for-hand")] : []));
  }
  const table = state.table;
  if (!table) { oval.replaceChildren(el("div", { class: "middle" }, "No table to show")); return; }
  const nodes = table.seats.map((s) => {
    const angle = (2 * Math.PI * s.seat) / table.size + Math.PI / 2;
    const node = el("div", { class: `seat ${s.player === table.actor ? "actor" : ""} ${s.folded ? "folded" : ""}` },
      el("div", { class: "name" }, s.name, s.seat === table.button ? " " : "", ...(s.seat === table.button ? [el("span", { class: "button" }, "D")] : [])),
      el("div", {}, chips(s.stack)),
      el("div", { class: "bet" }, s.bet ? `bet ${chips(s.bet)}` : s.sitting_out ? "sitting out" : ""),
      el("div", {}, ...(s.shown || []).map(cardNode)));
    node.style.left = `${50 + 46 * Math.cos(angle)}%`;
    node.style.top = `${50 + 44 * Math.sin(angle)}%`;
    return node;
  });
  const middle = el("div", { class: "middle" }, el("div", {}, `Table ${table.id}${table.hand ? ` · hand #${table.hand}` : ""}`),
    el("div", {}, ...table.board.map(cardNode)), el("div", {}, table.pot ? `pot ${chips(table.pot)}` : ""));
  oval.replaceChildren(middle, ...nodes);
}

function route() {
  const match = location.hash.match(/^#\/t\/([^/]+)(?:\/(\d+))?/);
  if (match) tournamentView(match[1], match[2]);
  else lobby().catch((error) => { statusLine.textContent = error.message; });
}

window.addEventListener("hashchange", route);
route();
