"""The director's console (engine/console.py): time added and taken, breaks and hand-for-hand on demand, an entry
removed with or without its refund; each refused with a clear error when it cannot apply."""

from __future__ import annotations

import pytest

from engine.console import take_out
from engine.events import (
    BalanceQueued, MoveQueued, QueuedMoveDropped,
    BountyWon, BreakEnded, BreakStarted, ClockAdjusted, HandForHandStarted, LevelChanged, LevelEdited,
    PlayerMoved, PlayerRemoved,
)
from engine.seating import worst_seat
from engine.status import TournamentError
from engine.structure import Bounty, Level
from tests.tournaments import deal, play_out, running, seated

LEVELS = [Level(10, 20, minutes=10), Level(20, 40, minutes=10), Level(40, 80, minutes=10)]


def test_time_added_and_taken_moves_the_end_of_the_level():
    t, _ = running(4, 4, levels=LEVELS)
    assert t.level_ends_at() == 600
    assert t.adjust_clock(120) == [ClockAdjusted(120, 720)]
    assert t.advance(700) == [] and t.level == 0
    t.adjust_clock(-300)  # now ends at 420: already past, so the next advance changes the level
    assert [type(e) for e in t.advance(701)] == [LevelChanged] and t.level == 1
    assert t.level_ends_at() == 420 + 600


def test_the_last_level_has_no_time_to_adjust_and_nonsense_is_refused():
    t, _ = running(4, 4, levels=[Level(10, 20, minutes=10)])
    with pytest.raises(TournamentError, match="no time to adjust"):
        t.adjust_clock(60)
    t2, _ = running(4, 4, levels=LEVELS)
    for bad in (0, True, 10**9):
        with pytest.raises(TournamentError, match="seconds"):
            t2.adjust_clock(bad)
    assert t2.level_ends_at() == 600


def test_a_break_called_by_hand_stops_new_hands_and_the_level_resumes_where_it_stood():
    t, _ = running(4, 4, levels=LEVELS)
    t.advance(100)
    assert t.call_break(100, 5) == [BreakStarted(400)]
    assert t.tables_ready() == [] and not t.can_start_hand(1)
    with pytest.raises(TournamentError, match="already on a break"):
        t.call_break(110, 5)
    assert t.adjust_clock(60) == [ClockAdjusted(60, 460)]  # a break's time can be adjusted too
    assert t.advance(459) == []
    assert t.advance(460) == [BreakEnded()] and t.level == 0  # the same level, not the next
    assert t.level_ends_at() == 460 + 500  # its 500 seconds left go on after the break
    assert t.tables_ready() == [1]


def test_hand_for_hand_on_the_directors_word_holds_until_let_go():
    t, dealer = running(8, 4, levels=LEVELS)
    events = t.force_hand_for_hand(True)
    assert events == [HandForHandStarted(8)] and t.hand_for_hand
    assert sorted(t.tables_ready()) == [1, 2]
    for table in (1, 2):
        deal(t, dealer, table)
        play_out(t, table)
        t.end_hand(table)
    assert t.hand_for_hand  # no bust, no pay jump: it holds because the director said so
    t.force_hand_for_hand(False)
    assert not t.hand_for_hand
    t1, _ = running(4, 4, levels=LEVELS)
    with pytest.raises(TournamentError, match="two tables"):
        t1.force_hand_for_hand(True)


def test_a_removed_entry_leaves_with_its_chips_and_no_place_and_the_ledger_balances():
    t, dealer = running(6, 6, levels=LEVELS)
    issued = t.chips_issued
    deal(t, dealer, 1)
    in_hand = t.hand(1).players[0]
    assert t.remove(in_hand, False) == [] and in_hand in t.stacks  # in a hand: out when it ends
    with pytest.raises(TournamentError, match="already to be removed"):
        t.remove(in_hand, True)
    play_out(t, 1)
    events = t.end_hand(1)
    gone = next(e for e in events if isinstance(e, PlayerRemoved))
    assert gone.player == in_hand and gone.refund_cents == 0 and in_hand not in t.stacks
    issued = t.chips_issued
    first, second = sorted(t.stacks)[:2]
    stack = t.stacks[first]
    pool = t.ledger.pool_cents
    events = t.remove(first, True)
    assert events[0] == PlayerRemoved(first, 1, stack, 1100)
    assert first not in t.stacks and first not in t.where and first not in t.results
    assert t.chips_issued == issued - stack == t.chips_in_play()
    assert t.ledger.pool_cents == pool - 1000 and t.prize_pool_cents == pool - 1000
    t.remove(second, False)
    assert t.ledger.pool_cents == pool - 1000 and t.players_left == 3
    with pytest.raises(TournamentError, match="not playing"):
        t.remove(second, False)
    while t.status.value == "running":  # the places left are 1 to 4, and the pool is paid in full
        table = min(t.tables)
        deal(t, dealer, table, winner=sorted(t.stacks)[0])
        play_out(t, table, all_in=set(t.stacks))
        t.end_hand(table)
    assert sorted(r.place for r in t.results.values()) == [1, 2, 3]
    assert t.ledger.balances() and t.ledger.held["pool"] == 0


def test_the_last_removal_leaves_a_winner():
    t, dealer = running(3, 3, levels=LEVELS)
    deal(t, dealer, 1)
    assert t.remove("p2", False) == t.remove("p3", True) == []  # both in the hand: out at its end
    play_out(t, 1)
    t.end_hand(1)
    assert t.removed == {"p2": False, "p3": True}
    assert t.status.value == "finished" and [r.player for r in t.standings()] == ["p1"]
    assert t.ledger.balances() and t.ledger.held["pool"] == 0


def test_no_refund_once_prizes_are_paid():
    t, dealer = running(3, 3, paid=3, levels=LEVELS)
    deal(t, dealer, 1, winner="p1")
    play_out(t, 1, all_in={"p1", "p2"})
    t.end_hand(1)
    assert t.ledger.prizes_cents
    loser = next(p for p in t.stacks if p != "p1")
    with pytest.raises(TournamentError, match="prizes are being paid"):
        t.remove(loser, True)


def test_a_bounty_entry_removed_with_a_refund_gets_back_exactly_what_it_paid():
    t, _ = running(6, 3, levels=LEVELS, bounty=Bounty(cents=400))
    pool, heads = t.ledger.pool_cents, t.ledger.bounties_cents
    events = t.remove("p1", True)
    assert events[0].refund_cents == 700 and events[1] == BountyWon("p1", ("p1",), (400,), (0,))
    assert t.ledger.pool_cents == pool - 600 and t.ledger.bounties_cents == heads - 400  # the others' money stays
    assert t.ledger.received_by("p1") == sum(t.ledger.paid_by("p1").values()) == 1100
    assert t.prize_pool_cents == 5 * 600


def test_a_level_not_yet_started_is_edited_and_played_as_edited():
    t, dealer = running(4, 4, levels=LEVELS)
    assert t.edit_level(2, 25, 50, 5, 15) == [LevelEdited(2, 25, 50, 5, 15)]
    assert t.level_ends_at() == 600  # the level under way keeps its length
    t.advance(600)
    assert (t.level, t.definition.levels[1]) == (1, Level(25, 50, ante=5, minutes=15))
    assert t.level_ends_at() == 600 + 15 * 60
    deal(t, dealer, 1)
    assert (t.hand(1).small_blind, t.hand(1).big_blind, t.hand(1).ante) == (25, 50, 5)
    assert t.edit_level(3, 50, 100, 0, None) == [LevelEdited(3, 50, 100, 0, 10)]  # None keeps the minutes


def test_a_started_level_or_nonsense_is_refused_and_changes_nothing():
    t, _ = running(4, 4, levels=LEVELS)
    before = t.definition
    for level, why in ((1, "level 1 has started"), (0, "level: 1 to 3"), (4, "level: 1 to 3")):
        with pytest.raises(TournamentError, match=why):
            t.edit_level(level, 20, 40)
    with pytest.raises(TournamentError, match="at most the big blind"):
        t.edit_level(2, 50, 40)
    for bad in (0, -5, True, 2.5):
        with pytest.raises(TournamentError, match="big_blind"):
            t.edit_level(2, 0, bad)
    with pytest.raises(TournamentError, match="minutes"):
        t.edit_level(2, 20, 40, 0, 0)
    assert t.definition is before
    t.advance(600)
    with pytest.raises(TournamentError, match="level 2 has started"):
        t.edit_level(2, 20, 40)
    by_hands, _ = running(4, 4, levels=[Level(10, 20, hands=5), Level(20, 40, hands=5)])
    with pytest.raises(TournamentError, match="number of hands"):
        by_hands.edit_level(2, 20, 40, 0, 10)


def sizes(t):
    return {table: len(seated(t, table)) for table in sorted(t.tables)}


def test_the_director_moves_a_player_by_the_balancing_rules():
    t, dealer = running(16, 6, levels=LEVELS, people={"p1": "ann", "p2": "ann"})
    full = next(table for table, size in sizes(t).items() if size == 6)
    short = [table for table, size in sizes(t).items() if size == 5]
    player = next(p for p in seated(t, full) if p not in ("p1", "p2"))
    with pytest.raises(TournamentError, match=f"already sits at table {full}"):
        t.move(player, full)
    with pytest.raises(TournamentError, match="no open table 9"):
        t.move(player, 9)
    other = seated(t, short[0])[0]
    full_tables = sorted(table for table, size in sizes(t).items() if size == 6)
    with pytest.raises(TournamentError, match=rf"after the move table {full_tables[0]} would seat 6 players and "
                                              rf"table {short[0]} 4: .*within one player of each other \(A.3\)"):
        t.move(other, short[1])  # 6, 4, 6: the figures are the tables' after the move
    ann = t.where["p2"][0]
    with pytest.raises(TournamentError, match="M.50"):
        t.move("p1", ann)
    deal(t, dealer, full)
    # Asked during the player's hand, the move waits for it to end (A.4), and may be taken back meanwhile.
    assert t.move(player, short[0]) == [MoveQueued(player, full, short[0])]
    assert t.where[player][0] == full and t.floor.queued == {player: short[0]}
    assert t.withdraw_move(player) == [QueuedMoveDropped(player, short[0], "withdrawn")]
    with pytest.raises(TournamentError, match="no move of"):
        t.withdraw_move(player)
    t.move(player, short[0])
    play_out(t, full)
    seat = worst_seat(t.tables[short[0]].table)
    assert PlayerMoved(player, full, short[0], seat, "director") in t.end_hand(full)
    assert t.where[player] == (short[0], seat) and seated(t, short[0]).count(player) == 1 and not t.floor.queued
    assert sorted(sizes(t).values()) == [5, 5, 6] and t.chips_in_play() == t.chips_issued
    t.force_hand_for_hand(True)
    assert t.move(player, full) == [MoveQueued(player, short[0], full)]  # made when the round ends (D.18)


def test_a_queued_move_the_hand_made_illegal_is_dropped_with_the_rule_and_the_figures():
    t, dealer = running(16, 6, levels=LEVELS)
    full = next(table for table, size in sizes(t).items() if size == 6)
    short, other = sorted(table for table, size in sizes(t).items() if size == 5)
    mover, removed = seated(t, full)[:2]
    deal(t, dealer, full)
    assert t.move(mover, short) == [MoveQueued(mover, full, short)]  # 5, 6, 5 after it: legal when asked
    assert t.remove(removed, False) == []  # out when the hand ends
    take_out(t, seated(t, other)[0], False)  # 6, 5, 4 meanwhile
    play_out(t, full)
    events = t.end_hand(full)
    [dropped] = [e for e in events if isinstance(e, QueuedMoveDropped)]
    assert dropped.player == mover and dropped.to_table == short and not t.floor.queued
    assert "would seat 6 players" in dropped.reason and "(A.3)" in dropped.reason
    assert not any(isinstance(e, PlayerMoved) and e.reason == "director" for e in events)
    assert max(sizes(t).values()) - min(sizes(t).values()) <= 1 and t.chips_in_play() == t.chips_issued
    source, target = max(sizes(t), key=sizes(t).get), min(sizes(t), key=sizes(t).get)
    leaving = seated(t, source)[0]
    deal(t, dealer, source)
    assert t.move(leaving, target) == [MoveQueued(leaving, source, target)]
    t.remove(leaving, False)  # the director takes them out meanwhile: their move has no one to move
    play_out(t, source)
    assert QueuedMoveDropped(leaving, target, "the player is no longer seated") in t.end_hand(source)


def test_balance_now_moves_what_balancing_would_or_says_why_not():
    t, dealer = running(16, 6, levels=LEVELS)
    with pytest.raises(TournamentError, match=r"balanced \(6 and 5 players\)"):
        t.balance_now()
    full = next(table for table, size in sizes(t).items() if size == 6)
    short = next(table for table, size in sizes(t).items() if size == 5)
    deal(t, dealer, full)
    t.remove(seated(t, short)[0], False)
    t.remove(seated(t, short)[0], False)  # 6, 3, 5: the table of six is playing
    assert sizes(t)[short] == 3
    assert t.balance_now() == [BalanceQueued(True)]  # the table of six is in its hand: at its end (A.4)
    assert t.floor.balance_asked
    play_out(t, full)
    ended = t.end_hand(full)
    assert BalanceQueued(False) in ended and not t.floor.balance_asked
    assert max(sizes(t).values()) - min(sizes(t).values()) <= 1
    t2, _ = running(16, 6, levels=LEVELS)
    short2 = next(table for table, size in sizes(t2).items() if size == 5)
    for player in seated(t2, short2)[:2]:
        take_out(t2, player, False)  # out without the director's sequence, which would balance at once
    [moved] = t2.balance_now()
    assert moved.reason == "balance" and moved.to_table == short2
    assert sorted(sizes(t2).values()) == [4, 5, 5]
