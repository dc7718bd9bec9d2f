"""Cancellations that send players on: a satellite's seats given by its refund policy (rules.md I.39)."""

from __future__ import annotations

import random

import msgspec

from engine.refunds import RefundPolicy
from engine.structure import Satellite
from server.tournament import records
from server.storage import MemoryStorage
from server.tournament.runtime import TournamentRuntime
from tests.live_server import drive
from tests.tournaments import definition as rules

SEED, SEAT = 4, 1_500


def test_a_satellite_cancelled_with_seats_registers_their_holders_into_the_target():
    """Seats a cancellation gives (policy B, satellite middle by seats) are tickets registered into
    the target, as won seats are; the rest is cash, and both ledgers balance."""


    storage = MemoryStorage()
    target = TournamentRuntime.create("main", rules(9, buy_in_cents=SEAT - 100), storage, hand_pause=0)  # + fee 100
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


def test_a_satellites_refunds_become_entries_to_another_tournament_the_admin_names():
    """Seed 000 ( Satellite Tournaments): each refund covering the named tournament's buy-in and fee
    becomes a registration there, the rest in cash; every ledger balances."""
    storage = MemoryStorage()
    other = TournamentRuntime.create("other", rules(9, buy_in_cents=800), storage, hand_pause=0)  # 800 + 100
    satellite = TournamentRuntime.create("sat", rules(8, satellite=Satellite(seat_value_cents=5_000, target=None)),
                                         storage, hand_pause=0)
    other.registry = satellite.registry = {"other": other, "sat": satellite}
    for number in range(6):
        satellite.register(f"player {number}")
    rows = satellite.cancellation_preview(entry_into="other")
    assert [row.refund_cents for row in rows if "an entry" in row.rule] == [900] * 6
    satellite.cancel(entry_into="other")  # before the start: 1,100 each; 900 of it an entry, 200 cash
    director = satellite.director
    assert sorted((r.player, r.cents, r.entry) for r in director.refunds) == sorted(
        [(f"p{n}", 900, True) for n in range(1, 7)] + [(f"p{n}", 200, False) for n in range(1, 7)])
    assert director.ledger.balances() and director.ledger.summary()["held"] == 0
    assert len(other.director.entries) == 6 and other.director.ledger.pool_cents == 6 * 800
    assert {t.entry for t in satellite.tickets} == set(other.director.entries)


def test_only_a_satellite_refunds_as_entries_and_only_into_a_tournament_open_for_registration():
    import pytest

    from server.errors import Refused

    storage = MemoryStorage()
    plain = TournamentRuntime.create("plain", rules(4), storage, hand_pause=0)
    other = TournamentRuntime.create("other", rules(4), storage, hand_pause=0)
    plain.registry = {"plain": plain, "other": other}
    plain.register("ann")
    with pytest.raises(Refused, match="only a satellite"):
        plain.cancel(entry_into="other")
    with pytest.raises(Refused, match="open for registration"):
        plain.cancel(entry_into="nowhere")
    assert plain.director.status.value == "register"  # nothing changed


def freeroll_in_its_middle_stage(storage: MemoryStorage) -> TournamentRuntime:
    """A 16-entry freeroll (entry points of 100, a sponsored $500) played until a quarter is out, not in the
    money; seeded decks, so that the same hands are played every run."""
    freeroll = TournamentRuntime("free", rules(8, buy_in_cents=0, added_cents=50_000, starting_stack=2_000),
                                 storage=storage, hand_pause=0, seed=SEED)
    storage.create("free", b"{}", SEED, b"")
    for number in range(16):
        freeroll.register(f"player {number}")
    freeroll.submit(records.Start(0.0, 1.0))
    hands = 0
    while freeroll.director.players_left > 12:
        hands += 20
        drive(freeroll, random.Random(hands), hands)
    assert 3 < freeroll.director.players_left <= 12
    return freeroll


def test_a_freeroll_rescheduled_in_its_middle_stage_registers_the_players_still_in_for_the_new_date():
    """Seed 004 ( freeroll middle): the director reschedules: no prize is paid now, the entry
    points come back, and a tournament of the same definition starts at the new time with the players
    still in at the interruption, registered under their names and tokens, in its journal."""
    import time

    import pytest

    from server.tournament import chaining
    from server.errors import Refused

    storage = MemoryStorage()
    freeroll = freeroll_in_its_middle_stage(storage)
    created: list[TournamentRuntime] = []

    def create(definition):
        created.append(TournamentRuntime.create("again", definition, storage, hand_pause=0))
        freeroll.registry["again"] = created[-1]
        created[-1].registry = freeroll.registry
        return created[-1]

    with pytest.raises(Refused, match="a time to come"):
        chaining.reschedule(freeroll, create, None, time.time() - 1)
    still_in = freeroll.director.still_in()
    tokens = {player: key for key, player in freeroll.entries.tokens.items()}
    at = time.time() + 3_600
    chaining.reschedule(freeroll, create, None, at)  # the definition's policy says chip equity: the date wins
    director, (again,) = freeroll.director, created
    assert director.status.value == "cancelled" and director.ledger.balances()
    assert all(refund.pool_cents == 0 for refund in director.refunds if refund.player)
    assert {r.player: r.fee_cents for r in director.refunds if r.player} == {f"p{n}": 100 for n in range(1, 17)}
    assert again.definition == msgspec.structs.replace(freeroll.definition, starts_at=at)
    assert again.director.status.value == "register" and len(again.director.entries) == len(still_in)
    moved = {ticket.player: ticket.entry for ticket in freeroll.tickets}
    assert set(moved) == set(still_in) and all(moved.values())
    for player, entry in moved.items():  # the same name and the same token
        assert again.entries.names[entry] == freeroll.entries.names[player]
        assert again.entries.tokens[tokens[player]] == entry
    (stored,) = [s for s in storage.tournaments() if s.id == "again"]
    assert len(TournamentRuntime.restore(stored, storage).director.entries) == len(still_in)


def test_only_a_freeroll_before_its_final_stage_is_rescheduled():
    import time

    import pytest

    from server.tournament import chaining
    from server.errors import Refused

    storage = MemoryStorage()
    regular = TournamentRuntime.create("regular", rules(4), storage, hand_pause=0)
    regular.register("ann")
    with pytest.raises(Refused, match="only a freeroll"):
        chaining.reschedule(regular, lambda d: regular, None, time.time() + 60)
    freeroll = TournamentRuntime("free", rules(4, buy_in_cents=0, added_cents=1_000), storage=storage,
                                 hand_pause=0, seed=SEED)
    storage.create("free", b"{}", SEED, b"")
    for name in ("ann", "bob", "cy", "dee"):
        freeroll.register(name)
    freeroll.submit(records.Start(0.0, 1.0))
    with pytest.raises(Refused, match="policy B"):
        chaining.reschedule(freeroll, lambda d: freeroll, RefundPolicy("A"), time.time() + 60)
    hands = 0
    while freeroll.director.players_left > 3:
        hands += 1
        drive(freeroll, random.Random(hands), hands)
    assert freeroll.director.players_left == 3  # all three paid: its final stage
    with pytest.raises(Refused, match="final stage"):
        chaining.reschedule(freeroll, lambda d: freeroll, None, time.time() + 60)
    assert freeroll.director.status.value == "running" and regular.director.status.value == "register"
