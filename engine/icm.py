"""The Independent Chip Model (Malmuth-Harville), exact for final tables and by Monte Carlo beyond.

rules.md H.31-H.35. A player finishes first with probability proportional to
their stack; among the rest, second likewise, and so on. Equity is the sum
over places of P(finish there) x the prize.

Exact (H.32): dynamic programming over subsets. ``f(M)`` is the probability
that the players in M take the first |M| places in some order; each player i
outside M takes place |M|+1 with probability f(M) * s_i / (S - s(M)). Only
subsets smaller than the number of prizes matter. The cost is about
n * 2^(n-1) multiply-adds, done with numpy a layer of equal-size subsets at a
time: a final table of nine is 512 subsets, and 20 players (a million
subsets) take tens of milliseconds, against n! orders for the naive recursion.

Monte Carlo (H.33): each sample draws E_i ~ Exp(rate s_i) and ranks players by
E ascending, which is an exact Malmuth-Harville order (Plackett-Luce), so the
only error is statistical. The standard error of each equity is returned
with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

EXACT_MAX_PLAYERS = 20


class IcmError(ValueError):
    """Stacks or prizes ICM cannot be computed for."""


def _check(stacks: Sequence[int], prizes: Sequence[float]) -> None:
    if len(stacks) < 1:
        raise IcmError("ICM needs at least one player")
    if any(stack <= 0 for stack in stacks):
        raise IcmError("every player in an ICM calculation needs chips")
    if any(a < b for a, b in zip(prizes, prizes[1:])) or any(prize < 0 for prize in prizes):
        raise IcmError("prizes must be non-negative and never rise from one place to the next")


@lru_cache(maxsize=32)
def _layers(players: int) -> tuple[NDArray[np.int64], ...]:
    """All subsets of ``players`` grouped by size: the masks with popcount k, for each k."""
    masks = np.arange(1 << players, dtype=np.int64)
    sizes = np.zeros(1 << players, dtype=np.int64)
    for bit in range(players):
        sizes += (masks >> bit) & 1
    return tuple(masks[sizes == k] for k in range(players + 1))


def finish_probabilities(stacks: Sequence[int], places: int | None = None) -> NDArray[np.float64]:
    """P[i, k]: the chance that player i finishes in place k+1, for the first ``places`` places (exact)."""
    players = len(stacks)
    if players > EXACT_MAX_PLAYERS:
        raise IcmError(f"exact ICM is for up to {EXACT_MAX_PLAYERS} players; use monte_carlo for {players}")
    _check(stacks, [])
    places = players if places is None else min(places, players)
    chips = np.asarray(stacks, dtype=np.float64)
    total = chips.sum()
    layers = _layers(players)
    subset_chips = np.zeros(1 << players, dtype=np.float64)
    for bit in range(players):
        subset_chips[1 << bit:1 << (bit + 1)] = subset_chips[:1 << bit] + chips[bit]
    reach = np.zeros(1 << players, dtype=np.float64)  # f(M)
    reach[0] = 1.0
    result = np.zeros((players, places), dtype=np.float64)
    for place in range(places):
        targets = layers[place + 1]
        for player in range(players):
            bit = 1 << player
            into = targets[(targets & bit) != 0]
            before = into ^ bit
            step = reach[before] * (chips[player] / (total - subset_chips[before]))
            reach[into] += step
            result[player, place] = step.sum()
    return result


def equities(stacks: Sequence[int], prizes: Sequence[float]) -> list[float]:
    """Each player's exact ICM equity in the prizes' unit; the prizes are for places 1, 2, ... in order."""
    _check(stacks, prizes)
    paid = list(prizes[:len(stacks)])
    probabilities = finish_probabilities(stacks, len(paid))
    return [float(value) for value in probabilities @ np.asarray(paid, dtype=np.float64)]


def monte_carlo(stacks: Sequence[int], prizes: Sequence[float], rng: np.random.Generator,
                samples: int = 100_000) -> tuple[list[float], list[float]]:
    """ICM equities estimated from ``samples`` exact orders, with each estimate's standard error.

    Deterministic for a given generator state. Memory is kept to about
    8 MB per chunk of samples whatever the field size.
    """
    _check(stacks, prizes)
    players = len(stacks)
    rates = np.asarray(stacks, dtype=np.float64)
    payout = np.zeros(players, dtype=np.float64)
    paid = min(players, len(prizes))
    payout[:paid] = np.asarray(prizes[:paid], dtype=np.float64)
    total = np.zeros(players)
    squares = np.zeros(players)
    chunk = max(1, min(samples, 1_000_000 // players))
    done = 0
    while done < samples:
        size = min(chunk, samples - done)
        arrival = rng.exponential(size=(size, players)) / rates
        place = np.argsort(np.argsort(arrival, axis=1), axis=1)
        won = payout[place]
        total += won.sum(axis=0)
        squares += (won * won).sum(axis=0)
        done += size
    mean = total / samples
    variance = np.maximum(squares / samples - mean * mean, 0.0)
    error = np.sqrt(variance / samples)
    return [float(v) for v in mean], [float(e) for e in error]
