// One table's state, kept from a snapshot plus the numbered events (docs/protocol.md): no socket, no drawing.

export class TableState {
  constructor() {
    this.seq = 0;
    this.table = null;
    this.you = null;
    this.tournament = null;
    this.turn = null; // the player's legal actions while it is their turn
    this.clock = null; // the actor's countdown, with when it arrived
    this.offers = {}; // kind -> the server's offer (rebuy, add_on, press_deal, deal), with when it arrived
    this.dealPressed = false;
    this.names = new Map(); // player -> name, for the log once a seat is gone
    this.winners = new Map(); // player -> chips won this hand, highlighted until the next deal
    this.removed = false;
    this.handsEnded = 0; // hands ended since the page opened: the stacks a deal's figures come from changed
    this.stale = false; // seats changed in a way a snapshot tells more simply than a patch
  }

  // A snapshot replaces everything; returns nothing to log.
  snapshot(data) {
    Object.assign(this, { seq: data.seq, table: data.table, you: data.you, tournament: data.tournament, stale: false });
    this.clock = data.table && data.table.clock ? { ...data.table.clock, since: Date.now() } : null;
    this.turn = data.you && data.you.legal ? { ...data.you.legal, hand: data.table && data.table.hand } : null;
    if (data.table) for (const s of data.table.seats) this.names.set(s.player, s.name);
  }

  // A numbered table event: false when a number is missing (the caller asks for a snapshot), null when it is
  // another table's (in a cluster the table a move left, whose server may still be sending it: no part of this one).
  numbered(data) {
    if (this.table && data.table !== this.table.id) return null;
    if (data.seq !== this.seq + 1) return false;
    this.seq = data.seq;
    this.apply(data.event);
    return true;
  }

  // A message to this player alone: their cards, their turn, an offer, a move.
  private(event) {
    if (event.type === "hole_dealt" && this.you) this.you.hole = event.cards;
    if (event.type === "your_turn") this.turn = event;
    if (event.type === "offer") this.offers[event.kind] = { ...event, since: Date.now() };
  }

  // The deal under way as the table sees it (the summary's `deal`): one proposed during a hand and waiting for its
  // end, or one on the table; null when there is none (Deal buttons pressed are not one yet).
  dealUnderWay() {
    const deal = this.tournament && this.tournament.deal;
    return deal && (deal.asked_by !== undefined || deal.amounts) ? deal : null;
  }

  seat(player) {
    return this.table && this.table.seats.find((s) => s.player === player);
  }

  mine(event) {
    return Boolean(this.you && event.player === this.you.player);
  }

  // Names outlive seats: a player out (their seat gone) is still named, and one from another table (a move) is
  // named from the tournament's board (`known`, set by the page).
  name(player) {
    if (this.you && player === this.you.player) return this.you.name;
    const s = this.seat(player);
    return s ? s.name : (this.names.get(player) ?? this.known(player) ?? player);
  }

  known() {
    return undefined;
  }

  // The hand is over without a showdown (void, or the tournament cancelled): no turn, no clock, no bets.
  endHand() {
    this.turn = null;
    this.clock = null;
    if (this.table) {
      this.table.actor = null;
      for (const s of this.table.seats) Object.assign(s, { bet: 0, in_hand: false });
    }
  }

  // A player leaves the tournament (out, or removed): their seat goes at once. True when it is this player.
  gone(event) {
    this.tournament.players_left -= 1;
    const seat = this.seat(event.player);
    if (this.table && seat) this.leave(seat);
    if (this.mine(event)) this.turn = null;
    return this.mine(event);
  }

  leave(seat) {
    this.names.set(seat.player, seat.name);
    this.table.seats = this.table.seats.filter((s) => s !== seat); // no ghost
  }

  apply(event) {
    const { table, tournament } = this;
    const seat = this.seat(event.player);
    switch (event.type) {
      case "hand_started":
        if (!table) break;
        Object.assign(table, { hand: event.hand, board: [], button: event.button, pot: 0, actor: null, ended: false });
        for (const s of table.seats) Object.assign(s, { bet: 0, folded: false, shown: [], in_hand: false });
        for (const p of event.players) {
          const s = this.seat(p.player);
          if (s) Object.assign(s, { stack: p.stack, in_hand: true });
        }
        if (this.you) this.you.hole = null;
        this.turn = null;
        this.winners = new Map();
        break;
      case "posted":
      case "acted":
        if (seat) {
          seat.stack -= event.amount;
          if (event.type === "acted" || (event.kind !== "ante" && event.kind !== "big_blind_ante"))
            seat.bet += event.amount;
          if (event.action === "fold") seat.folded = true;
        }
        if (table) table.pot += event.amount;
        if (event.type === "acted" && this.turn && this.mine(event)) this.turn = null;
        break;
      case "board_dealt":
        if (table) {
          table.board.push(...event.cards);
          for (const s of table.seats) s.bet = 0;
        }
        break;
      case "returned":
        if (seat) seat.stack += event.amount;
        if (table) table.pot -= event.amount;
        break;
      case "shown":
        if (seat) seat.shown = event.cards;
        break;
      case "pot_awarded":
        if (table) table.ended = true; // the pots go once the betting is over
        event.winners.forEach((w, i) => {
          const s = this.seat(w);
          if (s) s.stack += event.shares[i];
          this.winners.set(w, (this.winners.get(w) || 0) + event.shares[i]);
        });
        break;
      case "hand_ended":
        this.handsEnded += 1;
        if (table) {
          // The seats keep their cards and their part in the hand to show its end until the next is dealt;
          // `ended` says no decision is left in it (nothing to pre-select).
          Object.assign(table, { actor: null, pot: 0, ended: true });
          for (const s of table.seats) s.bet = 0;
        }
        this.clock = null;
        break;
      case "turn":
        if (table) table.actor = event.player;
        this.clock = { ...event, since: Date.now() };
        if (this.mine(event)) this.you.time_bank = event.time_bank; // the bank the player has, always shown
        break;
      case "sitting_out":
        if (seat) seat.sitting_out = event.sitting_out;
        if (this.mine(event)) this.you.sitting_out = event.sitting_out;
        break;
      case "presence":
        if (seat) seat.connected = event.connected;
        break;
      case "level_changed":
        Object.assign(tournament, {
          level: event.level,
          small_blind: event.small_blind,
          big_blind: event.big_blind,
          ante: event.ante,
        });
        break;
      case "player_eliminated":
        if (this.gone(event)) this.you.result = { place: event.place, prize_cents: event.prize_cents };
        delete this.offers.press_deal;
        this.dealPressed = false;
        if (tournament.deal && tournament.deal.asked_by !== undefined) tournament.deal = null; // the field changed
        break;
      case "player_removed":
        if (this.gone(event)) Object.assign(this, { removed: true, offers: {} });
        break;
      case "hand_for_hand_started":
        tournament.hand_for_hand = true;
        break;
      case "hand_for_hand_ended":
        tournament.hand_for_hand = false;
        break;
      case "break_started":
        tournament.on_break = true;
        break;
      case "break_ended":
        tournament.on_break = false;
        break;
      case "tournament_state":
        tournament.paused = event.paused;
        break;
      case "tournament_finished": {
        tournament.status = "finished";
        tournament.deal = null;
        this.offers = {};
        // Everyone's place, the deal's second as the winner's: not only the busted get a finishing line.
        const own = this.you && (event.results || []).find((r) => r.player === this.you.player);
        if (own) this.you.result = { place: own.place, prize_cents: own.prize_cents };
        break;
      }
      case "status_changed":
        tournament.status = event.status;
        if (event.status !== "running") {
          this.offers = {};
          this.endHand();
        } // a cancel voids the hand: no live buttons
        break;
      case "hand_voided":
        this.endHand();
        break;
      case "seated":
      case "player_moved":
        this.stale = true;
        break; // seats changed: the caller asks for a snapshot
      case "rebuy_taken":
      case "rebuy_declined":
        if (this.mine(event)) delete this.offers.rebuy;
        break;
      case "add_on_taken":
        if (this.mine(event)) delete this.offers.add_on;
        break;
      case "add_on_ended":
        delete this.offers.add_on;
        break;
      case "deal_pressed":
        if (this.mine(event)) this.dealPressed = event.on;
        break;
      // The deal as the table sees it (the summary's `deal`): proposed during a hand and waiting for its end, or
      // on the table while play and the level's clock wait.
      case "deal_asked":
        tournament.deal = { asked_by: event.proposer, kind: event.kind, keep_cents: event.keep_cents };
        break;
      case "deal_proposed":
        tournament.deal = { amounts: event.amounts, kind: event.kind, keep_cents: event.keep_cents };
        break;
      case "deal_paid":
        tournament.deal = null;
        break;
      case "deal_rejected":
        delete this.offers.deal;
        this.dealPressed = false;
        tournament.deal = null;
        break;
      case "bounty_won":
        event.winners.forEach((w, i) => {
          const s = this.seat(w);
          if (s && s.bounty_cents !== null) s.bounty_cents += event.head_cents[i];
        });
        break;
    }
  }
}
