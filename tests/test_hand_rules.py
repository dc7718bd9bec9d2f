"""The rules of a hand, one worked example each (rules.md C.9-C.13, TDA 47, Robert's Rules)."""

from __future__ import annotations

import pytest

from engine.cards import cards
from engine.events import Posted, PotAwarded, Returned, Shown
from engine.hand import POKERKIT_RULES, TDA_RULES, Hand, IllegalAction, Rules

ROYAL_BOARD = "AsKsQsJsTs"  # everybody plays the board: every showdown is a tie


def deck_for(holes: list[str], board: str = ROYAL_BOARD) -> list[int]:
    """A deck that deals these hole cards and this board; the rest in order."""
    n = len(holes)
    held = [cards(h) for h in holes]
    wanted = cards(board)
    slots: dict[int, int] = {}
    for i, (first, second) in enumerate(held):
        slots[i], slots[n + i] = first, second
    for position, card in zip((2 * n + 1, 2 * n + 2, 2 * n + 3, 2 * n + 5, 2 * n + 7), wanted):
        slots[position] = card
    spare = iter(c for c in range(52) if c not in slots.values())
    return [slots[k] if k in slots else next(spare) for k in range(52)]


def hand_of(stacks, holes=None, board=ROYAL_BOARD, **kwargs) -> Hand:
    n = len(stacks)
    holes = holes or ["2c3d", "2d3h", "2h3s", "2s4c", "4d5h", "4h5s", "4s6c", "5c6d", "5d6h", "6s7c"][:n]
    kwargs.setdefault("small_blind", 50)
    kwargs.setdefault("big_blind", 100)
    return Hand([f"p{i}" for i in range(n)], stacks, deck=deck_for(holes, board), **kwargs)


def test_big_blind_ante_is_paid_after_the_blind_and_never_reduces_it():
    # rules.md C.12: 100/200 with ante 200, BB stack 250 -> 200 live blind + 50 dead ante.
    hand = hand_of([5000, 250, 5000], small_blind=100, big_blind=200, ante=200, bb_ante=True)
    posted = [(e.player, e.kind, e.amount) for e in hand.events if type(e) is Posted]
    assert posted == [("p0", "small_blind", 100), ("p1", "big_blind", 200), ("p1", "big_blind_ante", 50)]
    assert hand.legal_actions().call == 200  # the blind is live for its full amount
    assert hand.dead == 50


def test_per_player_antes_come_first_and_an_unmatched_ante_goes_back():
    hand = hand_of([1000, 30], small_blind=5, big_blind=10, ante=100)
    # Heads-up: p0 is the big blind, p1 the button. p1 antes 30 all-in, so 70 of p0's ante cannot be
    # matched, nor later the big blind of 10.
    returned = [(e.player, e.amount) for e in hand.events if type(e) is Returned]
    assert returned == [("p0", 70), ("p0", 10)]
    assert hand.finished  # p1 is all-in from the ante: the board runs out at once
    assert sum(hand.stacks) == 1030


def test_odd_chip_goes_to_the_first_winner_left_of_the_button():
    # Ante 1 each, p2 (button) folds, p0 completes, p1 checks: 203 chips, all tie on the board.
    hand = hand_of([1000, 1000, 1000], ante=1)
    hand.fold()
    hand.call()
    hand.check()
    for _ in range(3):
        hand.check()
        hand.check()
    award = next(e for e in hand.events if type(e) is PotAwarded)
    assert award.amount == 203
    assert award.winners == ("p0", "p1") and award.shares == (102, 101)


def test_dead_small_blind_first_to_act_is_left_of_the_big_blind():
    hand = hand_of([1000, 1000, 1000], sb_index=None, bb_index=0)
    assert [e.kind for e in hand.events if type(e) is Posted] == ["big_blind"]
    assert hand.actor == 1
    hand.call()
    hand.call()
    hand.check()  # the big blind's option
    assert hand.actor == 0  # after the flop the big blind, first left of the button, acts first


def test_heads_up_the_button_posts_the_small_blind_and_acts_first_preflop_only():
    hand = hand_of([1000, 1000])
    posted = {e.player: e.kind for e in hand.events if type(e) is Posted}
    assert posted == {"p0": "big_blind", "p1": "small_blind"}
    assert hand.actor == 1
    hand.call()
    hand.check()
    assert hand.actor == 0


def test_a_short_all_in_raise_does_not_reopen_the_betting():
    # NLHE 50/100 postflop: A bets 100, B all-in 125, C calls, D all-in 175, E calls (TDA 47).
    hand = hand_of([10_000, 225, 10_000, 275, 10_000])
    for _ in range(4):
        hand.call()
    hand.check()
    hand.raise_to(100)  # A
    hand.all_in()  # B to 125: +25, not a full raise
    hand.call()  # C
    hand.all_in()  # D to 175: the all-ins add up to +75, still not a full raise
    hand.call()  # E
    legal = hand.legal_actions()
    assert legal.player == 0 and legal.call == 75 and legal.min_raise_to is None
    with pytest.raises(IllegalAction, match="TDA 47"):
        hand.raise_to(300)


def test_short_all_ins_that_add_up_to_a_full_raise_reopen_it():
    # TDA 47 Example 1: the same, but D goes all-in for 200: A now faces a full raise of 100.
    hand = hand_of([10_000, 225, 10_000, 300, 10_000])
    for _ in range(4):
        hand.call()
    hand.check()
    hand.raise_to(100)
    hand.all_in()
    hand.call()
    hand.all_in()
    hand.call()
    legal = hand.legal_actions()
    assert legal.player == 0 and legal.call == 100 and legal.min_raise_to == 300
    hand.call()  # A calls; C called 125 and faces only 75 more: not reopened for C
    assert hand.legal_actions().player == 2 and hand.legal_actions().min_raise_to is None


def test_a_check_is_not_reopened_by_an_all_in_below_the_minimum_bet():
    # A checks, B bets all-in 50 (< the 100 minimum), C calls: TDA 47 keeps A to call or fold.
    for rules, reopened in ((TDA_RULES, False), (POKERKIT_RULES, True)):
        hand = hand_of([10_000, 150, 10_000], rules=rules)
        hand.call()
        hand.call()
        hand.check()
        hand.check()  # A (p0)
        hand.all_in()  # B (p1) bets 50
        hand.call()  # C
        assert hand.legal_actions().player == 0
        assert (hand.legal_actions().min_raise_to is not None) is reopened
        # The raise size stays a full big blind above the bet.
        if reopened:
            assert hand.legal_actions().min_raise_to == 150


def test_a_short_big_blind_is_called_as_posted_or_in_full():
    # Robert's Rules example, ante 100, blinds 400/800: the big blind has 800, antes 100, posts 700.
    for rules, call in ((TDA_RULES, 700), (Rules(short_blind="full"), 800)):
        hand = hand_of([20_000, 800, 20_000, 20_000], small_blind=400, big_blind=800, ante=100, rules=rules)
        assert [e.amount for e in hand.events if type(e) is Posted and e.kind == "big_blind"] == [700]
        legal = hand.legal_actions()
        assert legal.player == 2 and legal.call == call
        assert legal.min_raise_to == call + 800


def test_nobody_calls_chips_that_no_opponent_can_match():
    # Heads-up, the big blind is all-in for 60 of 100: the button's 50 small blind needs only 10 more.
    hand = hand_of([60, 5000], rules=Rules(short_blind="full"))
    legal = hand.legal_actions()
    assert legal.player == 1 and legal.call == 10 and legal.min_raise_to is None


def test_uncalled_bet_is_returned_before_the_pot_is_awarded():
    hand = hand_of([1000, 1000, 1000])
    hand.raise_to(1000)  # p2 all-in
    hand.fold()
    hand.call()  # p1 calls all-in
    assert hand.finished
    hand = hand_of([1000, 1000, 400])
    hand.all_in()  # p2 to 400
    hand.raise_to(1000)  # p0 all-in for 1000
    hand.fold()
    returned = [(e.player, e.amount) for e in hand.events if type(e) is Returned]
    assert returned == [("p0", 600)]


def test_side_pots_go_to_the_best_hand_among_those_eligible():
    # p0 best hand but shortest, p1 second best with the middle stack, p2 worst and deepest.
    hand = hand_of([300, 600, 1000], holes=["AhAd", "KhKd", "2c7d"], board="AcKc5d8s9h")
    hand.call()  # p2 limps
    hand.all_in()  # p0 to 300
    hand.all_in()  # p1 to 600
    hand.call()  # p2 calls 600
    awards = [(e.amount, e.eligible, e.winners) for e in hand.events if type(e) is PotAwarded]
    # p2 can win neither pot: the hand is mucked before the pots are split, so it contends for none.
    assert awards == [(900, ("p0", "p1"), ("p0",)), (600, ("p1",), ("p1",))]
    assert hand.stacks == [900, 600, 400]
    # Cards go face up once the betting is over, the last aggressor (p1) first, then clockwise.
    assert [e.player for e in hand.events if type(e) is Shown] == ["p1", "p2", "p0"]


def test_clock_checks_when_free_and_folds_facing_a_bet():
    hand = hand_of([1000, 1000, 1000])
    assert hand.timeout_action() == "fold"  # p2 faces the big blind
    hand.call()
    hand.call()
    assert hand.timeout_action() == "check"  # the big blind's option is free


def test_refusals_name_the_rule_and_change_nothing():
    hand = hand_of([1000, 1000, 1000])
    before = (list(hand.stacks), list(hand.bets), len(hand.events))
    with pytest.raises(IllegalAction, match="min-raise"):
        hand.raise_to(150)
    with pytest.raises(IllegalAction, match="cannot check facing a bet"):
        hand.check()
    with pytest.raises(IllegalAction, match="not p0's turn"):
        hand.act("call", player="p0")
    with pytest.raises(IllegalAction, match="more than your stack"):
        hand.raise_to(5000)
    assert (list(hand.stacks), list(hand.bets), len(hand.events)) == before
    hand.call()
    hand.call()
    with pytest.raises(IllegalAction, match="checking is free"):
        hand.fold()


def test_bad_set_up_is_refused():
    with pytest.raises(ValueError, match="2 to 10"):
        hand_of([100])
    with pytest.raises(ValueError, match="positive"):
        hand_of([100, 0])
    with pytest.raises(ValueError, match="distinct"):
        Hand(["a", "b"], [100, 100], small_blind=1, big_blind=2, deck=[0] * 52)


def test_a_hand_dealt_to_be_played_elsewhere_posts_nothing_and_refuses_every_command_unchanged():
    """The director's copy of a hand a worker plays (``deck=None``): it holds the players, stacks and blinds, and
    no command can change it, so its empty containers may be shared with nothing written to them."""
    hands = [Hand(["a", "b", "c"], [500, 300, 200], small_blind=5, big_blind=10, ante=1, deck=None)
             for _ in range(2)]
    hand = hands[0]
    assert hand.actor is None and hand.events == [] and hand.board == [] and hand.hole == []
    assert hand.stacks == [500, 300, 200] and hand.bets == [0, 0, 0] and hand.chips_in_play() == 1000
    for command in (hand.fold, hand.check, hand.call, hand.all_in, lambda: hand.raise_to(40),
                    lambda: hand.act("call", player="a"), lambda: hand.play("check")):
        with pytest.raises(IllegalAction, match="nobody is to act"):
            command()
    for name in ("stacks", "bets", "committed", "folded", "acted", "faced", "board", "events", "hole", "queue"):
        assert getattr(hand, name) == getattr(hands[1], name), name
    assert hand.stacks == [500, 300, 200] and hand.chips_in_play() == 1000 and not hand.finished
