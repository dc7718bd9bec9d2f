"""Properties of every hand: chips are conserved, and a refused command changes nothing."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.hand import POKERKIT_RULES, TDA_RULES, Hand, IllegalAction, Rules
from tests.random_hands import random_command, random_hand

RULES = st.sampled_from([TDA_RULES, POKERKIT_RULES, Rules(short_blind="full")])


def snapshot(hand: Hand) -> tuple:
    return (
        list(hand.stacks), list(hand.bets), list(hand.committed), list(hand.folded), list(hand.queue),
        hand.level, hand.street, len(hand.events), hand.finished,
    )


def illegal_commands(hand: Hand) -> list[tuple[str, object]]:
    """Commands the rules must refuse at this moment."""
    legal = hand.legal_actions()
    refused: list[tuple[str, object]] = [("raise", -5), ("jump", None), ("raise", None)]
    refused.append(("check", None) if not legal.can_check else ("fold", None))
    if legal.can_check:
        refused.append(("call", None))
    if legal.min_raise_to is None:
        refused.append(("raise", hand.level + 10 * hand.big_blind))
    else:
        refused.append(("raise", legal.max_raise_to + 1))
        refused.append(("raise", float(legal.min_raise_to)))
        if legal.min_raise_to < legal.max_raise_to:
            refused.append(("raise", legal.min_raise_to - 1))
    return refused


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rules=RULES)
def test_chips_are_conserved_after_every_event(seed, rules):
    rng = random.Random(seed)
    hand = random_hand(rng, rules)
    total = sum(hand.starting_stacks)
    assert hand.chips_in_play() == total
    while not hand.finished:
        hand.act(*random_command(rng, hand))
        assert hand.chips_in_play() == total
        assert min(hand.stacks) >= 0
    assert sum(hand.stacks) == total
    awarded = sum(e.amount for e in hand.events if type(e).__name__ == "PotAwarded")
    posted = sum(e.amount for e in hand.events if type(e).__name__ in ("Posted", "Acted"))
    returned = sum(e.amount for e in hand.events if type(e).__name__ == "Returned")
    assert awarded == posted - returned  # the events alone account for every chip


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rules=RULES)
def test_an_illegal_command_changes_nothing(seed, rules):
    rng = random.Random(seed)
    hand = random_hand(rng, rules)
    while not hand.finished:
        for command, amount in illegal_commands(hand):
            before = snapshot(hand)
            try:
                hand.act(command, amount)
            except IllegalAction as refusal:
                assert str(refusal)  # the refusal says which rule
            else:
                raise AssertionError(f"{command} {amount} was accepted")
            assert snapshot(hand) == before
        hand.act(*random_command(rng, hand))
    before = snapshot(hand)
    for command in ("fold", "check", "call", "all_in"):
        try:
            hand.act(command)
        except IllegalAction:
            pass
        else:
            raise AssertionError("a finished hand accepted a command")
    assert snapshot(hand) == before
