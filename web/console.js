// The director's console (admin token saved): the clock, breaks and hand-for-hand on demand, the levels to come,
// announcements, a player's seat and moves, balancing, the log of what the director did, the cancellation with its
// refund preview, and the money corrections. Every destructive action asks first, and every action says what
// happened.

import { api, chips, el, money } from "./dom.js";
import { adminToken } from "./seats.js";

// Who gets what back, and by which rule (rules.md I); the total is what left the prize pool and the fees.
export function refundTable(title, rows) {
  const total = rows.reduce((sum, r) => sum + r.refund_cents, 0);
  return el(
    "div",
    { class: "refunds" },
    el("h3", {}, title),
    el(
      "table",
      { class: "list refund-list" },
      el("tr", {}, el("th", {}, "Player"), el("th", {}, "Refund"), el("th", {}, "Rule")),
      rows.map((r) =>
        el(
          "tr",
          { "data-player": r.player },
          el("td", {}, r.name),
          el("td", { class: "cents", "data-cents": r.refund_cents }, money(r.refund_cents)),
          el("td", {}, r.rule),
        ),
      ),
      el(
        "tr",
        { class: "total" },
        el("td", {}, "Total"),
        el("td", { id: "refund-total", "data-cents": total }, money(total)),
        el("td", {}, ""),
      ),
    ),
  );
}

// A player picked by name, as a director thinks of them: the search box lists "Name (id)" and takes a name, a
// "Name (id)" or an id; the chosen player (table and chips) is shown beside it. `rows` lists whom it offers.
export function playerPicker(board, idPrefix, rows) {
  const input = el("input", {
    id: `${idPrefix}-player`,
    list: `${idPrefix}-players`,
    placeholder: "name",
    autocomplete: "off",
    "aria-label": "player",
  });
  const choices = el("datalist", { id: `${idPrefix}-players` });
  const chosen = el("span", { class: "chosen", id: `${idPrefix}-chosen`, "aria-live": "polite" });
  const known = () => rows(board());
  const pick = () => {
    const text = input.value.trim();
    const players = known();
    const tagged = text.match(/\(([^()]+)\)$/);
    if (tagged) return players.find((p) => p.player === tagged[1]) || null;
    const named = players.filter((p) => p.name.toLowerCase() === text.toLowerCase());
    if (named.length === 1) return named[0];
    return players.find((p) => p.player === text) || null;
  };
  const show = () => {
    const p = pick();
    chosen.textContent = p
      ? `${p.name} (${p.player})${p.table ? ` · table ${p.table}` : ""}${p.stack ? ` · ${chips(p.stack)} chips` : ""}`
      : input.value.trim()
        ? "no such player: choose one from the list"
        : "";
  };
  input.onfocus = () =>
    choices.replaceChildren(...known().map((p) => el("option", { value: `${p.name} (${p.player})` })));
  input.oninput = show;
  return {
    nodes: [input, choices, chosen],
    // The id chosen; a name that is no one's is refused here, before anything is sent.
    id: () => {
      const p = pick();
      if (!p) throw new Error(`No player ${JSON.stringify(input.value.trim())}: choose one from the list.`);
      return p.player;
    },
    named: () => {
      const p = pick();
      return p ? `${p.name} (${p.player})` : input.value;
    },
  };
}

const playing = (b) =>
  b.list("p:").map((p) => ({ player: p.key, name: p.name, table: p.table, seat: p.seat, stack: p.stack }));

// The seating chart: every table with its seats and stacks. A click on a player picks them; "Move here" on another
// table moves them there by `move` (as Move to table does: at once between hands, else when their hand ends).
function seatingChart(board, move) {
  const chart = el("div", { id: "seating", class: "seating", role: "group", "aria-label": "seating chart" });
  let picked = null;
  let drawn = "";
  chart.update = () => {
    const tables = new Map();
    const players = playing(board());
    for (const p of players) {
      if (p.table === null || p.table === undefined) continue;
      if (!tables.has(p.table)) tables.set(p.table, []);
      tables.get(p.table).push(p);
    }
    if (picked && !players.some((p) => p.player === picked.player)) picked = null;
    const shown = JSON.stringify([[...tables], picked && picked.player]);
    if (shown === drawn) return; // a redraw on every board change would take a click half-way
    drawn = shown;
    const pick = (p) => () => {
      picked = picked && picked.player === p.player ? null : p;
      chart.update();
    };
    const numbers = [...tables.keys()].sort((a, b) => a - b);
    chart.replaceChildren(
      ...numbers.map((table) => {
        const seated = tables.get(table).sort((a, b) => (a.seat ?? 0) - (b.seat ?? 0));
        const here =
          picked && picked.table !== table
            ? el(
                "button",
                {
                  class: "move-here",
                  onclick: async () => {
                    await move(picked, table);
                    picked = null;
                    chart.update();
                  },
                },
                `Move ${picked.name} here`,
              )
            : null;
        return el(
          "section",
          { class: "seating-table", "data-table": table, "aria-label": `table ${table}` },
          el("h4", {}, `Table ${table} · ${seated.length} players`),
          here,
          el(
            "ol",
            {},
            seated.map((p) =>
              el(
                "li",
                { "data-player": p.player },
                el(
                  "button",
                  {
                    class: "seat-pick",
                    "aria-pressed": String(Boolean(picked && picked.player === p.player)),
                    onclick: pick(p),
                  },
                  `Seat ${(p.seat ?? 0) + 1}: ${p.name} · ${chips(p.stack)}`,
                ),
              ),
            ),
          ),
        );
      }),
    );
  };
  return chart;
}
const everyone = (b) => [
  ...playing(b),
  ...b
    .list("r:")
    .filter((r) => !b.rows.has(`p:${r.player}`))
    .map((r) => ({ player: r.player, name: r.name })),
];

const H4H_STATES = {
  director: "On, by the director: every table deals together until you let it go.",
  pay_jump: "On, for the pay jump (D.14): it ends after the first round with an elimination (D.16).",
  ending: "Let go: it ends when every table has finished the round under way.",
};

export function consolePanel(id, board) {
  const out = el("p", { id: "console-result", class: "message", role: "status" });
  const post = (path, body) => api(`/api/tournaments/${id}/${path}`, { method: "POST", token: adminToken(), body });
  const log = directorLog(id);
  // What an action did, in green; a refusal, in red, says why and that nothing changed.
  const run = (work, question) => async () => {
    try {
      if (question && !window.confirm(question())) return;
      out.textContent = await work();
      out.classList.add("ok");
    } catch (error) {
      out.textContent = error.message;
      out.classList.remove("ok");
    }
    log.refresh();
  };
  const seconds = el("input", { id: "clock-seconds", type: "number", value: 60, "aria-label": "seconds" });
  const breakMinutes = el("input", {
    id: "break-minutes",
    type: "number",
    value: 5,
    min: 1,
    "aria-label": "break minutes",
  });
  const text = el("input", {
    id: "announce-text",
    maxlength: 300,
    placeholder: "to every table",
    "aria-label": "announcement",
  });
  const player = playerPicker(board, "console", playing);
  const toTable = el("input", { id: "move-table", type: "number", min: 1, "aria-label": "to table" });
  const adjust = (delta) =>
    run(
      async () => {
        const t = await post("clock", { seconds: delta });
        const what = t.on_break_for !== null ? "the break" : "the level";
        const left = Math.round(t.on_break_for ?? t.level_ends_in);
        return `${delta > 0 ? "Added" : "Took away"} ${Math.abs(delta)} s: ${what} now ends in ${left} s.`;
      },
      delta < 0 ? () => `Take ${-delta} s off the clock?` : null,
    );
  const remove = (refund) =>
    run(
      async () => {
        const { outcome } = await post("seat", { player: player.id(), action: "remove", refund });
        const when = outcome === "removed" ? "is removed" : "will be removed when their hand ends";
        return `${player.named()} ${when}${refund ? "; their buy-in and fee are refunded" : ""}.`;
      },
      () => {
        const how = refund ? "with a refund of their buy-in and fee" : "without a refund";
        return `Remove ${player.named()} from the tournament ${how}? Their chips leave play.`;
      },
    );
  // A button that posts to `path` and says `said` (a text, or a function of the answer).
  const command = (id, label, path, body, said) =>
    el(
      "button",
      {
        id,
        onclick: run(async () => {
          const answer = await post(path, body && body());
          return typeof said === "function" ? said(answer) : said;
        }),
      },
      label,
    );
  const fieldset = (legend, ...children) => el("fieldset", {}, el("legend", {}, legend), ...children);
  const minutesOfBreak = () => ({ minutes: Number(breakMinutes.value) });
  // Hand-for-hand as one switch: its state and why, and what letting it go does.
  const h4hState = el("span", { id: "h4h-state" }, "Off.");
  const h4h = el(
    "button",
    {
      id: "h4h-switch",
      role: "switch",
      "aria-checked": "false",
      "aria-describedby": "h4h-state",
      onclick: run(async () => {
        const on = h4h.getAttribute("aria-checked") !== "true";
        const t = await post("hand-for-hand", { on });
        panel.update(t);
        if (on) return "Hand-for-hand on: every table finishes its hand, then all deal together.";
        if (t.hand_for_hand_reason === "pay_jump")
          return "The pay jump keeps hand-for-hand on (D.14) until a round with an elimination.";
        return t.hand_for_hand ? "Let go: hand-for-hand ends after the round under way." : "Hand-for-hand is off.";
      }),
    },
    "Hand-for-hand",
  );
  const levels = levelEditor(id, board, run, post);
  // A move, from the seat box or the seating chart: said as the floor will make it.
  const moved = (named, id, table, t) => {
    panel.update(t);
    const when = t.queued_moves.some((m) => m.player === id) ? " when their hand ends" : "";
    return `${named} moves to table ${table}${when}, to the seat posting the big blind soonest.`;
  };
  const seating = seatingChart(board, (who, table) =>
    run(async () => {
      const t = await post("move", { player: who.player, table });
      return moved(`${who.name} (${who.player})`, who.player, table, t);
    })(),
  );
  const queue = pendingMoves(run, post, () => log.refresh());
  const panel = el(
    "div",
    { class: "console", id: "console" },
    fieldset(
      "Clock",
      command("console-pause", "Pause", "pause", null, "Paused: no new hand starts."),
      command("console-resume", "Resume", "resume", null, "Resumed."),
      el("button", { id: "add-minute", onclick: adjust(60) }, "+1 min"),
      el("button", { id: "remove-minute", onclick: adjust(-60) }, "−1 min"),
      seconds,
      el("button", { id: "adjust-clock", onclick: () => adjust(Number(seconds.value))() }, "Adjust by seconds"),
    ),
    fieldset(
      "Breaks and hand-for-hand",
      breakMinutes,
      command(
        "call-break",
        "Break now",
        "break",
        minutesOfBreak,
        () => `A ${breakMinutes.value}-minute break: hands in progress finish first.`,
      ),
      el("span", { class: "switch-line" }, h4h, " ", h4hState),
    ),
    levels,
    fieldset(
      "Announce",
      text,
      command("announce", "Send", "announce", () => ({ text: text.value }), "Announced to every table."),
    ),
    fieldset(
      "A player's seat",
      ...player.nodes,
      el("br"),
      command(
        "sit-out",
        "Sit out",
        "seat",
        () => ({ player: player.id(), action: "sit_out" }),
        () => `${player.named()} is sitting out.`,
      ),
      el("button", { id: "remove-refund", onclick: remove(true) }, "Remove with refund"),
      el("button", { id: "remove-no-refund", onclick: remove(false) }, "Remove without refund"),
      el("br"),
      toTable,
      command(
        "move-player",
        "Move to table",
        "move",
        () => ({ player: player.id(), table: Number(toTable.value) }),
        (t) => moved(player.named(), player.id(), toTable.value, t),
      ),
    ),
    fieldset("Seating chart: click a player, then Move here at their new table", seating),
    fieldset(
      "Tables",
      command("balance-now", "Balance now", "balance", null, (t) => {
        panel.update(t);
        return t.balance_queued
          ? "The balance is made when the tables it moves from finish their hands."
          : "Balanced: the moves are on the tables.";
      }),
      queue,
    ),
    out,
    log,
    cancellationPanel(id),
    correctionsPanel(id, board),
  );
  panel.update = (t) => {
    queue.update(t);
    seating.update();
    h4h.setAttribute("aria-checked", String(Boolean(t.hand_for_hand)));
    h4h.textContent = `Hand-for-hand: ${t.hand_for_hand ? "on" : "off"}`;
    h4hState.textContent = t.hand_for_hand ? H4H_STATES[t.hand_for_hand_reason] || "On." : "Off.";
    levels.update(t);
  };
  panel.refresh = () => log.refresh();
  return panel;
}

// The moves and the balance the director asked for during a hand, made when it ends (A.4): each can be taken back.
// `changed` is told when the queue changes, so that the log shows what a hand's end made of it.
function pendingMoves(run, post, changed) {
  const list = el("ul", { id: "pending-moves", class: "pending", "aria-label": "waiting for a hand to end" });
  let shown = "";
  list.update = (t) => {
    const now = JSON.stringify([t.queued_moves, t.balance_queued]);
    if (now === shown) return;
    if (shown) changed();
    shown = now;
    const withdraw = (m) =>
      el(
        "button",
        {
          class: "withdraw-move",
          "aria-label": `Withdraw the move of ${m.name}`,
          onclick: run(async () => {
            list.update(await post("withdraw-move", { player: m.player }));
            return `The move of ${m.name} to table ${m.to_table} is off.`;
          }),
        },
        "Withdraw",
      );
    const balance = el(
      "button",
      {
        id: "withdraw-balance",
        onclick: run(async () => {
          list.update(await post("withdraw-balance"));
          return "The balance asked for is off.";
        }),
      },
      "Withdraw",
    );
    list.replaceChildren(
      ...t.queued_moves.map((m) =>
        el(
          "li",
          { "data-player": m.player },
          `${m.name}: table ${m.from_table} → table ${m.to_table} when the hand ends `,
          withdraw(m),
        ),
      ),
      ...(t.balance_queued ? [el("li", { id: "balance-pending" }, "Balance when the hands end ", balance)] : []),
    );
  };
  return list;
}

// The levels not yet started, each editable (blinds, ante, minutes); the server refuses a started one (409).
function levelEditor(id, board, run, post) {
  const rows = el("tbody", { id: "level-rows" });
  let drawnFor = null;
  const field = (level, name, value, label) =>
    el("input", {
      type: "number",
      min: 0,
      value,
      class: `level-${name}`,
      "aria-label": `level ${level} ${label}`,
    });
  const draw = (t) => {
    const info = board().rows.get("info");
    if (!info) return;
    rows.replaceChildren(
      ...info.levels.map((level, i) => {
        const number = i + 1;
        if (t.status === "running" ? number <= t.level : t.status !== "register" && t.status !== "waiting")
          return null;
        const sb = field(number, "small-blind", level.small_blind, "small blind");
        const bb = field(number, "big-blind", level.big_blind, "big blind");
        const ante = field(number, "ante", level.ante, "ante");
        const length = level.minutes === null ? null : field(number, "minutes", level.minutes, "minutes");
        return el(
          "tr",
          { "data-level": number },
          el("td", {}, `Level ${number}`),
          el("td", {}, sb, " / ", bb),
          el("td", {}, "ante ", ante),
          el("td", {}, length ? [length, " min"] : `${level.hands} hands`),
          el(
            "td",
            {},
            el(
              "button",
              {
                class: "save-level",
                "aria-label": `save level ${number}`,
                onclick: run(async () => {
                  await post(`levels/${number}`, {
                    small_blind: Number(sb.value),
                    big_blind: Number(bb.value),
                    ante: Number(ante.value),
                    ...(length ? { minutes: Number(length.value) } : {}),
                  });
                  return `Level ${number} is now ${chips(Number(sb.value))}/${chips(Number(bb.value))}, ante ${chips(
                    Number(ante.value),
                  )}${length ? `, ${length.value} min` : ""}.`;
                }),
              },
              "Save",
            ),
          ),
        );
      }).filter(Boolean),
    );
  };
  const node = el(
    "fieldset",
    { id: "levels-ahead" },
    el("legend", {}, "Levels to come"),
    el("div", { class: "levels-scroll" }, el("table", { class: "list levels-edit" }, rows)),
  );
  // Drawn again when the level changes, never under the director's typing: a saved row already shows what the
  // server now holds.
  node.update = (t) => {
    const key = `${t.status}:${t.level}`;
    if (key !== drawnFor && board().rows.get("info")) {
      drawnFor = key;
      draw(t);
    }
  };
  return node;
}

// The log of the director's actions, from the audit trail.
function directorLog(id) {
  const rows = el("tbody", {});
  const node = el(
    "details",
    { class: "admin-panel", id: "director-log", open: true },
    el("summary", {}, "Director's log"),
    el(
      "table",
      { class: "list director-log" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          ["Time", "Action", "Player", "Result"].map((h) => el("th", {}, h)),
        ),
      ),
      rows,
    ),
  );
  node.refresh = async () => {
    try {
      const { actions } = await api(`/api/tournaments/${id}/director-log`, { token: adminToken() });
      rows.replaceChildren(
        ...actions
          .slice()
          .reverse()
          .map((a) =>
            el(
              "tr",
              { class: "log-line" },
              el("td", {}, a.wall ? new Date(a.wall * 1000).toLocaleTimeString() : "—"),
              el("td", {}, a.action),
              el("td", {}, a.player ? `${a.name} (${a.player})` : ""),
              el("td", {}, a.result),
            ),
          ),
      );
    } catch (error) {
      rows.replaceChildren(el("tr", {}, el("td", { colspan: 4 }, error.message)));
    }
  };
  return node;
}

// The admin's cancellation: preview the refunds under policy A or B, then cancel with them.
function cancellationPanel(id) {
  const policy = el(
    "select",
    { id: "policy", "aria-label": "refund policy" },
    el("option", { value: "" }, "the tournament's policy"),
    el("option", { value: "A" }, "policy A"),
    el("option", { value: "B" }, "policy B"),
  );
  const out = el("div", { id: "cancellation-preview" });
  const fail = (error) => out.replaceChildren(el("p", { class: "message" }, error.message));
  const preview = () =>
    api(`/api/tournaments/${id}/cancellation${policy.value ? `?policy=${policy.value}` : ""}`, { token: adminToken() })
      .then((answer) => out.replaceChildren(refundTable("If cancelled now", answer.refunds)))
      .catch(fail);
  const cancel = () =>
    window.confirm("Cancel this tournament? The refunds are paid; this cannot be undone.") &&
    api(`/api/tournaments/${id}/cancel`, {
      method: "POST",
      token: adminToken(),
      body: policy.value ? { policy: { name: policy.value } } : {},
    })
      .then(() => out.replaceChildren(el("p", { class: "message" }, "Cancelled: the refunds are paid.")))
      .catch(fail);
  // A failure the tournament cannot resume from (seed 000): cancelled the same way, on the record with its stage
  // and the date its refunds are due.
  const what = el("input", { id: "failure-what", placeholder: "what happened", "aria-label": "what happened" });
  const due = el("input", {
    id: "failure-due",
    type: "number",
    min: 1,
    value: 48,
    "aria-label": "refunds due in hours",
  });
  const declare = () =>
    window.confirm("Declare a failure? The tournament is cancelled and its refunds are paid.") &&
    api(`/api/tournaments/${id}/failure`, {
      method: "POST",
      token: adminToken(),
      body: {
        what: what.value,
        due_hours: Number(due.value),
        ...(policy.value ? { policy: { name: policy.value } } : {}),
      },
    })
      .then(({ failure }) =>
        out.replaceChildren(
          el(
            "p",
            { class: "message", id: "failure-record" },
            `Failure declared (stage ${failure.stage}): refunds of ${money(failure.refunds_cents)} ` +
              `due by ${new Date(failure.due_by * 1000).toLocaleString()}.`,
          ),
        ),
      )
      .catch(fail);
  return el(
    "details",
    { class: "admin-panel" },
    el("summary", {}, "Cancel with refunds (admin)"),
    el(
      "p",
      {},
      policy,
      el("button", { id: "preview-refunds", onclick: preview }, "Preview refunds"),
      el("button", { id: "cancel-tournament", onclick: cancel }, "Cancel tournament"),
    ),
    el(
      "p",
      {},
      what,
      " refunds due in ",
      due,
      " hours ",
      el("button", { id: "declare-failure", onclick: declare }, "Declare failure"),
    ),
    out,
  );
}

// The director's corrections (seed 004): a compensation from the house, or a prize paid in error taken back.
function correctionsPanel(id, board) {
  const player = playerPicker(board, "correction", everyone);
  const cents = el("input", {
    id: "correction-cents",
    type: "number",
    min: 1,
    placeholder: "cents (withdraw: empty for all)",
    "aria-label": "cents",
  });
  const reason = el("input", { id: "correction-reason", placeholder: "reason", "aria-label": "reason" });
  const incident = el("input", {
    id: "correction-incident",
    type: "number",
    min: 1,
    placeholder: "incident #",
    "aria-label": "for incident",
  });
  const what = el("input", { id: "incident-what", placeholder: "what went wrong", "aria-label": "what went wrong" });
  const decision = el("input", { id: "incident-decision", placeholder: "decision", "aria-label": "decision" });
  const out = el("p", { id: "correction-result", class: "message" });
  // One player's case on the record (seed 004): a compensation may then name its number.
  const record = async () => {
    try {
      const details = await api(`/api/tournaments/${id}/incidents`, {
        method: "POST",
        token: adminToken(),
        body: { player: player.id(), what: what.value, decision: decision.value },
      });
      const last = details.incidents[details.incidents.length - 1];
      out.textContent = `Incident ${last.number} recorded for ${player.named()}.`;
      out.classList.add("ok");
    } catch (error) {
      out.textContent = error.message;
      out.classList.remove("ok");
    }
  };
  const act = (command, question) => async () => {
    const amount = cents.value ? Number(cents.value) : null;
    try {
      if (!window.confirm(question(amount))) return;
      const details = await api(`/api/tournaments/${id}/${command}`, {
        method: "POST",
        token: adminToken(),
        body: {
          player: player.id(),
          reason: reason.value,
          ...(amount !== null || command === "compensate" ? { cents: amount } : {}),
          ...(command === "compensate" && incident.value ? { incident: Number(incident.value) } : {}),
        },
      });
      const { compensations, withdrawn } = details.ledger;
      out.textContent = `Done. Compensations ${money(compensations)}, withdrawn ${money(withdrawn)}.`;
      out.classList.add("ok");
    } catch (error) {
      out.textContent = error.message;
      out.classList.remove("ok");
    }
  };
  return el(
    "details",
    { class: "admin-panel" },
    el("summary", {}, "Corrections (admin)"),
    el("p", {}, ...player.nodes),
    el("p", {}, cents, reason, incident),
    el("p", {}, what, decision, el("button", { id: "record-incident", onclick: record }, "Record incident")),
    el(
      "p",
      {},
      el(
        "button",
        {
          id: "compensate",
          onclick: act("compensate", (a) => `Pay ${player.named()} ${money(a || 0)} from the house?`),
        },
        "Pay compensation",
      ),
      el(
        "button",
        {
          id: "withdraw",
          onclick: act(
            "withdraw",
            (a) => `Take back ${a === null ? "all of the prize" : money(a)} from ${player.named()}?`,
          ),
        },
        "Withdraw prize",
      ),
    ),
    out,
  );
}
