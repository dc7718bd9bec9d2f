"""Eliminations and ranking (rules.md G.28-G.30, D.17, K.45): who takes which place, and the end of a tournament.

``rank`` is a pure function of a batch of busts; the rest applies its
places to a tournament: prizes through the ledger, seats freed, bounties
paid, and the finish when one player (or a satellite's last seat winners)
is left.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine import bounties, prizes, windows
from engine.events import Acted, Event, HandForHandEnded, PlayerEliminated, Posted, PotAwarded, Result, Returned
from engine.hand import Hand
from engine.money import equal_shares
from engine.parts.busts import Bust
from engine.standings import after_a_bust, pay_prize, prize, record
from engine.status import Status

if TYPE_CHECKING:
    from engine.state import State


def rank(busts: list[Bust], ties: str, players_left: int, prize: Callable[[int], int],
         seats_won: int) -> list[Result]:
    """One hand's or round's busts take places N_after+1 .. N_before, best first (G.28-G.30, D.17).

    More chips at the start of the hand places higher, and equal stacks
    share their places' prizes (``pokerstars``). For a hand-for-hand round
    the definition may choose instead: ``wsop``, busts at different tables
    tie (at one table the bigger stack still places higher), or ``tda``,
    every bust of the round shares the places crossed (TDA RP-8A).
    ``position`` (a satellite's seats, which cannot be split) ranks equal
    stacks by position. Within a tie places go by stack, then table, then
    the first seat left of the button; the odd cents of a split go to the
    better placed. Sorts ``busts`` in place.
    """
    for bust in busts:
        if ties == "wsop":  # rank among the busts of the same table
            bust.tie = sum(other.start_stack > bust.start_stack for other in busts if other.table == bust.table)
        elif ties == "pokerstars":
            bust.tie = -bust.start_stack
    busts.sort(key=lambda b: (b.tie, -b.start_stack, b.table, b.position))
    if ties == "position":
        for order, bust in enumerate(busts):
            bust.tie = order
    place = players_left - len(busts) + 1
    awarded: list[Result] = []
    index = 0
    while index < len(busts):
        tied = [b for b in busts[index:] if b.tie == busts[index].tie]
        places = range(place, place + len(tied))
        shares = equal_shares(sum(prize(k) for k in places), len(tied))
        for bust, finish, cents in zip(tied, places, shares):
            awarded.append(Result(bust.player, finish, cents, finish <= seats_won))
        index += len(tied)
        place += len(tied)
    return awarded


class Outcome:
    """How a hand ended, as the same engine played it in another process (the simulator's workers, bots/playing.py):
    each player's stack, by their place in the hand, and for each who lost every chip, the places of the players
    who won their last chips (``knocked_out_by``). A class, not a NamedTuple, which compiled code builds through
    Python: the director unpickles one a hand."""

    __slots__ = ("stacks", "knockers")

    def __init__(self, stacks: tuple[int, ...], knockers: dict[int, tuple[int, ...]]) -> None:
        self.stacks = stacks
        self.knockers = knockers

    def __reduce__(self) -> tuple[object, ...]:
        return Outcome, (self.stacks, self.knockers)


def outcome_of(hand: Hand) -> Outcome:
    """A finished hand's ``Outcome``."""
    stacks = tuple(hand.stacks)
    if 0 not in stacks:
        return Outcome(stacks, {})  # as at most hands: nobody busted
    places = {player: place for place, player in enumerate(hand.players)}
    return Outcome(stacks, {
        place: tuple(places[winner] for winner in knocked_out_by(hand, hand.players[place]))
        for place, stack in enumerate(stacks) if stack == 0})


def knocked_out_by(hand: Hand, victim: str) -> tuple[str, ...]:
    """Who won the pot holding ``victim``'s last chips: the player(s) covering them (rules.md J.41).

    A player's contribution is what they put in the pots (blinds, bets and
    calls, less what was returned; antes are dead money in every pot). The
    victim's last chips are in the first pot whose contenders each put in at
    least as much as the victim did.
    """
    put_in: dict[str, int] = {}
    awarded: list[PotAwarded] = []
    for event in hand.events:
        if isinstance(event, Acted) or (isinstance(event, Posted) and event.kind in ("small_blind", "big_blind")):
            put_in[event.player] = put_in.get(event.player, 0) + event.amount
        elif isinstance(event, Returned):
            put_in[event.player] -= event.amount
        elif isinstance(event, PotAwarded):
            awarded.append(event)
    level = put_in.get(victim, 0)
    for pot in awarded:
        if min(put_in.get(p, 0) for p in pot.eligible) >= level:
            return pot.winners
    return ()


def conclude(t: State, busts: list[Bust], round_: bool) -> list[Event]:
    """Rank a batch whose re-buy offers are all answered; the director's floor, windows and hand-for-hand follow
    between hands."""
    events = eliminate(t, busts, round_=round_)
    if t.status is not Status.RUNNING:
        return events
    if round_ and busts and not t.hand_for_hand_forced:  # D.16: ends after the first round with a bust
        t.rounds.end()
        events.append(HandForHandEnded(t.players_left))
    flight = t.definition.flight
    if flight is not None and flight.stop_share_percent is not None and t.rounds.points \
            and t.players_left < min(t.rounds.points):
        t.progress.stop_flight()
    return events


def eliminate(t: State, busts: list[Bust], *, round_: bool = False) -> list[Event]:
    """The batch's places, prizes and bounties, worst place first, as a floor announces them (G.28-G.30)."""
    if not busts:
        return []
    closed = windows.before_ranking(t, len(busts))
    ties = prizes.kind(t.definition).ties(t.definition.hand_for_hand_ties if round_ else "pokerstars")
    awarded = rank(busts, ties, t.players_left, lambda place: prize(t, place), t.seats_won)
    t.negotiation.start_over()  # the players changed: a deal starts over
    t.pending.set_deal_due(False)
    knockers = {bust.player: bust.knocked_out_by for bust in busts}
    bounty = bounties.rule_for(t.definition.bounty)
    events: list[Event] = closed
    for result in reversed(awarded):
        pay_prize(t, result.player, result.prize_cents, ticket=result.ticket)
        table_id = t.floor.unseat(result.player)
        t.chips.bust(result.player)
        for knocker in knockers.get(result.player, ()):
            t.places.knocked_out(knocker)
        events.append(PlayerEliminated(result.player, result.place, record(t, result).prize_cents, table_id))
        events += bounty.knocked_out(t, result.player, knockers.get(result.player, ()))
    return events + after_a_bust(t)


