"""The prize table of each kind of tournament (rules.md G.28-G.30, K.44-K.46, L.47-L.49), as a rule object.

A cash tournament pays its fixed table or its payout rule's for the field; a
satellite pays seats (and the cash left over); a flight pays nothing, its
pool going to the final, and stops at a share of its field. Each kind says
its prizes, the field sizes that call for hand-for-hand, how equal stacks
busting together are ranked, and what the last player standing gets, so no
other module asks which kind it is. A primitive: it calls no policy.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from engine.status import Status
from engine.structure import Definition, hand_for_hand_points, prizes_cents, rule_prizes, satellite_prizes

from engine.wire import Stage

if TYPE_CHECKING:
    from engine.state import State


class Cash:
    """Prize money by place: the fixed table, or the payout rule's for the number of entries."""

    wins_alone = True  # the last player standing wins first place

    def __init__(self, definition: Definition) -> None:
        self.definition = definition

    def table(self, entrants: int, pool_cents: int) -> list[int]:
        """The prize per place a field of ``entrants`` and a pool of ``pool_cents`` would be paid."""
        if entrants == 0:
            return []
        if (rule := self.definition.payout_rule) is not None:
            return rule_prizes(rule, pool_cents, entrants, self.definition.buy_in_cents,
                               self.definition.seats_per_table)
        return prizes_cents(self.definition.payouts, pool_cents, entrants)

    def price(self, t: State, pool_cents: int) -> None:
        """The tournament's prizes for its field and ``pool_cents`` now, and the pay jumps hand-for-hand plays
        (D.14)."""
        prizes = self.table(len(t.entries), pool_cents)
        t.purse.price(prizes, pool_cents)
        t.rounds.price(hand_for_hand_points(prizes, self.definition.hand_for_hand_min_jump_cents))

    def ties(self, ties: str) -> str:
        """How busts of equal stacks are ranked."""
        return ties


class Seats(Cash):
    """A satellite (K.44-K.46): seats worth ``seat_value_cents`` each, the cash left over to the next place."""

    def table(self, entrants: int, pool_cents: int) -> list[int]:
        assert self.definition.satellite is not None
        return satellite_prizes(pool_cents, self.definition.satellite.seat_value_cents)[0] if entrants else []

    def price(self, t: State, pool_cents: int) -> None:
        assert self.definition.satellite is not None
        prizes, seats_won = satellite_prizes(pool_cents, self.definition.satellite.seat_value_cents)
        t.purse.price(prizes, pool_cents, seats_won)
        t.rounds.price(hand_for_hand_points(prizes, self.definition.hand_for_hand_min_jump_cents))

    def ties(self, ties: str) -> str:
        return "position"  # a seat cannot be split: equal stacks go by position (K.46, G.29 Decision)


class FlightStop(Cash):
    """A flight (L.47-L.49): no prize here; hand-for-hand at the bubble of the share that qualifies."""

    wins_alone = False  # the last player standing qualifies; the flight pays no prize

    def table(self, entrants: int, pool_cents: int) -> list[int]:
        return []

    def price(self, t: State, pool_cents: int) -> None:
        assert self.definition.flight is not None
        t.purse.price([], pool_cents)
        cutoff = math.floor(len(t.entries) * (self.definition.flight.stop_share_percent or 0) / 100)
        t.rounds.price({cutoff + 1} if cutoff >= 1 else set())


def kind(definition: Definition) -> Cash:
    if definition.flight is not None:
        return FlightStop(definition)
    if definition.satellite is not None:
        return Seats(definition)
    return Cash(definition)


def price(t: State) -> None:
    """The prize table follows the pool as entries, re-buys and add-ons grow it (places already paid keep theirs).
    After a partial deal every place but the first pays nothing more (H.36): the first takes what the pool holds,
    a re-buy bought since included."""
    pool = t.ledger.pool_cents + t.ledger.prizes_cents
    if t.dealt:
        t.purse.price([t.ledger.pool_cents, *t.prizes[1:]], pool)
        return
    kind(t.definition).price(t, pool)


def table_for(t: State, entrants: int, pool_cents: int) -> list[int]:
    """The prize per place a field of ``entrants`` and a pool of ``pool_cents`` would be paid (a satellite's
    seats and a flight's nothing aside): the fixed table, or the payout rule's for that field."""
    return kind(t.definition).table(entrants, pool_cents)


def projected(t: State) -> list[int]:
    """Before the start, the prizes of the entries so far (the pool as it stands, with the money added at the
    start); once it runs, the prizes."""
    if t.status not in (Status.WAITING, Status.REGISTER):
        return t.prizes
    return table_for(t, len(t.entries), t.ledger.pool_cents + t.definition.added_cents)


def full_field(t: State) -> list[int]:
    """The prizes if the field fills (``max_players`` entries, each paying the buy-in, with the money added)."""
    full = t.definition.max_players
    return table_for(t, full, full * t.definition.buy_in_cents + t.definition.added_cents)


def stage(t: State) -> Stage:
    """Where the tournament stands, as a player reads it off the lobby (``engine.wire.Stage``): the players left,
    the places paid (a satellite's seats), the players left at the next pay jump (the largest field size one bust
    from more money, D.14's points), and the average stack."""
    left = t.players_left
    jumps = [point for point in t.rounds.points if point <= left]
    paid = t.seats_won if t.definition.satellite is not None else len(t.prizes)
    return Stage(left, paid, max(jumps) if jumps else 0, t.chips_issued // left if left else 0)
