// The hand log's words for each event: names, never raw ids, and "You" for the player themself.

import { shownHand } from "./handrank.js";
import { chips, money } from "./dom.js";

export const MOVED_BECAUSE = {
  break: "your table was broken",
  balance: "tables were balanced",
  director: "the tournament director moved you",
};
const STREETS = { flop: "Flop", turn: "Turn", river: "River" };
export const DEAL_KINDS = { icm: "ICM", chip_chop: "chip chop", equal: "equal split", custom: "custom" };
const CLOSED_BECAUSE = {
  level: "its last level is over",
  capacity: "the tournament is full",
  bubble: "the field reached the bubble",
  rebuys_over: "the re-buy period is over",
};

export function describe(event, state) {
  const isMe = (player) => Boolean(state.you && player === state.you.player);
  const who = (player) => (isMe(player) ? "You" : state.name(player));
  const whom = (player) => (isMe(player) ? "you" : state.name(player));
  const verb = (player, you, them) => (isMe(player) ? you : them);
  const blinds = (e) => `${chips(e.small_blind)}/${chips(e.big_blind)}${e.ante ? `, ante ${chips(e.ante)}` : ""}`;
  const acted = () => {
    const action = event.action === "all_in" ? "go all-in" : event.action;
    const size = ["bet", "raise"].includes(event.action)
      ? ` to ${chips(event.to)}`
      : event.amount
        ? ` ${chips(event.amount)}`
        : "";
    return `${who(event.player)} ${action}${verb(event.player, "", "s")}${size}${event.all_in ? " (all-in)" : ""}`;
  };
  // A pot's winners, with the hand that won it when it was shown.
  const won = () => {
    const pot = event.pot === 0 ? "Main pot" : `Side pot ${event.pot}`;
    const winners = event.winners.map((w, i) => {
      const s = state.seat(w);
      const board = state.table ? state.table.board : [];
      const made = shownHand(s, board);
      const how = made ? ` with ${made.name.toLowerCase()}` : "";
      return `${who(w)} ${verb(w, "win", "wins")} ${chips(event.shares[i])}${how}`;
    });
    return `${pot} ${chips(event.amount)}: ${winners.join(", ")}`;
  };
  const bounty = () => {
    if (event.winners.length === 1 && event.winners[0] === event.victim) {
      const whose = verb(event.victim, "collect your", "collects their");
      return `${who(event.victim)} ${whose} own bounty: ${money(event.cash_cents[0])}`;
    }
    const shares = event.winners.map((w, i) => {
      const head = event.head_cents[i] ? ` (+${money(event.head_cents[i])} on ${verb(w, "your", "their")} head)` : "";
      return `${who(w)} ${verb(w, "win", "wins")} ${money(event.cash_cents[i])}${head}`;
    });
    return `${shares.join(", ")} for knocking out ${whom(event.victim)}`;
  };
  const reason = { break: "a table broke", balance: "balancing", director: "by the director" }[event.reason];
  const text = {
    hand_started: () => `— Hand #${event.hand}`,
    acted,
    board_dealt: () => STREETS[event.street] || event.street,
    shown: () => `${who(event.player)} ${verb(event.player, "show", "shows")}`,
    pot_awarded: won,
    timed_out: () =>
      `${who(event.player)} ran out of time: ${event.action === "check" ? "checked" : "folded"} automatically`,
    player_eliminated: () =>
      `${who(event.player)} ${verb(event.player, "are", "is")} out in place ${event.place}` +
      (event.prize_cents ? `, for ${money(event.prize_cents)}` : ""),
    player_removed: () =>
      `${who(event.player)} ${verb(event.player, "were", "was")} removed from the tournament by the director` +
      (event.refund_cents ? ` (refunded ${money(event.refund_cents)})` : ""),
    player_moved: () =>
      `${who(event.player)} ${verb(event.player, "move", "moves")} from table ${event.from_table} ` +
      `to table ${event.to_table} (${reason})`,
    moved_me: () => `You moved to table ${event.to_table} (${MOVED_BECAUSE[event.reason]})`,
    move_queued: () =>
      `${who(event.player)} ${verb(event.player, "move", "moves")} to table ${event.to_table} when this hand ends ` +
      "(the director's move)",
    queued_move_dropped: () =>
      event.reason === "withdrawn"
        ? `The director's move of ${whom(event.player)} to table ${event.to_table} is off`
        : `${who(event.player)} ${verb(event.player, "stay", "stays")}: the move to table ${event.to_table} ` +
          `was not made (${event.reason})`,
    table_broken: () => `Table ${event.table} breaks`,
    table_closing: () => `Table ${event.table} will break after this hand`,
    table_kept: () => `Table ${event.table} stays open`,
    seated: () => `${who(event.player)} ${verb(event.player, "sit", "sits")} down with ${chips(event.stack)} chips`,
    entries_closed: () =>
      `${event.kind === "reentry" ? "Re-entry" : "Late registration"} is closed (${CLOSED_BECAUSE[event.reason]})`,
    level_changed: () => `Level ${event.level}: blinds ${blinds(event)}`,
    break_started: () => "Break: no new hand until it ends",
    break_ended: () => "The break is over",
    clock_adjusted: () =>
      `The director ${event.seconds > 0 ? "added" : "took away"} ${Math.abs(Math.round(event.seconds / 6) / 10)} min`,
    hand_for_hand_started: () => `Hand-for-hand at ${event.players_left} players`,
    hand_for_hand_ended: () => "Hand-for-hand is over",
    rebuy_offered: () => `${who(event.player)} may re-buy`,
    rebuy_taken: () => `${who(event.player)} re-${verb(event.player, "buy", "buys")} ${chips(event.chips)} chips`,
    rebuy_declined: () => `${who(event.player)} ${verb(event.player, "do", "does")} not re-buy`,
    add_on_offered: () => `Add-on: ${chips(event.chips)} chips for ${money(event.price_cents)}`,
    add_on_taken: () => `${who(event.player)} ${verb(event.player, "add", "adds")} on ${chips(event.chips)} chips`,
    bounty_won: bounty,
    mystery_bounty_drawn: () =>
      event.victim
        ? `${event.winners.map(who).join(" and ")} ${verb(event.winners[0], "open", "opens")} a mystery bounty ` +
          `for knocking out ${whom(event.victim)}: ${money(event.envelope)} (${event.envelopes_left} left)`
        : `Mystery bounties nobody drew: ${money(event.envelope)} to ${event.winners.map(whom).join(", ")}`,
    deal_pressed: () => {
      const wants = event.on
        ? verb(event.player, "want", "wants")
        : verb(event.player, "no longer want", "no longer wants");
      return `${who(event.player)} ${wants} a deal (${event.pressed}/${event.players})`;
    },
    deal_asked: () =>
      `${who(event.proposer)} ${verb(event.proposer, "propose", "proposes")} a deal ` +
      `(${DEAL_KINDS[event.kind] || "ICM"}): it is on the table when this hand ends`,
    deal_proposed: () =>
      `Deal proposed (${DEAL_KINDS[event.kind] || "ICM"}${event.proposer ? ` by ${whom(event.proposer)}` : ""}): ` +
      Object.entries(event.amounts)
        .map(([p, c]) => `${who(p)} ${money(c)}`)
        .join(", ") +
      (event.keep_cents ? `; ${money(event.keep_cents)} stays in play for the winner` : ""),
    deal_paid: () => `Deal done: everyone is paid; play goes on for ${money(event.keep_cents)}`,
    deal_accepted: () => `${who(event.player)} ${verb(event.player, "accept", "accepts")} the deal`,
    deal_rejected: () => `No deal${event.player ? ` (${who(event.player)} said no)` : ""}; play continues`,
    hand_voided: () => `Hand #${event.hand} is void: everyone keeps their stack from its start`,
    status_changed: () => `The tournament is ${event.status}`,
    tournament_finished: () => {
      const first = event.results.find((r) => r.place === 1);
      return first
        ? `${who(first.player)} ${verb(first.player, "win", "wins")} the tournament`
        : "The tournament is over";
    },
  }[event.type];
  return text ? text() : null;
}

// A refusal as a player reads it: what happened, never a validator's wording.
const REFUSALS = {
  not_your_turn: "It is not your turn.",
  invalid_message: "That was not understood; nothing changed.",
  malformed_json: "That was not understood; nothing changed.",
  observer: "You are watching: only the table's players act and chat.",
  chat_limit: "You are chatting too fast: wait a few seconds.",
  too_many_connections: "Reconnecting too fast: waiting a moment.",
};

export const refusalText = (code, message) => REFUSALS[code] || message;
