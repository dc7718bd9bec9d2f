"""Seven-card evaluations per second: eval7 (our evaluator) next to PokerKit's, same hands, same run.

Run: .venv/bin/python benchmarks/bench_evaluator.py [--repeat R]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.cards import CARD_NAMES, shuffled_deck  # noqa: E402
from engine.evaluate import hand_strength  # noqa: E402


def seven_card_hands(count: int) -> list[list[int]]:
    rng = random.Random(1)
    return [shuffled_deck(rng)[:7] for _ in range(count)]


def ours(hands) -> float:
    start = time.perf_counter()
    for cards in hands:
        hand_strength(cards)
    return len(hands) / (time.perf_counter() - start)


def pokerkit(hands) -> float:
    from pokerkit import StandardHighHand

    texts = [("".join(CARD_NAMES[c] for c in cards[:2]), "".join(CARD_NAMES[c] for c in cards[2:])) for cards in hands]
    start = time.perf_counter()
    for hole, board in texts:
        StandardHighHand.from_game(hole, board)
    return len(hands) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    hands = seven_card_hands(200_000)
    mine = statistics.median(ours(hands) for _ in range(args.repeat))
    peer = statistics.median(pokerkit(hands[:2_000]) for _ in range(args.repeat))
    print(f"eval7 (engine.evaluate) {mine:,.0f} evaluations/s, PokerKit {peer:,.0f} evaluations/s,"
          f" ratio {mine / peer:,.0f}x (median of {args.repeat} runs)")


if __name__ == "__main__":
    main()
