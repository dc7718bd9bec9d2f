"""ICM deals at the final table (rules.md H.31-H.36): press Deal, a proposal every player must accept.

Once every player left has pressed Deal, the proposal comes between hands:
the ICM split of what the pool still holds. Any no, a disconnection or the
deadline ends it and play continues; when the last player accepts, the
amounts are paid and the tournament ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import eliminations
from engine.events import DealAccepted, DealPressed, DealProposed, DealRejected, Event, Result
from engine.icm import equities
from engine.money import largest_remainder
from engine.status import Status, TournamentError

if TYPE_CHECKING:
    from engine.director import Tournament


class Deal:
    """An ICM proposal every player left must accept before ``until`` (H.36)."""

    __slots__ = ("amounts", "until", "accepted", "seat_order")

    def __init__(self, amounts: dict[str, int], until: float, seat_order: list[str]) -> None:
        self.amounts = amounts
        self.until = until
        self.accepted: set[str] = set()
        self.seat_order = seat_order


def verify_press(t: Tournament, player: str, on: bool = True) -> None:
    if not t.definition.deals:
        raise TournamentError("this tournament does not allow deals (H.36)")
    if t.status is not Status.RUNNING:
        raise TournamentError(f"deals are only while Running; the tournament is {t.status}")
    if player not in t.stacks:
        raise TournamentError(f"{player} is not playing")
    if len(t.tables) != 1 or t.players_left > len(t.prizes):
        raise TournamentError("deals are only at the final table once every player left is in the money (H.36)")
    if t.proposal is not None:
        raise TournamentError("a deal proposal is already on the table")
    if not isinstance(on, bool):
        raise TournamentError("pressing Deal is on (true) or off (false)")


def press(t: Tournament, player: str, on: bool = True) -> list[Event]:
    """Press (or un-press) Deal; once everyone has, the proposal comes at the end of the hand (H.36)."""
    verify_press(t, player, on)
    if on:
        t.deal_pressed.add(player)
    else:
        t.deal_pressed.discard(player)
    events: list[Event] = [DealPressed(player, on, len(t.deal_pressed), t.players_left)]
    t._deal_due = len(t.deal_pressed) == t.players_left
    if t._deal_due and not any(state.hand for state in t.tables.values()) and not t._held:
        events.append(propose(t))
    return events


def verify_answer(t: Tournament, player: str) -> None:
    if t.proposal is None:
        raise TournamentError("there is no deal proposal")
    if player not in t.proposal.amounts:
        raise TournamentError(f"{player} is not part of the deal")
    if player in t.proposal.accepted:
        raise TournamentError(f"{player} has already accepted")


def accept(t: Tournament, player: str) -> list[Event]:
    """Accept the ICM proposal; when the last player does, the amounts are paid and the tournament ends."""
    verify_answer(t, player)
    deal = t.proposal
    assert deal is not None
    deal.accepted.add(player)
    events: list[Event] = [DealAccepted(player)]
    if len(deal.accepted) == len(deal.amounts):
        events += close(t, deal)
    return events


def reject(t: Tournament, player: str, reason: str = "rejected") -> list[Event]:
    """Any no (or a disconnection, ``reason='disconnected'``) ends the proposal; play continues (H.36)."""
    verify_answer(t, player)
    return no_deal(t, player, "disconnected" if reason == "disconnected" else "rejected")


def expire(t: Tournament, now: float) -> list[Event]:
    """A proposal whose deadline has passed fails."""
    if t.proposal is not None and now >= t.proposal.until:
        return no_deal(t, "", "expired")
    return []


def propose(t: Tournament) -> DealProposed:
    """The ICM split of what the pool still holds, for places 1..n, in cents (H.31-H.36, G.30)."""
    t._deal_due = False
    (state,) = t.tables.values()
    seat_order = state.table.players  # every player left, dealt in next hand or not
    stacks = [t.stacks[p] for p in seat_order]
    prizes = t.prizes[:len(seat_order)]
    pool = t.ledger.pool_cents
    prizes[0] += pool - sum(prizes)
    tie_rank = {p: order for order, p in enumerate(sorted(seat_order, key=lambda p: -t.stacks[p]))}
    cents = largest_remainder(equities(stacks, prizes), pool, [tie_rank[p] for p in seat_order])
    t.proposal = Deal(dict(zip(seat_order, cents)), t._now + t.definition.deal_seconds, seat_order)
    return DealProposed(dict(t.proposal.amounts), dict(zip(seat_order, stacks)), t.proposal.until)


def no_deal(t: Tournament, player: str, reason: Any) -> list[Event]:
    t.proposal = None
    t.deal_pressed.clear()
    t._deal_due = False
    return [DealRejected(player, reason)]


def close(t: Tournament, deal: Deal) -> list[Event]:
    """Everyone accepted: pay the amounts; places follow the stacks, then the seat numbers."""
    order = sorted(deal.seat_order, key=lambda p: (-t.stacks[p], deal.seat_order.index(p)))
    for place, player in enumerate(order, start=1):
        t.results[player] = Result(player, place, deal.amounts[player])
        eliminations.pay_prize(t, player, deal.amounts[player])
    t.stacks.clear()
    t.proposal = None
    return eliminations.end(t, deal=True)
