// One table drawn from its state (state.js): the seats, the board, the player's actions and pre-actions, the money
// dialogs, the hand log and the chat. It sends through the function it is given and never opens a socket.

import { DEAL_KINDS } from "./describe.js";
import { cardNode, chips, el, money, ordinal } from "./dom.js";
import { describeHand, shownHand } from "./handrank.js";
import { beep, prefs, presets, setPref } from "./prefs.js";

const LOG_LINES = 400;

// How the time bank refills, beside it: " · +10s every 2 levels" (nothing when it does not).
function refill(state) {
  const bank = state.tournament && state.tournament.time_bank;
  if (!bank || !bank.add_seconds) return "";
  const every = bank.every_levels === 1 ? "every level" : `every ${bank.every_levels} levels`;
  return ` · +${bank.add_seconds}s ${every}`;
}

// Why `amount` cannot be bet or raised to as it is ("minimum raise 500"), or "" when it can.
function outOfRange(turn, amount, betting) {
  if (!Number.isInteger(amount) || amount <= 0)
    return `a whole number of chips, ${chips(turn.min_raise_to)} to ${chips(turn.max_raise_to)}`;
  if (amount < turn.min_raise_to) return `minimum ${betting ? "bet" : "raise"} ${chips(turn.min_raise_to)}`;
  if (amount > turn.max_raise_to) return `at most ${chips(turn.max_raise_to)}, all-in`;
  return "";
}

// A seat's mark in words, and in one short word where a phone's seat has no room for two lines of them.
const mark = (words, short, also = "") =>
  el(
    "span",
    { class: `mark ${also}`.trim(), title: words },
    el("span", { class: "long" }, words),
    el("span", { class: "short" }, short),
  );

export class TableView {
  constructor(state, { send, root, log, chat, logKey, player, figures }) {
    Object.assign(this, { state, send, root, logBox: log, chatBox: chat, logKey, player, figures });
    this.pre = null; // the pre-action box ticked: "fold", "check_fold" or "call_any"
    this.preHand = null;
    this.amount = null; // what the player typed in the bet box this turn
    this.proposal = { kind: "icm", keep: "", amounts: {}, open: false }; // a deal being typed
    this.proposeBox = el("div", { class: "dialogs", id: "propose-box" }); // stays in the page: typing survives
    this.ticker = setInterval(() => this.drawClock(), 250);
    this.keys = (event) => this.onKey(event);
    document.addEventListener("keydown", this.keys);
    this.barSize = new ResizeObserver(() => this.measureBar());
    this.resized = () => this.measureBar();
    window.addEventListener("resize", this.resized);
    this.restoreLog();
    this.drawChat();
  }

  stop() {
    clearInterval(this.ticker);
    document.removeEventListener("keydown", this.keys);
    window.removeEventListener("resize", this.resized);
    this.barSize.disconnect();
    document.documentElement.style.removeProperty("--bar-height");
  }

  // On a phone the bar is fixed at the bottom, one row to three tall: what must never be under it (a decision
  // with a clock, the page's end, the Propose button) keeps above its height, measured as it changes.
  measureBar() {
    const bar = this.bar && this.bar.isConnected ? this.bar : null;
    const fixed = bar && getComputedStyle(bar).position === "fixed";
    document.documentElement.style.setProperty("--bar-height", `${fixed ? bar.offsetHeight : 0}px`);
  }

  // ------------------------------------------------------------------ the hand log, kept across reloads

  restoreLog() {
    const kept = JSON.parse(sessionStorage.getItem(this.logKey) || "[]");
    this.logBox.replaceChildren(...kept.map(([kind, text, cards]) => this.logLine(kind, text, cards)));
    this.logBox.scrollTop = this.logBox.scrollHeight;
  }

  logLine(kind, text, cards = []) {
    const line = el("div", { class: `line ${kind}` }, text);
    if (cards.length) line.append(" ", ...cards.map(cardNode));
    return line;
  }

  write(kind, text, cards = []) {
    if (!text) return;
    this.logBox.append(this.logLine(kind, text, cards));
    while (this.logBox.childElementCount > LOG_LINES) this.logBox.firstChild.remove();
    this.logBox.scrollTop = this.logBox.scrollHeight;
    const kept = [...JSON.parse(sessionStorage.getItem(this.logKey) || "[]"), [kind, text, cards]].slice(-LOG_LINES);
    sessionStorage.setItem(this.logKey, JSON.stringify(kept));
  }

  // ------------------------------------------------------------------ chat

  drawChat() {
    if (!this.chatBox) return;
    const scrolled = { tabindex: 0, role: "log", "aria-label": "chat" }; // a keyboard reaches it (WCAG 2.1.1)
    this.chatLines = el("div", { class: "chat-lines", id: "chat-lines", ...scrolled });
    const input = el("input", {
      id: "chat-input",
      maxlength: 200,
      placeholder: this.player ? "say something (Enter)" : "observers read only",
      disabled: !this.player,
      "aria-label": "chat message",
    });
    input.onkeydown = (event) => {
      if (event.key !== "Enter" || !input.value.trim()) return;
      this.send({ type: "say", text: input.value.trim() });
      input.value = "";
    };
    this.chatBox.replaceChildren(el("h3", {}, "Chat"), this.chatLines, input);
  }

  // Chat is a table's: a player moved to another table reads its lines, not the old table's.
  chatFollows(tableId) {
    if (this.chatTable !== undefined && this.chatTable !== tableId && this.chatLines)
      this.chatLines.replaceChildren(el("div", { class: "chat-line moved-note" }, `Table ${tableId}'s chat`));
    this.chatTable = tableId;
  }

  said(message) {
    if (!this.chatLines || prefs().muted.includes(message.player)) return;
    const mine = this.state.you && message.player === this.state.you.player;
    const mute = mine
      ? null
      : el(
          "button",
          {
            class: "mute",
            title: `mute ${message.name}`,
            "data-player": message.player,
            onclick: () => {
              setPref("muted", [...prefs().muted, message.player]);
              for (const line of this.chatLines.querySelectorAll(`[data-player="${CSS.escape(message.player)}"]`))
                line.remove();
            },
          },
          "mute",
        );
    this.chatLines.append(
      el(
        "div",
        { class: "chat-line", "data-player": message.player },
        el("b", {}, `${message.name}: `),
        message.text,
        mute,
      ),
    );
    while (this.chatLines.childElementCount > 100) this.chatLines.firstChild.remove();
    this.chatLines.scrollTop = this.chatLines.scrollHeight;
  }

  // ------------------------------------------------------------------ drawing

  draw() {
    const { table, you } = this.state;
    if (table && this.state.turn && this.pre && this.preHand === table.hand) {
      this.preAct();
      return;
    } // it redraws
    if (!table) {
      const text = this.state.removed
        ? "The director removed you from the tournament."
        : you && you.result
          ? `You finished ${ordinal(you.result.place)}.`
          : "Waiting for the tournament to start…";
      this.root.replaceChildren(el("p", { class: "waiting" }, text));
      this.bar = undefined;
      return;
    }
    this.chatFollows(table.id);
    const me = you && you.player;
    // The table turns so that one's own seat is at the bottom, beside the action bar, as every room draws it;
    // an observer (or a player out) sees the first seat there.
    const hero = (me && this.state.seat(me)) || null;
    const turn = hero ? hero.seat : 0;
    const seats = table.seats.map((s) => this.seatNode(s, me, turn));
    const board = el(
      "div",
      { class: "board" },
      table.board.map((card) => el("span", { class: "dealt" }, cardNode(card))),
    );
    const mine = me && you.hole ? describeHand([...you.hole, ...table.board]) : null;
    const tableLine = `Table ${table.id}${table.hand ? ` · hand #${table.hand}` : ""}`;
    const middle = el(
      "div",
      { class: "middle" },
      el("div", { class: "table-line" }, tableLine),
      board,
      el("div", { class: "pot" }, table.pot ? `Pot ${chips(table.pot)}` : ""),
      mine ? el("div", { class: "strength", id: "strength" }, mine.name) : null,
    );
    // The action bar is built once per turn and stays in the page until the turn ends, so that what the
    // player typed, and the focus, survive every message that arrives meanwhile.
    const turnKey = this.state.turn || (you && !you.sitting_out && this.inHand() ? `pre:${table.hand}` : null);
    if (this.bar === undefined || this.barTurn !== turnKey || !turnKey) {
      if (this.barTurn !== turnKey && this.state.turn) {
        this.amount = null;
        beep();
      }
      this.bar = this.controls();
      this.barTurn = turnKey;
    }
    // Held sideways the middle has no room for the table's line: it stands over the oval's corner (style.css).
    const oval = el(
      "div",
      { class: "oval", "data-size": table.size },
      el("div", { class: "table-line" }, tableLine),
      middle,
      seats,
    );
    // The money dialogs are built anew only when the offers change, as the bar is once a turn: a button replaced
    // by every event's redraw could take a press and lose it (the mouse's down and up on two different buttons).
    const offered = JSON.stringify([this.state.offers, this.state.dealPressed, this.state.dealUnderWay()]);
    if (offered !== this.offered || !this.dialogsNode) {
      this.dialogsNode = this.dialogs();
      this.offered = offered;
    }
    const dialogs = this.dialogsNode;
    this.drawProposeBox();
    // Only what changed is put in: the forms below the bar (a deal being typed, the settings) stay in the page,
    // so that a new turn's bar does not take the focus from a field being typed in.
    if (this.root.contains(this.proposeBox)) {
      const [drawnOval, drawnBar, drawnDialogs] = this.root.children;
      drawnOval.replaceWith(oval);
      if (drawnBar !== this.bar) drawnBar.replaceWith(this.bar);
      if (drawnDialogs !== dialogs) drawnDialogs.replaceWith(dialogs);
    } else {
      this.settingsBox = this.settingsBox || (you ? this.settings() : el("span")); // built once: it keeps its state
      this.root.replaceChildren(oval, this.bar, dialogs, this.proposeBox, this.settingsBox);
    }
    if (this.measured !== this.bar) {
      this.barSize.disconnect();
      if (this.bar.isConnected) this.barSize.observe(this.bar);
      this.measured = this.bar;
      this.measureBar();
    }
    this.drawClock();
  }

  seatNode(s, me, turn) {
    const { table, you } = this.state;
    const angle = (2 * Math.PI * (s.seat - turn)) / table.size + Math.PI / 2; // seat "turn" at the bottom
    const cards =
      s.shown && s.shown.length
        ? s.shown.map(cardNode)
        : s.player === me && you.hole
          ? you.hole.map(cardNode)
          : s.in_hand && !s.folded
            ? [cardNode(null), cardNode(null)]
            : [];
    const won = this.state.winners.get(s.player);
    const made = won ? shownHand(s, table.board) : null;
    const node = el(
      "div",
      {
        class: [
          "seat",
          s.player === table.actor && "actor",
          s.folded && "folded",
          s.player === me && "me",
          won && "winner",
          Math.cos(angle) > 0.3 && "right-side", // its button goes on the inner side, never off the screen
        ]
          .filter(Boolean)
          .join(" "),
        "data-player": s.player,
      },
      // The button is a chip beside the seat, never inside the name a long one would push it out of.
      s.seat === table.button ? el("span", { class: "dealer", title: "dealer button" }, "D") : null,
      el("div", { class: "name", title: s.name }, s.name),
      el("div", { class: "stack" }, chips(s.stack)),
      el(
        "div",
        { class: "marks" },
        // A phone says only "offline" of a player both away and disconnected: one short word fits beside the stack.
        s.sitting_out ? mark("sitting out", "away", s.connected === false ? "implied" : "") : null,
        s.connected === false ? mark("disconnected", "offline") : null,
      ),
      s.bounty_cents
        ? el(
            "div",
            { class: "bounty", title: "bounty on this player" },
            el("span", { class: "long" }, "bounty "),
            money(s.bounty_cents),
          )
        : null,
      el(
        "div",
        { class: "cards" },
        cards.map((card) => el("span", { class: "dealt" }, card)),
      ),
      el("div", { class: "bet" }, s.bet ? el("span", { class: "chips-moving" }, `bet ${chips(s.bet)}`) : ""),
      won ? el("div", { class: "won" }, `wins ${chips(won)}${made ? ` · ${made.name}` : ""}`) : null,
      s.player === table.actor ? el("div", { class: "clock" }) : null,
    );
    node.style.left = `${50 + 45 * Math.cos(angle)}%`;
    node.style.top = `${50 + 42 * Math.sin(angle)}%`;
    return node;
  }

  drawClock() {
    for (const node of this.root.querySelectorAll(".offer-seconds")) {
      const left = Math.max(0, Number(node.dataset.seconds) - (Date.now() - Number(node.dataset.since)) / 1000);
      node.textContent = `${left.toFixed(0)}s`;
    }
    const bank = this.root.querySelector("#time-bank");
    const { clock, you } = this.state;
    const spent =
      clock && you && clock.player === you.player
        ? Math.max(0, (Date.now() - clock.since) / 1000 - (clock.seconds - clock.time_bank))
        : 0;
    const banked = you ? Math.max(0, you.time_bank - spent).toFixed(0) : 0;
    if (bank && you) bank.textContent = `Time bank ${banked}s${refill(this.state)}`;
    const node = this.root.querySelector(".seat.actor .clock");
    if (!clock || !node) return;
    // A bar that shrinks over the action clock, then, in another colour, over the time bank, as rooms draw it.
    const left = Math.max(0, clock.seconds - (Date.now() - clock.since) / 1000);
    const inBank = left <= clock.time_bank && clock.time_bank > 0;
    const action = clock.seconds - clock.time_bank;
    const share = inBank ? left / clock.time_bank : action > 0 ? (left - clock.time_bank) / action : 0;
    const bar = node.querySelector(".bar") || node.appendChild(el("span", { class: "bar" }));
    const text = node.querySelector(".seconds") || node.appendChild(el("span", { class: "seconds" }));
    bar.style.width = `${Math.round(Math.max(0, Math.min(1, share)) * 100)}%`;
    text.textContent = inBank ? `time bank ${left.toFixed(0)}s` : `${(left - clock.time_bank).toFixed(0)}s`;
    node.classList.toggle("bank", inBank);
  }

  secondsLeft(offer) {
    return Math.max(0, offer.seconds - (Date.now() - offer.since) / 1000);
  }

  // Money decisions, each a small dialog with its clock: a re-buy, the add-on, the Deal button, a proposal.
  dialogs() {
    const state = this.state;
    const { rebuy, add_on: addOn, press_deal: pressDeal, deal } = state.offers;
    const answer = (kind, message) => {
      delete state.offers[kind];
      if (message) this.send(message);
      this.draw();
    };
    const clock = (offer) =>
      el(
        "span",
        { class: "offer-seconds", "data-seconds": offer.seconds, "data-since": offer.since },
        `${this.secondsLeft(offer).toFixed(0)}s`,
      );
    const boxes = [this.dealNews()];
    if (rebuy) {
      boxes.push(
        el(
          "div",
          { class: "dialog", id: "rebuy-dialog" },
          `Re-buy ${chips(rebuy.chips)} chips for ${money(rebuy.price_cents)}? `,
          clock(rebuy),
          " ",
          el("button", { id: "rebuy", onclick: () => answer("rebuy", { type: "rebuy" }) }, "Re-buy"),
          el(
            "button",
            { id: "decline-rebuy", onclick: () => answer("rebuy", { type: "decline_rebuy" }) },
            "No, I'm out",
          ),
        ),
      );
    }
    if (addOn) {
      boxes.push(
        el(
          "div",
          { class: "dialog", id: "add-on-dialog" },
          `Add-on: ${chips(addOn.chips)} chips for ${money(addOn.price_cents)}. `,
          clock(addOn),
          " ",
          el("button", { id: "add-on", onclick: () => answer("add_on", { type: "add_on" }) }, "Add on"),
          el("button", { id: "skip-add-on", onclick: () => answer("add_on", null) }, "No thanks"),
        ),
      );
    }
    // What ICM would pay each is beside any other kind of proposal, to decide by; an ICM proposal is its own.
    const icm = deal && deal.deal_kind !== "icm" && deal.icm_cents ? deal.icm_cents : null;
    if (deal) {
      boxes.push(
        el(
          "div",
          { class: "dialog", id: "deal-dialog" },
          el("b", {}, `Deal proposal (${DEAL_KINDS[deal.deal_kind || "icm"]}) `),
          clock(deal),
          deal.keep_cents ? el("p", {}, `${money(deal.keep_cents)} stays in play for the winner.`) : null,
          el(
            "table",
            { class: "deal" },
            el(
              "tr",
              {},
              ["Player", "Chips", "Deal", ...(icm ? ["ICM"] : [])].map((h) => el("th", { scope: "col" }, h)),
            ),
            Object.entries(deal.amounts).map(([player, cents]) =>
              el(
                "tr",
                {},
                el("td", {}, state.name(player)),
                el("td", {}, chips(deal.stacks ? deal.stacks[player] : 0)),
                el("td", {}, money(cents)),
                icm ? el("td", { class: "deal-icm" }, money(icm[player] ?? 0)) : null,
              ),
            ),
          ),
          el(
            "button",
            { id: "accept-deal", onclick: () => answer("deal", { type: "deal_answer", accept: true }) },
            "Accept",
          ),
          el(
            "button",
            { id: "reject-deal", onclick: () => answer("deal", { type: "deal_answer", accept: false }) },
            "Reject",
          ),
        ),
      );
    } else if (pressDeal) {
      boxes.push(
        el(
          "div",
          { class: "dialog", id: "deal-button" },
          el(
            "button",
            {
              id: "press-deal",
              class: state.dealPressed ? "pressed" : "",
              onclick: () => this.send({ type: "deal", on: !state.dealPressed }),
            },
            state.dealPressed ? "Deal pressed (click to cancel)" : "Deal",
          ),
        ),
      );
    }
    // A decision with a clock stands above a phone's bar (style.css), never under it.
    return el("div", { class: rebuy || addOn || deal ? "dialogs over-bar" : "dialogs" }, boxes);
  }

  // A deal as everyone at the table sees it: proposed during the hand, or on the table while play waits.
  dealNews() {
    const deal = this.state.dealUnderWay();
    if (!deal) return null;
    const kind = DEAL_KINDS[deal.kind || "icm"];
    const text =
      deal.asked_by !== undefined
        ? `${this.state.mine({ player: deal.asked_by }) ? "You" : this.state.name(deal.asked_by)} proposed ` +
          `${kind === "ICM" ? "an" : "a"} ${kind} deal: it is on the table when this hand ends.`
        : "The players are deciding on a deal: play and the level's clock wait until it is settled.";
    return el("p", { class: "dialog deal-news", id: "deal-news", role: "status" }, text);
  }

  // The form to propose a deal, while a deal may be asked for and none is on the table; rebuilt only when its kind
  // or the players change, so that what is typed and the focus survive every event.
  drawProposeBox() {
    const { press_deal: pressDeal, deal } = this.state.offers;
    const players = this.state.table ? this.state.table.seats.map((s) => s.player) : [];
    // asked for, or open: not another
    this.proposeBox.hidden = !pressDeal || Boolean(deal) || Boolean(this.state.dealUnderWay());
    const key = `${this.proposal.kind}|${players.join()}`;
    if (this.proposeBox.hidden) return;
    if (this.proposeKey === key) {
      // Every hand's end moves the stacks: the figures shown are fetched again, so that what is sent is decided
      // on the stacks as they are.
      if (this.figuresAt !== this.state.handsEnded && this.refreshFigures) this.refreshFigures();
      this.figuresAt = this.state.handsEnded;
      return;
    }
    this.figuresAt = this.state.handsEnded;
    const shown = this.proposeBox.querySelector("details"); // open or not as the person left it, toggle pending or not
    if (shown) this.proposal.open = shown.open;
    this.proposeKey = key;
    this.proposeBox.replaceChildren(el("div", { class: "dialog" }, this.proposeForm(players)));
  }

  // A deal of one's own: its kind, what stays in play for the winner, and for a custom one the amounts. Beside
  // them, what a player decides with: each stack, what ICM and a chip chop would pay, and the sum to split; a
  // custom deal's total is checked as it is typed, in dollars, and Propose waits until it is the sum to split.
  proposeForm(players) {
    const form = this.proposal;
    const cents = (text) => Math.round(Number(text || 0) * 100);
    const field = (attributes, key) =>
      el("input", { type: "number", min: 0, step: "0.01", value: form[key] ?? "", ...attributes });
    const custom = form.kind === "custom";
    const split = el("p", { id: "deal-split", "aria-live": "polite" });
    const total = el("p", { id: "deal-total", class: "deal-total", "aria-live": "polite" });
    const propose = el("button", { id: "propose-deal" }, "Propose");
    const rows = new Map();
    let figures = null;
    const check = () => {
      if (!figures) return;
      split.textContent = `To split: ${money(figures.split_cents)} of the ${money(figures.pool_cents)} pool`;
      if (!custom) {
        total.textContent = "";
        propose.disabled = false;
        return;
      }
      const typed = players.reduce((sum, p) => sum + cents(form.amounts[p]), 0);
      const left = figures.split_cents - typed;
      total.textContent =
        left === 0
          ? `Total ${money(typed)}: it adds up.`
          : `Total ${money(typed)}: ${money(Math.abs(left))} ${left > 0 ? "left to share" : "too much"}.`;
      total.classList.toggle("wrong", left !== 0);
      propose.disabled = left !== 0;
    };
    const show = async () => {
      try {
        figures = await this.figures(cents(form.keep));
      } catch (error) {
        split.textContent = error.message;
        return;
      }
      for (const [player, row] of rows) {
        row.stack.textContent = chips(figures.stacks[player] ?? 0);
        row.icm.textContent = money(figures.icm_cents[player] ?? 0);
        row.chop.textContent = money(figures.chip_chop_cents[player] ?? 0);
      }
      check();
    };
    const lines = players.map((player) => {
      const cell = (kind) => el("td", { class: `deal-${kind}`, "data-player": player });
      const row = { stack: cell("stack"), icm: cell("icm"), chop: cell("chop") };
      rows.set(player, row);
      let typed = null;
      if (custom) {
        const box = field({ class: "deal-amount", "data-player": player, "aria-label": `amount for ${player}` });
        box.value = form.amounts[player] ?? "";
        box.oninput = () => {
          form.amounts[player] = box.value;
          check();
        };
        typed = el("td", {}, "$", box);
      }
      return el("tr", {}, el("th", { scope: "row" }, this.state.name(player)), row.stack, row.icm, row.chop, typed);
    });
    const keep = field({ id: "deal-keep", "aria-label": "kept for the winner" }, "keep");
    keep.oninput = () => {
      form.keep = keep.value;
      show();
    };
    const kind = el(
      "select",
      { id: "deal-kind", "aria-label": "kind of deal" },
      Object.entries(DEAL_KINDS).map(([value, label]) => el("option", { value, selected: value === form.kind }, label)),
    );
    kind.onchange = () => {
      form.kind = kind.value;
      this.draw();
    };
    propose.onclick = () => {
      const message = { type: "deal_propose", kind: form.kind, keep_cents: cents(form.keep) };
      if (custom) message.amounts = Object.fromEntries(players.map((p) => [p, cents(form.amounts[p])]));
      this.send(message);
    };
    const heads = ["Player", "Chips", "ICM", "Chip chop", ...(custom ? ["Your split"] : [])];
    const details = el(
      "details",
      { class: "propose", open: form.open },
      el("summary", {}, "Propose a deal…"),
      el("label", {}, "Kind ", kind),
      el("label", {}, "Keep in play for the winner $", keep),
      split,
      el(
        "table",
        { class: "deal deal-figures", id: "deal-figures" },
        el("thead", {}, el("tr", {}, heads.map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, lines),
      ),
      total,
      propose,
    );
    details.ontoggle = () => {
      if (!details.open) return;
      show();
      propose.scrollIntoView({ block: "nearest" }); // in sight above a phone's bar, not under it
    };
    this.refreshFigures = () => {
      if (details.open) show();
    };
    if (form.open) show();
    return details;
  }

  // ------------------------------------------------------------------ actions

  // Still to decide in the hand under way (a hand that has ended has no decision left).
  inHand() {
    const { you, table } = this.state;
    const mine = you && this.state.seat(you.player);
    return Boolean(mine && !table.ended && mine.in_hand && !mine.folded && mine.stack > 0);
  }

  controls() {
    const { turn, you, table } = this.state;
    if (!you) return el("div", { class: "controls observer" }, "Watching as an observer");
    // Out, or the tournament over: nothing of a seat is left to press (a tick would only be refused).
    if (you.result || this.state.removed) return el("div", { class: "controls finished" }, this.finishingLine());
    const bank = el("span", { class: "time-bank", id: "time-bank" });
    if (you.sitting_out) {
      this.sitOutNext = null; // done: what was asked has happened
      return el(
        "div",
        { class: "controls" },
        "You are sitting out: the clock acts for you. ",
        el("button", { id: "back", onclick: () => this.send({ type: "back" }) }, "I'm back"),
        bank,
      );
    }
    if (!turn || (table && turn.hand !== undefined && turn.hand !== table.hand)) return this.preActions(bank);
    const mine = this.state.seat(you.player);
    const maxBet = (mine ? mine.bet : 0) + turn.call;
    const clamp = (n) => Math.max(turn.min_raise_to, Math.min(turn.max_raise_to, Math.round(n)));
    const buttons = [];
    if (turn.can_fold) buttons.push(el("button", { id: "fold", onclick: () => this.act("fold") }, "Fold (F)"));
    buttons.push(
      turn.can_check
        ? el("button", { id: "check", onclick: () => this.act("check") }, "Check (C)")
        : el("button", { id: "call", onclick: () => this.act("call") }, `Call ${chips(turn.call)} (C)`),
    );
    if (turn.min_raise_to !== null) {
      const amount = this.amount ?? turn.min_raise_to;
      const slider = el("input", {
        id: "slider",
        type: "range",
        min: turn.min_raise_to,
        max: turn.max_raise_to,
        value: amount,
        "aria-label": "bet size",
      });
      const box = el("input", {
        id: "amount",
        type: "number",
        min: turn.min_raise_to,
        max: turn.max_raise_to,
        value: amount,
        "aria-label": "amount",
      });
      const note = el("span", { class: "amount-note", id: "amount-note", role: "status" });
      const raise = el("button", { id: "raise", onclick: () => this.betOrRaise() }, "");
      // The button says what it sends. An amount typed out of range stays as typed (the next digit may bring it
      // in) with the reason beside it; making the bet then clamps it in the box and sends nothing (betOrRaise).
      const show = () => {
        const typed = Number(box.value);
        raise.textContent = `${this.sizeLabel(Number.isFinite(typed) ? clamp(typed) : turn.min_raise_to)} (R)`;
        note.textContent = outOfRange(turn, typed, maxBet === 0);
      };
      slider.oninput = () => {
        this.amount = Number(slider.value);
        box.value = slider.value;
        show();
      };
      box.oninput = () => {
        this.amount = Number(box.value);
        slider.value = clamp(this.amount);
        show();
      }; // kept as typed
      show();
      const sizes = presets(prefs().presets, {
        pot: table.pot,
        call: turn.call,
        maxBet,
        bigBlind: this.state.tournament.big_blind,
        allIn: turn.max_raise_to,
      });
      const preset = ([label, value]) =>
        el(
          "button",
          {
            class: "preset",
            onclick: () => {
              this.amount = clamp(value);
              box.value = slider.value = this.amount;
              show();
            },
          },
          label,
        );
      buttons.push(
        el(
          "span",
          { class: "raise" },
          el("span", { class: "presets" }, sizes.map(preset)),
          slider,
          box,
          raise,
          note,
        ),
      );
    }
    return el("div", { class: "controls mine" }, buttons, bank, this.sitOutChoice());
  }

  finishingLine() {
    const { you } = this.state;
    if (!you.result) return el("span", { id: "finished-line", role: "status" }, "The director removed you.");
    const { place, prize_cents: prize } = you.result;
    return el(
      "span",
      { id: "finished-line", role: "status" },
      `You finished ${ordinal(place)}${prize ? `, winning ${money(prize)}` : ""}.`,
    );
  }

  // "Sit out next hand" and "Sit out next big blind", as the rooms offer them: the server sits the player out
  // from that hand (docs/protocol.md); unticked, the request is taken back. "I'm back" clears it.
  sitOutChoice() {
    const choice = (when, label) => {
      const input = el("input", { type: "checkbox", id: `sit-out-${when}`, checked: this.sitOutNext === when });
      input.onchange = () => {
        this.sitOutNext = input.checked ? when : null;
        for (const other of this.root.querySelectorAll(".sit-out input")) if (other !== input) other.checked = false;
        this.send({ type: "sit_out", when: this.sitOutNext });
      };
      return el("label", { class: "pre sit-out" }, input, label);
    };
    return el("span", { class: "sit-out-choice" }, choice("next_hand", "Sit out next hand"),
      choice("next_big_blind", "Sit out next big blind"));
  }

  // Before the player's turn: boxes that act for them when it comes (PokerStars' pre-action buttons).
  preActions(bank) {
    const { table } = this.state;
    if (!table || !this.inHand()) return el("div", { class: "controls" }, bank, this.sitOutChoice());
    const box = (value, label) => {
      const input = el("input", {
        type: "checkbox",
        id: `pre-${value}`,
        checked: this.pre === value && this.preHand === table.hand,
      });
      input.onchange = () => {
        this.pre = input.checked ? value : null;
        this.preHand = table.hand;
        for (const other of this.root.querySelectorAll(".pre input")) if (other !== input) other.checked = false;
      };
      return el("label", { class: "pre" }, input, label);
    };
    return el(
      "div",
      { class: "controls pre-actions" },
      box("fold", "Fold"),
      box("check_fold", "Check/Fold"),
      box("call_any", "Call any"),
      bank,
      this.sitOutChoice(),
    );
  }

  preAct() {
    const { turn } = this.state;
    const chosen = this.pre;
    this.pre = null;
    if (chosen === "call_any") this.act(turn.can_check ? "check" : "call");
    else if (turn.can_check)
      this.act("check"); // a free check is never folded
    else this.act("fold");
  }

  // The player's table settings: bet presets, the 4-colour deck and sounds.
  settings() {
    const current = prefs();
    const sizes = el("input", {
      id: "presets",
      value: current.presets,
      "aria-label": "bet presets",
      title: "50%, 75%, pot, 3bb, all-in",
    });
    sizes.onchange = () => setPref("presets", sizes.value);
    const toggle = (name, label) => {
      const input = el("input", { type: "checkbox", id: `pref-${name}`, checked: current[name] });
      input.onchange = () => setPref(name, input.checked);
      return el("label", { class: "pref" }, input, label);
    };
    return el(
      "details",
      { class: "table-settings" },
      el("summary", {}, "Settings"),
      el("label", {}, "Bet presets ", sizes),
      toggle("fourColour", "4-colour deck"),
      toggle("sounds", "Sounds"),
      el("button", { id: "unmute", onclick: () => setPref("muted", []) }, "Unmute everyone"),
    );
  }

  act(action, amount) {
    // The turn it answers: one that arrives after its turn is over is refused as stale, never applied to another.
    const told = this.state.turn; // a snapshot's pending turn names no turn: that decision names none either
    const turn = told && told.turn !== undefined ? { hand: told.hand, turn: told.turn } : {};
    this.send(amount === undefined ? { type: "act", action, ...turn } : { type: "act", action, amount, ...turn });
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
      if (event.target.id === "amount" && turn.min_raise_to !== null) {
        event.preventDefault();
        this.betOrRaise();
      }
      return;
    }
    if (["INPUT", "TEXTAREA", "SELECT"].includes(event.target.tagName) || event.target.isContentEditable) return;
    if (key === "f" && turn.can_fold) this.act("fold");
    else if (key === "c") this.act(turn.can_check ? "check" : "call");
    else if (key === "r" && turn.min_raise_to !== null) this.betOrRaise();
  }

  // "Raise to 500", "Bet 300", "All-in 2,585": what the bet button sends.
  sizeLabel(amount) {
    const turn = this.state.turn;
    if (amount >= turn.max_raise_to) return `All-in ${chips(turn.max_raise_to)}`;
    return `${this.betting() ? "Bet" : "Raise to"} ${chips(amount)}`;
  }

  betting() {
    const mine = this.state.seat(this.state.you.player);
    return (mine ? mine.bet : 0) + this.state.turn.call === 0;
  }

  // The amount in the box, sent as the button says. One out of range (or no whole number) is clamped in the box,
  // with the reason, and waits for the player to press again: never sent corrected behind their back.
  betOrRaise() {
    const turn = this.state.turn;
    const box = this.root.querySelector("#amount");
    const typed = box ? Number(box.value) : turn.min_raise_to;
    const reason = outOfRange(turn, typed, this.betting());
    if (box && reason) {
      const clamped = Number.isFinite(typed)
        ? Math.max(turn.min_raise_to, Math.min(turn.max_raise_to, Math.round(typed)))
        : turn.min_raise_to;
      box.value = clamped;
      box.dispatchEvent(new Event("input"));
      this.root.querySelector("#amount-note").textContent = `${reason}: now ${chips(clamped)}, press again`;
      box.focus();
      return;
    }
    this.act(this.betting() ? "bet" : "raise", typed);
  }
}
