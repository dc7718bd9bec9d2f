"""The simulator's hands draw their cards and their bots' choices from a stream of their own (bots/playing.py
``dealt``): the same hand wherever it is played, cards spread evenly, and an RNG that is a whole
``random.Random``."""

from __future__ import annotations

import collections
import random

import pytest

from bots.playing import BLOCK, HandDice, dealt, stream_blocks


def test_a_hand_is_dealt_the_same_every_time_and_its_neighbours_differently():
    deck, dice = dealt(2**64 - 1, 7, 26)
    again, dice_again = dealt(2**64 - 1, 7, 26)
    assert deck == again and len(set(deck)) == 26 and all(0 <= card < 52 for card in deck)
    assert [dice.random() for _ in range(20)] == [dice_again.random() for _ in range(20)]
    assert dealt(2**64 - 1, 8, 26)[0] != deck and dealt(2**64 - 2, 7, 26)[0] != deck


def test_every_card_is_as_likely_in_every_place():
    """52 places x 52 cards over 26,000 decks: each count near 500, and chi-squared inside its 0.1% tails."""
    counts = collections.Counter((place, card) for number in range(26_000)
                                 for place, card in enumerate(dealt(11, number, 52)[0]))
    expected = 26_000 / 52
    chi_squared = sum((counts[place, card] - expected) ** 2 / expected for place in range(52) for card in range(52))
    degrees = 51 * 51
    assert abs(chi_squared - degrees) < 3.3 * (2 * degrees) ** 0.5, chi_squared


def test_the_bots_rng_reads_on_past_its_first_blocks_as_one_stream():
    """A thousand draws of 13 bits reach far beyond the blocks hashed at the deal, and are the stream's bytes in
    order; the bytes already read are let go, not kept."""
    key = (5).to_bytes(8, "little") + (9).to_bytes(8, "little")
    stream = stream_blocks(key, 0, 40)
    _, dice = dealt(5, 9, 26)
    draws = [dice.getrandbits(13) for _ in range(1000)]
    assert draws == [int.from_bytes(stream[at:at + 2], "little") >> 3 for at in range(78, 78 + 2000, 2)]
    assert len(dice._stream) <= 2 * BLOCK


def test_the_bots_rng_is_a_random_random_with_every_method_and_a_state():
    _, dice = dealt(3, 4, 20)
    assert isinstance(dice, random.Random)
    state = dice.getstate()
    first = (dice.random(), dice.randint(1, 6), dice.choice("abc"), dice.uniform(2, 3), dice.gauss(0, 1),
             dice.sample(range(10), 3), dice.randrange(0, 100, 5))
    assert 0 <= first[0] < 1 and 1 <= first[1] <= 6 and 2 <= first[3] <= 3
    dice.setstate(state)
    assert (dice.random(), dice.randint(1, 6), dice.choice("abc"), dice.uniform(2, 3), dice.gauss(0, 1),
            dice.sample(range(10), 3), dice.randrange(0, 100, 5)) == first
    floats = [dice.random() for _ in range(20_000)]
    assert 0.49 < sum(floats) / len(floats) < 0.51 and min(floats) >= 0 and max(floats) < 1


def test_the_bots_rng_refuses_a_seed_and_a_negative_number_of_bits():
    _, dice = dealt(3, 4, 20)
    with pytest.raises(TypeError, match="seeded by the hand"):
        dice.seed(1)
    with pytest.raises(ValueError, match="non-negative"):
        dice.getrandbits(-1)
    assert dice.getrandbits(0) == 0
    assert isinstance(HandDice(b"k", b"", 0).random(), float)  # an empty stream is hashed at the first draw
