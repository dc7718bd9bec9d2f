"""Seating, breaking and balancing (rules.md A.1-A.4, B.5-B.8, M.50), driven through the director."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from engine.director import TournamentError
from engine.events import EntriesMerged, HandFinished, PlayerEliminated, PlayerMoved, TableBroken, TableClosing
from engine.seating import SeatingError, initial_draw, person_of, worst_seat
from engine.table import Table
from tests.tournaments import deal, hand, play_out, running, seated


def sizes(tournament) -> list[int]:
    return sorted((len(state.table.players) for state in tournament.tables.values()), reverse=True)


@pytest.mark.parametrize("players,seats", [(41, 10), (10, 9), (100, 6), (2, 2), (19, 9), (1000, 10)])
def test_initial_draw_uses_as_few_tables_as_possible_with_sizes_within_one(players, seats):
    tournament, _ = running(players, seats)
    assert len(tournament.tables) == math.ceil(players / seats)
    assert max(sizes(tournament)) - min(sizes(tournament)) <= 1
    assert sorted(tournament.where) == sorted(f"p{n}" for n in range(1, players + 1))


def test_seed_example_41_players_sit_9_8_8_8_8_and_one_bust_leaves_four_full_tables():
    tournament, dealer = running(41, 10)
    assert sizes(tournament) == [9, 8, 8, 8, 8]
    table = next(t for t, state in tournament.tables.items() if len(state.table.players) == 8)
    loser, winner = seated(tournament, table)[:2]
    events = hand(tournament, dealer, table, winner, all_in={winner, loser})
    assert tournament.players_left == 40
    assert [e.table for e in events if isinstance(e, TableBroken)] == [table]
    assert sizes(tournament) == [10, 10, 10, 10]
    assert Counter(e.reason for e in events if isinstance(e, PlayerMoved)) == {"break": 7}


def test_the_draw_is_random_but_reproducible():
    layouts = {tuple(map(tuple, initial_draw([f"p{n}" for n in range(20)], 9, random.Random(seed))))
               for seed in range(5)}
    assert len(layouts) == 5
    again = initial_draw([f"p{n}" for n in range(20)], 9, random.Random(3))
    assert again == initial_draw([f"p{n}" for n in range(20)], 9, random.Random(3))


def test_entries_of_one_person_never_share_a_table_at_the_draw():
    people = {f"e{n}": f"person{n % 4}" if n < 16 else f"e{n}" for n in range(24)}  # 4 people x 4 entries
    for seed in range(30):
        layout = initial_draw(list(people), 6, random.Random(seed), person_of(people))
        for seats in layout:
            owners = [people[p] for p in seats if p is not None]
            assert len(owners) == len(set(owners))


def test_too_many_entries_of_one_person_for_the_tables_is_refused():
    people = {f"e{n}": "alice" for n in range(3)} | {"x": "x", "y": "y", "z": "z"}
    with pytest.raises(SeatingError, match="cannot sit at 2 different tables"):
        initial_draw(list(people), 3, random.Random(0), person_of(people))


def test_the_table_closed_is_the_one_with_fewest_players():
    # 13 players, 5-seat tables: 5/4/4. Bust two at a 4-table: 11 left need 3 tables, no break;
    # bust one more at the 5-table: 10 left need 2: the 2-player table closes.
    tournament, dealer = running(13, 5)
    small = [t for t, s in tournament.tables.items() if len(s.table.players) == 4][0]
    a, b, c = seated(tournament, small)[:3]
    events = hand(tournament, dealer, small, a, all_in={a, b, c})
    assert tournament.players_left == 11 and not [e for e in events if isinstance(e, TableBroken)]
    # Balancing moved one player from the full table to the short one.
    assert sizes(tournament) == [4, 4, 3]
    fullest = [t for t, s in tournament.tables.items() if len(s.table.players) == 4]
    shortest = [t for t, s in tournament.tables.items() if len(s.table.players) == 3][0]
    x, y = seated(tournament, fullest[0])[:2]
    events = hand(tournament, dealer, fullest[0], x, all_in={x, y})
    assert tournament.players_left == 10
    broken = [e.table for e in events if isinstance(e, TableBroken)]
    assert broken in ([fullest[0]], [shortest])  # both had three; ties at random (B.6)
    assert sizes(tournament) == [5, 5]


def test_ties_for_fewest_players_are_broken_at_random():
    # 11 players at 5-seat tables sit 4/4/3; one bust at a 4-table leaves 3/4/3 and 10 players for 2 tables.
    closed = Counter()
    for seed in range(16):
        tournament, dealer = running(11, 5, seed=seed)
        four = min(t for t, s in tournament.tables.items() if len(s.table.players) == 4)
        three = next(t for t, s in tournament.tables.items() if len(s.table.players) == 3)
        a, b = seated(tournament, four)[:2]
        events = hand(tournament, dealer, four, a, all_in={a, b})
        (broken,) = [e.table for e in events if isinstance(e, TableBroken)]
        closed["bust table" if broken == four else "other" if broken == three else "wrong"] += 1
    assert closed["wrong"] == 0 and closed["bust table"] > 0 and closed["other"] > 0


def test_balancing_10_10_7_moves_two_players_due_the_big_blind_to_the_worst_seats():
    tournament, dealer = running(29, 10)  # 10/10/9
    short = next(t for t, s in tournament.tables.items() if len(s.table.players) == 9)
    full = sorted(t for t in tournament.tables if t != short)
    due = {t: tournament.tables[t].table.seats[tournament.tables[t].table.next_positions().bb_seat] for t in full}
    a, b, c = seated(tournament, short)[:3]
    events = hand(tournament, dealer, short, a, all_in={a, b, c})
    moves = [e for e in events if isinstance(e, PlayerMoved)]
    assert sizes(tournament) == [9, 9, 9]
    assert [(m.player, m.from_table, m.to_table, m.reason) for m in moves] == [
        (due[full[0]], full[0], short, "balance"), (due[full[1]], full[1], short, "balance")]
    destination = tournament.tables[short].table
    last_bb = destination.last_bb_seat
    open_then = destination.open_seats() + [m.seat for m in moves]
    assert [m.seat for m in moves] == sorted(open_then, key=lambda seat: (seat - last_bb - 1) % 10)[:2]


def test_balanced_tables_9_8_8_8_8_move_nobody():
    tournament, dealer = running(41, 10)
    events = hand(tournament, dealer, 1)  # a hand without busts (everyone checks or folds)
    assert not [e for e in events if isinstance(e, PlayerMoved)]
    assert sizes(tournament) == [9, 8, 8, 8, 8]


def test_a_player_in_a_hand_is_never_moved_the_fullest_table_moves_one_after_its_hand():
    tournament, dealer = running(29, 10)  # 10/10/9
    short = next(t for t, s in tournament.tables.items() if len(s.table.players) == 9)
    busy, idle = sorted(t for t in tournament.tables if t != short)
    deal(tournament, dealer, busy)
    in_hand = set(tournament.hand(busy).players)
    a, b, c = seated(tournament, short)[:3]
    events = hand(tournament, dealer, short, a, all_in={a, b, c})
    assert [(e.from_table, e.to_table) for e in events if isinstance(e, PlayerMoved)] == [(idle, short)]
    assert set(seated(tournament, busy)) == in_hand
    play_out(tournament, busy)
    events = tournament.end_hand(busy)
    moved = [e for e in events if isinstance(e, PlayerMoved)]
    assert [(e.from_table, e.to_table) for e in moved] == [(busy, short)]
    assert sizes(tournament) == [9, 9, 9]


def test_the_table_to_close_finishes_its_hand_first_and_its_players_are_not_moved_before():
    tournament, dealer = running(13, 5)  # 5/4/4
    one, two, three = sorted(tournament.tables, key=lambda t: (-len(seated(tournament, t)), t))
    deal(tournament, dealer, one)
    deal(tournament, dealer, two)
    a, b, c = seated(tournament, three)[:3]
    hand(tournament, dealer, three, a, all_in={a, b, c})  # 11 left: 5/4/2, the 5 is mid-hand
    assert sizes(tournament) == [5, 4, 2]
    deal(tournament, dealer, three)  # the 2-player table deals again
    heads_up = set(tournament.hand(three).players)
    play_out(tournament, two)  # its dealt hand: checks and folds, no bust
    tournament.end_hand(two)
    d, e = seated(tournament, two)[:2]
    events = hand(tournament, dealer, two, d, all_in={d, e})  # 10 left: two tables are enough
    assert not [ev for ev in events if isinstance(ev, TableBroken)]
    assert [ev for ev in events if isinstance(ev, TableClosing)] == [TableClosing(three, 2, 10)]  # mid-hand
    assert tournament.tables[three].breaking and set(seated(tournament, three)) == heads_up
    with pytest.raises(TournamentError, match="hand in progress"):
        tournament.start_hand(three)
    play_out(tournament, three)
    events = tournament.end_hand(three)
    assert [ev.table for ev in events if isinstance(ev, TableBroken)] == [three]
    assert {ev.player for ev in events if isinstance(ev, PlayerMoved)} == {
        p for p in heads_up if p in tournament.stacks}
    assert three not in tournament.tables
    play_out(tournament, one)
    tournament.end_hand(one)
    assert sizes(tournament) == [5, 5]


def test_worst_seat_is_the_next_big_blind_and_never_the_small_blind():
    table = Table(6)
    for seat in (0, 1, 2, 4):
        table.seat(f"s{seat}", seat)
    table.start_hand()  # button 0, SB 1, BB 2
    assert worst_seat(table) == 3  # dealt in at once as the next big blind
    table.seat("x", 3)
    assert worst_seat(table) == 5
    table.remove(2)  # the last big blind's seat is the next small blind: chosen last
    assert worst_seat(table) == 5
    table.seat("y", 5)
    assert worst_seat(table) == 2


@pytest.mark.parametrize("seed", range(6))
def test_a_player_with_no_seat_away_from_their_other_entry_merges_into_it(seed):
    tournament, dealer = running(6, 2, seed=seed, paid=1, people={"p1": "ann", "p2": "ann"})
    first, second = (tournament.where[p][0] for p in ("p1", "p2"))
    assert first != second
    partner = {t: next(p for p in seated(tournament, t) if p not in ("p1", "p2")) for t in (first, second)}
    hand(tournament, dealer, first, "p1", all_in={"p1", partner[first]})  # 5 left: three tables still needed
    before = dict(tournament.stacks)
    events = hand(tournament, dealer, second, "p2", all_in={"p2", partner[second]})  # 4 left: one table closes
    merged = [e for e in events if isinstance(e, EntriesMerged)]
    assert len(merged) == 1 and {merged[0].absorbed, merged[0].into} == {"p1", "p2"}
    absorbed, into = merged[0].absorbed, merged[0].into
    after_hand = next(e for e in events if isinstance(e, HandFinished)).stacks
    own = {"p1": before["p1"], "p2": after_hand["p2"]}
    assert merged[0].chips == own[absorbed] and tournament.stacks[into] == own[into] + own[absorbed]
    assert [(e.player, e.place) for e in events if isinstance(e, PlayerEliminated)] == [
        (partner[second], 5), (absorbed, 4)]
    assert absorbed not in tournament.where and tournament.players_left == 3
    assert tournament.chips_in_play() == 6 * 1000
