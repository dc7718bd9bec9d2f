// The hand-history viewer: a player's finished hands, each replayed street by street from the PHH text the server
// serves (docs/protocol.md). The server hides every hole card the viewer could not see: they arrive as "????".

import { api, cardNode, chips, el } from "./dom.js";

const RANKS = "23456789TJQKA";
const SUITS = "cdhs";

// "AsKd" -> card numbers (engine/cards.py); "????" -> nulls, drawn face down.
const parseCards = (text) =>
  text.match(/../g).map((c) => (c === "??" ? null : RANKS.indexOf(c[0]) * 4 + SUITS.indexOf(c[1])));

// PHH is TOML; the server writes each field on one line as `key = value`, its values in JSON's syntax.
export function parsePhh(text) {
  const fields = {};
  for (const line of text.split("\n")) {
    const at = line.indexOf(" = ");
    if (at > 0) fields[line.slice(0, at)] = JSON.parse(line.slice(at + 3));
  }
  return fields;
}

// Every step of the hand: who holds what, stacks, bets, the board and the pot after each action.
export function replaySteps(phh, names, viewer) {
  const n = phh.players.length;
  const seat = (token) => Number(token.slice(1)) - 1;
  const state = {
    stacks: [...phh.starting_stacks],
    bets: Array(n).fill(0),
    pot: 0,
    board: [],
    holes: Array(n).fill(null),
    folded: Array(n).fill(false),
  };
  const pay = (i, amount) => {
    const paid = Math.min(amount, state.stacks[i]);
    state.stacks[i] -= paid;
    return paid;
  };
  phh.antes.forEach((ante, i) => {
    state.pot += pay(i, ante);
  });
  phh.blinds_or_straddles.forEach((blind, i) => {
    state.bets[i] += pay(i, blind);
  });
  const copy = (text) => ({
    text,
    stacks: [...state.stacks],
    bets: [...state.bets],
    pot: state.pot,
    board: [...state.board],
    holes: state.holes.map((h) => h && [...h]),
    folded: [...state.folded],
  });
  const name = (i) => names.get(phh.players[i]) || phh.players[i];
  const deals = phh.actions.filter((action) => action.startsWith("d dh "));
  // Others' cards shown at the showdown stay face down until then, as they were at the table.
  const showing = new Set(phh.actions.filter((action) => action.split(" ")[1] === "sm").map((a) => a.split(" ")[0]));
  for (const deal of deals) {
    const [, , who, cards] = deal.split(" ");
    const later = showing.has(who) && phh.players[seat(who)] !== viewer;
    state.holes[seat(who)] = parseCards(later ? "????" : cards);
  }
  const steps = [copy("Blinds and antes; the cards are dealt")];
  for (const action of phh.actions.slice(deals.length)) {
    const [who, verb, arg] = action.split(" ");
    if (who === "d" && verb === "db") {
      state.pot += state.bets.reduce((a, b) => a + b, 0);
      state.bets.fill(0);
      state.board.push(...parseCards(arg));
      steps.push(copy(["", "", "", "Flop", "Turn", "River"][state.board.length] || "Board"));
      continue;
    }
    const i = seat(who);
    if (verb === "f") {
      state.folded[i] = true;
      steps.push(copy(`${name(i)} folds`));
    }
    if (verb === "cc") {
      const owed = Math.max(...state.bets) - state.bets[i];
      state.bets[i] += pay(i, owed);
      steps.push(copy(owed ? `${name(i)} calls ${chips(owed)}` : `${name(i)} checks`));
    }
    if (verb === "cbr") {
      state.bets[i] += pay(i, Number(arg) - state.bets[i]);
      steps.push(copy(`${name(i)} bets or raises to ${chips(Number(arg))}`));
    }
    if (verb === "sm") {
      state.holes[i] = parseCards(arg);
      steps.push(copy(`${name(i)} shows`));
    }
  }
  state.pot += state.bets.reduce((a, b) => a + b, 0);
  state.bets.fill(0);
  state.stacks = [...phh.finishing_stacks];
  steps.push(copy("Finished: the stacks after the hand"));
  return steps;
}

// A player's hand as rooms list it: number, position, own cards, board, chips won or lost (docs/web.md).
function handRow(h, open) {
  const line = h.seat;
  const net = line ? line.net : null;
  return el(
    "tr",
    {
      class: `hand-row${line && line.folded_preflop ? " folded-preflop" : ""}`,
      "data-hand": h.hand,
      "data-net": net ?? "",
    },
    el("td", {}, el("button", { class: "hand-link", "data-hand": h.hand, onclick: () => open(h.hand) }, `#${h.hand}`)),
    el("td", {}, `table ${h.table}`),
    el("td", { class: "position" }, line ? line.position : ""),
    el("td", { class: "hole" }, line ? (line.cards || [null, null]).map(cardNode) : ""),
    el("td", { class: "board" }, line ? line.board.map(cardNode) : ""),
    el(
      "td",
      { class: `net${net > 0 ? " won" : net < 0 ? " lost" : ""}` },
      net === null ? "" : net > 0 ? `+${chips(net)}` : net < 0 ? `−${chips(-net)}` : "0",
    ),
  );
}

export function handsPanel(id, seat, names) {
  const list = el("div", { class: "hand-list", id: "hand-list" });
  const viewer = el("div", { class: "replay", id: "replay" });
  const table = el("input", { id: "hands-table", type: "number", min: 1, placeholder: "table", "aria-label": "table" });
  // Rooms hide the hands folded before the flop on request: the hands one played stay.
  const played = el("input", { type: "checkbox", id: "hands-played" });
  played.onchange = () => list.classList.toggle("played-only", played.checked);
  const panel = el(
    "div",
    {},
    seat
      ? el(
          "p",
          {},
          "Your finished hands: ",
          el("label", {}, played, " Only hands I played (hide those folded before the flop)"),
        )
      : el("p", {}, "Finished hands at table ", table, " ", el("button", { onclick: () => panel.refresh() }, "List")),
    list,
    viewer,
  );
  panel.refresh = async () => {
    const query = seat
      ? `player=${encodeURIComponent(seat.player_id)}`
      : table.value
        ? `table=${Number(table.value)}`
        : null;
    if (!query) {
      list.replaceChildren(el("p", {}, "Choose a table."));
      return;
    }
    try {
      const { hands } = await api(`/api/tournaments/${id}/hands?${query}`, { token: seat && seat.token });
      const newest = hands.slice(-50).reverse();
      list.replaceChildren(
        newest.length
          ? el(
              "table",
              { class: "list hands" },
              el(
                "tr",
                {},
                ["Hand", "Table", "Position", "Cards", "Board", "Won or lost"].map((h) => el("th", {}, h)),
              ),
              newest.map((h) => handRow(h, open)),
            )
          : el("p", {}, "No finished hand yet."),
      );
    } catch (error) {
      list.replaceChildren(el("p", { class: "message" }, error.message));
    }
  };
  const open = async (hand) => {
    try {
      const response = await fetch(`/api/tournaments/${id}/hands/${hand}`, {
        headers: seat ? { Authorization: `Bearer ${seat.token}` } : {},
      });
      if (!response.ok) throw new Error((await response.json()).message);
      const phh = parsePhh(await response.text());
      play(hand, phh, replaySteps(phh, names(), seat && seat.player_id));
    } catch (error) {
      viewer.replaceChildren(el("p", { class: "message" }, error.message));
    }
  };
  const play = (hand, phh, steps) => {
    let at = 0;
    const draw = () => {
      const step = steps[at];
      viewer.replaceChildren(
        el("h3", {}, `Hand #${hand}, step ${at + 1} of ${steps.length}`),
        el("p", { class: "step", id: "replay-step" }, step.text),
        el("div", { class: "board" }, step.board.map(cardNode)),
        // The pot as the table shows it: everything in the middle, this street's bets included (docs/web.md).
        el("p", { id: "replay-pot" }, `Pot ${chips(step.pot + step.bets.reduce((a, b) => a + b, 0))}`),
        el(
          "table",
          { class: "list replay-seats" },
          phh.players.map((player, i) =>
            el(
              "tr",
              { class: step.folded[i] ? "folded" : "", "data-player": player },
              el("td", {}, names().get(player) || player),
              el("td", { class: "hole" }, (step.holes[i] || [null, null]).map(cardNode)),
              el("td", {}, chips(step.stacks[i])),
              el("td", {}, step.bets[i] ? `bet ${chips(step.bets[i])}` : ""),
            ),
          ),
        ),
        el(
          "p",
          { class: "replay-controls" },
          el(
            "button",
            {
              id: "replay-start",
              onclick: () => {
                at = 0;
                draw();
              },
            },
            "« Start",
          ),
          el(
            "button",
            {
              id: "replay-back",
              onclick: () => {
                at = Math.max(0, at - 1);
                draw();
              },
            },
            "◀ Back",
          ),
          el(
            "button",
            {
              id: "replay-next",
              onclick: () => {
                at = Math.min(steps.length - 1, at + 1);
                draw();
              },
            },
            "Next ▶",
          ),
          el(
            "button",
            {
              id: "replay-end",
              onclick: () => {
                at = steps.length - 1;
                draw();
              },
            },
            "End »",
          ),
        ),
      );
    };
    draw();
  };
  return panel;
}
