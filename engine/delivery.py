"""Seats and carried pools on their way to another tournament (rules.md K.44, L.47): what a target did not take
comes back to its winner in cash, and a seat worth other than its target's entry is settled, each on the record
with its reason, so that no cent is booked as sent to a tournament that did not register it.

The satellite or flight sends its players on once it is over (server/tournament/chaining.py); these commands
run on it afterwards, as the director's corrections do, and balance its ledger to the cent: what went out as a
seat or as the carried pool comes back in (``returned``) and goes out again as the refund.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from engine.events import Event, Refunded, SeatToppedUp
from engine.money import largest_remainder
from engine.status import Status, TournamentError

if TYPE_CHECKING:
    from engine.state import State


def seat_cents(t: State, player: str) -> int:
    """What ``player``'s seats (tickets) are worth now: what was paid as seats, less what came back or was
    withdrawn."""
    cents = 0
    for movement in t.ledger.movements:
        if movement.player == player:
            if movement.kind == "ticket":
                cents += movement.cents
            elif movement.kind in ("returned", "withdrawn"):
                cents -= movement.cents
    return cents


def carried_cents(t: State) -> int:
    """What of a flight's pool is still carried to its final: what it carried, less what came back."""
    cents = 0
    for movement in t.ledger.movements:
        if movement.kind == "carried":
            cents += movement.cents
        elif movement.kind == "returned" and not movement.player:
            cents -= movement.cents
    return cents


def _closed(t: State) -> None:
    if t.status not in (Status.FINISHED, Status.CANCELLED):
        raise TournamentError(f"players are sent on once the tournament is over; it is {t.status}")


def _reason(reason: str) -> None:
    if not isinstance(reason, str) or not reason.strip():
        raise TournamentError("a refund of what its target did not take needs the reason")


def verify_return_seat(t: State, player: str, cents: int, reason: str) -> None:
    _closed(t)
    _reason(reason)
    held = seat_cents(t, player)
    if held <= 0:
        raise TournamentError(f"{player!r} holds no seat of this tournament")
    if not isinstance(cents, int) or isinstance(cents, bool) or not 0 < cents <= held:
        raise TournamentError(f"{player}'s seat is worth {held} cents: between 1 and that much comes back")


def return_seat(t: State, player: str, cents: int, reason: str) -> list[Event]:
    """``cents`` of ``player``'s seat paid in cash instead (the whole seat when its target did not take it, the
    part above the target's entry when the seat is worth more)."""
    verify_return_seat(t, player, cents, reason)
    t.ledger.record("returned", player, cents)
    t.ledger.record("refund", player, cents)
    return [Refunded(player, cents, "undelivered", reason)]


def verify_top_up_seat(t: State, player: str, cents: int, reason: str) -> None:
    _closed(t)
    _reason(reason)
    satellite = t.definition.satellite
    if satellite is None or satellite.difference != "settled":
        raise TournamentError("the house tops up a seat only where the satellite says the difference is settled")
    if seat_cents(t, player) <= 0:
        raise TournamentError(f"{player!r} holds no seat of this tournament")
    if not isinstance(cents, int) or isinstance(cents, bool) or cents <= 0:
        raise TournamentError("a top-up is a positive whole number of cents")


def top_up_seat(t: State, player: str, cents: int, reason: str) -> list[Event]:
    """The house adds ``cents`` to ``player``'s seat so that it buys its target's entry whole."""
    verify_top_up_seat(t, player, cents, reason)
    t.ledger.record("added", "", cents)
    t.ledger.record("ticket", player, cents)
    return [SeatToppedUp(player, cents, reason)]


def pool_shares(t: State, cents: int) -> dict[str, int]:
    """``cents`` of a flight's pool shared by its survivors' stacks (L.47: the pool follows the chips), in whole
    cents by largest remainder, ties to the bigger stack, then the earlier entry."""
    survivors = [player for player in t.entries if t.stacks.get(player)]
    chips = sum(t.stacks[player] for player in survivors)
    if not survivors or not chips:
        return {}
    order = sorted(range(len(survivors)), key=lambda i: (-t.stacks[survivors[i]], i))
    rank = {index: position for position, index in enumerate(order)}
    shares = [Fraction(cents * t.stacks[player], chips) for player in survivors]
    return dict(zip(survivors, largest_remainder(shares, cents, [rank[i] for i in range(len(survivors))])))


def verify_return_pool(t: State, reason: str) -> None:
    if t.definition.flight is None or t.status is not Status.FINISHED:
        raise TournamentError("only a finished flight's carried pool comes back to it (L.47)")
    _reason(reason)
    if carried_cents(t) <= 0:
        raise TournamentError("the flight's pool is not carried anywhere: nothing comes back")


def return_pool(t: State, reason: str) -> list[Event]:
    """The pool a flight carried, which its final did not take, to the survivors in cash, each their stack's share
    (Decision: as the pool follows the chips into a final, it follows them back)."""
    verify_return_pool(t, reason)
    cents = carried_cents(t)
    t.ledger.record("returned", "", cents)
    events: list[Event] = []
    for player, share in pool_shares(t, cents).items():
        if share:
            t.ledger.record("refund", player, share)
            events.append(Refunded(player, share, "undelivered", reason))
    return events
