"""Every exported hand history replays in PokerKit to the same finishing stacks."""

from __future__ import annotations

import random

from pokerkit import HandHistory

from engine.hand import POKERKIT_RULES, TDA_RULES
from engine.history import to_phh, to_phhs
from tests.random_hands import random_command, random_hand


def play(rng: random.Random, rules):
    hand = random_hand(rng, rules)
    while not hand.finished:
        hand.act(*random_command(rng, hand))
    return hand


def replayed_stacks(history: HandHistory) -> list[int]:
    *_, final = iter(history)
    return list(final.stacks)


def test_each_hand_replays_to_its_finishing_stacks():
    rng = random.Random(7)
    for rules in (TDA_RULES, POKERKIT_RULES):
        for number in range(250):  # random hands of every shape: 500 in all, each replayed by PokerKit
            hand = play(rng, rules)
            text = to_phh(hand, table=3, hand_number=number, seats=list(range(1, hand.n + 1)))
            history = HandHistory.loads(text)
            assert history.finishing_stacks == list(hand.stacks)
            assert replayed_stacks(history) == list(hand.stacks), text


def test_phh_carries_the_fields_and_deals():
    hand = play(random.Random(11), TDA_RULES)
    history = HandHistory.loads(to_phh(hand, table=1, hand_number=42, seats=list(range(2, hand.n + 2)), level=3))
    assert history.variant == "NT"
    assert history.players == list(hand.players)
    assert history.starting_stacks == list(hand.starting_stacks)
    assert history.table == 1 and history.hand == 42 and history.level == 3
    assert history.seats == list(range(2, hand.n + 2))
    assert sum(a.startswith("d dh ") for a in history.actions) == hand.n


def test_phhs_file_of_many_hands_reads_back_in_order():
    rng = random.Random(5)
    hands = [play(rng, TDA_RULES) for _ in range(20)]
    histories = list(HandHistory.loads_all(to_phhs(to_phh(h, hand_number=i) for i, h in enumerate(hands))))
    assert [h.hand for h in histories] == list(range(20))
    assert [replayed_stacks(h) for h in histories] == [list(h.stacks) for h in hands]


def test_a_redacted_history_keeps_shown_cards_and_the_viewers_own():
    from engine.history import redact

    text = ('actions = ["d dh p1 AcKd", "d dh p2 7h7s", "d dh p3 2c3d", "p3 f", "p1 cc", "p2 cc", '
            '"d db 2h5c9d", "p1 sm AcKd", "p2 sm 7h7s"]\nplayers = ["ann", "bob", "cy"]\n')
    assert '"d dh p3 ????"' in redact(text, None) and '"d dh p1 AcKd"' in redact(text, None)
    assert '"d dh p3 2c3d"' in redact(text, "cy") and '"d dh p3 ????"' in redact(text, "ann")


def test_positions_are_named_as_rooms_name_them_from_the_button_back():
    from engine.history import position_name

    named = {n: [position_name(i, n) for i in range(n)] for n in (2, 3, 6, 9, 10)}
    assert named[2] == ["BB", "BTN"]
    assert named[3] == ["SB", "BB", "BTN"]
    assert named[6] == ["SB", "BB", "UTG", "HJ", "CO", "BTN"]
    assert named[9] == ["SB", "BB", "UTG", "UTG+1", "UTG+2", "LJ", "HJ", "CO", "BTN"]
    assert named[10] == ["SB", "BB", "UTG", "UTG+1", "UTG+2", "UTG+3", "LJ", "HJ", "CO", "BTN"]


def test_a_players_line_of_a_hand_is_what_their_history_says_as_the_viewer_may_see_it():
    from engine.cards import cards
    from engine.history import hand_seat, redact

    text = ('starting_stacks = [1000, 1000, 1000]\n'
            'actions = ["d dh p1 AcKd", "d dh p2 7h7s", "d dh p3 2c3d", "p3 f", "p1 cc", "p2 cc", '
            '"d db 2h5c9d", "p1 sm AcKd", "p2 sm 7h7s"]\nplayers = ["ann", "bob", "cy"]\n'
            'finishing_stacks = [980, 1030, 990]\n')
    cy = hand_seat(text, "cy")
    assert (cy.position, cy.cards, cy.net, cy.folded_preflop) == ("BTN", list(cards("2c3d")), -10, True)
    assert cy.board == list(cards("2h5c9d"))
    assert hand_seat(redact(text, "ann"), "cy").cards is None  # cy's cards were never shown
    bob = hand_seat(redact(text, None), "bob")  # shown at the showdown: anyone sees them
    assert (bob.position, bob.cards, bob.net, bob.folded_preflop) == ("BB", list(cards("7h7s")), 30, False)
    assert hand_seat(text, "dee") is None


def test_every_random_hands_lines_add_up_to_nothing():
    from engine.history import hand_seat

    rng = random.Random(3)
    for _ in range(200):
        hand = play(rng, TDA_RULES)
        text = to_phh(hand)
        lines = [hand_seat(text, player) for player in hand.players]
        assert sum(line.net for line in lines) == 0
        assert all(line.cards is not None and len(line.cards) == 2 for line in lines)
