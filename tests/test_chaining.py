"""Players sent from one tournament into another: a flight's survivors into its final (rules.md L.47-L.48, M)."""

from __future__ import annotations

from engine.director import Status
from engine.structure import Final, Flight
from server.tournament import chaining, records
from server.storage import MemoryStorage
from server.tournament.runtime import TournamentRuntime
from tests.tournaments import definition


def test_a_person_qualified_from_two_flights_into_a_small_final_has_two_records_and_one_merged_stack():
    """Seed 000 ( Flight Satellites): ann survives both flights of a multi-entry final;
    the second flight's record names her second entry (a seat's withdrawal goes by it), and the one-table
    final starts with her stacks merged."""
    storage = MemoryStorage()
    final = TournamentRuntime.create("final", definition(6, final=Final(forward="best"), entries_per_person=2),
                                     storage, hand_pause=0)
    flights = [TournamentRuntime.create(name, definition(6, flight=Flight(final="final", stop_level=1)),
                                        storage, hand_pause=0) for name in ("day 1a", "day 1b")]
    final.registry = {"final": final, **{flight.id: flight for flight in flights}}
    for flight in flights:
        flight.registry = final.registry
    ann_a, token = flights[0].register("ann")
    ann_b, _ = flights[1].register("ann", another_of=token)
    others = [flights[1].register(f"player {number}")[0] for number in range(3)]
    chaining.send_stacks(flights[0], "final", {ann_a: 5_000}, 0)
    chaining.send_stacks(flights[1], "final", {ann_b: 3_000} | {player: 1_000 for player in others}, 0)
    (first,), (second, *_) = flights[0].tickets, flights[1].tickets
    assert first.entry != second.entry and {first.entry, second.entry} == set(final.director.entries[:2])
    assert final.director.stacks[second.entry] == 3_000 and final.player_for(token) == first.entry
    final.submit(records.Start(0.0, 1.0))
    director = final.director
    assert director.status is Status.RUNNING and len(director.tables) == 1
    assert director.stacks[first.entry] == 8_000 and second.entry in director.results
    assert sum(director.stacks.values()) == director.chips_issued == 11_000
