// One table, live: a websocket client that keeps the table's state from a snapshot plus numbered events,
// draws it, and, for a seated player, offers only the legal actions. Reconnects by itself with the same token.

import { cardNode, chips, el, money } from "./dom.js";

export class TableClient {
  constructor(tournamentId, { token = null, table = null, root, log, notices, onTournament = () => {} }) {
    Object.assign(this, { tournamentId, token, table, root, log, notices, onTournament });
    this.state = { seq: 0, table: null, you: null, tournament: null, turn: null, clock: null };
    this.offers = {};  // kind -> the server's offer (rebuy, add_on, press_deal, deal), with when it arrived
    this.dealPressed = false;
    this.names = new Map();  // player -> name, for the log once a seat is gone
    this.stopped = false;
    this.retry = 500;
    this.ticker = setInterval(() => this.drawClock(), 250);
    this.keys = (event) => this.onKey(event);
    document.addEventListener("keydown", this.keys);
    this.connect();
  }

  connect() {
    const url = new URL(`/ws/tournaments/${this.tournamentId}`, location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    if (this.token) url.searchParams.set("token", this.token);
    else if (this.table) url.searchParams.set("table", this.table);
    this.socket = new WebSocket(url);
    // A frame carries one or more messages, one per line (docs/protocol.md).
    this.socket.onmessage = (message) => message.data.split("\n").forEach((line) => this.receive(JSON.parse(line)));
    this.socket.onopen = () => { this.retry = 500; this.notice(""); };
    this.socket.onclose = () => {
      if (this.stopped) return;
      this.notice("Connection lost: reconnecting…");
      setTimeout(() => this.connect(), this.retry);  // the same token resumes the same seat
      this.retry = Math.min(this.retry * 2, 5000);
    };
  }

  stop() {
    this.stopped = true;
    clearInterval(this.ticker);
    document.removeEventListener("keydown", this.keys);
    if (this.socket) this.socket.close();
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  notice(text) { this.notices.textContent = text; this.notices.hidden = !text; }

  receive(data) {
    const state = this.state;
    if (data.type === "snapshot") {
      Object.assign(state, { seq: data.seq, table: data.table, you: data.you, tournament: data.tournament });
      state.clock = data.table && data.table.clock ? { ...data.table.clock, since: Date.now() } : null;
      state.turn = data.you && data.you.legal ? { ...data.you.legal, hand: data.table && data.table.hand } : null;
      this.onTournament(data.tournament);
    } else if (data.type === "event") {
      if (data.seq !== state.seq + 1) { this.send({ type: "sync" }); return; }  // a gap: ask for a snapshot
      state.seq = data.seq;
      this.apply(data.event);
      this.write(data.event);
    } else if (data.type === "private") {
      this.private(data.event);
    } else if (data.type === "error") {
      this.write({ type: "error", message: data.message });
    }
    this.draw();
  }

  private(event) {
    const state = this.state;
    if (event.type === "hole_dealt" && state.you) state.you.hole = event.cards;
    if (event.type === "your_turn") { state.turn = event; this.amount = null; }
    if (event.type === "offer") this.offers[event.kind] = { ...event, since: Date.now() };
    if (event.type === "moved") {
      this.notice(`You were moved from table ${event.from_table} to table ${event.to_table}, seat ${event.seat + 1} ` +
        `(${event.reason === "break" ? "your table was broken" : "tables were balanced"}).`);
      this.write({ type: "moved_me", ...event });
    }
  }

  seat(player) { return this.state.table && this.state.table.seats.find((s) => s.player === player); }

  // The hand is over without a showdown (void, or the tournament cancelled): no turn, no clock, no bets.
  endHand() {
    const { table } = this.state;
    this.state.turn = null;
    this.state.clock = null;
    if (table) { table.actor = null; for (const s of table.seats) Object.assign(s, { bet: 0, in_hand: false }); }
  }

  apply(event) {
    const state = this.state;
    const table = state.table;
    const seat = this.seat(event.player);
    switch (event.type) {
      case "hand_started":
        if (!table) break;
        Object.assign(table, { hand: event.hand, board: [], button: event.button, pot: 0, actor: null });
        for (const s of table.seats) Object.assign(s, { bet: 0, folded: false, shown: [], in_hand: false });
        for (const p of event.players) { const s = this.seat(p.player); if (s) Object.assign(s, { stack: p.stack, in_hand: true }); }
        if (state.you) state.you.hole = null;
        state.turn = null;
        break;
      case "posted": case "acted":
        if (seat) {
          seat.stack -= event.amount;
          if (event.type === "acted" || (event.kind !== "ante" && event.kind !== "big_blind_ante")) seat.bet += event.amount;
          if (event.action === "fold") seat.folded = true;
        }
        if (table) table.pot += event.amount;
        if (event.type === "acted" && state.turn && state.you && event.player === state.you.player) state.turn = null;
        break;
      case "board_dealt":
        if (table) { table.board.push(...event.cards); for (const s of table.seats) s.bet = 0; }
        break;
      case "returned": if (seat) seat.stack += event.amount; if (table) table.pot -= event.amount; break;
      case "shown": if (seat) seat.shown = event.cards; break;
      case "pot_awarded": event.winners.forEach((w, i) => { const s = this.seat(w); if (s) s.stack += event.shares[i]; }); break;
      case "hand_ended": if (table) { table.actor = null; table.pot = 0; } state.clock = null; break;
      case "turn": if (table) table.actor = event.player; state.clock = { ...event, since: Date.now() }; break;
      case "sitting_out": if (seat) seat.sitting_out = event.sitting_out;
        if (state.you && event.player === state.you.player) state.you.sitting_out = event.sitting_out; break;
      case "presence": if (seat) seat.connected = event.connected; break;
      case "seated": case "player_moved":
        this.send({ type: "sync" });  // seats changed: a fresh snapshot is simpler than patching
        break;
      case "level_changed": Object.assign(state.tournament, { level: event.level, small_blind: event.small_blind, big_blind: event.big_blind, ante: event.ante }); this.onTournament(state.tournament); break;
      case "player_eliminated": state.tournament.players_left -= 1; this.onTournament(state.tournament);
        if (table && seat) { this.names.set(seat.player, seat.name); table.seats = table.seats.filter((s) => s !== seat); }  // no ghost
        if (state.you && event.player === state.you.player) {
          state.turn = null;
          state.you.result = { place: event.place, prize_cents: event.prize_cents };
          this.notice(`You finished in place ${event.place}${event.prize_cents ? `, for ${money(event.prize_cents)}` : ""}.`);
        }
        break;
      case "hand_for_hand_started": state.tournament.hand_for_hand = true; this.onTournament(state.tournament); break;
      case "hand_for_hand_ended": state.tournament.hand_for_hand = false; this.onTournament(state.tournament); break;
      case "tournament_state": state.tournament.paused = event.paused; this.onTournament(state.tournament); break;
      case "tournament_finished": state.tournament.status = "finished"; this.offers = {}; this.onTournament(state.tournament); break;
      case "status_changed": state.tournament.status = event.status;
        if (event.status !== "running") { this.offers = {}; this.endHand(); }  // a cancel voids the hand: no live buttons
        this.onTournament(state.tournament); break;
      case "hand_voided": this.endHand(); break;
      case "rebuy_taken": case "rebuy_declined": if (this.mine(event)) delete this.offers.rebuy; break;
      case "add_on_taken": if (this.mine(event)) delete this.offers.add_on; break;
      case "add_on_ended": delete this.offers.add_on; break;
      case "deal_pressed": if (this.mine(event)) this.dealPressed = event.on; break;
      case "deal_rejected": delete this.offers.deal; this.dealPressed = false; break;
      case "bounty_won": event.winners.forEach((w, i) => { const s = this.seat(w); if (s && s.bounty_cents !== null) s.bounty_cents += event.head_cents[i]; }); break;
    }
    if (event.type === "player_eliminated") { delete this.offers.press_deal; this.dealPressed = false; }
  }

  // Names outlive seats: a player out (their seat gone) is still named in the log.
  name(player) {
    const s = this.seat(player);
    if (s) this.names.set(player, s.name);
    return s ? s.name : this.names.get(player) ?? player;
  }

  mine(event) { return this.state.you && event.player === this.state.you.player; }

  write(event) {
    const text = {
      hand_started: () => `— Hand #${event.hand}`,
      acted: () => `${this.name(event.player)} ${event.action}s${["bet", "raise"].includes(event.action) ? ` to ${chips(event.to)}` : event.amount ? ` ${chips(event.amount)}` : ""}${event.all_in ? " (all-in)" : ""}`,
      board_dealt: () => `${event.street}`,
      pot_awarded: () => `${event.pot === 0 ? "Main pot" : `Side pot ${event.pot}`} ${chips(event.amount)}: ${event.winners.map((w, i) => `${this.name(w)} wins ${chips(event.shares[i])}`).join(", ")}`,
      timed_out: () => `${this.name(event.player)} ran out of time: ${event.action === "check" ? "checked" : "folded"} automatically`,
      player_eliminated: () => `${event.player} is out in place ${event.place}`,
      player_moved: () => `${event.player} moves from table ${event.from_table} to ${event.to_table} (${event.reason})`,
      moved_me: () => `You moved to table ${event.to_table} (${event.reason})`,
      table_broken: () => `Table ${event.table} breaks`,
      level_changed: () => `Level ${event.level}: ${event.small_blind}/${event.big_blind}`,
      hand_for_hand_started: () => `Hand-for-hand at ${event.players_left} players`,
      rebuy_offered: () => `${this.name(event.player)} may re-buy`,
      rebuy_taken: () => `${this.name(event.player)} re-buys ${chips(event.chips)} chips`,
      rebuy_declined: () => `${this.name(event.player)} does not re-buy (${event.reason})`,
      add_on_offered: () => `Add-on: ${chips(event.chips)} chips for ${money(event.price_cents)}`,
      add_on_taken: () => `${this.name(event.player)} adds on ${chips(event.chips)} chips`,
      bounty_won: () => event.winners.length === 1 && event.winners[0] === event.victim
        ? `${this.name(event.victim)} collects their own bounty: ${money(event.cash_cents[0])}`
        : `${event.winners.map((w, i) => `${this.name(w)} wins ${money(event.cash_cents[i])}${event.head_cents[i] ? ` (+${money(event.head_cents[i])} on their head)` : ""}`).join(", ")} for knocking out ${this.name(event.victim)}`,
      deal_pressed: () => `${this.name(event.player)} ${event.on ? "wants" : "no longer wants"} a deal (${event.pressed}/${event.players})`,
      deal_proposed: () => `Deal proposed (ICM): ${Object.entries(event.amounts).map(([p, c]) => `${this.name(p)} ${money(c)}`).join(", ")}`,
      deal_accepted: () => `${this.name(event.player)} accepts the deal`,
      deal_rejected: () => `No deal (${event.reason}${event.player ? `: ${this.name(event.player)}` : ""}); play continues`,
      hand_voided: () => `Hand #${event.hand} is void`,
      status_changed: () => `The tournament is ${event.status}`,
      error: () => `Error: ${event.message}`,
    }[event.type];
    if (!text) return;
    const line = el("div", { class: `line ${event.type}` }, text());
    if (event.type === "board_dealt") line.append(" ", ...event.cards.map(cardNode));
    this.log.append(line);
    while (this.log.childElementCount > 400) this.log.firstChild.remove();
    this.log.scrollTop = this.log.scrollHeight;
  }

  draw() {
    const { table, you } = this.state;
    if (!table) {
      this.root.replaceChildren(el("p", {}, you && you.result ? `You finished in place ${you.result.place}.` : "Waiting for the tournament to start…"));
      return;
    }
    const me = you && you.player;
    const seats = table.seats.map((s) => {
      const angle = (2 * Math.PI * s.seat) / table.size + Math.PI / 2;
      const cards = s.shown && s.shown.length ? s.shown.map(cardNode)
        : s.player === me && you.hole ? you.hole.map(cardNode)
        : s.in_hand && !s.folded ? [cardNode(null), cardNode(null)] : [];
      const node = el("div", { class: `seat${s.player === table.actor ? " actor" : ""}${s.folded ? " folded" : ""}${s.player === me ? " me" : ""}`, "data-player": s.player },
        el("div", { class: "name" }, s.name, s.seat === table.button ? el("span", { class: "dealer" }, "D") : null),
        el("div", { class: "stack" }, chips(s.stack)),
        s.bounty_cents ? el("div", { class: "bounty", title: "bounty on this player" }, `bounty ${money(s.bounty_cents)}`) : null,
        el("div", { class: "cards" }, cards),
        el("div", { class: "bet" }, s.bet ? `bet ${chips(s.bet)}` : ""),
        el("div", { class: "marks" }, s.sitting_out ? el("span", { class: "mark" }, "sitting out") : null,
          s.connected === false ? el("span", { class: "mark" }, "disconnected") : null),
        s.player === table.actor ? el("div", { class: "clock" }) : null);
      node.style.left = `${50 + 45 * Math.cos(angle)}%`;
      node.style.top = `${50 + 42 * Math.sin(angle)}%`;
      return node;
    });
    const middle = el("div", { class: "middle" },
      el("div", {}, `Table ${table.id}${table.hand ? ` · hand #${table.hand}` : ""}`),
      el("div", { class: "board" }, table.board.map(cardNode)),
      el("div", { class: "pot" }, table.pot ? `Pot ${chips(table.pot)}` : ""));
    // The action bar is built once per turn and stays in the page until the turn ends, so that what the
    // player typed, and the focus, survive every message that arrives meanwhile.
    if (this.bar === undefined || this.barTurn !== this.state.turn || !this.state.turn) {
      this.bar = this.controls();
      this.barTurn = this.state.turn;
    }
    const oval = el("div", { class: "oval" }, middle, seats);
    const dialogs = this.dialogs();
    if (this.root.firstChild && this.root.contains(this.bar)) {
      this.root.firstChild.replaceWith(oval);
      this.root.lastChild.replaceWith(dialogs);
    } else {
      this.root.replaceChildren(oval, this.bar, dialogs);
    }
    this.drawClock();
  }

  drawClock() {
    for (const node of this.root.querySelectorAll(".offer-seconds")) {
      const left = Math.max(0, Number(node.dataset.seconds) - (Date.now() - Number(node.dataset.since)) / 1000);
      node.textContent = `${left.toFixed(0)}s`;
    }
    const clock = this.state.clock;
    const node = this.root.querySelector(".seat.actor .clock");
    if (!clock || !node) return;
    const left = Math.max(0, clock.seconds - (Date.now() - clock.since) / 1000);
    node.textContent = left <= clock.time_bank && clock.time_bank > 0 ? `time bank ${left.toFixed(0)}s` : `${(left - clock.time_bank).toFixed(0)}s`;
    node.classList.toggle("bank", left <= clock.time_bank && clock.time_bank > 0);
  }

  secondsLeft(offer) { return Math.max(0, offer.seconds - (Date.now() - offer.since) / 1000); }

  // Money decisions, each a small dialog with its clock: a re-buy, the add-on, the Deal button, a proposal.
  dialogs() {
    const { rebuy, add_on: addOn, press_deal: pressDeal, deal } = this.offers;
    const answer = (kind, message) => { delete this.offers[kind]; this.send(message); this.draw(); };
    const clock = (offer) => el("span", { class: "offer-seconds", "data-seconds": offer.seconds, "data-since": offer.since }, `${this.secondsLeft(offer).toFixed(0)}s`);
    const boxes = [];
    if (rebuy) {
      boxes.push(el("div", { class: "dialog", id: "rebuy-dialog" },
        `Re-buy ${chips(rebuy.chips)} chips for ${money(rebuy.price_cents)}? `, clock(rebuy), " ",
        el("button", { id: "rebuy", onclick: () => answer("rebuy", { type: "rebuy" }) }, "Re-buy"),
        el("button", { id: "decline-rebuy", onclick: () => answer("rebuy", { type: "decline_rebuy" }) }, "No, I'm out")));
    }
    if (addOn) {
      boxes.push(el("div", { class: "dialog", id: "add-on-dialog" },
        `Add-on: ${chips(addOn.chips)} chips for ${money(addOn.price_cents)}. `, clock(addOn), " ",
        el("button", { id: "add-on", onclick: () => answer("add_on", { type: "add_on" }) }, "Add on"),
        el("button", { id: "skip-add-on", onclick: () => { delete this.offers.add_on; this.draw(); } }, "No thanks")));
    }
    if (deal) {
      boxes.push(el("div", { class: "dialog", id: "deal-dialog" },
        el("b", {}, "Deal proposal (ICM) "), clock(deal),
        el("table", { class: "deal" }, Object.entries(deal.amounts).map(([player, cents]) =>
          el("tr", {}, el("td", {}, this.name(player)), el("td", {}, chips(deal.stacks ? deal.stacks[player] : 0)), el("td", {}, money(cents))))),
        el("button", { id: "accept-deal", onclick: () => answer("deal", { type: "deal_answer", accept: true }) }, "Accept"),
        el("button", { id: "reject-deal", onclick: () => answer("deal", { type: "deal_answer", accept: false }) }, "Reject")));
    } else if (pressDeal) {
      boxes.push(el("div", { class: "dialog", id: "deal-button" },
        el("button", { id: "press-deal", class: this.dealPressed ? "pressed" : "", onclick: () => this.send({ type: "deal", on: !this.dealPressed }) },
          this.dealPressed ? "Deal pressed (click to cancel)" : "Deal")));
    }
    return el("div", { class: "dialogs" }, boxes);
  }

  controls() {
    const { turn, you, table } = this.state;
    if (!you) return el("div", { class: "controls observer" }, "Watching as an observer");
    if (you.sitting_out) {
      return el("div", { class: "controls" }, "You are sitting out: the clock acts for you. ",
        el("button", { id: "back", onclick: () => this.send({ type: "back" }) }, "I'm back"));
    }
    if (!turn || (table && turn.hand !== table.hand)) return el("div", { class: "controls" }, "");
    const mine = this.seat(you.player);
    const maxBet = (mine ? mine.bet : 0) + turn.call;
    const pot = table.pot;
    const clamp = (n) => Math.max(turn.min_raise_to, Math.min(turn.max_raise_to, Math.round(n)));
    const buttons = [];
    if (turn.can_fold) buttons.push(el("button", { id: "fold", onclick: () => this.act("fold") }, "Fold (F)"));
    buttons.push(turn.can_check
      ? el("button", { id: "check", onclick: () => this.act("check") }, "Check (C)")
      : el("button", { id: "call", onclick: () => this.act("call") }, `Call ${chips(turn.call)} (C)`));
    if (turn.min_raise_to !== null) {
      const amount = this.amount ?? turn.min_raise_to;
      const slider = el("input", { id: "slider", type: "range", min: turn.min_raise_to, max: turn.max_raise_to, value: amount });
      const box = el("input", { id: "amount", type: "number", min: turn.min_raise_to, max: turn.max_raise_to, value: amount });
      slider.oninput = () => { this.amount = Number(slider.value); box.value = slider.value; };
      box.oninput = () => { this.amount = Number(box.value); slider.value = clamp(this.amount); };  // kept as typed
      const preset = (label, value) => el("button", { class: "preset", onclick: () => { this.amount = clamp(value); box.value = slider.value = this.amount; } }, label);
      buttons.push(el("span", { class: "raise" },
        preset("½ pot", maxBet + (pot + turn.call) / 2), preset("Pot", maxBet + pot + turn.call), preset("All-in", turn.max_raise_to),
        slider, box,
        el("button", { id: "raise", onclick: () => this.act(maxBet === 0 ? "bet" : "raise", clamp(Number(box.value))) },
          `${maxBet === 0 ? "Bet" : "Raise to"} (R)`)));
    }
    return el("div", { class: "controls mine" }, buttons);
  }

  act(action, amount) {
    this.send(amount === undefined ? { type: "act", action } : { type: "act", action, amount });
    this.state.turn = null;
    this.draw();
  }

  // Shortcuts: F folds, C checks or calls, R bets or raises the amount in the box. Never with Ctrl, Meta or Alt
  // (Ctrl+C copies, Ctrl+F finds, Ctrl+R reloads), never while typing in a field, and Enter is no shortcut:
  // it presses the focused button, as everywhere, and only inside the amount box submits the bet.
  onKey(event) {
    const turn = this.state.turn;
    if (!turn || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
    const key = event.key.toLowerCase();
    if (key === "enter") {
      if (event.target.id === "amount" && turn.min_raise_to !== null) { event.preventDefault(); this.betOrRaise(); }
      return;
    }
    if (["INPUT", "TEXTAREA", "SELECT"].includes(event.target.tagName) || event.target.isContentEditable) return;
    if (key === "f" && turn.can_fold) this.act("fold");
    else if (key === "c") this.act(turn.can_check ? "check" : "call");
    else if (key === "r" && turn.min_raise_to !== null) this.betOrRaise();
  }

  betOrRaise() {
    const turn = this.state.turn;
    const box = this.root.querySelector("#amount");
    const amount = Math.max(turn.min_raise_to, Math.min(turn.max_raise_to, Number(box ? box.value : turn.min_raise_to)));
    const mine = this.seat(this.state.you.player);
    this.act((mine ? mine.bet : 0) + turn.call === 0 ? "bet" : "raise", amount);
  }
}
