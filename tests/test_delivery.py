"""Seats and pools on their way to another tournament (rules.md K.44, L.47; engine/delivery.py): what a target
does not take is paid to its winner in cash, a seat's value is checked against its target's entry and settled,
and a flight's qualification can be withdrawn. Every cent balances across both tournaments, before and after a
restart."""

from __future__ import annotations

import random

import httpx
import msgspec
import pytest

from engine.director import Status
from engine.events import QualificationWithdrawn, Refunded
from engine.structure import Final, Flight, Satellite
from server.errors import Refused
from server.storage import MemoryStorage
from server.tournament import records
from server.tournament.chaining import withdraw_prize
from server.tournament.runtime import TournamentRuntime
from tests.live_server import ADMIN, definition, drive, live_server
from tests.tournaments import definition as rules

SEAT = 2_200  # six entries of $10 + $1: a $60 pool, two seats of $22 and $16 in cash to third place


def played(storage: MemoryStorage, registry: dict[str, TournamentRuntime], name: str, **more) -> TournamentRuntime:
    """A tournament of six entries ``name`` played to its end on seeded decks (the same every run)."""
    definition = rules(6, **more)
    runtime = TournamentRuntime(name, definition, storage=storage, hand_pause=0, seed=5)
    storage.create(name, msgspec.json.encode(definition), 5, b"")
    registry[name] = runtime
    runtime.registry = registry
    for number in range(6):
        runtime.register(f"{name} player {number}")
    runtime.submit(records.Start(0.0, 1.0))
    hands = 0
    while runtime.director.status is Status.RUNNING:
        hands += 50
        drive(runtime, random.Random(hands), hands)
    return runtime


def target(storage: MemoryStorage, registry: dict[str, TournamentRuntime], name: str = "main",
           **more) -> TournamentRuntime:
    runtime = TournamentRuntime.create(name, rules(9, **{"buy_in_cents": SEAT - 100, **more}), storage, hand_pause=0)
    registry[name] = runtime
    runtime.registry = registry
    return runtime


def money_of(runtime: TournamentRuntime) -> dict[str, int]:
    ledger = runtime.director.ledger
    assert ledger.balances()
    return ledger.summary()


def restored(storage: MemoryStorage, name: str) -> TournamentRuntime:
    (stored,) = [stored for stored in storage.tournaments() if stored.id == name]
    return TournamentRuntime.restore(stored, storage)


def undelivered(runtime: TournamentRuntime) -> dict[str, int]:
    return {event.player: event.refund_cents for _, event in runtime.log
            if isinstance(event, Refunded) and event.reason == "undelivered"}


@pytest.mark.parametrize("why", ["cancelled", "started", "full"])
def test_a_seat_its_target_cannot_take_is_paid_to_its_winner_in_cash_to_the_cent(why):
    """A satellite's target that was cancelled, or started without late registration, or is full, before the
    satellite ended refused its winners: 4,400 cents of seats were booked as sent and refunded to nobody. Each
    seat is now paid in cash, on the record with the reason, and nothing is sent to the target."""
    storage, registry = MemoryStorage(), {}
    main = target(storage, registry, max_players=2 if why == "full" else 10_000)
    main.register("early bird")
    if why == "cancelled":
        main.cancel()
    elif why == "started":
        main.register("second")
        main.submit(records.Start(0.0, 1.0))
    else:
        main.register("second")
    before = money_of(main)
    satellite = played(storage, registry, "sat", satellite=Satellite(seat_value_cents=SEAT, target="main"))
    winners = [result.player for result in satellite.director.standings() if result.ticket]
    assert len(winners) == 2
    assert undelivered(satellite) == dict.fromkeys(winners, SEAT)
    assert all(ticket.entry is None and ticket.refused and ticket.refunded_cents == SEAT
               for ticket in satellite.tickets)
    money = money_of(satellite)
    assert (money["tickets"], money["returned"], money["held"]) == (2 * SEAT, 2 * SEAT, 0)
    assert money_of(main) == before  # the target took nothing and books nothing
    assert money_of(restored(storage, "sat")) == money and money_of(restored(storage, "main")) == before


def test_a_target_cancelled_after_taking_its_seats_gives_them_back_in_cash():
    storage, registry = MemoryStorage(), {}
    main = target(storage, registry)
    satellite = played(storage, registry, "sat", satellite=Satellite(seat_value_cents=SEAT, target="main"))
    entries = {ticket.entry: ticket.player for ticket in satellite.tickets}
    assert len(entries) == 2 and set(main.director.entries) == set(entries)
    main.cancel()
    assert {refund.player: refund.cents for refund in main.director.refunds} == dict.fromkeys(entries, SEAT)
    assert money_of(main)["held"] == 0 and money_of(satellite)["tickets"] == money_of(main)["paid_in"]


@pytest.mark.parametrize("stage", ["cancelled", "started"])
def test_a_flights_pool_its_final_cannot_take_goes_to_the_survivors_by_their_stacks(stage):
    """A flight's final cancelled, or started, before the flight ended: 6,000 cents of its pool were booked as
    carried and reached nobody. They now go to the survivors, each their stack's share, to the cent."""
    storage, registry = MemoryStorage(), {}
    final = target(storage, registry, "final", final=Final(), buy_in_cents=1_000)
    if stage == "cancelled":
        final.cancel()
    else:
        final.register("one")
        final.register("two")
        final.submit(records.Start(0.0, 1.0))
    before, entries = money_of(final), list(final.director.entries)
    flight = played(storage, registry, "day1", flight=Flight(final="final", stop_share_percent=50))
    survivors = dict(flight.director.stacks)
    refunds = undelivered(flight)
    assert set(refunds) == set(survivors) and sum(refunds.values()) == 6 * 1_000
    chips = sum(survivors.values())
    assert all(abs(refunds[player] - 6_000 * stack / chips) < 1 for player, stack in survivors.items())
    assert all(ticket.refused and ticket.refunded_cents == refunds[ticket.player] for ticket in flight.tickets)
    money = money_of(flight)
    assert (money["carried"], money["returned"], money["refunds"], money["held"]) == (6_000, 6_000, 6_000, 0)
    assert money_of(final) == before and final.director.entries == entries
    assert money_of(restored(storage, "day1")) == money


@pytest.mark.parametrize("value", [SEAT + 400, SEAT - 800])
def test_a_seat_worth_other_than_its_targets_entry_is_settled_as_its_definition_says(value):
    """A $14 seat into a $22 target created 800 cents from nothing in the target's ledger; a $26 one lost 400.
    With ``difference: settled`` the seat buys the entry whole: the house tops up a seat worth less, the winner
    gets the rest of one worth more in cash, each on the satellite's record; the target books exactly what the
    seats brought."""
    storage, registry = MemoryStorage(), {}
    main = target(storage, registry)
    # Seats worth less than the pool's share: more seats, the same code path.
    satellite = played(storage, registry, "sat",
                       satellite=Satellite(seat_value_cents=value, target="main", difference="settled"))
    seats = [ticket for ticket in satellite.tickets]
    assert seats and all(ticket.entry in main.director.entries for ticket in seats)
    money = money_of(satellite)
    assert money["held"] == 0
    sent = money["tickets"] - money["returned"]  # what left the satellite as seats, the house's top-ups with it
    assert sent == money_of(main)["paid_in"] == len(seats) * SEAT
    if value > SEAT:
        assert all(ticket.refunded_cents == value - SEAT for ticket in seats)
        assert undelivered(satellite) == {ticket.player: value - SEAT for ticket in seats}
    else:
        tops = [event for _, event in satellite.log if type(event).__name__ == "SeatToppedUp"]
        assert [(event.player, event.cents) for event in tops] == [(ticket.player, SEAT - value) for ticket in seats]
    assert money_of(restored(storage, "sat")) == money and money_of(restored(storage, "main")) == money_of(main)


def test_a_seat_worth_less_than_its_targets_entry_is_never_sent_unless_the_difference_is_settled():
    """A satellite created before the check (an old journal) whose seat does not buy its target's entry: the seat
    is paid in cash, never sent as a whole entry (no money from nothing)."""
    storage, registry = MemoryStorage(), {}
    main = target(storage, registry)
    satellite = played(storage, registry, "sat", satellite=Satellite(seat_value_cents=1_500, target="main"))
    assert not main.director.entries and money_of(main)["paid_in"] == 0
    assert set(undelivered(satellite).values()) == {1_500} and money_of(satellite)["held"] == 0
    assert all("does not buy main's entry" in (ticket.refused or "") for ticket in satellite.tickets)


@pytest.mark.asyncio
async def test_a_satellites_seat_value_is_checked_against_its_target_when_it_is_created():
    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        main = (await client.post("/api/tournaments", json=definition(20, 9, buy_in_cents=1_000),
                                  headers=ADMIN)).json()["id"]
        for value, difference, code, said in (
                (300, "equal", 400, "the house adds the $8.00 missing"),
                (1_500, "equal", 400, "the $4.00 over is paid in cash with the seat"),
                (300, "settled", 201, ""), (1_100, "equal", 201, "")):
            body = definition(6, 3, satellite={"seat_value_cents": value, "target": main, "difference": difference})
            answer = await client.post("/api/tournaments", json=body, headers=ADMIN)
            assert answer.status_code == code and said in answer.text, answer.text
        for body, said in ((definition(6, 3, satellite={"seat_value_cents": 1_100, "target": "nowhere"}),
                            "no tournament 'nowhere' here"),
                           (definition(6, 3, flight={"final": main, "stop_share_percent": 50}),
                            "flight.final: no final")):
            answer = await client.post("/api/tournaments", json=body, headers=ADMIN)
            assert answer.status_code == 400 and said in answer.text, answer.text


def test_a_flights_qualification_is_withdrawn_with_its_chips_and_its_share_of_the_pool():
    """A qualification given in error could not be withdrawn ("has no prize to withdraw"). Before the final
    starts its entry leaves with its chips, and its share of the pool goes back to the flight, which keeps it
    for the house; after the start the stack is taken out by the director's decision. Both ledgers balance."""
    storage, registry = MemoryStorage(), {}
    final = target(storage, registry, "final", final=Final(), buy_in_cents=1_000)
    flight = played(storage, registry, "day1", flight=Flight(final="final", stop_share_percent=50))
    first, second, *_ = flight.tickets
    carried = money_of(final)["paid_in"]
    with pytest.raises(Refused, match="withdrawn whole"):
        withdraw_prize(flight, first.player, 1, "the wrong tournament")
    withdraw_prize(flight, first.player, None, "the wrong tournament")
    share = money_of(flight)["withdrawn"]
    assert share > 0 and first.entry not in final.director.entries
    assert final.director.chips_issued == sum(final.director.stacks.values()) == \
        sum(ticket.stack for ticket in flight.tickets) - first.stack
    assert money_of(final)["carried_back"] == share and money_of(final)["held"] == carried - share
    final.register("late one")
    final.register("late two")
    final.submit(records.Start(0.0, 1.0))
    events = withdraw_prize(flight, second.player, None, "also the wrong tournament") or final.log
    assert any(isinstance(event, QualificationWithdrawn) and event.player == second.entry for _, event in events)
    assert second.entry not in final.director.stacks and final.director.removed == {second.entry: False}
    assert final.director.chips_issued == final.director.chips_in_play()
    shares = money_of(flight)["withdrawn"]
    assert money_of(final)["carried_back"] == shares and money_of(flight)["held"] == 0
    assert money_of(final)["held"] == carried - shares + 2 * 1_100
    assert money_of(restored(storage, "final"))["carried_back"] == shares
