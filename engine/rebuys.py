"""Re-buys and add-ons (rules.md F.25-F.26): offers with a deadline, and busts held until they are answered.

A bust in the re-buy period is offered a re-buy; the hand's (or round's)
busts are ranked only once every offer is answered, so a re-buy never
changes a place already given. The add-on is offered to everyone when the
period ends; chips bought during a hand arrive when it ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from engine import prizes
from engine.events import AddOnEnded, AddOnOffered, AddOnTaken, Event, RebuyDeclined, RebuyOffered, RebuyTaken
from engine.status import Status, TournamentError

if TYPE_CHECKING:
    from engine.parts.busts import Bust
    from engine.state import State


def verify_rebuy(t: State, player: str) -> None:
    rebuys = t.definition.rebuys
    if rebuys is None:
        raise TournamentError("this tournament has no re-buys (F.25)")
    if t.status is not Status.RUNNING:
        raise TournamentError(f"re-buys are only while Running; the tournament is {t.status}")
    if player not in t.stacks:
        raise TournamentError(f"{player} is not playing")
    if player in t.rebuy_offers:
        return  # a bust in the period keeps its offer until the deadline
    if t.rebuy_period_over:
        raise TournamentError("the re-buy period is over (F.25)")
    if t.rebuys_taken.get(player, 0) >= rebuys.max_count:
        raise TournamentError(f"{player} has used all {rebuys.max_count} re-buys")
    if rebuys.allowed_at == "zero":
        raise TournamentError("a re-buy is offered only at zero chips in this tournament (F.25)")
    if t.stacks[player] + t.pending.chips_of(player) > t.definition.starting_stack:
        raise TournamentError("a re-buy needs a stack at or below the starting stack (F.25)")


def rebuy(t: State, player: str) -> list[Event]:
    """Buy the re-buy's chips: a bust's answer to its offer, or a short stack's choice.

    A short stack may ask during a hand (a live table never waits between
    hands): the stack checked is the one the hand started with, the re-buy
    is paid now, and its chips arrive when the hand ends, as the add-on's do.
    """
    verify_rebuy(t, player)
    rebuys = t.definition.rebuys
    assert rebuys is not None
    count = t.buys.rebought(player)
    _buy_chips(t, player, "rebuy", rebuys.price_cents, rebuys.fee_cents, rebuys.chips)
    return [RebuyTaken(player, rebuys.chips, count, rebuys.price_cents + rebuys.fee_cents)]  # answers an offer


def _buy_chips(t: State, player: str, kind: Literal["rebuy", "add_on"], price: int, fee: int, chips: int) -> None:
    """Pay for chips through the ledger; bought during a hand, they arrive when it ends. The prizes follow."""
    t.pay(player, kind, price, "rebuy_fee" if kind == "rebuy" else "add_on_fee", fee)
    t.chips.issue(chips)
    if t.in_hand(player):
        t.pending.add_chips(player, chips)
    else:
        t.chips.credit(player, chips)
    prizes.price(t)


def verify_decline_rebuy(t: State, player: str) -> None:
    if player not in t.rebuy_offers:
        raise TournamentError(f"{player} has no re-buy offer")


def decline_rebuy(t: State, player: str, reason: Literal["declined", "expired"] = "declined") -> list[Event]:
    """A no to a re-buy offer, said or by its deadline: the player is eliminated with the busts of their hand
    (F.25), once the director has every answer of the batch."""
    verify_decline_rebuy(t, player)
    return [RebuyDeclined(player, reason)]  # the director ranks the batch once every offer is answered


def verify_add_on(t: State, player: str) -> None:
    if t.definition.add_on is None:
        raise TournamentError("this tournament has no add-on (F.26)")
    if t.add_on_until is None:
        raise TournamentError("the add-on is offered only at the end of the re-buy period (F.26)")
    if player not in t.stacks:
        raise TournamentError(f"{player} is not playing")
    if player in t.add_ons:
        raise TournamentError(f"{player} has already taken the add-on")


def add_on(t: State, player: str) -> list[Event]:
    """Buy the add-on once, whatever the stack; chips bought during a hand arrive when it ends (F.26)."""
    verify_add_on(t, player)
    offer = t.definition.add_on
    assert offer is not None
    t.buys.added_on(player)
    _buy_chips(t, player, "add_on", offer.price_cents, offer.fee_cents, offer.chips)
    return [AddOnTaken(player, offer.chips, offer.price_cents + offer.fee_cents)]


def end_add_on(t: State, now: float) -> list[Event]:
    """The add-on closes at its deadline."""
    events: list[Event] = []
    if t.add_on_until is not None and now >= t.add_on_until:
        t.buys.end_add_on()
        events.append(AddOnEnded())
    return events


def end_period(t: State, ends_at: float) -> list[Event]:
    """The re-buy period is over; the add-on is offered until its deadline."""
    offer = t.definition.add_on
    t.buys.end_period(None if offer is None else ends_at + offer.offer_seconds)
    if offer is None:
        return []
    return [AddOnOffered(ends_at + offer.offer_seconds, offer.price_cents + offer.fee_cents, offer.chips)]


def offer(t: State, busts: list[Bust], *, round_: bool) -> list[Event] | None:
    """A hand's or round's busts: re-buys offered to those who may buy one, their batch held until every offer is
    answered; None when nobody is offered one (the director ranks the batch now)."""
    rebuys = t.definition.rebuys
    offered = [] if rebuys is None or t.rebuy_period_over else [
        bust for bust in busts if t.rebuys_taken.get(bust.player, 0) < rebuys.max_count]
    if not offered:
        return None
    assert rebuys is not None
    until = t.clock.now + rebuys.offer_seconds
    t.pending.hold(busts, round_, {bust.player: until for bust in offered})
    return [RebuyOffered(bust.player, until, rebuys.price_cents + rebuys.fee_cents, rebuys.chips) for bust in offered]
