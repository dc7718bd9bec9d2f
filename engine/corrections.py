"""The director's corrections (seed 004, Special cases and Configuration): a compensation paid to a player, and
a prize paid in error taken back, in whole or in part. Both go through the ledger as their own kinds, in an
account of their own, so the ledger still balances after each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from engine import cancellation, delivery
from engine.events import Compensated, Event, FailureDeclared, IncidentRecorded, PrizeWithdrawn
from engine.refunds import RefundPolicy
from engine.status import TournamentError

if TYPE_CHECKING:
    from engine.state import State


def _check(t: State, player: str, cents: int, reason: str) -> None:
    if player not in t.entries and player not in t.results:
        raise TournamentError(f"{player!r} is not an entry of this tournament")
    if not isinstance(cents, int) or isinstance(cents, bool) or cents <= 0:
        raise TournamentError("a correction is a positive whole number of cents")
    if not isinstance(reason, str) or not reason.strip():
        raise TournamentError("a correction needs its reason")


def verify_compensate(t: State, player: str, cents: int, reason: str, incident: int | None = None) -> None:
    _check(t, player, cents, reason)
    if incident is not None and not (0 < incident <= len(t.incidents) and t.incidents[incident - 1].player == player):
        raise TournamentError(f"incident {incident} is not one recorded for {player}")


def compensate(t: State, player: str, cents: int, reason: str, incident: int | None = None) -> list[Event]:
    """The house pays ``player`` ``cents``, for ``reason`` (and the incident it names)."""
    verify_compensate(t, player, cents, reason, incident)
    t.ledger.record("compensation_funded", "", cents)
    t.ledger.record("compensation", player, cents)
    return [Compensated(player, cents, reason, incident)]


def verify_declare_failure(t: State, what: str, due_hours: float, policy: RefundPolicy | None = None) -> None:
    if not what.strip():
        raise TournamentError("a failure needs a word on what happened")
    if not 0 < due_hours <= 24 * 365:
        raise TournamentError("the refunds are due within a positive number of hours (48 by default, seed 000)")
    cancellation.verify(t, policy)


def declare_failure(t: State, what: str, at: float, due_hours: float = 48.0,
                    policy: RefundPolicy | None = None) -> list[Event]:
    """The tournament failed and cannot resume: it is cancelled by its refund policy, on the record with the
    stage the rules judged it in (before the cancellation changes it) and the refunds' deadline."""
    verify_declare_failure(t, what, due_hours, policy)
    stage = cancellation.stage_now(t, policy)
    events = cancellation.apply(t, policy)
    failure = FailureDeclared(what, at, stage, sum(refund.cents for refund in t.refunds), at + due_hours * 3600)
    t.progress.declare(failure)
    return [failure, *events]


def verify_record_incident(t: State, player: str, what: str, decision: str) -> None:
    if player not in t.entries:
        raise TournamentError(f"{player} is not an entry of this tournament")
    if not what.strip() or not decision.strip():
        raise TournamentError("an incident needs what happened and the director's decision")


def record_incident(t: State, player: str, what: str, decision: str, at: float) -> list[Event]:
    """One player's case on the record, numbered from 1, for a compensation to name."""
    verify_record_incident(t, player, what, decision)
    incident = IncidentRecorded(len(t.incidents) + 1, player, what, decision, at)
    t.progress.note(incident)
    return [incident]


def withdrawable(t: State, player: str) -> tuple[int, Literal["prize", "seat", "qualification"]]:
    """What of ``player``'s prize can still be taken back, and what it was: cash, a seat, or a flight's
    qualification (its survivor's share of the pool the flight carried to its final, engine/delivery.py)."""
    paid = {"prize": 0, "ticket": 0}
    taken = 0
    for movement in t.ledger.movements:
        if movement.player == player and movement.kind in paid:
            paid[movement.kind] += movement.cents
        elif movement.player == player and movement.kind in ("withdrawn", "returned"):
            taken += movement.cents
    if t.definition.flight is not None:
        share = delivery.pool_shares(t, delivery.carried_cents(t)).get(player, 0)
        return share - taken, "qualification"
    return paid["prize"] + paid["ticket"] - taken, "seat" if paid["ticket"] > 0 else "prize"


def verify_withdraw_prize(t: State, player: str, cents: int, reason: str) -> None:
    left, kind = withdrawable(t, player)
    if left <= 0 and (player in t.entries or player in t.results):
        raise TournamentError(f"{player} has no prize to withdraw")
    _check(t, player, cents, reason)
    if cents > left:
        raise TournamentError(f"{player} received {left} cents of prizes that can be withdrawn, not {cents}")
    if kind == "qualification" and cents != left:
        raise TournamentError(f"a qualification is withdrawn whole: {player}'s share of the flights' pool is "
                              f"{left} cents")


def withdraw_prize(t: State, player: str, cents: int, reason: str) -> list[Event]:
    """Take back ``cents`` of a prize paid to ``player`` in error; the house keeps them. A flight's qualification
    is taken back whole: the final gives its share of the pool back (engine/flights.py), and the house keeps it."""
    verify_withdraw_prize(t, player, cents, reason)
    _, kind = withdrawable(t, player)
    t.ledger.record("withdrawn", player, cents)
    t.ledger.record("withdrawn_kept", "", cents)
    return [PrizeWithdrawn(player, cents, reason, kind == "seat", kind == "qualification")]
