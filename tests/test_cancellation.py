"""Cancellations that send players on: a satellite's seats given by its refund policy (rules.md I.39)."""

from __future__ import annotations

import random

from engine.refunds import RefundPolicy
from engine.structure import Satellite
from server import records
from server.journal import MemoryStorage
from server.runtime import TournamentRuntime
from tests.test_journal import drive
from tests.tournaments import definition as rules


SEED, SEAT = 4, 1_500


def test_a_satellite_cancelled_with_seats_registers_their_holders_into_the_target():
    """Issue 15.5: seats a cancellation gives (policy B, satellite middle by seats) are tickets registered into
    the target, as won seats are; the rest is cash, and both ledgers balance."""


    storage = MemoryStorage()
    target = TournamentRuntime.create("main", rules(9, buy_in_cents=2_000), storage, hand_pause=0)
    # Seeded decks (no secret), so that the same hands are played every run.
    satellite = TournamentRuntime("sat", rules(8, satellite=Satellite(seat_value_cents=SEAT, target="main"),
                                               starting_stack=2_000), storage=storage, hand_pause=0, seed=SEED)
    target.registry = satellite.registry = {"main": target, "sat": satellite}
    storage.create("sat", b"{}", SEED, b"")
    for number in range(16):
        satellite.register(f"player {number}")
    satellite.submit(records.Start(0.0, 1.0))
    director, hands = satellite.director, 0
    while director.players_left > 12 and director.status.value == "running":
        hands += 20
        drive(satellite, random.Random(hands), hands)
    assert 6 < director.players_left <= 12  # the middle stage: a quarter out, not yet in the money
    satellite.cancel(RefundPolicy("B", satellite_middle="seats"))
    seats = [refund for refund in director.refunds if refund.ticket]
    assert seats and all(refund.pool_cents == SEAT for refund in seats)
    assert director.ledger.balances() and director.ledger.summary()["held"] == 0
    sent = {ticket.player: ticket.entry for ticket in satellite.tickets}
    assert set(sent) == {refund.player for refund in seats} and all(sent.values())
    assert len(target.director.entries) == len(seats)
