// The director's console (admin token saved): the clock, breaks and hand-for-hand on demand, announcements, a
// player's seat, the cancellation with its refund preview, and the money corrections. Every destructive action asks
// first, and every action says what happened.

import { api, el, money } from "./dom.js";
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

export function consolePanel(id, board) {
  const out = el("p", { id: "console-result", class: "message", role: "status" });
  const post = (path, body) => api(`/api/tournaments/${id}/${path}`, { method: "POST", token: adminToken(), body });
  const run = (work, question) => async () => {
    if (question && !window.confirm(question())) return;
    try {
      out.textContent = await work();
    } catch (error) {
      out.textContent = error.message;
    }
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
  const player = el("input", {
    id: "console-player",
    list: "console-players",
    placeholder: "player (p7)",
    "aria-label": "player",
  });
  const choices = el("datalist", { id: "console-players" });
  player.onfocus = () =>
    choices.replaceChildren(
      ...board()
        .list("p:")
        .map((p) => el("option", { value: p.key }, p.name)),
    );
  const named = () => {
    const row = board().rows.get(`p:${player.value}`);
    return row ? `${row.name} (${player.value})` : player.value;
  };
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
        const { outcome } = await post("seat", { player: player.value, action: "remove", refund });
        const when = outcome === "removed" ? "is removed" : "will be removed when their hand ends";
        return `${named()} ${when}${refund ? "; their buy-in and fee are refunded" : ""}.`;
      },
      () => {
        const how = refund ? "with a refund of their buy-in and fee" : "without a refund";
        return `Remove ${named()} from the tournament ${how}? Their chips leave play.`;
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
  return el(
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
      command(
        "h4h-on",
        "Hand-for-hand on",
        "hand-for-hand",
        () => ({ on: true }),
        "Hand-for-hand: every table deals together.",
      ),
      command(
        "h4h-off",
        "Hand-for-hand off",
        "hand-for-hand",
        () => ({ on: false }),
        (t) => (t.hand_for_hand ? "Let go: it ends after this round." : "Hand-for-hand is off."),
      ),
    ),
    fieldset(
      "Announce",
      text,
      command("announce", "Send", "announce", () => ({ text: text.value }), "Announced to every table."),
    ),
    fieldset(
      "A player's seat",
      player,
      choices,
      command(
        "sit-out",
        "Sit out",
        "seat",
        () => ({ player: player.value, action: "sit_out" }),
        () => `${named()} is sitting out.`,
      ),
      el("button", { id: "remove-refund", onclick: remove(true) }, "Remove with refund"),
      el("button", { id: "remove-no-refund", onclick: remove(false) }, "Remove without refund"),
    ),
    out,
    cancellationPanel(id),
    correctionsPanel(id),
  );
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
    out,
  );
}

// The director's corrections (seed 004): a compensation from the house, or a prize paid in error taken back.
function correctionsPanel(id) {
  const player = el("input", { id: "correction-player", placeholder: "player (p7)", "aria-label": "player" });
  const cents = el("input", {
    id: "correction-cents",
    type: "number",
    min: 1,
    placeholder: "cents (withdraw: empty for all)",
    "aria-label": "cents",
  });
  const reason = el("input", { id: "correction-reason", placeholder: "reason", "aria-label": "reason" });
  const out = el("p", { id: "correction-result", class: "message" });
  const act = (command, question) => async () => {
    const amount = cents.value ? Number(cents.value) : null;
    if (!window.confirm(question(amount))) return;
    try {
      const details = await api(`/api/tournaments/${id}/${command}`, {
        method: "POST",
        token: adminToken(),
        body: {
          player: player.value,
          reason: reason.value,
          ...(amount !== null || command === "compensate" ? { cents: amount } : {}),
        },
      });
      const { compensations, withdrawn } = details.ledger;
      out.textContent = `Done. Compensations ${money(compensations)}, withdrawn ${money(withdrawn)}.`;
    } catch (error) {
      out.textContent = error.message;
    }
  };
  return el(
    "details",
    { class: "admin-panel" },
    el("summary", {}, "Corrections (admin)"),
    el("p", {}, player, cents, reason),
    el(
      "p",
      {},
      el(
        "button",
        { id: "compensate", onclick: act("compensate", (a) => `Pay ${player.value} ${money(a || 0)} from the house?`) },
        "Pay compensation",
      ),
      el(
        "button",
        {
          id: "withdraw",
          onclick: act(
            "withdraw",
            (a) => `Take back ${a === null ? "all of the prize" : money(a)} from ${player.value}?`,
          ),
        },
        "Withdraw prize",
      ),
    ),
    out,
  );
}
