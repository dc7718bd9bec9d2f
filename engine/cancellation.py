"""Cancellation (rules.md F.23, I.38-I.39): a tournament called off, and what each entry gets back.

The refunds themselves are planned by engine.refunds from the tournament's
situation; this module builds that situation and pays the plan through the
ledger.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec


from engine import bounties
from engine.events import Event, RebuyDeclined, Refunded, StatusChanged
from engine.refunds import Refund, RefundPolicy, Situation, as_entries, plan, stage_of
from engine.status import Status, TournamentError
from engine.structure import refund_kind

if TYPE_CHECKING:
    from engine.state import State


def verify(t: State, policy: RefundPolicy | None = None, entry_cents: int = 0) -> None:
    if t.status not in (Status.WAITING, Status.REGISTER, Status.RUNNING):
        raise TournamentError(f"a {t.status} tournament cannot be cancelled")
    if policy is not None and not isinstance(policy, RefundPolicy):
        raise TournamentError("a cancellation takes a refund policy (A or B)")
    if entry_cents and t.definition.satellite is None:
        raise TournamentError("only a satellite refunds as entries to another tournament (seed 000)")
    if not isinstance(entry_cents, int) or entry_cents < 0:
        raise TournamentError("an entry's price is a number of cents, 0 or more")

def preview(t: State, policy: RefundPolicy | None = None, entry_cents: int = 0) -> list[Refund]:
    """What each entry would get back if the tournament were cancelled now (I.38-I.39); changes nothing.

    Before the start everyone gets everything back. While running, the
    stacks are those at the start of any hand in progress (the hand is
    void); a player waiting on a re-buy offer has no chips and counts as
    eliminated.
    """
    verify(t, policy, entry_cents)
    return as_entries(plan(policy or t.definition.refund_policy, situation(t)), entry_cents)


def stage_now(t: State, policy: RefundPolicy | None = None) -> str:
    """The stage the rules judge a cancellation in now: A1-A4, or B-pre, B-early, B-middle, B-late."""
    return stage_of(situation(t), policy or t.definition.refund_policy)


def situation(t: State) -> Situation:
    """The tournament as the refund policies see it (engine/refunds.py)."""
    live = still_in(t)
    paid: dict[str, dict[str, int]] = {}
    for movement in t.ledger.movements:
        if movement.kind in ("buy_in", "fee", "rebuy", "rebuy_fee", "add_on", "add_on_fee", "added"):
            kinds = paid.setdefault(movement.player, {})
            kinds[movement.kind] = kinds.get(movement.kind, 0) + movement.cents
        elif movement.kind == "refund":  # an unregistered entry has nothing left to get back
            paid.pop(movement.player, None)
    definition = t.definition
    return Situation(
        # A final counts the whole event's entrants; a flight entry that did not qualify is out (I.39).
        entries=len(t.entries) - len(t.people.qualified_entries) + t.flight_entries if t.flight_entries
        else len(t.entries), live=[(p, t.stacks[p] + t.pending.chips_of(p)) for p in live],
        # The buy-in's floor (policy B) is its prize-pool part: each player's bounty comes back besides.
        paid=paid, pool_cents=t.ledger.pool_cents, prizes=t.prizes,
        buy_in_cents=definition.buy_in_cents - (definition.bounty.cents if definition.bounty else 0),
        started=t.status is Status.RUNNING,
        in_rebuy_period=not t.rebuy_period_over or t.add_on_until is not None,
        kind=refund_kind(definition),
        seat_value_cents=definition.satellite.seat_value_cents if definition.satellite else 0,
        bounties=bounties.rule_for(definition.bounty).refundable(t, live),
        qualified=sorted(t.people.qualified_entries), dealt=bool(t.dealt),
    )

def still_in(t: State) -> list[str]:
    """The entries a cancellation finds in the tournament, in seat order: those holding chips at the start
    of any hand in progress (it is void); a player waiting on a re-buy offer has none and is out."""
    return sorted((p for p, stack in t.stacks.items() if stack + t.pending.chips_of(p) > 0),
                  key=lambda p: t.where.get(p, (0, 0)))


def rescheduling(t: State, policy: RefundPolicy | None = None) -> RefundPolicy:
    """The policy of a freeroll's cancellation that moves it to a new date for the same players (seed 004,
    freeroll early and middle): policy B's, whatever the definition names, with nothing of the prize pool
    paid now, so the middle stage's choice is ``reschedule``. Refused where the seed pays prize money (a
    freeroll's final stage, any other kind of tournament) and for an explicit policy A."""
    verify(t, policy)
    if refund_kind(t.definition) != "freeroll":
        raise TournamentError("only a freeroll is rescheduled for the same players (seed 004)")
    if policy is not None and policy.name != "B":
        raise TournamentError("a freeroll is rescheduled under policy B (seed 004); policy A pays by chips")
    chosen = msgspec.structs.replace(policy or t.definition.refund_policy, name="B", freeroll_middle="reschedule")
    if any(refund.pool_cents for refund in preview(t, chosen) if refund.player):
        raise TournamentError("a freeroll this far on pays its prize pool by chip equity (seed 004, "
                              "freeroll final stage): it cannot be rescheduled")
    return chosen


def cancel(t: State, policy: RefundPolicy | None = None, entry_cents: int = 0) -> list[Event]:
    """Cancel the tournament and pay the refunds ``cancellation_preview`` shows (F.23, I.38-I.39).

    Hands in progress are void. ``policy`` overrides the definition's. With ``entry_cents``, a satellite's
    cash refunds that cover it become entries at that price to another tournament (the caller registers them).
    """
    verify(t, policy, entry_cents)
    return apply(t, policy, entry_cents)


def apply(t: State, policy: RefundPolicy | None = None, entry_cents: int = 0) -> list[Event]:
    """Cancel now: hands in progress void, offers withdrawn, the refunds paid and the fees kept."""
    refunds = preview(t, policy, entry_cents)
    events: list[Event] = []
    for table, state in sorted(t.tables.items()):
        if state.hand is not None:  # void: its players keep their start-of-hand stacks (I)
            events.append(t.void(table))
    events += [RebuyDeclined(player, "cancelled") for player in t.pending.drop_all()]
    t.negotiation.close()
    t.progress.move_to(Status.CANCELLED)
    events.append(StatusChanged(Status.CANCELLED.value))
    for refund in refunds:
        if refund.pool_cents:
            t.ledger.record("ticket" if refund.ticket or refund.entry else "refund", refund.player,
                            refund.pool_cents)
        if refund.fee_cents:
            t.ledger.record("refund", refund.player, refund.fee_cents, account="fees")
        if refund.bounty_cents:
            t.ledger.record("refund", refund.player, refund.bounty_cents, account="bounties")
        events.append(Refunded(refund.player, refund.cents, "cancelled", refund.rule))
    if t.ledger.pool_cents or t.ledger.bounties_cents:
        raise AssertionError(f"a cancellation left {t.ledger.pool_cents} cents in the pool and "
                             f"{t.ledger.bounties_cents} on heads")
    if t.ledger.fees_cents:
        t.ledger.record("fee_kept", "", t.ledger.fees_cents)
    t.places.refunded(refunds)
    # The chips are exchanged for the refunds: they leave play and the count of chips issued with them, as a
    # removed player's do, so that chips_in_play() == chips_issued holds after a cancellation too (both 0).
    t.chips.clear()
    t.heads.clear()
    return events
