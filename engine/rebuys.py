"""Re-buys and add-ons (rules.md F.25-F.26): offers with a deadline, and busts held until they are answered.

A bust in the re-buy period is offered a re-buy; the hand's (or round's)
busts are ranked only once every offer is answered, so a re-buy never
changes a place already given. The add-on is offered to everyone when the
period ends; chips bought during a hand arrive when it ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from mypy_extensions import mypyc_attr

from engine import pickling, prizes

from engine.events import AddOnEnded, AddOnOffered, AddOnTaken, Event, RebuyDeclined, RebuyOffered, RebuyTaken
from engine.status import Status, TournamentError

if TYPE_CHECKING:
    from engine.director import Tournament
    from engine.eliminations import Bust


HELD_FIELDS = ("busts", "round_", "waiting")


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Held:
    """A hand's (or round's) busts waiting for re-buy decisions before they are ranked (F.25)."""

    __slots__ = HELD_FIELDS

    def __init__(self, busts: list[Bust], round_: bool, waiting: set[str]) -> None:
        self.busts = busts
        self.round_ = round_
        self.waiting = waiting

    def __getstate__(self) -> dict[str, Any]:
        return pickling.state(self, HELD_FIELDS)

    def __setstate__(self, pickled: pickling.State) -> None:
        pickling.restore(self, pickled)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Pending:
    """What waits on an answer or the end of a hand: re-buy offers and the busts they hold back from ranking
    (F.25), chips bought or merged during a hand (F.26, M.51), and a deal due when the hand ends (H.36).
    Written only through its methods."""

    def __init__(self) -> None:
        self._offers: dict[str, float] = {}  # player -> the deadline of their re-buy offer
        self._held: list[Held] = []
        self._chips: dict[str, int] = {}  # chips for players in a hand, added when it ends
        self._deal_due = False

    @property
    def offers(self) -> Mapping[str, float]:
        return self._offers

    def hold(self, busts: list[Bust], round_: bool, offers: dict[str, float]) -> None:
        """A batch of busts waits until every offer of it (player -> deadline) is answered."""
        self._held.append(Held(busts, round_, set(offers)))
        self._offers.update(offers)

    def holds(self) -> bool:
        """Whether any batch of busts waits for answers."""
        return bool(self._held)

    def holds_any(self, players: list[str]) -> bool:
        """Whether one of ``players`` is a bust not yet ranked: offered a re-buy, or waiting for the others of
        their batch to answer. A table seating one deals no hand (F.25, TDA 27: no hand is missed)."""
        return any(bust.player in players for held in self._held for bust in held.busts)

    def answered(self, player: str, *, rebought: bool) -> Held | None:
        """``player`` answered their offer; the batch it held, once every offer of it is answered."""
        del self._offers[player]
        held = next(h for h in self._held if player in h.waiting)
        held.waiting.discard(player)
        if rebought:
            held.busts = [bust for bust in held.busts if bust.player != player]
        if held.waiting:
            return None
        self._held.remove(held)
        return held

    def withdraw(self, player: str) -> None:
        """A player taken out keeps no offer."""
        self._offers.pop(player, None)

    def expired(self, now: float) -> list[str]:
        """The players whose offer's clock has run out by ``now``, first deadline first."""
        if not self._offers:
            return []  # as nearly always: the director asks at every step of the clock
        return [player for player, until in sorted(self._offers.items(), key=lambda item: item[1]) if until <= now]

    def drop_all(self) -> list[str]:
        """The tournament is cancelled: every offer withdrawn, no batch held; returns who had an offer."""
        offered = list(self._offers)
        self._offers.clear()
        self._held.clear()
        return offered

    def has_chips(self) -> bool:
        return bool(self._chips)

    def chips_of(self, player: str) -> int:
        return self._chips.get(player, 0)

    def total_chips(self) -> int:
        return sum(self._chips.values())

    def add_chips(self, player: str, chips: int) -> None:
        self._chips[player] = self._chips.get(player, 0) + chips

    def take_chips(self, player: str) -> int:
        """The chips waiting for ``player``, now theirs (their hand ended or was void)."""
        return self._chips.pop(player, 0) if self._chips else 0

    @property
    def deal_due(self) -> bool:
        """Whether a deal is to be proposed once no hand is in progress and no batch is held (H.36)."""
        return self._deal_due

    def set_deal_due(self, due: bool) -> None:
        self._deal_due = due


def verify_rebuy(t: Tournament, player: str) -> None:
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


def rebuy(t: Tournament, player: str) -> list[Event]:
    """Buy the re-buy's chips: a bust's answer to its offer, or a short stack's choice.

    A short stack may ask during a hand (a live table never waits between
    hands): the stack checked is the one the hand started with, the re-buy
    is paid now, and its chips arrive when the hand ends, as the add-on's do.
    """
    verify_rebuy(t, player)
    rebuys = t.definition.rebuys
    assert rebuys is not None
    count = t.rebuys_taken.get(player, 0) + 1
    t.rebuys_taken[player] = count
    _buy_chips(t, player, "rebuy", rebuys.price_cents, rebuys.fee_cents, rebuys.chips)
    return [RebuyTaken(player, rebuys.chips, count, rebuys.price_cents + rebuys.fee_cents)]  # answers an offer


def _buy_chips(t: Tournament, player: str, kind: Literal["rebuy", "add_on"], price: int, fee: int, chips: int) -> None:
    """Pay for chips through the ledger; bought during a hand, they arrive when it ends. The prizes follow."""
    t.pay(player, kind, price, f"{kind}_fee", fee)
    t.chips_issued += chips
    if t.in_hand(player):
        t.pending.add_chips(player, chips)
    else:
        t.stacks[player] += chips
    prizes.price(t)


def verify_decline_rebuy(t: Tournament, player: str) -> None:
    if player not in t.rebuy_offers:
        raise TournamentError(f"{player} has no re-buy offer")


def decline_rebuy(t: Tournament, player: str, reason: Literal["declined", "expired"] = "declined") -> list[Event]:
    """A no to a re-buy offer, said or by its deadline: the player is eliminated with the busts of their hand
    (F.25), once the director has every answer of the batch."""
    verify_decline_rebuy(t, player)
    return [RebuyDeclined(player, reason)]  # the director ranks the batch once every offer is answered


def verify_add_on(t: Tournament, player: str) -> None:
    if t.definition.add_on is None:
        raise TournamentError("this tournament has no add-on (F.26)")
    if t.add_on_until is None:
        raise TournamentError("the add-on is offered only at the end of the re-buy period (F.26)")
    if player not in t.stacks:
        raise TournamentError(f"{player} is not playing")
    if player in t.add_ons:
        raise TournamentError(f"{player} has already taken the add-on")


def add_on(t: Tournament, player: str) -> list[Event]:
    """Buy the add-on once, whatever the stack; chips bought during a hand arrive when it ends (F.26)."""
    verify_add_on(t, player)
    offer = t.definition.add_on
    assert offer is not None
    t.add_ons.add(player)
    _buy_chips(t, player, "add_on", offer.price_cents, offer.fee_cents, offer.chips)
    return [AddOnTaken(player, offer.chips, offer.price_cents + offer.fee_cents)]


def end_add_on(t: Tournament, now: float) -> list[Event]:
    """The add-on closes at its deadline."""
    events: list[Event] = []
    if t.add_on_until is not None and now >= t.add_on_until:
        t.add_on_until = None
        events.append(AddOnEnded())
    return events


def end_period(t: Tournament, ends_at: float) -> list[Event]:
    """The re-buy period is over; the add-on is offered until its deadline."""
    t.rebuy_period_over = True
    offer = t.definition.add_on
    if offer is None:
        return []
    t.add_on_until = ends_at + offer.offer_seconds
    return [AddOnOffered(t.add_on_until, offer.price_cents + offer.fee_cents, offer.chips)]


def offer(t: Tournament, busts: list[Bust], *, round_: bool) -> list[Event] | None:
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
