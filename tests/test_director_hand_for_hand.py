"""Hand-for-hand and elimination order (rules.md D.14-D.17, G.28-G.30, B.8)."""

from __future__ import annotations

import math

import pytest

from engine.director import TournamentError
from engine.events import HandFinished, HandForHandEnded, HandForHandStarted, PlayerEliminated, TableBroken
from engine.structure import Payout, hand_for_hand_points, prizes_cents
from bots.simulator import simulate
from tests.tournaments import FAST_MIX, deal, definition, hand, play_out, running, seated, set_stacks

SEED_PAYOUTS = [Payout(places=str(place), percent=pct) for place, pct in
                zip(range(1, 11), (25, 15, 10, 8, 6, 5, 4, 3, 2.5, 2))] + [
    Payout(places="11-20", percent=1.0), Payout(places="21-30", percent=0.5), Payout(places="31-40", percent=0.45)]


def test_seed_example_350_entries_hand_for_hand_points_are_41_31_21_11():
    prizes = prizes_cents(SEED_PAYOUTS, 350 * 1000)
    points = [n for n in hand_for_hand_points(prizes) if math.ceil(n / 10) >= 2]
    assert points == [41, 31, 21, 11]


@pytest.mark.parametrize("seed", range(4))
def test_seed_example_350_entries_play_hand_for_hand_exactly_at_the_pay_jumps_reached(seed):
    """H4H starts whenever the field stands at 41, 31, 21 or 11 with two tables, and never elsewhere."""
    reached, started, ended = set(), [], []

    def watch(tournament, event, at=0.0):
        if isinstance(event, HandFinished):
            reached.add(tournament.players_left)
        elif isinstance(event, HandForHandStarted):
            started.append(event.players_left)
        elif isinstance(event, HandForHandEnded):
            ended.append(event.players_left)

    report = simulate(definition(10, starting_stack=10_000, payouts=SEED_PAYOUTS), 350, seed, on_event=watch,
                      mix=FAST_MIX)
    assert started and started == report.hand_for_hand_at
    assert set(started) <= {41, 31, 21, 11}
    assert {41, 31, 21, 11} & reached <= set(started)
    assert len(ended) == len(started)


def test_tables_wait_for_each_other_and_a_round_without_a_bust_does_not_end_it():
    tournament, dealer = running(9, 3, paid=8)  # the bubble from the start, on three tables
    assert tournament.hand_for_hand and tournament.hand_for_hand_at == [9]
    assert tournament.tables_ready() == [1, 2, 3]
    hand(tournament, dealer, 1)
    assert tournament.tables_ready() == [2, 3]
    with pytest.raises(TournamentError, match="D.15"):
        tournament.start_hand(1)
    hand(tournament, dealer, 2)
    events = hand(tournament, dealer, 3)
    assert not [e for e in events if isinstance(e, HandForHandEnded)]
    assert tournament.hand_for_hand and tournament.tables_ready() == [1, 2, 3]


def test_voiding_the_last_hand_the_first_round_waited_for_opens_the_round():
    """A server that lost a table's hand (a crash, a dead table worker) voids it; under hand-for-hand called
    while hands were in progress, the first round opens then, or no table would ever deal again."""
    tournament, dealer = running(12, 4, paid=2)  # three tables, no bubble yet
    for table in (1, 2, 3):
        deal(tournament, dealer, table)
    tournament.force_hand_for_hand(True)
    assert tournament.hand_for_hand and tournament.tables_ready() == []  # the hands in progress finish first
    for table in (1, 2):
        play_out(tournament, table)
        tournament.end_hand(table)
    assert tournament.tables_ready() == []
    tournament.void_hand(3)
    assert tournament.tables_ready() == [1, 2, 3]


def test_one_round_busts_rank_across_tables_by_starting_stack_and_two_tables_break():
    tournament, dealer = running(9, 3, paid=8)
    for table in (1, 2, 3):  # checks and folds: the big blind wins the small blind's chips
        hand(tournament, dealer, table)
    before = dict(tournament.stacks)
    assert sorted(before.values()) == [990] * 3 + [1000] * 3 + [1010] * 3
    events = []
    for table in (1, 2, 3):
        players = seated(tournament, table)
        winner = max(players, key=before.get)
        events += hand(tournament, dealer, table, winner, all_in=set(players))
        if table < 3:
            assert not [e for e in events if isinstance(e, PlayerEliminated)]  # busts wait for the round
    eliminated = [e for e in events if isinstance(e, PlayerEliminated)]
    by_place = sorted(eliminated, key=lambda e: e.place)
    assert [e.place for e in by_place] == [4, 5, 6, 7, 8, 9]
    assert {before[e.player] for e in by_place[:3]} == {1000} and {before[e.player] for e in by_place[3:]} == {990}
    prizes = tournament.prizes
    assert [e.prize_cents for e in by_place[:3]] == [sum(prizes[3:6]) // 3] * 3
    assert sum(e.prize_cents for e in by_place[3:]) == sum(prizes[6:8])
    assert len([e for e in events if isinstance(e, TableBroken)]) == 2  # B.8: two thresholds at once
    assert [e.players_left for e in events if isinstance(e, HandForHandEnded)] == [3]
    assert len(tournament.tables) == 1 and not tournament.hand_for_hand


def test_equal_stacks_share_the_places_prizes_and_the_odd_cent_goes_to_the_better_position():
    tournament, dealer = running(4, 4, paid=3, buy_in_cents=1001)  # P1..P3 = 2002, 1001, 1001
    assert tournament.prizes == [2002, 1001, 1001]
    (table,) = tournament.tables
    order = [tournament.tables[table].table.seats[s] for s in tournament.tables[table].table.next_positions().dealt]
    # Dealt order: small blind, big blind, first to act, button. The big blind folds; the button and
    # the small blind (the first seat left of the button) bust with the same 1000 chips.
    bust_a, bust_b = order[3], order[0]
    events = hand(tournament, dealer, table, order[2], all_in={order[2], bust_a, bust_b})
    results = {e.player: (e.place, e.prize_cents) for e in events if isinstance(e, PlayerEliminated)}
    assert results == {bust_b: (3, 501), bust_a: (4, 500)}


def test_busts_of_different_hands_outside_hand_for_hand_are_separate_batches():
    tournament, dealer = running(8, 4, paid=1)  # only the winner is paid: no hand-for-hand before heads-up
    deal(tournament, dealer, 1, seated(tournament, 1)[0])
    a, b = seated(tournament, 2)[:2]
    first = hand(tournament, dealer, 2, a, all_in={a, b})
    play_out(tournament, 1, all_in=set(seated(tournament, 1)[:2]))
    second = tournament.end_hand(1)
    assert [e.place for e in first if isinstance(e, PlayerEliminated)] == [8]
    assert [e.place for e in second if isinstance(e, PlayerEliminated)] == [7]


def test_a_hand_in_progress_when_hand_for_hand_is_called_finishes_and_can_end_it():
    tournament, dealer = running(10, 5, paid=8)  # H4H at 9 players
    one, two = sorted(tournament.tables)
    x, y = seated(tournament, one)[:2]
    deal(tournament, dealer, one, x)
    a, b = seated(tournament, two)[:2]
    events = hand(tournament, dealer, two, a, all_in={a, b})
    assert [e.players_left for e in events if isinstance(e, HandForHandStarted)] == [9]
    assert tournament.tables_ready() == []  # table two waits for table one's hand
    play_out(tournament, one, all_in={x, y})
    events = tournament.end_hand(one)
    assert [e.players_left for e in events if isinstance(e, HandForHandEnded)] == [8]
    assert not tournament.hand_for_hand and tournament.tables_ready() == [one, two]


@pytest.mark.parametrize("ties,expected", [
    # c (700) and b (500) bust at table 1, e (500) at table 2; places 4-6 pay 962, 962, 0.
    ("pokerstars", {"c": (4, 962), "b": (5, 481), "e": (6, 481)}),  # by stack; the 500s split
    ("wsop", {"c": (4, 962), "e": (5, 962), "b": (6, 0)}),  # each table's best busts tie across tables
    ("tda", {"c": (4, 642), "b": (5, 641), "e": (6, 641)}),  # all share; the odd cent to the bigger stack
])
def test_bubble_round_three_busts_on_two_tables_with_an_equal_pair_pays_each_rule_to_the_cent(ties, expected):
    tournament, dealer = running(6, 4, paid=5, buy_in_cents=1003, hand_for_hand_ties=ties)
    assert tournament.prizes[3:5] == [962, 962] and tournament.hand_for_hand_at == [6]
    one, two = sorted(tournament.tables)
    a, b, c = seated(tournament, one)
    d, e, f = seated(tournament, two)
    set_stacks(tournament, {a: 1800, b: 500, c: 700, d: 1800, e: 500, f: 700})
    events = hand(tournament, dealer, one, a, all_in={a, b, c}) + hand(tournament, dealer, two, d, all_in={d, e})
    name = {b: "b", c: "c", e: "e"}
    results = {name[ev.player]: (ev.place, ev.prize_cents) for ev in events if isinstance(ev, PlayerEliminated)}
    assert results == expected
    assert [ev.players_left for ev in events if isinstance(ev, HandForHandEnded)] == [3]
