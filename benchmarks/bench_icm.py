"""ICM equities: our subset DP (engine/icm.py) next to the textbook recursion over finishing orders, same run.

The peer is the naive Malmuth-Harville recursion most ICM calculators start
from (rules.md H.32; e.g. the recursive icm.py of Simple-ICM-Calculator):
it walks every order of the paid places, n!/(n-m)! of them. Written here
in plain Python as the reference cost, not copied from anywhere.

Run: .venv/bin/python benchmarks/bench_icm.py [--repeat R]
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from engine.icm import equities, monte_carlo  # noqa: E402


def recursive_icm(stacks: list[int], prizes: list[int]) -> list[float]:
    """Every finishing order of the paid places, each weighted by its probability."""
    result = [0.0] * len(stacks)

    def walk(left: list[int], total: float, place: int, chance: float) -> None:
        if place == len(prizes) or not left:
            return
        for index in left:
            p = chance * stacks[index] / total
            result[index] += p * prizes[place]
            walk([i for i in left if i != index], total - stacks[index], place + 1, p)

    walk(list(range(len(stacks))), float(sum(stacks)), 0, 1.0)
    return result


def field(players: int, seed: int = 1) -> tuple[list[int], list[int]]:
    rng = random.Random(seed)
    stacks = [rng.randint(5, 200) * 1000 for _ in range(players)]
    prizes = sorted((rng.randint(100, 5000) for _ in range(players)), reverse=True)
    return stacks, prizes


def per_call_ms(work, repeat: int, calls: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(calls):
            work()
        times.append((time.perf_counter() - start) / calls * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'players':>7} {'ours (ms)':>10} {'recursion (ms)':>15} {'ratio':>8}")
    for players in (6, 8, 9):
        stacks, prizes = field(players)
        assert np.allclose(equities(stacks, prizes), recursive_icm(stacks, prizes))
        ours = per_call_ms(functools.partial(equities, stacks, prizes), args.repeat, 200)
        peer = per_call_ms(functools.partial(recursive_icm, stacks, prizes), args.repeat, 1 if players >= 9 else 5)
        print(f"{players:>7} {ours:>10.3f} {peer:>15.1f} {peer / ours:>7.0f}x")
    for players in (15, 20):
        stacks, prizes = field(players)
        ours = per_call_ms(functools.partial(equities, stacks, prizes), args.repeat, 3)
        print(f"{players:>7} {ours:>10.1f} {'(n! orders: not run)':>15}")
    stacks, prizes = field(2000)
    start = time.perf_counter()
    _, error = monte_carlo(stacks, prizes[:300], np.random.default_rng(1), samples=20_000)
    print(f"Monte Carlo, 2,000 players, 300 paid, 20,000 samples: {time.perf_counter() - start:.2f} s, "
          f"largest standard error {max(error):.2f} (prizes up to {prizes[0]})")


if __name__ == "__main__":
    main()
