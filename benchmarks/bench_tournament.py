"""A whole 10,000-player tournament, simulated end to end; PokerKit replaying a sample of its hands.

Ours: ``server.simulator.simulate`` with the default structure and bot mix:
seating, every hand with the bots' decisions, breaking, balancing,
hand-for-hand and payouts, in one process on one core. The target is under
60 s for 10,000 players.

Peer, same run: PokerKit replaying the hands of a 300-player tournament with
the same structure, bots and seed, from their PHH (``HandHistory`` iteration: each hand set up and every action
applied). That is only the hand-playing part of the work, without bots or a
director, so the ratio understates our lead.

Run: .venv/bin/python benchmarks/bench_tournament.py [--players N] [--repeat R] [--sample K]
Prints the median of R runs.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.simulator import default_definition, simulate  # noqa: E402


def pokerkit_replay_rate(phhs: str, sample: int) -> float:
    """PokerKit hands/s replaying the first ``sample`` hands of a .phhs text."""
    from pokerkit import HandHistory

    warnings.filterwarnings("ignore", message="A card being dealt")
    histories = list(HandHistory.loads_all(phhs))[:sample]
    started = time.perf_counter()
    for history in histories:
        for _ in history:
            pass
    return len(histories) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample", type=int, default=2_000, help="hands PokerKit replays")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    definition = default_definition(args.players)
    walls, rates, peers = [], [], []
    for run in range(args.repeat):
        report = simulate(definition, args.players, args.seed + run)
        walls.append(report.wall_s)
        rates.append(report.hands_per_s)
        hands = io.StringIO()
        simulate(default_definition(300), 300, args.seed + run, hands_out=hands)
        peers.append(pokerkit_replay_rate(hands.getvalue(), args.sample))
        print(f"run {run + 1}: {report.hands:,} hands, {report.wall_s:.2f} s, {report.hands_per_s:,.0f} hands/s; "
              f"PokerKit replays {peers[-1]:,.0f} hands/s", flush=True)
    wall, rate, peer = statistics.median(walls), statistics.median(rates), statistics.median(peers)
    print(f"\n{args.players:,} players, median of {args.repeat}: {wall:.2f} s wall, {rate:,.0f} hands/s "
          f"(target: under 60 s)")
    print(f"PokerKit replaying the same kind of hands: {peer:,.0f} hands/s -> ours {rate / peer:.0f}x, "
          f"with bots and director included")


if __name__ == "__main__":
    main()
