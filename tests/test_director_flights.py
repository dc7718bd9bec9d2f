"""Flights (rules.md L.47-L.49): Day-1 flights stop on a level or a share of the field, survivors carry their
exact stacks into the final, pools combine, and a person qualifying twice keeps one stack."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.director import Status, Tournament, TournamentError
from engine.events import EntriesMerged, FlightFinished, HandStarted, PlayerEliminated, Qualified
from engine.structure import DefinitionError, Final, Flight, Level
from bots.simulator import simulate
from tests.tournaments import check_after_every_hand, definition, hand, play_out, running, seated

LEVELS = [Level(10, 20, hands=3), Level(20, 40, hands=3), Level(40, 80, hands=3), Level(80, 160, hands=4)]


def final_of(**final) -> Tournament:
    tournament = Tournament(definition(6, final=Final(**final)), random.Random(1))
    tournament.open_registration()
    return tournament


def test_a_flight_needs_exactly_one_stop_and_pays_no_prizes():
    with pytest.raises(DefinitionError, match="exactly one"):
        definition(6, flight=Flight())
    with pytest.raises(DefinitionError, match="no prizes"):
        definition(6, flight=Flight(stop_level=2), deals=True)


def test_a_level_stop_lets_hands_in_progress_finish_then_everyone_with_chips_qualifies():
    tournament, dealer = running(8, 4, levels=LEVELS, flight=Flight(stop_level=1))
    assert tournament.prizes == []
    for table in (1, 2):
        for _ in range(3):
            hand(tournament, dealer, table)
    hand(tournament, dealer, 1, seated(tournament, 1)[0], all_in=set(seated(tournament, 1)[:2]))
    tournament.start_hand(2)
    events = tournament.advance(1.0)  # the third hand ended level 1: the flight stops, table 2 finishes its hand
    assert tournament.flight_stopping and tournament.status is Status.RUNNING
    with pytest.raises(TournamentError, match="stop"):
        tournament.start_hand(1)
    play_out(tournament, 2)
    events = tournament.end_hand(2)
    (finished,) = [e for e in events if isinstance(e, FlightFinished)]
    assert tournament.status is Status.FINISHED
    assert finished.survivors == tournament.stacks and sum(finished.survivors.values()) == tournament.chips_issued
    assert finished.pool_cents == 8 * 1000 and tournament.ledger.summary()["carried"] == 8 * 1000
    assert tournament.ledger.summary()["held"] == 0


def test_a_share_cutoff_is_checked_under_hand_for_hand_and_the_survivors_carry_their_stacks():
    """L.49: stop when a quarter of 40 is left, checked at the end of a hand-for-hand round."""
    rules = definition(9, levels=LEVELS, flight=Flight(stop_share_percent=25))
    events = []
    report = simulate(rules, 40, 3, on_event=lambda tournament, event, at: events.append(event))
    (finished,) = [e for e in events if isinstance(e, FlightFinished)]
    assert report.status == "finished" and len(finished.survivors) <= 10
    assert all(stack > 0 for stack in finished.survivors.values())
    assert sum(finished.survivors.values()) == 40 * 1000  # every chip goes forward
    assert report.money["carried"] == 40 * 1000 and report.money["held"] == 0
    started = [e for e in events if isinstance(e, HandStarted)]
    assert started and max(e.hand for e in started) == report.hands


def test_the_final_takes_each_persons_best_stack_never_the_sum_and_direct_buy_ins():
    final = final_of(forward="best")
    assert final.qualify("a1", "ann", 5_000) == [Qualified("a1", 5_000, True)]
    assert final.qualify("a2", "ann", 7_500) == [Qualified("a2", 7_500, True)]  # Day 1b, a bigger stack
    assert final.qualify("a3", "ann", 100) == [Qualified("a3", 100, False)]
    final.qualify("b1", "bob", 1)  # a single chip qualifies (L.47)
    final.carry_in(16_000)
    final.register("direct")  # a direct buy-in with the starting stack
    assert final.stacks == {"a1": 7_500, "b1": 1, "direct": 1000} and final.chips_issued == 8_501
    assert final.ledger.pool_cents == 16_000 + 1_000
    with pytest.raises(TournamentError, match="cannot be unregistered"):
        final.unregister("a1")
    final.start(0.0)
    assert final.prize_pool_cents == 17_000 and sum(final.prizes) == 17_000

    first = final_of(forward="first", direct_buy_in=False)
    first.qualify("a1", "ann", 5_000)
    assert first.qualify("a2", "ann", 9_000) == [Qualified("a2", 9_000, False)]
    with pytest.raises(TournamentError, match="no direct buy-in"):
        first.register("direct")


@settings(max_examples=80, deadline=None)
@given(players=st.integers(2, 40), seats=st.integers(2, 9), seed=st.integers(0, 2**32),
       stop_level=st.one_of(st.none(), st.integers(1, 4)), share=st.sampled_from([10, 25, 50, 75]))
def test_random_flights_stop_by_their_rule_and_carry_every_chip_and_cent(players, seats, seed, stop_level, share):
    flight = Flight(stop_level=stop_level) if stop_level else Flight(stop_share_percent=share)
    finished = []
    watch = check_after_every_hand(None, seats)

    def on_event(tournament, event, at=0.0):
        watch(tournament, event)
        if isinstance(event, FlightFinished):
            finished.append((event, tournament.chips_issued))

    report = simulate(definition(seats, levels=LEVELS + [Level(160, 320, hands=100)], flight=flight), players, seed,
                      on_event=on_event)
    ((event, chips),) = finished
    assert sum(event.survivors.values()) == chips and all(stack > 0 for stack in event.survivors.values())
    if not stop_level:
        assert len(event.survivors) <= max(math.floor(players * share / 100), 1)
    money = report.money
    assert money["held"] == 0 and money["paid_in"] == money["carried"] + money["fees_kept"]


def test_a_flight_stopping_at_its_last_level_stops_when_that_level_ends():
    """The last level used to last for ever, even for a flight told to stop at its end."""
    levels = [Level(10, 20, hands=2), Level(20, 40, minutes=10)]
    tournament, dealer = running(8, 4, levels=levels, flight=Flight(stop_level=2))
    tournament.advance(0.0)
    for table in (1, 2):
        for _ in range(2):
            hand(tournament, dealer, table)
    tournament.advance(1.0)
    assert tournament.level == 1 and not tournament.flight_stopping
    events = tournament.advance(1.0 + 600.0)  # the last level's ten minutes are over
    assert tournament.flight_stopping and tournament.status is Status.FINISHED
    assert any(isinstance(event, FlightFinished) for event in events)
    assert tournament.level == 1  # no level after the last
    with pytest.raises(DefinitionError, match="beyond the 2 levels"):
        definition(6, levels=levels, flight=Flight(stop_level=3))


def test_a_final_cancelled_with_its_flights_pool_refunds_it_to_the_qualified_players():
    """The carried pool used to stay held (an AssertionError); the qualified players share it and
    a direct buy-in gets its own money back (a rollback before the start)."""
    from server.tournament import records
    from server.storage import MemoryStorage
    from server.tournament.runtime import TournamentRuntime

    storage = MemoryStorage()
    final = TournamentRuntime.create("final", definition(6, final=Final()), storage, hand_pause=0)
    final.submit(records.Qualify("p1", "ann", "a" * 64, 500))
    final.submit(records.Qualify("p2", "bob", "b" * 64, 700))
    final.submit(records.CarryIn(8_000, 20))
    final.register("cy")
    final.cancel()
    refunds = {(r.player, r.rule.split(" (")[0]): r.cents for r in final.director.refunds}
    assert refunds == {("p3", "everything paid comes back"): 1_100,
                       ("p1", "the flights' pool, half equally and half by chips"): 3_667,
                       ("p2", "the flights' pool, half equally and half by chips"): 4_333}
    assert final.director.ledger.balances() and final.director.ledger.summary()["held"] == 0
    (stored,) = storage.tournaments()  # journaled and closed: a restart shows it cancelled
    assert not stored.open and TournamentRuntime.restore(stored, storage).director.status is Status.CANCELLED


def test_a_multi_entry_final_takes_each_qualification_as_an_entry_of_its_own_up_to_the_limit():
    """Seed 000 ( Flight Satellites): with entries_per_person 2, a person's two qualifications are two
    entries and stacks; a third follows the forward rule against the smaller of them (L.48)."""
    tournament = Tournament(definition(6, final=Final(forward="best"), entries_per_person=2), random.Random(1))
    tournament.open_registration()
    assert tournament.qualify("p1", "ann", 5_000) == [Qualified("p1", 5_000, True)]
    assert tournament.qualify("p2", "ann", 3_000) == [Qualified("p2", 3_000, True)]
    assert tournament.stacks == {"p1": 5_000, "p2": 3_000} and tournament.person("p2") == "ann"
    assert tournament.qualify("p3", "ann", 4_000) == [Qualified("p3", 4_000, True)]  # in place of the 3,000
    assert tournament.stacks == {"p1": 5_000, "p2": 4_000}  # the best two of three, never a sum
    assert tournament.chips_issued == 9_000 and tournament.people.qualified_entries == {"p1", "p2"}
    one = final_of(forward="best")
    one.qualify("p1", "bob", 5_000)
    assert one.qualify("p2", "bob", 3_000) == [Qualified("p2", 3_000, False)]  # one entry per person: as before
    assert one.stacks == {"p1": 5_000}


def test_a_person_qualified_twice_into_a_one_table_final_has_their_stacks_merged_at_the_draw():
    """Seed 000 ( Flight Satellites; rules.md M.51): five entries need one table, and ann holds two
    of them: the later merges into the earlier as at a break, takes the last place, and the final starts."""
    tournament = Tournament(definition(6, final=Final(forward="best"), entries_per_person=2), random.Random(1))
    tournament.open_registration()
    tournament.qualify("p1", "ann", 5_000)
    tournament.qualify("p2", "ann", 3_000)
    for number in (3, 4, 5):
        tournament.qualify(f"p{number}", f"person {number}", 2_000)
    events = tournament.start(0.0)
    assert tournament.status is Status.RUNNING and len(tournament.tables) == 1
    assert tournament.stacks == {"p1": 8_000, "p3": 2_000, "p4": 2_000, "p5": 2_000}
    assert sum(tournament.stacks.values()) == tournament.chips_issued
    assert EntriesMerged("p2", "p1", 3_000) in events
    assert tournament.results["p2"].place == 5 and "p2" not in tournament.where
    assert [e.table for e in events if isinstance(e, PlayerEliminated)] == [tournament.where["p1"][0]]
    table = tournament.where["p1"][0]
    tournament.start_hand(table)  # and it plays
    play_out(tournament, table)
    tournament.end_hand(table)
    assert sum(tournament.stacks.values()) == tournament.chips_issued


def test_merges_at_the_draw_go_on_while_fewer_entries_need_fewer_tables():
    """Seven entries on 4-seat tables need two tables, so ann keeps two of her five; the four left fit one
    table, so she keeps one: all her stacks end on her first entry, the others take the last places."""
    tournament = Tournament(definition(4, final=Final(forward="best"), entries_per_person=5), random.Random(2))
    tournament.open_registration()
    for number in range(1, 6):
        tournament.qualify(f"p{number}", "ann", 1_000 * number)
    tournament.qualify("p6", "bob", 500)
    tournament.qualify("p7", "cy", 500)
    tournament.start(0.0)
    assert len(tournament.tables) == 1 and tournament.stacks == {"p1": 15_000, "p6": 500, "p7": 500}
    assert sorted(tournament.results[p].place for p in ("p2", "p3", "p4", "p5")) == [4, 5, 6, 7]
