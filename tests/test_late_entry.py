"""Late registration and re-entry (engine/lateentry.py; rules.md A.2, C.10, F.24, F.27, M.50): where a late entry
sits, the four ways the window closes, re-entries' places and limits, and multi-entry with both."""

from __future__ import annotations

import pytest

from engine.events import EntriesClosed, PlayerMoved, Reentered, Registered, Seated, TableOpened
from engine.status import TournamentError
from engine.structure import Breaks, LateRegistration, Level, Rebuys, Reentry
from tests.tournaments import deal, hand, play_out, running, seated, set_stacks

LEVELS = [Level(10, 20, minutes=10), Level(20, 40, minutes=10), Level(40, 80, minutes=10), Level(80, 160, minutes=10)]
LATE = {"levels": LEVELS, "late_registration": LateRegistration(until_level=2, stack=1500)}


def balanced(t) -> bool:
    sizes = [len(seated(t, table)) for table in t.tables]
    return max(sizes) - min(sizes) <= 1


def knock_out(t, dealer, victim: str) -> None:
    """``victim`` goes all-in against the best hand at their table and loses everything."""
    table = t.where[victim][0]
    winner = max((p for p in seated(t, table) if p != victim), key=t.stacks.__getitem__)
    if t.stacks[winner] < t.stacks[victim]:
        set_stacks(t, {winner: t.stacks[victim], victim: t.stacks[winner]})
    hand(t, dealer, table, winner=winner, all_in={winner, victim})
    assert victim not in t.stacks


def test_a_late_entry_pays_in_and_sits_at_random_among_the_shortest_tables():
    chosen = set()
    for seed in range(12):
        t, _ = running(10, 4, seed=seed, **LATE)  # tables of 4, 3 and 3
        short = {table for table in t.tables if len(seated(t, table)) == 3}
        pool, issued = t.prize_pool_cents, t.chips_issued
        events = t.register("late")
        registered, seat = events[0], events[1]
        assert registered == Registered("late", 1100) and isinstance(seat, Seated)
        assert seat.table in short and seat.stack == 1500 == t.stacks["late"]
        assert t.where["late"] == (seat.table, seat.seat)
        assert t.prize_pool_cents == pool + 1000 and t.chips_issued == issued + 1500
        assert t.chips_in_play() == t.chips_issued and t.ledger.balances() and balanced(t)
        chosen.add(seat.table)
    assert len(chosen) >= 2  # either short table, by the draw


def test_a_late_entry_between_the_button_and_the_small_blind_waits_for_the_button():
    waited = 0
    for seed in range(40):
        t, dealer = running(6, 9, seed=seed, **LATE)  # one table of six
        hand(t, dealer, 1)
        table = t.tables[1].table
        before = table.next_positions()
        seat = next(e for e in t.register("late") if isinstance(e, Seated)).seat
        between = 0 < (seat - before.button_seat) % 9 < ((before.sb_seat or before.bb_seat) - before.button_seat) % 9
        started = deal(t, dealer, 1)[0]
        dealt = {entry.player for entry in started.players}
        assert ("late" in dealt) is not between, seed
        waited += between
        play_out(t, 1)
        t.end_hand(1)
    assert waited  # some seed put the seat between the button and the small blind


def test_when_every_table_is_full_a_table_opens_and_balancing_fills_it():
    t, _ = running(8, 4, **LATE)  # two full tables
    events = t.register("late")
    assert TableOpened(3) in events and Seated("late", 3, t.where["late"][1], 1500) in events
    moves = [e for e in events if isinstance(e, PlayerMoved)]
    assert len(moves) == 2 and all(move.to_table == 3 for move in moves)
    assert sorted(len(seated(t, table)) for table in t.tables) == [3, 3, 3]
    assert sorted(t.tables_ready()) == [1, 2, 3]


def test_the_window_closes_when_its_level_ends():
    t, _ = running(10, 4, **LATE)
    t.advance(600)
    t.register("still")  # level 2 runs: still open
    events = t.advance(1200)
    assert EntriesClosed("late_registration", "level") in events
    with pytest.raises(TournamentError, match="late registration is closed: its last level has ended"):
        t.register("too_late")
    assert not t.entries_open("late_registration") and "too_late" not in t.stacks


def test_the_window_closes_at_capacity():
    t, _ = running(9, 4, max_players=10, **LATE)
    assert t.register("tenth")[-1] == EntriesClosed("late_registration", "capacity")
    with pytest.raises(TournamentError, match="closed: the tournament is full"):
        t.register("eleventh")


def test_the_window_closes_on_the_bubble_before_any_place_is_paid():
    t, dealer = running(6, 9, paid=3, **LATE)  # bubble at 4
    knock_out(t, dealer, "p1")
    assert t.entries_open("late_registration")
    t.register("late")  # six again: prizes follow the pool and the field
    knock_out(t, dealer, "p2")
    knock_out(t, dealer, "p3")
    assert not t.entries_open("late_registration") and t.entries_closed == {"late_registration": "bubble"}
    assert t.ledger.prizes_cents == 0  # closed one bust before the money
    with pytest.raises(TournamentError, match="reached the bubble"):
        t.register("too_late")


def test_the_window_closes_when_the_rebuy_period_ends():
    t, _ = running(10, 4, rebuys=Rebuys(levels=1, price_cents=1000, chips=1000),
                   **{**LATE, "late_registration": LateRegistration(until_level=3)})
    events = t.advance(600)
    assert EntriesClosed("late_registration", "rebuys_over") in events
    assert t.stacks["p1"] == 1000  # and without a stack given, a late entry's is the starting stack


def test_registration_is_refused_while_running_without_late_registration():
    t, _ = running(10, 4, levels=LEVELS)
    with pytest.raises(TournamentError, match="only in Register"):
        t.register("late")


REENTRY = {**LATE, "reentry": Reentry(until_level=2, max_count=2)}


def test_a_reentry_is_a_new_entry_with_its_own_place_and_the_old_keeps_its_own():
    t, dealer = running(10, 4, **REENTRY)
    with pytest.raises(TournamentError, match="has not been eliminated"):
        t.reenter("p1", "p1-2")
    knock_out(t, dealer, "p1")
    place = t.results["p1"].place
    pool = t.prize_pool_cents
    events = t.reenter("p1", "p1-2")
    assert events[0] == Reentered("p1-2", "p1", 1100)
    seat = next(e for e in events if isinstance(e, Seated))
    assert seat.player == "p1-2" and seat.stack == 1500 and t.stacks["p1-2"] == 1500
    assert t.results["p1"].place == place and t.person("p1-2") == t.person("p1") == "p1"
    assert t.prize_pool_cents == pool + 1000 and len(t.entries) == 11
    assert t.chips_in_play() == t.chips_issued and t.ledger.balances()
    with pytest.raises(TournamentError, match="already re-entered as p1-2"):
        t.reenter("p1", "p1-3")
    knock_out(t, dealer, "p1-2")
    t.reenter("p1-2", "p1-3")
    knock_out(t, dealer, "p1-3")
    with pytest.raises(TournamentError, match="used all 2 re-entries"):
        t.reenter("p1-3", "p1-4")
    assert {t.results[entry].place for entry in ("p1", "p1-2", "p1-3")} == {10}  # for now: the field then
    t.advance(1200)  # the windows close: the places of those out follow from the final field, first out last
    assert [t.results[entry].place for entry in ("p1", "p1-2", "p1-3")] == [12, 11, 10]
    assert sorted(result.place for result in t.results.values()) == [10, 11, 12]


def test_reentry_closes_at_its_level_and_refuses_a_taken_id():
    t, dealer = running(10, 4, **{**REENTRY, "reentry": Reentry(until_level=1)})
    knock_out(t, dealer, "p1")
    with pytest.raises(TournamentError, match="cannot name a new entry"):
        t.reenter("p1", "p2")
    assert EntriesClosed("reentry", "level") in t.advance(600)
    with pytest.raises(TournamentError, match="re-entry is closed"):
        t.reenter("p1", "p1-2")
    assert t.entries_open("late_registration")  # its own window runs on


def test_multi_entry_reentries_never_share_a_table_and_nothing_merges_while_open():
    people = {"p1": "ann", "p2": "ann", "p3": "ann"}
    for seed in range(6):
        t, dealer = running(9, 3, seed=seed, people=people, entries_per_person=3, **REENTRY)
        knock_out(t, dealer, "p1")
        t.reenter("p1", "p1-2")
        ann = [entry for entry in ("p2", "p3", "p1-2")]
        assert len({t.where[entry][0] for entry in ann}) == 3
        for victim in ("p4", "p5", "p6"):  # six players left would fit two tables; ann's three entries keep three
            if victim in t.stacks:
                knock_out(t, dealer, victim)
        assert len(t.tables) == 3 and all(entry in t.stacks for entry in ann)


def test_the_window_says_when_its_level_ends_counting_the_breaks():
    t, _ = running(10, 4, **{**LATE, "breaks": Breaks(every_levels=1, minutes=5)})
    assert t.entries_close_at("late_registration") == 600 + 300 + 600  # level 1, its break, level 2
    t.advance(610)  # on the break after level 1
    assert t.entries_close_at("late_registration") == 1500
    assert t.entries_close_at("reentry") is None  # no re-entry here


def test_a_table_locked_to_close_that_the_grown_field_needs_again_stays_open():
    for seed in range(40):
        t, dealer = running(7, 3, seed=seed, **LATE)  # tables of 3, 2 and 2
        three = next(table for table in t.tables if len(seated(t, table)) == 3)
        twos = [table for table in t.tables if table != three]
        deal(t, dealer, twos[0])  # in a hand when it is chosen to close
        knock_out(t, dealer, seated(t, three)[0])  # six left: two tables are enough
        if t.tables_to_break == [twos[0]]:
            break
    else:
        pytest.fail("no seed locked the table in a hand")
    events = t.register("late")  # seven again: three tables are needed
    assert t.tables_to_break == [] and not any(isinstance(e, TableOpened) for e in events)
    play_out(t, twos[0])
    t.end_hand(twos[0])
    assert len(t.tables) == 3 and balanced(t)
    assert t.players_left == 7 and t.chips_in_play() == t.chips_issued


def test_busts_that_burst_the_bubble_together_close_the_windows_before_they_are_ranked():
    t, dealer = running(6, 9, paid=3, **REENTRY)  # bubble at 4
    knock_out(t, dealer, "p1")
    t.reenter("p1", "p1-2")  # six again
    table = t.where["p2"][0]
    winner = max(seated(t, table), key=t.stacks.__getitem__)
    losers = {p for p in seated(t, table) if p != winner} - {"p1-2"}
    losers = set(sorted(losers)[:4])  # six to two in one hand: places 3 to 6, the 3rd paid
    set_stacks(t, {winner: sum(t.stacks[p] for p in (winner, *losers)) - 100 * len(losers),
                   **{p: 100 for p in losers}})
    events = hand(t, dealer, table, winner=winner, all_in={winner, *losers})
    closed = [e for e in events if isinstance(e, EntriesClosed)]
    assert [(e.kind, e.reason) for e in closed] == [("late_registration", "bubble"), ("reentry", "bubble")]
    assert events.index(closed[0]) < min(i for i, e in enumerate(events) if type(e).__name__ == "PlayerEliminated")
    assert t.results["p1"].place == 7  # the first out is last of the seven entries
    assert sorted(r.place for r in t.results.values()) == [3, 4, 5, 6, 7]
    assert t.ledger.prizes_cents == t.prizes[2] > 0


def test_a_hand_that_leaves_the_winner_alone_closes_the_windows_before_its_busts_are_ranked():
    t, dealer = running(3, 9, paid=1, **REENTRY)  # the bubble is two players; one hand takes three to one
    winner = seated(t, 1)[0]
    others = [p for p in seated(t, 1) if p != winner]
    set_stacks(t, {winner: 2_800, **{p: 100 for p in others}})
    events = hand(t, dealer, 1, winner=winner, all_in=set(seated(t, 1)))
    closed = [e for e in events if isinstance(e, EntriesClosed)]
    assert {(e.kind, e.reason) for e in closed} == {("late_registration", "bubble"), ("reentry", "bubble")}
    assert t.status.value == "finished" and sorted(r.place for r in t.results.values()) == [1, 2, 3]


def test_under_hand_for_hand_a_late_entry_waits_for_the_round_to_end_before_anyone_moves():
    t, dealer = running(8, 4, **LATE)  # two full tables
    t.force_hand_for_hand(True)
    deal(t, dealer, 1)
    events = t.register("late")  # a third table opens with her alone
    assert TableOpened(3) in events and not any(isinstance(e, PlayerMoved) for e in events)
    assert t.tables_ready() == [2]  # the round goes on without the new table
    play_out(t, 1)
    t.end_hand(1)
    deal(t, dealer, 2)
    play_out(t, 2)
    events = t.end_hand(2)  # the round is over: now the tables are balanced
    assert [e.to_table for e in events if isinstance(e, PlayerMoved)] == [3, 3]
    assert balanced(t)


def test_a_merge_still_happens_while_entries_may_come_when_no_table_could_deal_otherwise():
    t, dealer = running(3, 2, people={"p1": "ann", "p2": "ann"}, entries_per_person=2, **LATE)
    assert t.where["p1"][0] != t.where["p2"][0]  # two tables: ann's entries apart, p3 with one of them
    table = t.where["p3"][0]
    other = next(p for p in seated(t, table) if p != "p3")
    set_stacks(t, {other: t.stacks[other] + t.stacks["p3"] - 1, "p3": 1})
    events = hand(t, dealer, table, winner=other, all_in={other, "p3"})
    # Only ann's two entries are left, one at each table: neither table can deal, so they merge and she wins.
    assert any(type(e).__name__ == "EntriesMerged" for e in events)
    assert t.status.value == "finished" and not t.entries_open("late_registration")
    assert sorted(r.place for r in t.results.values()) == [1, 2, 3]


def apart(t, table: int) -> bool:
    """Whether every player of ``table`` could sit at another open table away from their person's other
    entries, by trying every way (the test's own count, beside the engine's matching)."""
    import itertools

    seats = t.definition.seats_per_table
    room = {other: seats - len(seated(t, other)) for other in t.tables if other != table and other not in
            t.tables_to_break}
    players = seated(t, table)

    def allowed(player: str) -> list[int]:
        others = {t.where[entry][0] for entry, person in PEOPLE.items()
                  if person == PEOPLE.get(player) and entry != player and entry in t.where}
        return [other for other in room if other not in others]

    for choice in itertools.product(*(allowed(player) for player in players)):
        if all(choice.count(other) <= room[other] for other in room):
            return True
    return False


PEOPLE = {f"p{number}": f"person {(number + 1) // 2}" for number in range(1, 19)}  # p1 and p2 are one person...


def test_a_multi_entry_fields_fewest_table_breaks_during_late_registration_when_nobody_need_merge():
    """19 entries at 9-max, two a person, late registration open: one bust left 18 players on three
    tables where two suffice, and the tables stayed three until the field was down to 15: any fewest table with
    a multi-entry player on it was refused. A fewest table breaks as soon as its players can all be seated away
    from their other entries; only a break that would force a merge waits (M.50), and nothing merges."""
    outcomes = set()
    for seed in range(30):
        t, dealer = running(19, 9, seed=seed, people=PEOPLE, entries_per_person=2, **LATE)
        largest = max(t.tables, key=lambda table: len(seated(t, table)))
        victim = next(player for player in seated(t, largest) if player != "p19")
        sizes_after = {table: len(seated(t, table)) - (table == largest) for table in t.tables}
        fewest = min(sizes_after.values())
        knock_out(t, dealer, victim)
        candidates = [table for table, size in sizes_after.items() if size == fewest]
        assert t.entries_open("late_registration") and t.players_left == 18
        assert len(t.stacks) == 18  # nothing merged: a merge takes an entry's stack into another's
        if len(t.tables) == 2:
            outcomes.add("broke")
            assert balanced(t)
            for entry in PEOPLE:  # nobody sits with their other entry
                twin = next(other for other, person in PEOPLE.items() if person == PEOPLE[entry] and other != entry)
                if entry in t.where and twin in t.where:
                    assert t.where[entry][0] != t.where[twin][0]
        else:
            outcomes.add("waited")
            assert len(t.tables) == 3 and not any(apart(t, table) for table in candidates), seed
    assert "broke" in outcomes, outcomes
