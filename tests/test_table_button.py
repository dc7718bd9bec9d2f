"""Button and blinds across hands: the dead-button rule (rules.md C.9-C.11, RRP examples)."""

from __future__ import annotations

import pytest

from engine.table import Table


def table_with(size: int, seats: list[int]) -> Table:
    table = Table(size)
    for seat in seats:
        table.seat(f"s{seat}", seat)
    return table


def test_the_button_and_blinds_move_one_seat_a_hand():
    table = table_with(5, [0, 1, 2, 3, 4])
    first = table.start_hand()
    assert (first.button_seat, first.sb_seat, first.bb_seat) == (0, 1, 2)
    assert first.dealt == (1, 2, 3, 4, 0) and (first.sb_index, first.bb_index) == (0, 1)
    second = table.start_hand()
    assert (second.button_seat, second.sb_seat, second.bb_seat) == (1, 2, 3)


def test_small_blind_busts_the_button_goes_onto_the_empty_seat():
    table = table_with(5, [0, 1, 2, 3, 4])
    table.start_hand()
    table.remove(1)
    nxt = table.start_hand()
    assert (nxt.button_seat, nxt.sb_seat, nxt.bb_seat) == (1, 2, 3)  # a dead button on seat 1
    assert nxt.dealt == (2, 3, 4, 0)


def test_big_blind_busts_there_is_no_small_blind():
    table = table_with(5, [0, 1, 2, 3, 4])
    table.start_hand()
    table.remove(2)
    nxt = table.start_hand()
    assert (nxt.button_seat, nxt.sb_seat, nxt.bb_seat) == (1, None, 3)
    assert nxt.dealt == (3, 4, 0, 1) and nxt.sb_index is None and nxt.bb_index == 0


def test_both_blinds_bust_the_same_player_has_the_button_three_times():
    table = table_with(5, [0, 1, 2, 3, 4])
    hands = [table.start_hand()]
    table.remove(1)
    table.remove(2)
    hands += [table.start_hand(), table.start_hand()]
    assert [h.dealt[-1] for h in hands] == [0, 0, 0]  # seat 0 acts last after the flop in all three
    assert [h.bb_seat for h in hands] == [2, 3, 4]  # and the big blind keeps moving on
    assert hands[1].sb_seat is None and hands[2].sb_seat == 3


@pytest.mark.parametrize("bust", [0, 1, 2])
def test_going_heads_up_nobody_posts_the_big_blind_twice(bust):
    table = table_with(3, [0, 1, 2])
    first = table.start_hand()
    table.remove(bust)
    heads_up = table.start_hand()
    assert heads_up.bb_seat != first.bb_seat
    assert heads_up.button_seat == heads_up.sb_seat  # heads-up the button posts the small blind
    assert heads_up.dealt == (heads_up.bb_seat, heads_up.button_seat)
    assert (heads_up.bb_index, heads_up.sb_index) == (0, 1)
    again = table.start_hand()
    assert again.bb_seat == heads_up.sb_seat  # the blinds alternate


def test_a_new_player_between_button_and_small_blind_waits_for_the_button():
    table = table_with(6, [0, 2, 4])
    table.start_hand()  # button 0, small blind 2, big blind 4
    table.seat("late", 3)  # next hand: button 2, small blind 4 -> seat 3 is strictly between
    table.seat("moved", 5)  # between the small and big blind: dealt in, and it is the big blind
    second = table.start_hand()
    assert 3 not in second.dealt and 5 in second.dealt and second.bb_seat == 5
    third = table.start_hand()  # the button has passed seat 3
    assert 3 in third.dealt


@pytest.mark.parametrize("filled", [1, 2])
def test_a_moved_player_fills_a_vacated_blind_seat_before_the_next_deal(filled):
    # Regression case 2: small and big blind bust together; a moved player takes one of their seats.
    table = table_with(5, [0, 1, 2, 3, 4])
    table.start_hand()
    table.remove(1)
    table.remove(2)
    table.seat("moved", filled)
    nxt = table.start_hand()
    assert filled in nxt.dealt and nxt.bb_seat == 3
    if filled == 2:
        assert nxt.sb_seat == 2  # seated where the small blind falls: posts it
    else:
        assert nxt.button_seat == 1 and nxt.sb_seat is None and nxt.dealt[-1] == 1


def test_bad_seating_is_refused():
    table = table_with(3, [0])
    with pytest.raises(ValueError, match="taken"):
        table.seat("x", 0)
    with pytest.raises(ValueError, match="does not exist"):
        table.seat("x", 3)
    with pytest.raises(ValueError, match="at least two"):
        table.start_hand()


def test_a_table_plays_down_to_one_player_with_every_chip_kept():
    import random

    from bots.strategies import random_player, seat_view
    from engine.cards import shuffled_deck
    from engine.events import Posted
    from engine.hand import Hand

    rng = random.Random(3)
    table = table_with(9, list(range(9)))
    stacks = {player: 1500 for player in table.players}
    for _ in range(2000):
        if len(table.players) < 2:
            break
        positions = table.start_hand()
        players = [table.seats[s] for s in positions.dealt]
        hand = Hand(players, [stacks[p] for p in players], small_blind=20, big_blind=40, ante=5,
                    sb_index=positions.sb_index, bb_index=positions.bb_index, deck=shuffled_deck(rng))
        big_blind = next(e.player for e in hand.events if type(e) is Posted and e.kind == "big_blind")
        assert big_blind == table.seats[positions.bb_seat]
        while not hand.finished:
            hand.act(*random_player(seat_view(hand), rng))
        stacks.update(zip(hand.players, hand.stacks))
        for seat in positions.dealt:
            if stacks[table.seats[seat]] == 0:
                table.remove(seat)
        assert sum(stacks.values()) == 9 * 1500
    assert len(table.players) == 1
