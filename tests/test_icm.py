"""ICM (rules.md H.31-H.35): the exact DP against brute force, the seed's test vectors, Monte Carlo within its error."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import numpy as np
import pytest

from engine.icm import IcmError, equities, finish_probabilities, monte_carlo
from engine.money import largest_remainder


def brute_force(stacks: list[int], prizes: list[int]) -> list[Fraction]:
    """Every finishing order with its Malmuth-Harville probability, in exact fractions (H.31)."""
    total = sum(stacks)
    value = [Fraction(0)] * len(stacks)
    for order in itertools.permutations(range(len(stacks))):
        chance, left = Fraction(1), total
        for player in order:
            chance *= Fraction(stacks[player], left)
            left -= stacks[player]
        for place, player in enumerate(order[:len(prizes)]):
            value[player] += chance * prizes[place]
    return value


def test_the_three_player_vector_is_exact() -> None:
    result = equities([5000, 3000, 2000], [50, 30, 20])
    expected = [38 + Fraction(11, 28), 32 + Fraction(3, 4), 28 + Fraction(6, 7)]
    assert result == pytest.approx([float(e) for e in expected], abs=1e-12)
    assert brute_force([5000, 3000, 2000], [50, 30, 20]) == expected


def test_a_deal_is_rounded_to_the_cent_by_largest_remainder() -> None:
    """50/40/10 chips for 3000/2000/1500 dollars: 22000/9, 20900/9, 15600/9 (H.35 and G.30)."""
    result = equities([50, 40, 10], [300_000, 200_000, 150_000])
    assert result == pytest.approx([22_000_00 / 9, 20_900_00 / 9, 15_600_00 / 9])
    assert largest_remainder(result, 650_000) == [244_445, 232_222, 173_333]


def test_the_poker_apprentice_readme_vector() -> None:
    result = equities([150000, 98750, 45500, 13250], [425, 280, 130, 75])
    assert [round(value, 2) for value in result] == [323.20, 278.12, 195.79, 112.89]


@pytest.mark.parametrize("seed", range(6))
def test_the_subset_dp_equals_brute_force_for_seven_players(seed: int) -> None:
    rng = random.Random(seed)
    stacks = [rng.randint(1, 5000) for _ in range(7)]
    prizes = sorted((rng.randint(0, 1000) for _ in range(rng.randint(1, 7))), reverse=True)
    exact = brute_force(stacks, prizes)
    assert equities(stacks, prizes) == pytest.approx([float(v) for v in exact], rel=1e-12, abs=1e-9)


def test_invariants_on_a_twenty_player_field() -> None:
    rng = random.Random(20)
    stacks = [rng.randint(1, 100) * 1000 for _ in range(20)]
    stacks[3] = stacks[4]
    prizes = sorted((rng.randint(1, 10_000) for _ in range(12)), reverse=True)
    result = equities(stacks, prizes)
    assert sum(result) == pytest.approx(sum(prizes))
    assert all(0 <= value <= prizes[0] for value in result)
    assert result[3] == pytest.approx(result[4])
    chances = finish_probabilities(stacks)
    assert chances.sum(axis=1) == pytest.approx(np.ones(20))  # everyone finishes somewhere
    assert chances.sum(axis=0) == pytest.approx(np.ones(20))  # every place is taken once


def test_a_bigger_stack_never_has_less_equity() -> None:
    stacks = [9000, 7000, 7000, 3000, 1000, 500]
    result = equities(stacks, [50, 25, 15, 10])
    assert result == sorted(result, reverse=True)


def test_monte_carlo_agrees_with_the_exact_values_within_its_stated_error() -> None:
    stacks = [4000, 3500, 2500, 1200, 800, 600, 300, 100]
    prizes = [40, 25, 15, 10, 6, 4]
    exact = equities(stacks, prizes)
    estimate, error = monte_carlo(stacks, prizes, np.random.default_rng(7), samples=200_000)
    for value, guess, sigma in zip(exact, estimate, error):
        assert 0 < sigma < 0.1
        assert abs(guess - value) < 5 * sigma
    assert sum(estimate) == pytest.approx(sum(prizes))


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(IcmError, match="needs chips"):
        equities([100, 0], [10])
    with pytest.raises(IcmError, match="never rise"):
        equities([100, 200], [10, 20])
    with pytest.raises(IcmError, match="up to 20"):
        finish_probabilities([1] * 21)
