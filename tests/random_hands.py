"""Random hands for differential and property tests: many players, short stacks, all-ins."""

from __future__ import annotations

import random

from engine.cards import shuffled_deck
from engine.hand import TDA_RULES, Hand, Rules


def random_hand(rng: random.Random, rules: Rules = TDA_RULES) -> Hand:
    """A hand with 2-10 players, stacks from 1 chip to 300 big blinds, every kind of forced bet."""
    n = rng.randint(2, 10)
    big_blind = rng.choice((2, 10, 100, 200, 1000))
    small_blind = big_blind // 2 if rng.random() < 0.9 else rng.randint(0, big_blind)
    stacks = []
    for _ in range(n):
        shape = rng.random()
        if shape < 0.25:
            stacks.append(rng.randint(1, 2 * big_blind))  # very short: all-in from the blinds or antes
        elif shape < 0.5:
            stacks.append(rng.randint(1, 20 * big_blind))
        else:
            stacks.append(rng.randint(10 * big_blind, 300 * big_blind))
    antes = rng.random()
    ante, bb_ante = 0, False
    if antes < 0.3:
        ante = rng.randint(1, max(1, big_blind // 2))
    elif antes < 0.6:
        ante, bb_ante = big_blind, True
    sb_index: int | None | str = "auto"
    bb_index: int | str = "auto"
    if n >= 3 and rng.random() < 0.1:
        sb_index, bb_index = None, 0  # dead small blind
    return Hand(
        [f"p{i}" for i in range(n)],
        stacks,
        small_blind=small_blind,
        big_blind=big_blind,
        ante=ante,
        bb_ante=bb_ante,
        sb_index=sb_index,
        bb_index=bb_index,
        deck=shuffled_deck(rng),
        rules=rules,
    )


def random_command(rng: random.Random, hand: Hand) -> tuple[str, int | None]:
    """A legal command, weighted toward all-ins and min-raises where the edge cases live."""
    legal = hand.legal_actions()
    roll = rng.random()
    if legal.min_raise_to is not None:
        if roll < 0.2:
            return "raise", legal.min_raise_to
        if roll < 0.4:
            return "raise", legal.max_raise_to
        if roll < 0.5:
            return "raise", rng.randint(legal.min_raise_to, legal.max_raise_to)
    if legal.can_fold and roll > 0.75:
        return "fold", None
    return ("check", None) if legal.can_check else ("call", None)
